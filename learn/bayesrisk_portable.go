//go:build !amd64 || purego

package learn

// The portable build runs bayesRisk's scalar loops alone.

func accRowsKernel(out, k, q []float64, rows, terms, m, kr, kj int) int      { return 0 }
func softWeightsKernel(w, c, cm, best []float64, na, m int, tau float64) int { return 0 }
func normalizeKernel(w, c, cm, z, wr []float64, na, m int) int               { return 0 }
func minRowsKernel(best []float64, ab []int, c []float64, na, m int) int     { return 0 }
