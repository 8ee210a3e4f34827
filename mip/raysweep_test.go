package mip

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/internal/sweep"
)

// TestRaySweepMatchesSolve: the ray LP's optimum proven from its pieces
// equals a fresh solve at every threshold (to 1e-9), from below D_min to
// beyond D_max, on the examples and random models with n ≤ 4 (12 under
// -tags slow, the first 4 in make test); every
// point at or above D_min is proven from the pieces, and the mechanisms
// are privatizers whose recomputed losses meet D.
func TestRaySweepMatchesSolve(t *testing.T) {
	models := []Finite{PaperBinary().Finite(), loadExample(t, "finite-ternary.json")}
	rng := rand.New(rand.NewPCG(35, 4))
	n := 12
	if !slow {
		n = 4
	}
	for range n {
		m, err := RandomFinite(rng, 2+rng.IntN(3), 1+rng.IntN(3))
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	for i, m := range models {
		g := mustGlobal(t, m)
		ds := sweep.Spec{D0: math.Max(0, m.DMin()-0.01), D1: 1.1 * m.DMax(), N: 41}.Values()
		rs, err := g.newRaySweep(context.Background(), ds[0], ds[len(ds)-1], DefaultSolver())
		if err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		below := 0
		for _, d := range ds {
			if d < m.DMin()-1e-12 {
				below++
				continue
			}
			got, err := rs.point(context.Background(), d, func() (FiniteOptimum, error) { return g.Solve(d, DefaultSolver()) })
			if err != nil {
				t.Fatalf("model %d D=%g: %v", i, d, err)
			}
			want, err := g.Solve(d, DefaultSolver())
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.MinAdv-want.MinAdv) > 1e-9 || got.Upper < got.MinAdv-1e-12 || got.Recon > d+1e-9 {
				t.Errorf("model %d D=%g: min L_adv %.15g (upper %.15g, L_recon %.15g), solve %.15g", i, d, got.MinAdv, got.Upper, got.Recon, want.MinAdv)
			}
			for x, row := range got.Mechanism {
				var s float64
				for _, v := range row {
					s += v
				}
				if math.Abs(s-1) > 1e-12 {
					t.Errorf("model %d D=%g: row %d of the mechanism sums to %v", i, d, x, s)
				}
			}
		}
		if rs.solved != 0 {
			t.Errorf("model %d: %d of %d feasible points solved by themselves", i, rs.solved, len(ds)-below)
		}
	}
}

// BenchmarkFiniteSweep is a ray-LP sweep of the ternary example (SolveFinite,
// as mmds finite runs it) over n thresholds.
func BenchmarkFiniteSweep(b *testing.B) {
	m := loadExample(b, "finite-ternary.json")
	for _, n := range []int{30, 10_000} {
		ds := sweep.Spec{D0: m.DMin(), D1: m.DMax(), N: n}.Values()
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := m.SolveFinite(context.Background(), ds, FiniteSolveOptions{Solver: DefaultSolver()}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ds)), "ns/point")
		})
	}
}
