package learn

import (
	"math"
	"math/rand/v2"

	"github.com/mmds-project/mmds/network"
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
	hp              int // hidden rounded up to a multiple of 4: the padded units
	params          []float64
	// Derived by refresh: per input column c, col[c*hp+j] = W1[j][c] and
	// biased[c*hp+j] = B1[j] + W1[j][c] (the first add of every
	// pre-activation); W2 in blocks of four units, w2p[(j/4*mp+o)*4+j%4] =
	// W2[o][j], and B2, for mp = Out rounded up to even; the padded units
	// and outputs zero.
	col, biased, w2p, b2p []float64
	// scratch: backwardRows's gradients, padded: W1's by input column,
	// gw1t[c*hp+j], and B1's after them (c = In); W2's, gw2s[o*hp+j]
	gw1t, gw2s []float64
}

func newDenseNet(in, hidden, out int, rng *rand.Rand) *denseNet {
	d := &denseNet{in: in, hidden: hidden, out: out, hp: (hidden + 3) &^ 3, params: make([]float64, hidden*in+hidden+out*hidden+out)}
	initLinear(d.params, hidden*in+hidden, in, hidden, rng)
	mp := (out + 1) &^ 1
	d.col, d.biased = make([]float64, in*d.hp), make([]float64, in*d.hp)
	d.w2p, d.b2p = make([]float64, d.hp*mp), make([]float64, mp)
	d.gw1t, d.gw2s = make([]float64, (in+1)*d.hp), make([]float64, out*d.hp)
	d.refresh()
	return d
}

// refresh recomputes the tables the forward passes read from params.
func (d *denseNet) refresh() {
	w1, b1, w2, b2 := d.split(d.params)
	hd, hp, mp := d.hidden, d.hp, len(d.b2p)
	for c := range d.in {
		col, biased := d.col[c*hp:c*hp+hd], d.biased[c*hp:c*hp+hd]
		for j := range col {
			col[j] = w1[j*d.in+c]
			biased[j] = b1[j] + col[j]
		}
	}
	for o := range d.out {
		for j, w := range w2[o*hd : o*hd+hd] {
			d.w2p[(j>>2*mp+o)*4+j&3] = w
		}
	}
	copy(d.b2p, b2)
}

func (d *denseNet) split(p []float64) (w1, b1, w2, b2 []float64) {
	a := d.hidden * d.in
	b := a + d.hidden
	c := b + d.out*d.hidden
	return p[:a], p[a:b], p[b:c], p[c:]
}

// forwardRows evaluates rows k = 0, 1, …: row k's first layer reads the
// biased column at offset bo[k] and the column at co[k] times rs[k] (a
// one-hot x and r, or two ones with r = 1), its hidden activations go to
// h[k*hp:(k+1)*hp] (the padded units +0) and its outputs to
// out[k*Out:(k+1)*Out]. The canonical order, which the vector kernel
// (denseRowsKernel) and the scalar twin (denseRowsScalar) both follow:
//
//	h_j = max(fma(r, W1[j][c], B1[j] + W1[j][x]), +0)   (NaN → +0)
//	p_o,l = fma(h_j, W2[o][j], p_o,l) for j ≡ l (mod 4), j in order, from +0
//	out_o = ((p_o,0 + p_o,1) + (p_o,2 + p_o,3)) + B2[o]
//
// over the units padded to hp with zero weights: four interleaved partial
// sums per output, so that four units go through one vector multiply-add.
func (d *denseNet) forwardRows(bo, co []int, rs, h, out []float64) {
	if !denseRowsKernel(h, d.biased, d.col, bo, co, rs, d.hp, d.w2p, d.b2p, d.out, out) {
		denseRowsScalar(h, d.biased, d.col, bo, co, rs, d.hp, d.w2p, d.b2p, d.out, out)
	}
}

// denseRowsScalar is forwardRows's canonical order in scalar Go: the twin
// of denseRowsAVX, which every build and CPU reproduces bit for bit
// (math.FMA rounds once wherever it runs). Each output's four lane sums
// are taken over all the blocks at once (registers, not memory); each
// sum's order is the kernel's.
func denseRowsScalar(h, biased, col []float64, bo, co []int, rs []float64, hp int, w2p, b2p []float64, m int, out []float64) {
	mp := (m + 1) &^ 1
	w2p = w2p[:hp*mp]
	for k := range bo {
		hr := h[k*hp : k*hp+hp]
		bz, cz := biased[bo[k]:bo[k]+hp], col[co[k]:co[k]+hp]
		r := rs[k]
		for j := range hr {
			hr[j] = reluFMA(r, cz[j], bz[j])
		}
		or := out[k*m : k*m+m]
		for o := 0; o < m; o += 2 { // two outputs at a time (mp is even): eight chains
			var p0, p1, p2, p3, q0, q1, q2, q3 float64
			for b := 0; b+4 <= len(hr); b += 4 {
				w := w2p[b*mp+o*4 : b*mp+o*4+8 : b*mp+o*4+8]
				hb := hr[b : b+4 : b+4]
				p0 = math.FMA(hb[0], w[0], p0)
				p1 = math.FMA(hb[1], w[1], p1)
				p2 = math.FMA(hb[2], w[2], p2)
				p3 = math.FMA(hb[3], w[3], p3)
				q0 = math.FMA(hb[0], w[4], q0)
				q1 = math.FMA(hb[1], w[5], q1)
				q2 = math.FMA(hb[2], w[6], q2)
				q3 = math.FMA(hb[3], w[7], q3)
			}
			or[o] = float64(float64(p0+p1)+float64(p2+p3)) + b2p[o]
			if o+1 < m {
				or[o+1] = float64(float64(q0+q1)+float64(q2+q3)) + b2p[o+1]
			}
		}
	}
}

// reluFMA is max(fma(r, c, b), +0), +0 for NaN: VMAXPD with +0 second.
func reluFMA(r, c, b float64) float64 {
	if v := math.FMA(r, c, b); v > 0 {
		return v
	}
	return 0
}

// backwardRows sets grad to the parameter gradient of rows k = 0, 1, …
// that forwardRows(bo, co, rs) evaluated (hidden activations h, stride
// hp) for the output gradients dz[k*Out:(k+1)*Out]: B2's Σ_k dz_k, W2's
// Σ_k dz_k h_kᵀ, and through g_k,j = [h_k,j > 0]·Σ_o W2[o][j]·dz_k,o, B1's
// Σ_k g_k, W1[·][x_k]'s Σ g_k and W1[·][c_k]'s Σ r_k·g_k. The canonical
// order, which the vector kernels (outGradRowsKernel, firstRowsKernel)
// and the scalar twins (outGradRowsScalar, firstRowsScalar) follow: every sum over the
// rows in order from +0, each product of a sum a fused multiply-add, the
// hidden units' sums Σ_o fma(W2[o][j], dz_o, ·) from +0 in the order of
// the outputs, and g +0 where h is not > 0 (NaN included).
func (d *denseNet) backwardRows(bo, co []int, rs, h, dz, grad []float64) {
	hp, m := d.hp, d.out
	gw1t, gw2s := d.gw1t, d.gw2s
	clear(gw1t)
	clear(gw2s)
	if !outGradRowsKernel(gw2s, h, dz, len(bo), hp, m) {
		outGradRowsScalar(gw2s, h, dz, len(bo), hp, m)
	}
	if !firstRowsKernel(gw1t, d.w2p, h, dz, bo, co, rs, hp, m, d.in*hp) {
		firstRowsScalar(gw1t, d.w2p, h, dz, bo, co, rs, hp, m, d.in*hp)
	}
	gw1, gb1, gw2, gb2 := d.split(grad)
	hd := d.hidden
	clear(gb2)
	for k := range bo { // the outputs' sums side by side, each in the order of the rows
		for o, v := range dz[k*m : k*m+m] {
			gb2[o] += v
		}
	}
	for o := range gb2 {
		copy(gw2[o*hd:o*hd+hd], gw2s[o*hp:o*hp+hd])
	}
	copy(gb1, gw1t[d.in*hp:d.in*hp+hd])
	for c := range d.in {
		for j, v := range gw1t[c*hp : c*hp+hd] {
			gw1[j*d.in+c] = v
		}
	}
}

// outGradRowsScalar is backwardRows's W2 gradient in its canonical order
// in scalar Go, into the padded scratch gw2s[o*hp+j] from what it holds
// (+0): the twin of outGradRowsAVX, four units at a time across the rows.
func outGradRowsScalar(gw2s, h, dz []float64, rows, hp, m int) {
	h, dz = h[:rows*hp], dz[:rows*m]
	for o := range m {
		row := gw2s[o*hp : o*hp+hp]
		for b := 0; b+4 <= len(row); b += 4 {
			g4 := row[b : b+4 : b+4]
			s0, s1, s2, s3 := g4[0], g4[1], g4[2], g4[3]
			for k := range rows {
				g, hb := dz[k*m+o], h[k*hp+b:k*hp+b+4:k*hp+b+4]
				s0 = math.FMA(g, hb[0], s0)
				s1 = math.FMA(g, hb[1], s1)
				s2 = math.FMA(g, hb[2], s2)
				s3 = math.FMA(g, hb[3], s3)
			}
			g4[0], g4[1], g4[2], g4[3] = s0, s1, s2, s3
		}
	}
}

// firstRowsScalar is backwardRows's first layer in its canonical order in
// scalar Go, into the padded scratch gw1t[c*hp+j] (B1's column at bcol)
// from what it holds (+0): the twin of firstRowsAVX, row by row, four
// units a block.
func firstRowsScalar(gw1t, w2p, h, dz []float64, bo, co []int, rs []float64, hp, m, bcol int) {
	mp := (m + 1) &^ 1
	for k := range bo {
		hr, dr := h[k*hp:k*hp+hp], dz[k*m:k*m+m]
		gb, gx, gc, r := gw1t[bcol:bcol+hp], gw1t[bo[k]:bo[k]+hp], gw1t[co[k]:co[k]+hp], rs[k]
		for b := 0; b+4 <= len(hr); b += 4 {
			w := w2p[b*mp : b*mp+mp*4]
			var s0, s1, s2, s3 float64
			for o, g := range dr {
				wo := w[o*4 : o*4+4 : o*4+4]
				s0 = math.FMA(wo[0], g, s0)
				s1 = math.FMA(wo[1], g, s1)
				s2 = math.FMA(wo[2], g, s2)
				s3 = math.FMA(wo[3], g, s3)
			}
			firstUnit(gb, gx, gc, b, hr[b], s0, r)
			firstUnit(gb, gx, gc, b+1, hr[b+1], s1, r)
			firstUnit(gb, gx, gc, b+2, hr[b+2], s2, r)
			firstUnit(gb, gx, gc, b+3, hr[b+3], s3, r)
		}
	}
}

// firstUnit adds unit j's share of a row's first-layer gradient: g = s
// where hv > 0 (+0 elsewhere, NaN included) into B1's and x's columns,
// fma(g, r, ·) into c's.
func firstUnit(gb, gx, gc []float64, j int, hv, s, r float64) {
	g := 0.0
	if hv > 0 {
		g = s
	}
	gb[j] += g
	gx[j] += g
	gc[j] = math.FMA(g, r, gc[j])
}

// network returns the network with parameters p: a ReLU layer, then a
// softmax layer of Out logits.
func (d *denseNet) network(p []float64, role string, inputs []string) network.Network {
	w1, b1, w2, b2 := d.split(p)
	return twoLayers(role, inputs, denseLayer(w1, b1, d.in, d.in, 1, network.ReLU),
		denseLayer(w2, b2, d.hidden, d.hidden, 1, network.Softmax))
}
