package learn

import (
	"math/rand/v2"
	"testing"
)

// kernelCase is one network's minibatch in the paper's shape: 2 inputs, 50
// hidden units, 200 rows, feature-major.
type kernelCase struct {
	n, I, H                int
	in, w1, b1, w2, h, out []float64
	dOut, grad, v, d, p    []float64
	b2                     float64
}

func newKernelCase() *kernelCase {
	rng := rand.New(rand.NewPCG(1, 2))
	k := &kernelCase{n: 200, I: 2, H: 50}
	randn := func(m int) []float64 {
		s := make([]float64, m)
		for i := range s {
			s[i] = rng.NormFloat64()
		}
		return s
	}
	k.in, k.w1, k.b1, k.w2 = randn(k.I*k.n), randn(k.I*k.H), randn(k.H), randn(k.H)
	k.dOut, k.v = randn(k.n), randn(k.H)
	k.h, k.out, k.d = make([]float64, k.H*k.n), make([]float64, k.n), make([]float64, k.n)
	k.grad = make([]float64, k.I*k.H+2*k.H+1)
	k.p = append(append(append(append([]float64(nil), k.w1...), k.b1...), k.w2...), k.b2)
	forwardRows(k.in, k.n, 0, k.I, k.H, k.w1, k.b1, k.w2, k.b2, k.h, k.out)
	return k
}

func BenchmarkKernelForward(b *testing.B) {
	k := newKernelCase()
	for b.Loop() {
		forwardKernel(k.p, k.I, k.H, k.in, k.n, k.h, k.out)
	}
}

func BenchmarkKernelForwardScalar(b *testing.B) {
	k := newKernelCase()
	for b.Loop() {
		k.p = append(append(append(append([]float64(nil), k.w1...), k.b1...), k.w2...), k.b2)
		forwardRows(k.in, k.n, 0, k.I, k.H, k.w1, k.b1, k.w2, k.b2, k.h, k.out)
	}
}

func BenchmarkKernelParamGrad(b *testing.B) {
	k := newKernelCase()
	for b.Loop() {
		paramGradKernel(false, k.p, k.I, k.H, k.in, k.h, k.out, k.dOut, k.n, k.grad)
	}
}

func BenchmarkKernelParamGradScalar(b *testing.B) {
	k := newKernelCase()
	for b.Loop() {
		paramGradRows(false, k.in, k.h, k.out, k.dOut, k.n, k.I, k.H, k.w2, k.grad)
	}
}

func BenchmarkKernelInputGrad(b *testing.B) {
	k := newKernelCase()
	for b.Loop() {
		inputGradKernel(false, k.p, k.I, k.H, 0, k.h, k.out, k.dOut, k.n, k.v, k.d)
	}
}

func BenchmarkKernelInputGradScalar(b *testing.B) {
	k := newKernelCase()
	for b.Loop() {
		inputGradRows(false, k.h, k.out, k.dOut, k.n, 0, k.H, k.v, k.d)
	}
}
