//go:build amd64 && !purego

package gauss

import "golang.org/x/sys/cpu"

// hasAVX2 reports whether mulInto's vector kernel runs on this CPU.
var hasAVX2 = cpu.X86.HasAVX2

// mulIntoAVX computes mulInto's columns j < width (a multiple of 4). The
// caller has checked the slices' lengths.
//
//go:noescape
func mulIntoAVX(c, a, b *float64, m, k, width, ldc, ai, al, ldb int)

func mulIntoKernel(c, a, b []float64, m, n, k, ldc, ai, al, ldb int) int {
	if !hasAVX2 {
		return mulIntoGonum(c, a, b, m, n, k, ldc, ai, al, ldb)
	}
	width := n &^ 3
	if width == 0 || k == 0 {
		return 0
	}
	mulIntoAVX(&c[0], &a[0], &b[0], m, k, width, ldc, ai, al, ldb)
	return width
}
