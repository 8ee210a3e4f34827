//go:build amd64 && !purego

package vexp

import "golang.org/x/sys/cpu"

// vector: math.Exp takes its FMA path (cpu.X86.HasAVX && HasFMA), and the
// kernel's 256-bit integer operations need AVX2.
var vector = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// exp4 sets dst[i] = math.Exp(src[i]) for i < n (a multiple of 4), four
// at a time, and stops before the first block of four with a value
// outside [−708, 709] (or NaN): it returns how many it set.
//
//go:noescape
func exp4(dst, src *float64, n int) int

// sigm4 is Sigmoid on i < n (a multiple of 4), four at a time; it stops
// before the first block of four with a value whose −|z| is below −708
// (or NaN) and returns how many it set.
//
//go:noescape
func sigm4(dst, src *float64, n int) int
