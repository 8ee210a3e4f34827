//go:build !amd64 || purego

package gauss

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// The portable build multiplies through gonum's DGEMM itself, whose order
// mulInto follows (and which is faster than the scalar twin): A untransposed
// (al = 1) or transposed (ai = 1), strides as DGEMM takes them; any other
// layout takes the scalar twin.
func mulIntoKernel(c, a, b []float64, m, n, k, ldc, ai, al, ldb int) int {
	if ldb < n || ldc < n {
		return 0
	}
	switch {
	case al == 1 && ai >= max(1, k):
		gonum.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, ai, b, ldb, 0, c, ldc)
	case ai == 1 && al >= max(1, m):
		gonum.Implementation{}.Dgemm(blas.Trans, blas.NoTrans, m, n, k, 1, a, al, b, ldb, 0, c, ldc)
	default:
		return 0
	}
	return n
}
