package learn

import "math"

// The dense kernels of an MLP over a feature-major batch of n rows. Each has
// one canonical floating-point order, written out here in scalar form; the
// assembly kernels (kernel_amd64.s, AVX2 + FMA) perform exactly the same
// operations in exactly the same order, so results are bit-identical whichever
// runs (docs/learn.md, Performance). Multiply-adds are fused (math.FMA,
// one rounding) in both; elsewhere the kernels round every product (explicit
// float64 conversions keep the compiler from fusing at GOAMD64=v3).
//
// Forward, per row: acc = 0; for each hidden unit j in order,
// pre = b1_j then pre = fma(x_i, W1_ij, pre) for i in order, h_j = relu(pre),
// acc = fma(h_j, w2_j, acc); the output's pre-activation is acc + b2.
// The hidden-unit sum runs down each row, so vectorizing across rows
// changes nothing.
//
// Sums over rows (the parameter gradient) use reduceLanes partial sums:
// rows r < n − n mod reduceLanes go to partial r mod reduceLanes in row order,
// the partials are combined as combineLanes does, and the remaining rows are
// added after in row order.

// reduceLanes is the number of interleaved partial sums of a sum over rows.
const reduceLanes = 8

// combineLanes returns the sum of the eight partials p in the order the
// vector kernels' horizontal reduction takes: pairs (k, k+4), then (k, k+2),
// then the last two.
func combineLanes(p *[reduceLanes]float64) float64 {
	v0, v1, v2, v3 := p[0]+p[4], p[1]+p[5], p[2]+p[6], p[3]+p[7]
	return (v0 + v2) + (v1 + v3)
}

// dzOut returns dL/dz for the output pre-activation z, given dL/dy for the
// output y = act(z): dy for identity, (dy·y)·(1 − y) for the sigmoid.
func dzOut(sig bool, dy, y float64) float64 {
	if sig {
		return float64(dy*y) * (1 - y)
	}
	return dy
}

// forwardRows is the canonical forward pass on rows [lo, n) of a feature-major
// batch: in is In×n, h is Hidden×n, out has n entries (pre-activations). It
// runs hidden unit by hidden unit over all rows, each row's acc kept in out,
// which performs every row's operations in the canonical order.
func forwardRows(in []float64, n, lo, I, H int, w1, b1, w2 []float64, b2 float64, h, out []float64) {
	o := out[lo:n]
	clear(o)
	for j := 0; j < H; j++ {
		hj, bj, w2j := h[j*n+lo:j*n+n], b1[j], w2[j]
		hj, o := hj[:len(o)], o[:len(o)]
		switch I {
		case 1:
			x0, wa := in[lo:n], w1[j]
			x0 = x0[:len(o)]
			for k := range o {
				hv := relu(math.FMA(x0[k], wa, bj))
				hj[k] = hv
				o[k] = math.FMA(hv, w2j, o[k])
			}
		case 2:
			x0, x1, wa, wb := in[lo:n], in[n+lo:2*n], w1[j], w1[H+j]
			x0, x1 = x0[:len(o)], x1[:len(o)]
			for k := range o {
				hv := relu(math.FMA(x1[k], wb, math.FMA(x0[k], wa, bj)))
				hj[k] = hv
				o[k] = math.FMA(hv, w2j, o[k])
			}
		default:
			for k := range o {
				pre := bj
				for i := 0; i < I; i++ {
					pre = math.FMA(in[i*n+lo+k], w1[i*H+j], pre)
				}
				hv := relu(pre)
				hj[k] = hv
				o[k] = math.FMA(hv, w2j, o[k])
			}
		}
	}
	for k := range o {
		o[k] += b2
	}
}

// inputGradRows is the canonical ∂L/∂in_col on rows [lo, n): with
// v_j = w2_j·W1_col,j, d_r = dz_r · Σ_j [h_jr > 0] v_j, the sum in j order
// (kept in d while it runs over j).
func inputGradRows(sig bool, h, out, dOut []float64, n, lo, H int, v, d []float64) {
	s := d[lo:n]
	clear(s)
	for j := 0; j < H; j++ {
		hj, vj := h[j*n+lo:j*n+n], v[j]
		hj = hj[:len(s)]
		for k := range s {
			s[k] += gate(vj, hj[k])
		}
	}
	for k := range s {
		s[k] = dzOut(sig, dOut[lo+k], out[lo+k]) * s[k]
	}
}

// paramGradRows is the canonical parameter gradient (see the lane rule
// above): for every hidden unit j, with g_jr = [h_jr > 0]·(dz_r·w2_j),
// gw2_j = Σ_r fma(dz_r, h_jr, ·), gb1_j = Σ_r g_jr, gW1_ij = Σ_r fma(x_ir,
// g_jr, ·), and gb2 = Σ_r dz_r. grad is overwritten.
func paramGradRows(sig bool, in, h, out, dOut []float64, n, I, H int, w2, grad []float64) {
	n8 := n - n%reduceLanes
	x0, x1 := in[:n], in[:n] // x1 is a placeholder when I = 1
	if I > 1 {
		x1 = in[n : 2*n]
	}
	for j := 0; j < H; j++ {
		hj, w2j := h[j*n:j*n+n], w2[j]
		var pw2, pb1, px, py [reduceLanes]float64
		for r0 := 0; r0 < n8; r0 += reduceLanes {
			for k := range reduceLanes {
				r := r0 + k
				dz := dzOut(sig, dOut[r], out[r])
				g := gate(float64(dz*w2j), hj[r])
				pw2[k] = math.FMA(dz, hj[r], pw2[k])
				pb1[k] += g
				px[k] = math.FMA(x0[r], g, px[k])
				py[k] = math.FMA(x1[r], g, py[k])
			}
		}
		paramGradUnit(sig, in, h, out, dOut, n, n8, I, H, j, w2j, grad,
			combineLanes(&pw2), combineLanes(&pb1), combineLanes(&px), combineLanes(&py))
	}
	grad[I*H+2*H] = outputBiasGrad(sig, out, dOut, n, n8)
}

// paramGradUnit finishes hidden unit j's gradients from the lane partials
// of rows 0 … n8−1 (sw2, sb1, sx, sy: gw2_j, gb1_j, gW1 of inputs 0 and 1):
// rows n8 … n−1 in order, then the inputs past the second. Both the
// canonical kernel and the assembly one end with it, so their tails agree
// bit for bit.
func paramGradUnit(sig bool, in, h, out, dOut []float64, n, n8, I, H, j int, w2j float64, grad []float64, sw2, sb1, sx, sy float64) {
	gw1 := grad[:I*H]
	gb1, gw2 := grad[I*H:I*H+H], grad[I*H+H:I*H+2*H]
	hj := h[j*n : j*n+n]
	x0, x1 := in[:n], in[:n] // x1 is a placeholder when I = 1
	if I > 1 {
		x1 = in[n : 2*n]
	}
	for r := n8; r < n; r++ {
		dz := dzOut(sig, dOut[r], out[r])
		g := gate(float64(dz*w2j), hj[r])
		sw2 = math.FMA(dz, hj[r], sw2)
		sb1 += g
		sx = math.FMA(x0[r], g, sx)
		sy = math.FMA(x1[r], g, sy)
	}
	gw2[j], gb1[j], gw1[j] = sw2, sb1, sx
	if I > 1 {
		gw1[H+j] = sy
	}
	for i := 2; i < I; i++ {
		gw1[i*H+j] = inputWeightGrad(sig, in[i*n:i*n+n], hj, out, dOut, n, w2j)
	}
}

// outputBiasGrad is gb2 = Σ_r dz_r in the lane rule: lanes over rows
// 0 … n8−1, then rows n8 … n−1 in order.
func outputBiasGrad(sig bool, out, dOut []float64, n, n8 int) float64 {
	var p [reduceLanes]float64
	for r := 0; r < n8; r++ {
		p[r%reduceLanes] += dzOut(sig, dOut[r], out[r])
	}
	s := combineLanes(&p)
	for r := n8; r < n; r++ {
		s += dzOut(sig, dOut[r], out[r])
	}
	return s
}

// inputWeightGrad is Σ_r fma(x_r, g_r, ·) with g_r = [h_r > 0]·(dz_r·w2j) in
// the lane order: one entry of paramGradRows' gW1.
func inputWeightGrad(sig bool, x, hj, out, dOut []float64, n int, w2j float64) float64 {
	n8 := n - n%reduceLanes
	var p [reduceLanes]float64
	for r := 0; r < n8; r++ {
		k := r % reduceLanes
		p[k] = math.FMA(x[r], gate(float64(dzOut(sig, dOut[r], out[r])*w2j), hj[r]), p[k])
	}
	s := combineLanes(&p)
	for r := n8; r < n; r++ {
		s = math.FMA(x[r], gate(float64(dzOut(sig, dOut[r], out[r])*w2j), hj[r]), s)
	}
	return s
}

// layers returns the W1, B1, W2 views and B2 of a parameter slice p of a
// network with I inputs and H hidden units.
func layers(p []float64, I, H int) (w1, b1, w2 []float64, b2 float64) {
	ih := I * H
	return p[:ih:ih], p[ih : ih+H : ih+H], p[ih+H : ih+2*H : ih+2*H], p[ih+2*H]
}
