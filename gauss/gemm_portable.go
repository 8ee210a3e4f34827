//go:build !amd64 || purego

package gauss

// The portable build multiplies through gonum's DGEMM itself.

func mulIntoKernel(c, a, b []float64, m, n, k, ldc, ai, al, ldb int) int {
	return mulIntoGonum(c, a, b, m, n, k, ldc, ai, al, ldb)
}
