package stdnormal

// MillsSlice sets dst[i] = Mills(z[i]) for every i < len(z), bit for bit;
// dst may be z. On amd64 with AVX2 it runs four values at a time
// (mills4: the table polynomial with the operations of millsCoef.eval,
// unfused, its coefficients gathered per lane); a block of four with a
// value outside [0, 12) (or NaN) is left to Mills. It panics when dst is
// shorter than z.
func MillsSlice(dst, z []float64) {
	if len(dst) < len(z) {
		panic("stdnormal: dst shorter than z")
	}
	n := len(z)
	lo := 0
	if millsVector && n >= 4 {
		n4 := n &^ 3
		for lo < n4 {
			// the kernel stops before a block with a value out of its
			// range, which Mills computes
			lo += mills4(&dst[lo], &z[lo], n4-lo)
			if lo < n4 {
				for i := lo; i < lo+4; i++ {
					dst[i] = Mills(z[i])
				}
				lo += 4
			}
		}
	}
	for i := lo; i < n; i++ {
		dst[i] = Mills(z[i])
	}
}
