//go:build amd64 && !purego

package learn

// denseNet's output layer runs eight outputs at a time in assembly
// (dense_amd64.s) when the vector kernels are in use.

//go:noescape
func secondAVX(acc, w *float64, stride int, h *float64, act *int, nact int)

// secondKernel computes out = B2 + W2·h over the active units act as
// secondActive does, bit for bit, and reports whether it did (false: no
// AVX2, the caller runs secondActive). w2t is W2 by hidden unit, padded
// by eight values (the last unit's block reads past its row).
func secondKernel(out, b2, w2t, h []float64, act []int, acc *[8]float64) bool {
	if !hasAVX {
		return false
	}
	m := len(out)
	if len(w2t) < (len(h)-1)*m+8 || len(b2) < m {
		panic("learn: secondKernel: short slices")
	}
	var a0 *int
	if len(act) > 0 {
		a0 = &act[0]
	}
	for b := 0; b < m; b += 8 {
		k := copy(acc[:], b2[b:m])
		secondAVX(&acc[0], &w2t[b], m, &h[0], a0, len(act))
		copy(out[b:b+k], acc[:k])
	}
	return true
}

//go:noescape
func hiddenAVX(h, biased, col *float64, r float64, n int, act *int) int

// hiddenKernel computes forwardSparse's first layer, h[j] = relu(biased[j]
// + r·col[j]), and its active units into act, as the scalar loop does, bit
// for bit, for the leading units j < done (a multiple of 4; 0 without
// AVX2); k is the number of active units among them.
func hiddenKernel(h, biased, col []float64, r float64, act []int) (done, k int) {
	n := len(h) &^ 3
	if !hasAVX || n == 0 {
		return 0, 0
	}
	if len(biased) < n || len(col) < n || len(act) < n {
		panic("learn: hiddenKernel: short slices")
	}
	return n, hiddenAVX(&h[0], &biased[0], &col[0], r, n, &act[0])
}

//go:noescape
func backwardAVX(gw2, w2, h, dz, gh *float64, hd, n, m int)

// backwardKernel runs backwardOut's update of W2's gradient gw2 and
// hiddenGrads's sums gh for the leading hidden units j < done (a multiple
// of 4; 0 without AVX2) bit for bit as they do; B2's gradient is the
// caller's.
func backwardKernel(gw2, w2, h, dz, gh []float64) (done int) {
	hd, m := len(h), len(dz)
	n := hd &^ 3
	if !hasAVX || n == 0 || m == 0 {
		return 0
	}
	if len(gw2) < m*hd || len(w2) < m*hd || len(gh) < hd {
		panic("learn: backwardKernel: short slices")
	}
	backwardAVX(&gw2[0], &w2[0], &h[0], &dz[0], &gh[0], hd, n, m)
	return n
}

//go:noescape
func denseForwardAVX(h, biased, col *float64, r float64, hd int, act *int, w2t, b2 *float64, m int, out *float64)

// denseForwardKernel is forwardSparse's two layers in one call (hiddenKernel's
// first layer over every unit, then secondKernel's output layer) for at
// most eight outputs and W2 finite, bit for bit as the scalar loops; it
// reports whether it ran (false: no AVX2 or more outputs).
func denseForwardKernel(h, biased, col []float64, r float64, act []int, w2t, b2, out []float64) bool {
	hd, m := len(h), len(out)
	if !hasAVX || hd == 0 || m == 0 || m > 8 {
		return false
	}
	if len(biased) < hd || len(col) < hd || len(act) < hd || len(w2t) < (hd-1)*m+8 || len(b2) < m {
		panic("learn: denseForwardKernel: short slices")
	}
	denseForwardAVX(&h[0], &biased[0], &col[0], r, hd, &act[0], &w2t[0], &b2[0], m, &out[0])
	return true
}

//go:noescape
func firstGradAVX(gb1, gx, gn, gh, h *float64, r float64, n int)

// firstGradKernel runs backwardSparse's first-layer updates for the
// leading hidden units j < done (a multiple of 4; 0 without AVX2) bit for
// bit as its scalar loop: gb1[j] += gh[j], gx[j] += gh[j], gn[j] +=
// gh[j]·r for the units with h[j] not +0 (h a relu's output).
func firstGradKernel(gb1, gx, gn, gh, h []float64, r float64) (done int) {
	n := len(h) &^ 3
	if !hasAVX || n == 0 {
		return 0
	}
	if len(gb1) < n || len(gx) < n || len(gn) < n || len(gh) < n {
		panic("learn: firstGradKernel: short slices")
	}
	firstGradAVX(&gb1[0], &gx[0], &gn[0], &gh[0], &h[0], r, n)
	return n
}
