package bayes

import (
	"math"
	"math/rand/v2"
	"testing"
)

// faceTerms (faceTerms4 on blocks of four where the CPU has it) against
// faceTermsScalar, bit for bit, on random inputs of both signs (the
// clamps of t0 and t2 taken), nodes left at 0 (no contribution) and every
// length up to 13.
func TestFaceTermsMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		n := trial % 14
		cols := make([][]float64, 16)
		for k := range cols {
			cols[k] = make([]float64, n)
			for i := range n {
				switch k {
				case 3, 4, 5, 6, 7, 8, 9: // base, p1, p2, m1, m2, e1, e2
					cols[k][i] = rng.Float64() * math.Exp(-20*rng.Float64())
					if k == 4 || k == 5 {
						cols[k][i] -= 0.5 * rng.Float64()
					}
				default:
					cols[k][i] = 10 * (rng.Float64() - 0.5)
				}
				if rng.IntN(8) == 0 && k >= 3 {
					cols[k][i] = 0
				}
			}
		}
		ref := make([][]float64, 3)
		for k := range ref {
			ref[k] = append([]float64(nil), cols[k]...)
		}
		pref, sd := rng.Float64(), 2*rng.Float64()
		faceTerms(cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8], cols[9], cols[10], cols[11], cols[12], pref, sd)
		faceTermsScalar(ref[0], ref[1], ref[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8], cols[9], cols[10], cols[11], cols[12], pref, sd, 0)
		for k := range ref {
			for i := range n {
				if math.Float64bits(cols[k][i]) != math.Float64bits(ref[k][i]) {
					t.Fatalf("trial %d, n %d: output %d at node %d = %v, scalar %v", trial, n, k, i, cols[k][i], ref[k][i])
				}
			}
		}
	}
}
