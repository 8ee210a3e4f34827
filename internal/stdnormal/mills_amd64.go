//go:build amd64 && !purego

package stdnormal

import "golang.org/x/sys/cpu"

// millsVector: mills4 gathers with AVX2.
var millsVector = cpu.X86.HasAVX2

// mills4 sets dst[i] = Mills(src[i]) for i < n (a multiple of 4), four at
// a time, and stops before the first block of four with a value outside
// [0, 12) (or NaN): it returns how many it set.
//
//go:noescape
func mills4(dst, src *float64, n int) int
