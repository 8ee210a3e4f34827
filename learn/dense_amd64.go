//go:build amd64 && !purego

package learn

// denseNet's forward pass and the output layer's backward pass run in
// assembly (dense_amd64.s) when the vector kernels are in use.

//go:noescape
func denseRowsAVX(h, biased, col *float64, bo, co *int, rs *float64, rows, hp int, w2p, b2p *float64, m int, out *float64, mp, ostride int)

// denseRowsKernel runs denseNet.forwardRows in assembly, eight outputs at
// a time (each group recomputes the same h), bit for bit as
// denseRowsScalar, and reports whether it did (false: no AVX2 and FMA;
// the caller runs denseRowsScalar).
func denseRowsKernel(h, biased, col []float64, bo, co []int, rs []float64, hp int, w2p, b2p []float64, m int, out []float64) bool {
	rows := len(bo)
	if !hasAVX || rows == 0 || hp == 0 || m == 0 {
		return false
	}
	mp := (m + 1) &^ 1
	if hp&3 != 0 || len(co) < rows || len(rs) < rows || len(h) < rows*hp || len(out) < rows*m || len(w2p) < hp*mp || len(b2p) < mp {
		panic("learn: denseRowsKernel: short slices")
	}
	for k, b := range bo {
		if b < 0 || b > len(biased)-hp || co[k] < 0 || co[k] > len(col)-hp {
			panic("learn: denseRowsKernel: a row outside the tables")
		}
	}
	for g := 0; g < m; g += 8 {
		denseRowsAVX(&h[0], &biased[0], &col[0], &bo[0], &co[0], &rs[0], rows, hp, &w2p[g*4], &b2p[g], min(8, m-g), &out[g], mp, m)
	}
	return true
}

//go:noescape
func outGradRowsAVX(gw2s, h, dz *float64, rows, hp, m, dzs int)

// outGradRowsKernel runs backwardRows's W2 gradient in assembly, eight
// outputs at a time, bit for bit as outGradRowsScalar, and reports
// whether it did.
func outGradRowsKernel(gw2s, h, dz []float64, rows, hp, m int) bool {
	if !hasAVX || hp == 0 {
		return false
	}
	if hp&3 != 0 || len(gw2s) < m*hp || len(h) < rows*hp || len(dz) < rows*m {
		panic("learn: outGradRowsKernel: short slices")
	}
	if rows == 0 {
		return true
	}
	for g := 0; g < m; g += 8 {
		outGradRowsAVX(&gw2s[g*hp], &h[0], &dz[g], rows, hp, min(8, m-g), m)
	}
	return true
}

//go:noescape
func firstRowsAVX(gw1t, w2p, h, dz *float64, bo, co *int, rs *float64, rows, hp, m, bcol int)

//go:noescape
func firstRowsWideAVX(gw1t, w2p, h, dz *float64, bo, co *int, rs *float64, rows, hp, m, bcol int)

// firstRowsKernel runs backwardRows's first layer in assembly, bit for bit
// as firstRowsScalar (firstRowsAVX with the outputs' gradients in
// registers up to eight, firstRowsWideAVX beyond), and reports whether it
// did (false: no AVX2 and FMA).
func firstRowsKernel(gw1t, w2p, h, dz []float64, bo, co []int, rs []float64, hp, m, bcol int) bool {
	rows := len(bo)
	if !hasAVX || hp == 0 || m == 0 {
		return false
	}
	mp := (m + 1) &^ 1
	if hp&3 != 0 || len(co) < rows || len(rs) < rows || len(h) < rows*hp || len(dz) < rows*m || len(w2p) < hp*mp || bcol < 0 || bcol > len(gw1t)-hp {
		panic("learn: firstRowsKernel: short slices")
	}
	for k, b := range bo {
		if b < 0 || b > len(gw1t)-hp || co[k] < 0 || co[k] > len(gw1t)-hp {
			panic("learn: firstRowsKernel: a row outside the gradient")
		}
	}
	if rows == 0 {
		return true
	}
	if m > 8 {
		firstRowsWideAVX(&gw1t[0], &w2p[0], &h[0], &dz[0], &bo[0], &co[0], &rs[0], rows, hp, m, bcol)
		return true
	}
	firstRowsAVX(&gw1t[0], &w2p[0], &h[0], &dz[0], &bo[0], &co[0], &rs[0], rows, hp, m, bcol)
	return true
}
