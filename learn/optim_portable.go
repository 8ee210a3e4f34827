//go:build !amd64 || purego

package learn

// The portable build runs Step's scalar loops alone.

func momentsKernel(m, v, g []float64, c1, b2, c2 float64) int             { return 0 }
func adamKernel(p, m, v []float64, step, sbc2, eps float64) int           { return 0 }
func radamKernel(p, m, v []float64, bc1, lr, sbc2, eps, rect float64) int { return 0 }
