package gauss

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// mulInto sets C = A·B for the m × k matrix A(i, l) = a[i*ai+l*al] and the
// k × n matrix B (row stride ldb) into c (row stride ldc), rounding every
// entry as gonum's serial DGEMM with α = 1 and β = 0 does (blas/gonum
// dgemmSerialNotNot and dgemmSerialTransNot, also the blocks of its parallel
// path, which keep l in order): C_ij starts at +0 and takes
// C_ij += A_il·B_lj for l = 0, 1, …, k−1, one rounded product and one
// rounded sum each, the terms with A_il = 0 left out. So it gives
// mat.Dense.Mul's bits, and the kernel trains to the same bits, whichever
// way it runs: the vector kernel (gemm_amd64.s: 32 columns of a row at a
// time, then 4, no fused multiply-add) on the leading columns and the
// scalar twin on the rest; in the portable build (-tags purego) and on
// CPUs without AVX2, gonum's DGEMM itself (mulIntoGonum).
func mulInto(c, a, b []float64, m, n, k, ldc, ai, al, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	_ = c[(m-1)*ldc+n-1]
	if k > 0 {
		_, _ = a[(m-1)*ai+(k-1)*al], b[(k-1)*ldb+n-1]
	}
	mulIntoScalar(c, a, b, m, n, k, ldc, ai, al, ldb, mulIntoKernel(c, a, b, m, n, k, ldc, ai, al, ldb))
}

// mulIntoScalar is mulInto on the columns j ≥ j0, four columns at a time
// held in variables across the terms. The explicit float64 conversions keep
// a compiler from fusing a multiply and an add.
func mulIntoScalar(c, a, b []float64, m, n, k, ldc, ai, al, ldb, j0 int) {
	for i := range m {
		ci := c[i*ldc : i*ldc+n]
		j := j0
		for ; j+4 <= n; j += 4 {
			var c0, c1, c2, c3 float64
			for l := range k {
				v := a[i*ai+l*al]
				if v == 0 {
					continue
				}
				b4 := b[l*ldb+j : l*ldb+j+4 : l*ldb+j+4]
				c0 += float64(v * b4[0])
				c1 += float64(v * b4[1])
				c2 += float64(v * b4[2])
				c3 += float64(v * b4[3])
			}
			ci[j], ci[j+1], ci[j+2], ci[j+3] = c0, c1, c2, c3
		}
		for ; j < n; j++ {
			var cj float64
			for l := range k {
				if v := a[i*ai+l*al]; v != 0 {
					cj += float64(v * b[l*ldb+j])
				}
			}
			ci[j] = cj
		}
	}
}

// mulIntoGonum is mulInto through gonum's DGEMM, faster than the scalar
// twin: A untransposed (al = 1) or transposed (ai = 1), strides as DGEMM
// takes them. It returns n, or 0 (nothing done) for any other layout.
func mulIntoGonum(c, a, b []float64, m, n, k, ldc, ai, al, ldb int) int {
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
