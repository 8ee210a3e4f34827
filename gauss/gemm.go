package gauss

// mulInto sets C = A·B for the m × k matrix A(i, l) = a[i*ai+l*al] and the
// k × n matrix B (row stride ldb) into c (row stride ldc), rounding every
// entry as gonum's serial DGEMM with α = 1 and β = 0 does (blas/gonum
// dgemmSerialNotNot and dgemmSerialTransNot, also the blocks of its parallel
// path, which keep l in order): C_ij starts at +0 and takes
// C_ij += A_il·B_lj for l = 0, 1, …, k−1, one rounded product and one
// rounded sum each, the terms with A_il = 0 left out. So it gives
// mat.Dense.Mul's bits, and the kernel's training its bits, whichever way
// it runs: the vector kernel (gemm_amd64.s: eight columns a row a register
// pair, no fused multiply-add) on the leading columns, the scalar twin on
// the rest, the scalar twin alone in the portable build (-tags purego).
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

// mulIntoScalar is mulInto on the columns j ≥ j0. The explicit float64
// conversion keeps a compiler from fusing the multiply and the add.
func mulIntoScalar(c, a, b []float64, m, n, k, ldc, ai, al, ldb, j0 int) {
	if j0 == n {
		return
	}
	for i := range m {
		ci := c[i*ldc+j0 : i*ldc+n]
		clear(ci)
		for l := range k {
			v := a[i*ai+l*al]
			if v == 0 {
				continue
			}
			bl := b[l*ldb+j0 : l*ldb+n]
			for j := range ci {
				ci[j] += float64(v * bl[j])
			}
		}
	}
}
