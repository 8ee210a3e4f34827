//go:build amd64 && !purego

package bayes

import "golang.org/x/sys/cpu"

// termsVector: faceTerms4 needs AVX2.
var termsVector = cpu.X86.HasAVX2

// faceTerms4 is faceTerms's loop on nodes i < n (a multiple of 4), four at
// a time, with the same operations, unfused: bit for bit.
//
//go:noescape
func faceTerms4(a, b, c, base, p1, p2, m1, m2, e1, e2, z1, z2, d *float64, n int, pref, sd float64)
