package learn

import (
	"fmt"
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

// TestDenseKernelsAreScalar: denseNet's first layer with its active units
// (hiddenKernel), output layer (secondKernel), both in one pass
// (denseForwardKernel, through forwardSparse), the output layer's
// backward pass (backwardKernel) and the first layer's gradient
// (firstGradKernel, through backwardSparse) give the bits of the
// scalar loops, relu(B1[j] + W1[j][x] + r·W1[j][n]) unit by unit and each
// output's sum over the active units in order, on random weights over 30
// decades with ±0, subnormals, ±Inf and NaN in the first layer, inactive
// units, and widths below, at and above the kernels' (4 units, 8 outputs).
func TestDenseKernelsAreScalar(t *testing.T) {
	if !simdKernels() {
		t.Skip("no vector kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		hd := []int{1, 3, 4, 5, 8, 13, 50, 64}[rng.IntN(8)]
		out := []int{1, 2, 5, 6, 8, 9, 16, 17}[rng.IntN(8)]
		d := newDenseNet(3, hd, out, rng)
		for k := range d.params {
			d.params[k] = denseVal(rng)
		}
		w1, _, _, _ := d.split(d.params)
		if trial%3 == 0 {
			w1[rng.IntN(len(w1))] = math.NaN()
			w1[rng.IntN(len(w1))] = math.Inf(1 - 2*rng.IntN(2))
		}
		d.refresh()
		x, r := rng.IntN(2), denseVal(rng)
		if trial%7 == 0 {
			r = math.Copysign(0, -1)
		}

		// The scalar loops: relu unit by unit, skipRelu, secondActive.
		biased, col := d.biased[x*hd:x*hd+hd], d.col[2*hd:2*hd+hd]
		wantH := make([]float64, hd)
		for j := range wantH {
			wantH[j] = relu(biased[j] + float64(r*col[j]))
		}
		wantAct := slices.Clone(d.skipRelu(wantH))
		wantOut := make([]float64, out)
		d.secondActive(wantH, wantAct, wantOut)

		h, got := make([]float64, hd), make([]float64, out)
		d.forwardSparse(x, 2, r, h, got)
		if !sameFloats(h, wantH) {
			t.Fatalf("trial %d (%d units): hidden %v, scalar %v", trial, hd, h, wantH)
		}
		act := make([]int, hd)
		done, k := hiddenKernel(h, biased, col, r, act)
		if want := hd &^ 3; done != want {
			t.Fatalf("trial %d: hiddenKernel did %d units, want %d", trial, done, want)
		}
		if n := len(slices.DeleteFunc(slices.Clone(wantAct), func(j int) bool { return j >= done })); !slices.Equal(act[:k], wantAct[:n]) {
			t.Fatalf("trial %d: active units %v, scalar %v", trial, act[:k], wantAct[:n])
		}
		if !sameFloats(got, wantOut) {
			t.Fatalf("trial %d (%d units, %d outputs): outputs %v, scalar %v", trial, hd, out, got, wantOut)
		}

		// The two-hot pass: forwardSparse's kernel with r = 1.
		for j := range wantH {
			wantH[j] = relu(biased[j] + col[j])
		}
		d.secondActive(wantH, slices.Clone(d.skipRelu(wantH)), wantOut)
		d.forwardTwoHot(x, 2, h, got)
		if !sameFloats(h, wantH) || !sameFloats(got, wantOut) {
			t.Fatalf("trial %d (%d units, %d outputs): two-hot hidden %v outputs %v, scalar %v %v", trial, hd, out, h, got, wantH, wantOut)
		}

		// The output layer alone, on activations with +Inf and NaN units.
		for j := range h {
			h[j] = max(0, denseVal(rng))
		}
		h[rng.IntN(hd)] = math.Inf(1)
		if trial%2 == 0 {
			h[rng.IntN(hd)] = math.NaN()
		}
		act = d.skipRelu(h)
		d.secondActive(h, act, wantOut)
		if !secondKernel(got, d.params[len(d.params)-out:], d.w2t, h, act, &d.acc) {
			t.Fatal("secondKernel declined with vector kernels in use")
		}
		if !sameFloats(got, wantOut) {
			t.Fatalf("trial %d (%d units, %d outputs): %s outputs %v, scalar %v", trial, hd, out, fmt.Sprint(act), got, wantOut)
		}

		// The output layer's backward pass: ±0, NaN and ±Inf among the
		// output gradients, onto a gradient with ±0 and NaN entries.
		dz := make([]float64, out)
		for o := range dz {
			dz[o] = denseVal(rng)
		}
		dz[rng.IntN(out)] = math.Copysign(0, -1)
		if trial%5 == 0 {
			dz[rng.IntN(out)] = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)]
		}
		grad := make([]float64, len(d.params))
		for k := range grad {
			grad[k] = denseVal(rng)
		}
		grad[rng.IntN(len(grad))] = math.Copysign(0, -1)
		wantGrad := slices.Clone(grad)
		d.backwardOut(h, dz, wantGrad)
		wantGH := slices.Clone(d.hiddenGrads(dz))
		gh := d.backwardOutGrads(h, dz, grad)
		if !sameFloats(grad, wantGrad) {
			t.Fatalf("trial %d (%d units, %d outputs): output layer's gradient %v, scalar %v", trial, hd, out, grad, wantGrad)
		}
		if !sameFloats(gh, wantGH) {
			t.Fatalf("trial %d (%d units, %d outputs): hidden units' gradients %v, scalar %v", trial, hd, out, gh, wantGH)
		}

		// The whole backward pass of two rows with the first layer's
		// gradient by column (firstGradKernel, flushFirst), W1's part from
		// +0, against the scalar loop over the units with h[j] > 0.
		clear(grad[:hd*3])
		wantGrad = slices.Clone(grad)
		for _, x := range []int{x, 1 - x} {
			for j := range h {
				h[j] = relu(denseVal(rng))
			}
			h[rng.IntN(hd)] = math.NaN()
			r := denseVal(rng)
			d.backwardOut(h, dz, wantGrad)
			wgh := d.hiddenGrads(dz)
			gw1, gb1, _, _ := d.split(wantGrad)
			for j, hv := range h {
				if hv <= 0 {
					continue
				}
				gb1[j] += wgh[j]
				gw1[j*3+x] += wgh[j]
				gw1[j*3+2] += float64(wgh[j] * r)
			}
			d.backwardSparse(x, 2, r, h, dz, grad)
		}
		d.flushFirst(grad)
		if !sameFloats(grad, wantGrad) {
			t.Fatalf("trial %d (%d units, %d outputs): backwardSparse's gradient %v, scalar %v", trial, hd, out, grad, wantGrad)
		}
	}
}

// BenchmarkDenseKernels compares denseNet's vector kernels with their
// scalar twins on the quick run's privatizer (50 hidden units, six
// outputs, about half the units active).
func BenchmarkDenseKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := newDenseNet(7, 50, 6, rng)
	h, out, act := make([]float64, 50), make([]float64, 6), make([]int, 50)
	biased, col := d.biased[2*50:3*50], d.col[6*50:7*50]
	r := 0.3
	hiddenScalar := func() int {
		for j := range h {
			h[j] = relu(biased[j] + float64(r*col[j]))
		}
		return len(d.skipRelu(h))
	}
	k := hiddenScalar()
	copy(act, d.active[:k])
	b.Run("hidden/kernel", func(b *testing.B) {
		for b.Loop() {
			hiddenKernel(h, biased, col, r, act)
		}
	})
	b.Run("hidden/scalar", func(b *testing.B) {
		for b.Loop() {
			hiddenScalar()
		}
	})
	b.Run("forward/kernel", func(b *testing.B) {
		for b.Loop() {
			d.forwardSparse(2, 6, r, h, out)
		}
	})
	b.Run("forward/scalar", func(b *testing.B) {
		for b.Loop() {
			d.secondActive(h, act[:hiddenScalar()], out)
		}
	})
	b.Run("second/kernel", func(b *testing.B) {
		for b.Loop() {
			secondKernel(out, d.params[len(d.params)-6:], d.w2t, h, act[:k], &d.acc)
		}
	})
	b.Run("second/scalar", func(b *testing.B) {
		for b.Loop() {
			d.secondActive(h, act[:k], out)
		}
	})
	grad, dz := make([]float64, len(d.params)), []float64{0.1, -0.2, 0.05, 0.3, -0.15, -0.1}
	b.Run("backward/kernel", func(b *testing.B) {
		for b.Loop() {
			d.backwardOutGrads(h, dz, grad)
		}
	})
	b.Run("backward/scalar", func(b *testing.B) {
		for b.Loop() {
			d.backwardOut(h, dz, grad)
			d.hiddenGrads(dz)
		}
	})
	gh := slices.Clone(d.hiddenGrads(dz))
	gb1, gx, gn := make([]float64, 50), make([]float64, 50), make([]float64, 50)
	b.Run("firstGrad/kernel", func(b *testing.B) {
		for b.Loop() {
			firstGradKernel(gb1, gx, gn, gh, h, r)
		}
	})
	b.Run("firstGrad/scalar", func(b *testing.B) {
		for b.Loop() {
			for j, hv := range h {
				if hv <= 0 {
					continue
				}
				gb1[j] += gh[j]
				gx[j] += gh[j]
				gn[j] += float64(gh[j] * r)
			}
		}
	})
}
