package learn

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mmds-project/mmds/network"
	"gonum.org/v1/gonum/floats"
)

// denseNet is an MLP with several outputs, In → Hidden ReLU → Out
// (identity; the caller applies the softmax), for Algorithm 1 on a finite
// X, whose inputs are one-hot codes: its forward and backward passes take
// the active columns instead of a dense input. The layout is
//
//	W1 [Hidden][In]  B1 [Hidden]  W2 [Out][Hidden]  B2 [Out]
//
// (PyTorch's Linear.weight order), initialized as NewMLP: U(±1/√fan_in),
// drawn in the order W1, B1, W2, B2.
//
// The forward passes read tables derived from the parameters, so every
// change of params must be followed by refresh.
type denseNet struct {
	in, hidden, out int
	params          []float64
	// Derived by refresh: per input column c, col[c*hidden+j] = W1[j][c]
	// and biased[c*hidden+j] = B1[j] + W1[j][c] (the first add of every
	// pre-activation), W2 by hidden unit, w2t[j*out+o] = W2[o][j] (eight
	// zeros past the end for secondKernel's last block), and
	// whether W2 is finite (skipRelu).
	col, biased, w2t []float64
	finite           bool
	active           []int      // scratch: the active hidden units of a forward pass
	gh               []float64  // scratch: the gradient at the hidden units' outputs
	acc              [8]float64 // scratch: secondKernel's block of outputs
	gw1t             []float64  // backwardSparse's W1 gradient by input column, gw1t[c*hidden+j]
}

func newDenseNet(in, hidden, out int, rng *rand.Rand) *denseNet {
	d := &denseNet{in: in, hidden: hidden, out: out, params: make([]float64, hidden*in+hidden+out*hidden+out)}
	b1, b2 := 1/math.Sqrt(float64(in)), 1/math.Sqrt(float64(hidden))
	k := hidden*in + hidden
	for j := range d.params {
		b := b1
		if j >= k {
			b = b2
		}
		d.params[j] = b * (2*rng.Float64() - 1)
	}
	d.col, d.biased, d.w2t = make([]float64, in*hidden), make([]float64, in*hidden), make([]float64, hidden*out+8)
	d.active, d.gh, d.gw1t = make([]int, hidden), make([]float64, hidden), make([]float64, in*hidden)
	d.refresh()
	return d
}

// refresh recomputes the tables the forward passes read from params.
func (d *denseNet) refresh() {
	w1, b1, w2, _ := d.split(d.params)
	hd := d.hidden
	for c := range d.in {
		col, biased := d.col[c*hd:c*hd+hd], d.biased[c*hd:c*hd+hd]
		for j := range col {
			col[j] = w1[j*d.in+c]
			biased[j] = b1[j] + col[j]
		}
	}
	d.finite = true
	for k, w := range w2 {
		d.w2t[k%hd*d.out+k/hd] = w
		if math.IsInf(w, 0) || math.IsNaN(w) {
			d.finite = false
		}
	}
}

func (d *denseNet) split(p []float64) (w1, b1, w2, b2 []float64) {
	a := d.hidden * d.in
	b := a + d.hidden
	c := b + d.out*d.hidden
	return p[:a], p[a:b], p[b:c], p[c:]
}

// forwardSparse evaluates the network on one-hot column x (of the first
// n inputs) and the real input r in column n.
func (d *denseNet) forwardSparse(x, n int, r float64, h, out []float64) {
	hd := d.hidden
	h = h[:hd]
	biased, col := d.biased[x*hd:x*hd+hd], d.col[n*hd:n*hd+hd]
	if d.finite {
		_, _, _, b2 := d.split(d.params)
		if denseForwardKernel(h, biased, col, r, d.active, d.w2t, b2, out[:d.out]) {
			return
		}
	}
	w, k := hiddenKernel(h, biased, col, r, d.active)
	// B1[j] + W1[j][x] + r·W1[j][n], in that order, past the kernel's
	// units: gonum's axpy multiplies, then adds, unfused, as the scalar
	// expression does
	floats.AddScaledTo(h[w:], biased[w:], r, col[w:])
	k = reluActive(h, w, d.active, k)
	d.secondOver(h, d.active[:k], out)
}

// forwardTwoHot evaluates the network on the input with ones in columns a
// and b and zeros elsewhere.
func (d *denseNet) forwardTwoHot(a, b int, h, out []float64) {
	hd := d.hidden
	h = h[:hd]
	biased, col := d.biased[a*hd : a*hd+hd][:len(h)], d.col[b*hd : b*hd+hd][:len(h)]
	if d.finite {
		// forwardSparse's kernel with r = 1: 1·W1[j][b] is W1[j][b]
		_, _, _, b2 := d.split(d.params)
		if denseForwardKernel(h, biased, col, 1, d.active, d.w2t, b2, out[:d.out]) {
			return
		}
	}
	for j := range h {
		h[j] = relu(biased[j] + col[j]) // B1[j] + W1[j][a] + W1[j][b]
	}
	d.second(h, out)
}

// second computes out = B2 + W2·h, each output's sum in the order of the
// hidden units, four outputs at a time (four independent chains of adds
// where one would wait on each add), over the active units only when W2
// is finite (skipRelu).
func (d *denseNet) second(h, out []float64) {
	d.secondOver(h, d.skipRelu(h), out)
}

// secondOver is second with the active units of h (skipRelu) given.
func (d *denseNet) secondOver(h []float64, act []int, out []float64) {
	_, _, w2, b2 := d.split(d.params)
	hd := d.hidden
	h = h[:hd]
	out = out[:d.out]
	if !d.finite {
		for o := range out {
			row := w2[o*hd : o*hd+hd][:len(h)]
			s := b2[o]
			for j, hv := range h {
				s += float64(row[j] * hv)
			}
			out[o] = s
		}
		return
	}
	if !secondKernel(out, b2, d.w2t, h, act, &d.acc) {
		d.secondActive(h, act, out)
	}
}

// secondActive is second's sum over the active units act of h (W2
// finite), four outputs at a time (four independent chains of adds where
// one would wait on each add), each in the order of act: the scalar twin
// of secondKernel.
func (d *denseNet) secondActive(h []float64, act []int, out []float64) {
	_, _, w2, b2 := d.split(d.params)
	hd := d.hidden
	o := 0
	for ; o+4 <= len(out); o += 4 {
		r0 := w2[o*hd : o*hd+hd][:len(h)]
		r1 := w2[(o+1)*hd : (o+1)*hd+hd][:len(h)]
		r2 := w2[(o+2)*hd : (o+2)*hd+hd][:len(h)]
		r3 := w2[(o+3)*hd : (o+3)*hd+hd][:len(h)]
		s0, s1, s2, s3 := b2[o], b2[o+1], b2[o+2], b2[o+3]
		for _, j := range act {
			hv := h[j]
			s0 += float64(r0[j] * hv)
			s1 += float64(r1[j] * hv)
			s2 += float64(r2[j] * hv)
			s3 += float64(r3[j] * hv)
		}
		out[o], out[o+1], out[o+2], out[o+3] = s0, s1, s2, s3
	}
	for ; o+2 <= len(out); o += 2 {
		r0 := w2[o*hd : o*hd+hd][:len(h)]
		r1 := w2[(o+1)*hd : (o+1)*hd+hd][:len(h)]
		s0, s1 := b2[o], b2[o+1]
		for _, j := range act {
			hv := h[j]
			s0 += float64(r0[j] * hv)
			s1 += float64(r1[j] * hv)
		}
		out[o], out[o+1] = s0, s1
	}
	if o < len(out) {
		r0 := w2[o*hd : o*hd+hd][:len(h)]
		s0 := b2[o]
		for _, j := range act {
			s0 += float64(r0[j] * h[j])
		}
		out[o] = s0
	}
}

// reluActive applies relu to h[from:] in place and appends its active
// units (those skipRelu keeps) to act[:k], returning the new count.
func reluActive(h []float64, from int, act []int, k int) int {
	for j := from; j < len(h); j++ {
		hv := relu(h[j])
		h[j] = hv
		act[k] = j
		b := math.Float64bits(hv)
		k += int((b | -b) >> 63)
	}
	return k
}

// skipRelu returns the hidden units whose activation is not +0, in order.
// A unit at +0 adds W2[o][j]·(+0) = ±0 to each output's sum, which with a
// finite weight changes the sum at most in the sign of a zero sum, and
// softmax(out) not at all (exp(±0 − m) = exp(−m)): the caller's softmax is
// bit for bit the one of the full sum. ReLU writes +0, never −0, for an
// inactive unit.
func (d *denseNet) skipRelu(h []float64) []int {
	act := d.active[:len(h)]
	k := 0
	for j, hv := range h {
		act[k] = j
		b := math.Float64bits(hv)
		k += int((b | -b) >> 63) // 1 unless hv is +0, without a branch
	}
	return act[:k]
}

// backwardSparse adds the parameter gradient of the row forwardSparse(x,
// n, r) evaluated (hidden activations h) for output gradient dz into grad,
// W1's part into the scratch gw1t by input column (contiguous over the
// hidden units), which flushFirst then moves into grad: grad's W1 part
// must be +0 until then, as gw1t's is (each entry the same sum from +0 in
// the same order of rows).
func (d *denseNet) backwardSparse(x, n int, r float64, h, dz, grad []float64) {
	gh := d.backwardOutGrads(h, dz, grad)
	_, gb1, _, _ := d.split(grad)
	hd := d.hidden
	h = h[:hd]
	gx, gn := d.gw1t[x*hd:x*hd+hd], d.gw1t[n*hd:n*hd+hd]
	w := firstGradKernel(gb1, gx, gn, gh, h, r)
	for j := w; j < hd; j++ {
		if h[j] <= 0 {
			continue // ReLU's derivative at 0 is 0, as autograd's
		}
		s := gh[j]
		gb1[j] += s
		gx[j] += s
		gn[j] += float64(s * r)
	}
}

// flushFirst moves W1's gradient accumulated by backwardSparse into grad
// (W1[j][c] = gw1t[c][j]) and clears gw1t.
func (d *denseNet) flushFirst(grad []float64) {
	gw1, _, _, _ := d.split(grad)
	hd := d.hidden
	for c := range d.in {
		col := d.gw1t[c*hd : c*hd+hd]
		for j, v := range col {
			gw1[j*d.in+c] = v
		}
		clear(col)
	}
}

// backwardTwoHot is backwardSparse for forwardTwoHot(a, b).
func (d *denseNet) backwardTwoHot(a, b int, h, dz, grad []float64) {
	gh := d.backwardOutGrads(h, dz, grad)
	gw1, gb1, _, _ := d.split(grad)
	for j, hv := range h[:d.hidden] {
		if hv <= 0 {
			continue
		}
		s := gh[j]
		gb1[j] += s
		row := gw1[j*d.in : j*d.in+d.in]
		row[a] += s
		row[b] += s
	}
}

// backwardOutGrads is backwardOut, then hiddenGrads, the leading hidden
// units through backwardKernel.
func (d *denseNet) backwardOutGrads(h, dz, grad []float64) []float64 {
	_, _, gw2, gb2 := d.split(grad)
	_, _, w2, _ := d.split(d.params)
	hd := d.hidden
	h, dz = h[:hd], dz[:d.out]
	w := backwardKernel(gw2, w2, h, dz, d.gh)
	if w == 0 {
		d.backwardOut(h, dz, grad)
		return d.hiddenGrads(dz)
	}
	for o, g := range dz {
		if g != 0 {
			gb2[o] += g
		}
	}
	for j := w; j < hd; j++ { // the units past the kernel's, as backwardOut and hiddenGrads
		hv := h[j]
		var s float64
		for o, g := range dz {
			s += float64(w2[o*hd+j] * g)
			if g != 0 {
				gw2[o*hd+j] += float64(g * hv)
			}
		}
		d.gh[j] = s
	}
	return d.gh
}

// backwardOut adds the output layer's gradient: dz into B2, dz·hᵀ into W2.
func (d *denseNet) backwardOut(h, dz, grad []float64) {
	_, _, gw2, gb2 := d.split(grad)
	hd := d.hidden
	h = h[:hd]
	for o, g := range dz[:d.out] {
		if g == 0 {
			continue
		}
		gb2[o] += g
		floats.AddScaled(gw2[o*hd:o*hd+hd], g, h) // row[j] + g·h[j], unfused
	}
}

// hiddenGrads returns, for every hidden unit j, Σ_o W2[o][j]·dz_o: the
// gradient at unit j's output, each sum from +0 in the order of the
// outputs, the units four at a time through gonum's axpy (a multiply, then
// an add, as the scalar sum rounds).
func (d *denseNet) hiddenGrads(dz []float64) []float64 {
	_, _, w2, _ := d.split(d.params)
	hd := d.hidden
	gh := d.gh
	clear(gh)
	for o, g := range dz[:d.out] {
		floats.AddScaled(gh, g, w2[o*hd:o*hd+hd])
	}
	return gh
}

// network returns the network with parameters p: a ReLU layer, then a
// softmax layer of Out logits.
func (d *denseNet) network(p []float64, role string, inputs []string) network.Network {
	w1, b1, w2, b2 := d.split(p)
	l1 := network.Layer{Act: network.ReLU, B: slices.Clone(b1)}
	for j := range d.hidden {
		l1.W = append(l1.W, slices.Clone(w1[j*d.in:j*d.in+d.in]))
	}
	l2 := network.Layer{Act: network.Softmax, B: slices.Clone(b2)}
	for o := range d.out {
		l2.W = append(l2.W, slices.Clone(w2[o*d.hidden:o*d.hidden+d.hidden]))
	}
	return network.Network{Name: role, Role: role, Inputs: inputs, Layers: []network.Layer{l1, l2}, Precision: network.Float64}
}
