package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
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

// The same three kernels on gonum's BLAS (blas64: Dgemm, Dgemv), for the
// side-by-side benchmark that decides which the trainer uses (docs/learn.md).
// They sum in BLAS order, not the canonical one, so they are compared with
// the canonical kernels to a tolerance.

// forwardGonum: pre = W1ᵀ·X (Dgemm, H×n) with the bias, ReLU in a loop, and
// out = Hᵀ·w2 + b2 (Dgemv).
func forwardGonum(k *kernelCase) {
	n, I, H := k.n, k.I, k.H
	for j := range H {
		row := k.h[j*n : j*n+n]
		for r := range row {
			row[r] = k.b1[j]
		}
	}
	hm := blas64.General{Rows: H, Cols: n, Stride: n, Data: k.h}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1,
		blas64.General{Rows: I, Cols: H, Stride: H, Data: k.w1},
		blas64.General{Rows: I, Cols: n, Stride: n, Data: k.in}, 1, hm)
	for i, v := range k.h[:H*n] {
		k.h[i] = max(v, 0)
	}
	for r := range k.out[:n] {
		k.out[r] = k.b2
	}
	blas64.Gemv(blas.Trans, 1, hm, blas64.Vector{N: H, Inc: 1, Data: k.w2}, 1, blas64.Vector{N: n, Inc: 1, Data: k.out})
}

// paramGradGonum: G = [h > 0]·(w2 ⊗ dz) in a loop, gW1 = X·Gᵀ (Dgemm),
// gb1 = G·1 and gw2 = H·dz (Dgemv), gb2 = Σ dz.
func paramGradGonum(k *kernelCase, g, ones []float64) {
	n, I, H := k.n, k.I, k.H
	for j := range H {
		hj, gj := k.h[j*n:j*n+n], g[j*n:j*n+n]
		for r := range gj {
			gj[r] = gate(k.dOut[r]*k.w2[j], hj[r])
		}
	}
	gm := blas64.General{Rows: H, Cols: n, Stride: n, Data: g}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1,
		blas64.General{Rows: I, Cols: n, Stride: n, Data: k.in}, gm, 0,
		blas64.General{Rows: I, Cols: H, Stride: H, Data: k.grad[:I*H]})
	blas64.Gemv(blas.NoTrans, 1, gm, blas64.Vector{N: n, Inc: 1, Data: ones}, 0, blas64.Vector{N: H, Inc: 1, Data: k.grad[I*H:]})
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: H, Cols: n, Stride: n, Data: k.h},
		blas64.Vector{N: n, Inc: 1, Data: k.dOut}, 0, blas64.Vector{N: H, Inc: 1, Data: k.grad[I*H+H:]})
	k.grad[I*H+2*H] = floats.Sum(k.dOut[:n])
}

// inputGradGonum: M = [h > 0] in a loop, d = dz ⊙ (Mᵀ·v) (Dgemv, floats.Mul).
func inputGradGonum(k *kernelCase, mask []float64) {
	n, H := k.n, k.H
	for i, hv := range k.h[:H*n] {
		mask[i] = gate(1, hv)
	}
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: H, Cols: n, Stride: n, Data: mask},
		blas64.Vector{N: H, Inc: 1, Data: k.v}, 0, blas64.Vector{N: n, Inc: 1, Data: k.d})
	floats.Mul(k.d[:n], k.dOut[:n])
}

// TestGonumKernelsAgree checks the gonum versions against the canonical
// kernels (different summation order: agreement to 1e-12 relative).
func TestGonumKernelsAgree(t *testing.T) {
	k := newKernelCase()
	// newKernelCase ran forwardRows with b2 = 0.
	wantH, wantOut := append([]float64(nil), k.h...), append([]float64(nil), k.out...)
	k.b2 = 0.25
	for r := range wantOut {
		wantOut[r] += 0.25
	}
	forwardGonum(k)
	closeTo(t, "forward h", k.h, wantH)
	closeTo(t, "forward out", k.out, wantOut)

	want := make([]float64, len(k.grad))
	paramGradRows(false, k.in, k.h, k.out, k.dOut, k.n, k.I, k.H, k.w2, want)
	ones := make([]float64, k.n)
	for r := range ones {
		ones[r] = 1
	}
	paramGradGonum(k, make([]float64, k.H*k.n), ones)
	closeTo(t, "parameter gradient", k.grad, want)

	wantD := make([]float64, k.n)
	inputGradRows(false, k.h, k.out, k.dOut, k.n, 0, k.H, k.v, wantD)
	inputGradGonum(k, make([]float64, k.H*k.n))
	closeTo(t, "input gradient", k.d, wantD)
}

func closeTo(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*max(1, math.Abs(want[i])) {
			t.Errorf("%s[%d] = %v, canonical %v", what, i, got[i], want[i])
			return
		}
	}
}

func BenchmarkKernelForwardGonum(b *testing.B) {
	k := newKernelCase()
	for b.Loop() {
		forwardGonum(k)
	}
}

func BenchmarkKernelParamGradGonum(b *testing.B) {
	k := newKernelCase()
	g, ones := make([]float64, k.H*k.n), make([]float64, k.n)
	for r := range ones {
		ones[r] = 1
	}
	for b.Loop() {
		paramGradGonum(k, g, ones)
	}
}

func BenchmarkKernelInputGradGonum(b *testing.B) {
	k := newKernelCase()
	mask := make([]float64, k.H*k.n)
	for b.Loop() {
		inputGradGonum(k, mask)
	}
}
