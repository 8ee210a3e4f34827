//go:build !amd64 || purego

package learn

// The portable build runs denseNet's scalar twins alone.

func denseRowsKernel(h, biased, col []float64, bo, co []int, rs []float64, hp int, w2p, b2p []float64, m int, out []float64) bool {
	return false
}

func outGradRowsKernel(gw2s, h, dz []float64, rows, hp, m int) bool { return false }

func firstRowsKernel(gw1t, w2p, h, dz []float64, bo, co []int, rs []float64, hp, m, bcol int) bool {
	return false
}
