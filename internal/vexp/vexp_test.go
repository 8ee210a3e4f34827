package vexp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpIsMathExp: Exp is math.Exp bit for bit, in and out of the vector
// kernel's range, at every length (the scalar tail), in place too.
func TestExpIsMathExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300, 5e-324, -708, 709, -708.0000001, 709.0000001,
		-745.2, -745.1, -800, 709.78, 709.79, 710, math.Inf(1), math.Inf(-1), math.NaN(), math.Ln2, -math.Ln2,
		0.5 * math.Ln2, 1.5 * math.Ln2, 700, -700, 1e-17, -1e-17, 2.5, -2.5}
	for n := range 70 {
		src := make([]float64, n)
		for i := range src {
			switch rng.IntN(4) {
			case 0:
				src[i] = special[rng.IntN(len(special))]
			case 1:
				src[i] = rng.NormFloat64()
			case 2:
				src[i] = (rng.Float64()*2 - 1) * 720
			default:
				src[i] = (rng.Float64()*2 - 1) * 40
			}
		}
		dst := make([]float64, n)
		Exp(dst, src)
		in := append([]float64(nil), src...)
		Exp(in, in)
		for i, x := range src {
			want := math.Float64bits(math.Exp(x))
			if math.Float64bits(dst[i]) != want || math.Float64bits(in[i]) != want {
				t.Fatalf("n = %d: Exp(%v) = %v (in place %v), math.Exp %v", n, x, dst[i], in[i], math.Exp(x))
			}
		}
	}
	// a million values across the vector range
	src := make([]float64, 1<<20)
	for i := range src {
		src[i] = (rng.Float64()*2 - 1) * 709
		if i%3 == 0 {
			src[i] = rng.NormFloat64() * 3
		}
	}
	dst := make([]float64, len(src))
	Exp(dst, src)
	for i, x := range src {
		if math.Float64bits(dst[i]) != math.Float64bits(math.Exp(x)) {
			t.Fatalf("Exp(%v) = %v, math.Exp %v", x, dst[i], math.Exp(x))
		}
	}
	t.Logf("vector kernel: %v", vector)
}

// TestSigmoid: Sigmoid is its scalar definition bit for bit (both signs,
// −0, the range ends, NaN and ±Inf), at every length and in place.
func TestSigmoid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 708, -708, 708.5, -708.5, 745, -745, 800, -800,
		math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, -1e-300, 36, -36, 37, -37}
	for n := range 70 {
		src := make([]float64, n)
		for i := range src {
			switch rng.IntN(3) {
			case 0:
				src[i] = special[rng.IntN(len(special))]
			case 1:
				src[i] = rng.NormFloat64() * 4
			default:
				src[i] = (rng.Float64()*2 - 1) * 760
			}
		}
		dst := make([]float64, n)
		Sigmoid(dst, src)
		in := append([]float64(nil), src...)
		Sigmoid(in, in)
		for i, z := range src {
			want := math.Float64bits(sigmoid(z))
			if math.Float64bits(dst[i]) != want || math.Float64bits(in[i]) != want {
				t.Fatalf("n = %d: Sigmoid(%v) = %v (in place %v), want %v", n, z, dst[i], in[i], sigmoid(z))
			}
		}
	}
}

func BenchmarkExp(b *testing.B) {
	src := make([]float64, 256)
	for i := range src {
		src[i] = float64(i)/32 - 4
	}
	dst := make([]float64, len(src))
	b.Run("vexp", func(b *testing.B) {
		for b.Loop() {
			Exp(dst, src)
		}
	})
	b.Run("math", func(b *testing.B) {
		for b.Loop() {
			for i, x := range src {
				dst[i] = math.Exp(x)
			}
		}
	})
}
