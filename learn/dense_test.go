package learn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// denseVal draws a weight or activation with magnitude over 30 decades,
// either sign, ±0 and subnormals among them.
func denseVal(rng *rand.Rand) float64 {
	v := rng.Float64() * math.Pow(10, float64(rng.IntN(31)-15))
	switch rng.IntN(12) {
	case 0:
		v = 0
	case 1:
		v = 5e-324 * float64(1+rng.IntN(1000)) // subnormal
	}
	if rng.IntN(2) == 0 {
		v = -v
	}
	return v
}

// sameFloats reports whether got and want hold the same bits, a NaN
// matching any NaN (a NaN's payload is not part of the arithmetic's
// contract).
func sameFloats(got, want []float64) bool {
	return slices.EqualFunc(got, want, func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	})
}

// TestDenseKernelsAreScalar: denseNet's forward pass over rows
// (denseRowsKernel), W2's gradient (outGradRowsKernel) and the first
// layer's gradient (firstRowsKernel) give the bits of their scalar twins
// (denseRowsScalar, outGradRowsScalar, firstRowsScalar: the canonical
// order), on random weights over 30 decades with ±0, subnormals, ±Inf and NaN,
// r = −0, inactive units, and widths below, at and above the kernels'
// blocks (4 units, 2 and 8 outputs).
func TestDenseKernelsAreScalar(t *testing.T) {
	if !simdKernels() {
		t.Skip("no vector kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		hd := []int{1, 3, 4, 5, 8, 13, 50, 64}[rng.IntN(8)]
		out := []int{1, 2, 3, 5, 6, 7, 8, 9, 16, 17}[rng.IntN(10)]
		d := newDenseNet(3, hd, out, rng)
		for k := range d.params {
			d.params[k] = denseVal(rng)
		}
		w1, _, w2, _ := d.split(d.params)
		if trial%3 == 0 {
			w1[rng.IntN(len(w1))] = math.NaN()
			w1[rng.IntN(len(w1))] = math.Inf(1 - 2*rng.IntN(2))
		}
		if trial%4 == 0 {
			w2[rng.IntN(len(w2))] = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)]
		}
		d.refresh()

		// Rows of one-hot x and r, and two-hot cells (r = 1), in one call
		// each, against the scalar twin.
		rows := 1 + rng.IntN(9)
		bo, co, rs := make([]int, rows), make([]int, rows), make([]float64, rows)
		for k := range rows {
			bo[k], co[k], rs[k] = rng.IntN(2)*d.hp, 2*d.hp, denseVal(rng)
			if k%3 == 1 {
				co[k], rs[k] = rng.IntN(3)*d.hp, 1
			}
		}
		if trial%7 == 0 {
			rs[0] = math.Copysign(0, -1)
		}
		h, got := make([]float64, rows*d.hp), make([]float64, rows*out+1)
		wantH, want := make([]float64, rows*d.hp), make([]float64, rows*out+1)
		got[rows*out], want[rows*out] = 7, 7 // past the last row: untouched
		denseRowsScalar(wantH, d.biased, d.col, bo, co, rs, d.hp, d.w2p, d.b2p, out, want)
		if !denseRowsKernel(h, d.biased, d.col, bo, co, rs, d.hp, d.w2p, d.b2p, out, got) {
			t.Fatal("denseRowsKernel declined with vector kernels in use")
		}
		if !sameFloats(h, wantH) {
			t.Fatalf("trial %d (%d units): hidden %v, scalar %v", trial, hd, h, wantH)
		}
		if !sameFloats(got, want) {
			t.Fatalf("trial %d (%d units, %d outputs): outputs %v, scalar %v", trial, hd, out, got, want)
		}

		// The backward pass of the same rows: ±0, NaN and ±Inf among the
		// output gradients, NaN, +Inf and ±0 among the activations.
		dz := make([]float64, rows*out)
		for k := range dz {
			dz[k] = denseVal(rng)
		}
		dz[rng.IntN(len(dz))] = math.Copysign(0, -1)
		if trial%5 == 0 {
			dz[rng.IntN(len(dz))] = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)]
		}
		for k := range h {
			if k%d.hp < hd && rng.IntN(3) == 0 {
				h[k] = []float64{math.NaN(), math.Inf(1), 0, math.Copysign(0, -1), -1}[rng.IntN(5)]
			}
		}
		bcol := 3 * d.hp
		gw2s, gw1t := make([]float64, out*d.hp), make([]float64, 4*d.hp)
		wantW2, wantW1 := make([]float64, out*d.hp), make([]float64, 4*d.hp)
		outGradRowsScalar(wantW2, h, dz, rows, d.hp, out)
		firstRowsScalar(wantW1, d.w2p, h, dz, bo, co, rs, d.hp, out, bcol)
		if !outGradRowsKernel(gw2s, h, dz, rows, d.hp, out) {
			t.Fatal("the W2 gradient's kernel declined with vector kernels in use")
		}
		if !firstRowsKernel(gw1t, d.w2p, h, dz, bo, co, rs, d.hp, out, bcol) {
			t.Fatal("the first layer's kernel declined with vector kernels in use")
		}
		if !sameFloats(gw2s, wantW2) {
			t.Fatalf("trial %d (%d units, %d outputs): W2's gradient %v, scalar %v", trial, hd, out, gw2s, wantW2)
		}
		if !sameFloats(gw1t, wantW1) {
			t.Fatalf("trial %d (%d units, %d outputs): W1's and B1's gradient %v, scalar %v", trial, hd, out, gw1t, wantW1)
		}
	}
}

// TestDenseNetGradient: backwardRows is the gradient of forwardRows:
// for L = Σ_k Σ_o a_k,o out_k,o over rows of one-hot x and r and two-hot
// cells, every parameter's derivative matches central differences
// (1e-6 relative to the gradient's scale), with the vector kernels and
// the scalar twins alike.
func TestDenseNetGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 20 {
		hd, out := 1+rng.IntN(13), 1+rng.IntN(10)
		d := newDenseNet(5, hd, out, rng)
		rows := 1 + rng.IntN(6)
		bo, co, rs := make([]int, rows), make([]int, rows), make([]float64, rows)
		for k := range rows {
			bo[k], co[k], rs[k] = rng.IntN(4)*d.hp, 4*d.hp, rng.NormFloat64()
			if k%2 == 1 {
				bo[k], co[k], rs[k] = rng.IntN(2)*d.hp, (2+rng.IntN(3))*d.hp, 1
			}
		}
		a := make([]float64, rows*out)
		for k := range a {
			a[k] = rng.NormFloat64()
		}
		h, y := make([]float64, rows*d.hp), make([]float64, rows*out)
		loss := func() float64 {
			d.refresh()
			d.forwardRows(bo, co, rs, h, y)
			var s float64
			for k, v := range y {
				s += a[k] * v
			}
			return s
		}
		loss()
		grad := make([]float64, len(d.params))
		d.backwardRows(bo, co, rs, h, a, grad)
		scale := 0.0
		for _, g := range grad {
			scale = max(scale, math.Abs(g))
		}
		for k := range d.params {
			const eps = 1e-6
			p := d.params[k]
			d.params[k] = p + eps
			up := loss()
			d.params[k] = p - eps
			down := loss()
			d.params[k] = p
			if fd := (up - down) / (2 * eps); math.Abs(fd-grad[k]) > 1e-6*max(scale, 1) {
				t.Fatalf("trial %d (%d units, %d outputs): parameter %d: gradient %v, central difference %v", trial, hd, out, k, grad[k], fd)
			}
		}
	}
}

// BenchmarkDenseKernels compares denseNet's vector kernels with their
// scalar twins on the quick run's privatizer (50 hidden units, six
// outputs, about half the units active): the forward pass of a minibatch
// of 200 rows, the backward pass of one row.
func BenchmarkDenseKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := newDenseNet(7, 50, 6, rng)
	const rows = 200
	bo, co, rs := make([]int, rows), make([]int, rows), make([]float64, rows)
	for k := range rows {
		bo[k], co[k], rs[k] = rng.IntN(6)*d.hp, 6*d.hp, rng.NormFloat64()
	}
	hs, outs := make([]float64, rows*d.hp), make([]float64, rows*6)
	b.Run("forward/kernel", func(b *testing.B) {
		for b.Loop() {
			denseRowsKernel(hs, d.biased, d.col, bo, co, rs, d.hp, d.w2p, d.b2p, 6, outs)
		}
	})
	b.Run("forward/scalar", func(b *testing.B) {
		for b.Loop() {
			denseRowsScalar(hs, d.biased, d.col, bo, co, rs, d.hp, d.w2p, d.b2p, 6, outs)
		}
	})
	dz := make([]float64, rows*6)
	for k := range dz {
		dz[k] = 0.1 * rng.NormFloat64()
	}
	gw2s, gw1t := make([]float64, 6*d.hp), make([]float64, 8*d.hp)
	b.Run("backward/kernel", func(b *testing.B) {
		for b.Loop() {
			outGradRowsKernel(gw2s, hs, dz, rows, d.hp, 6)
			firstRowsKernel(gw1t, d.w2p, hs, dz, bo, co, rs, d.hp, 6, 7*d.hp)
		}
	})
	b.Run("backward/scalar", func(b *testing.B) {
		for b.Loop() {
			outGradRowsScalar(gw2s, hs, dz, rows, d.hp, 6)
			firstRowsScalar(gw1t, d.w2p, hs, dz, bo, co, rs, d.hp, 6, 7*d.hp)
		}
	})
}
