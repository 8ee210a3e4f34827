package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernelsCanonical checks that the kernels in use (the vector kernels in
// a GOEXPERIMENT=simd build on a CPU with AVX2 and FMA) give exactly the
// bits of the canonical scalar kernels of kernel.go, over random networks and
// batch sizes around the eight-row blocks. In the portable build both sides
// are the scalar kernels.
func TestKernelsCanonical(t *testing.T) {
	t.Logf("vector kernels in use: %v", simdKernels())
	rng := rand.New(rand.NewPCG(7, 8))
	for _, I := range []int{1, 2, 3} {
		for _, n := range []int{1, 7, 8, 9, 16, 23, 24, 40, 47, 200} {
			for _, sig := range []bool{false, true} {
				H := 1 + rng.IntN(60)
				name := fmt.Sprintf("I=%d/n=%d/H=%d/sig=%v", I, n, H, sig)
				randn := func(k int, s float64) []float64 {
					v := make([]float64, k)
					for i := range v {
						v[i] = s * rng.NormFloat64()
					}
					return v
				}
				in, w1, b1, w2 := randn(I*n, 3), randn(I*H, 1), randn(H, 1), randn(H, 1)
				b2 := rng.NormFloat64()
				h1, h2 := make([]float64, H*n), make([]float64, H*n)
				o1, o2 := make([]float64, n), make([]float64, n)
				p := append(append(append(append([]float64(nil), w1...), b1...), w2...), b2)
				forwardKernel(p, I, H, in, n, h1, o1)
				forwardRows(in, n, 0, I, H, w1, b1, w2, b2, h2, o2)
				same(t, name+"/h", h1, h2)
				same(t, name+"/out", o1, o2)
				if sig {
					for r := range o1 {
						o1[r] = sigmoid(o1[r])
					}
				}
				dOut := randn(n, 1)
				g1, g2 := make([]float64, I*H+2*H+1), make([]float64, I*H+2*H+1)
				paramGradKernel(sig, p, I, H, in, h1, o1, dOut, n, g1)
				paramGradRows(sig, in, h1, o1, dOut, n, I, H, w2, g2)
				same(t, name+"/grad", g1, g2)
				for col := range I {
					v := make([]float64, H)
					for j := range v {
						v[j] = w2[j] * w1[col*H+j]
					}
					d1, d2 := make([]float64, n), make([]float64, n)
					inputGradKernel(sig, p, I, H, col, h1, o1, dOut, n, v, d1)
					inputGradRows(sig, h1, o1, dOut, n, 0, H, v, d2)
					same(t, fmt.Sprintf("%s/dIn%d", name, col), d1, d2)
				}
			}
		}
	}
}

func same(t *testing.T, what string, a, b []float64) {
	t.Helper()
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			t.Errorf("%s[%d]: %v vs canonical %v", what, k, a[k], b[k])
			return
		}
	}
}
