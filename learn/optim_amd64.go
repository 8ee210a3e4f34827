//go:build amd64 && !purego

package learn

// The optimizer's element-wise updates run four parameters at a time in
// assembly (optim_amd64.s) when the vector kernels are in use: every
// operation is an IEEE add, subtract, multiply, divide or square root of
// one element, rounded as Step's scalar code rounds it, so the results are
// the same bits. Each returns how many leading elements it updated (a
// multiple of 4); Step finishes the rest.

//go:noescape
func momentsAVX(m, v, grad *float64, n int, c1, b2, c2 float64)

//go:noescape
func adamAVX(p, m, v *float64, n int, step, sbc2, eps float64)

//go:noescape
func radamAVX(p, m, v *float64, n int, bc1, lr, sbc2, eps, rect float64)

func momentsKernel(m, v, g []float64, c1, b2, c2 float64) int {
	n := len(g) &^ 3
	if !hasAVX || n == 0 {
		return 0
	}
	_, _ = m[n-1], v[n-1]
	momentsAVX(&m[0], &v[0], &g[0], n, c1, b2, c2)
	return n
}

func adamKernel(p, m, v []float64, step, sbc2, eps float64) int {
	n := len(p) &^ 3
	if !hasAVX || n == 0 {
		return 0
	}
	_, _ = m[n-1], v[n-1]
	adamAVX(&p[0], &m[0], &v[0], n, step, sbc2, eps)
	return n
}

func radamKernel(p, m, v []float64, bc1, lr, sbc2, eps, rect float64) int {
	n := len(p) &^ 3
	if !hasAVX || n == 0 {
		return 0
	}
	_, _ = m[n-1], v[n-1]
	radamAVX(&p[0], &m[0], &v[0], n, bc1, lr, sbc2, eps, rect)
	return n
}
