//go:build amd64 && !purego

package learn

// bayesRisk's passes over the labels run four labels at a time in assembly
// (bayesrisk_amd64.s) when the vector kernels are in use. Each returns how
// many leading labels it handled (a multiple of 4); the scalar twin
// finishes the rest. The callers have checked the slices' lengths.

//go:noescape
func accRowsAVX(out, k, q *float64, rows, terms, width, m, kr, kj int)

//go:noescape
func softWeightsAVX(w, c, cm, best *float64, na, width, m int, tau float64)

//go:noescape
func minRowsAVX(best *float64, ab *int, c *float64, na, width, m int)

//go:noescape
func normalizeAVX(w, c, cm, z, wr *float64, na, width, m int)

func accRowsKernel(out, k, q []float64, rows, terms, m, kr, kj int) int {
	width := m &^ 3
	if !hasAVX || width == 0 {
		return 0
	}
	accRowsAVX(&out[0], &k[0], &q[0], rows, terms, width, m, kr, kj)
	return width
}

func softWeightsKernel(w, c, cm, best []float64, na, m int, tau float64) int {
	width := m &^ 3
	if !hasAVX || width == 0 {
		return 0
	}
	softWeightsAVX(&w[0], &c[0], &cm[0], &best[0], na, width, m, tau)
	return width
}

func normalizeKernel(w, c, cm, z, wr []float64, na, m int) int {
	width := m &^ 3
	if !hasAVX || width == 0 {
		return 0
	}
	normalizeAVX(&w[0], &c[0], &cm[0], &z[0], &wr[0], na, width, m)
	return width
}

func minRowsKernel(best []float64, ab []int, c []float64, na, m int) int {
	width := m &^ 3
	if !hasAVX || width == 0 {
		return 0
	}
	minRowsAVX(&best[0], &ab[0], &c[0], na, width, m)
	return width
}
