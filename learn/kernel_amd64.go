//go:build amd64 && !purego

package learn

import (
	"fmt"

	"golang.org/x/sys/cpu"
)

// On amd64 with AVX2 and FMA the kernels run in assembly (kernel_amd64.s),
// eight rows at a time, and the scalar kernels of kernel.go finish the rows
// past the last full block. Both perform the canonical operations in the
// canonical order, so the results are the same bits either way (asserted by
// TestKernelsCanonical). Build with -tags purego for the scalar kernels
// alone.

// hasAVX is fixed at program start by the CPU's features.
var hasAVX = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// simdKernels reports whether the vector kernels are in use.
func simdKernels() bool { return hasAVX }

//go:noescape
func forwardAVX(p *float64, I, H int, in *float64, n, n8 int, h, out *float64)

//go:noescape
func forward16AVX(p *float64, I, H int, in *float64, n, n16 int, h, out *float64)

//go:noescape
func inputGradAVX(sig bool, v *float64, H int, h, out, dOut *float64, n, n8 int, d *float64)

//go:noescape
func paramGradAVX(sig bool, w2 *float64, H int, x0, x1, h, out, dOut *float64, n, n8 int, part *float64)

// checkLen panics unless every slice is long enough for the assembly, which
// does no bounds checks.
func checkLen(what string, s []float64, need int) {
	if len(s) < need {
		panic(fmt.Sprintf("learn: %s kernel: buffer of length %d, need %d", what, len(s), need))
	}
}

func forwardKernel(p []float64, I, H int, in []float64, n int, h, out []float64) {
	w1, b1, w2, b2 := layers(p, I, H)
	lo := 0
	if hasAVX && n >= 8 {
		checkLen("forward", p, I*H+2*H+1)
		checkLen("forward", in, I*n)
		checkLen("forward", h, H*n)
		checkLen("forward", out, n)
		n16 := n - n%16
		lo = n - n%8
		if n16 > 0 {
			forward16AVX(&p[0], I, H, &in[0], n, n16, &h[0], &out[0])
		}
		if lo > n16 { // one block of eight rows; the kernel's bases move to row n16
			forwardAVX(&p[0], I, H, &in[n16], n, lo-n16, &h[n16], &out[n16])
		}
		for r := range out[:lo] {
			out[r] += b2 // acc + b2, as forwardRows
		}
		if lo == n {
			return
		}
	}
	forwardRows(in, n, lo, I, H, w1, b1, w2, b2, h, out)
}

func inputGradKernel(sig bool, p []float64, I, H, col int, h, out, dOut []float64, n int, v, d []float64) {
	lo := 0
	if hasAVX && n >= 8 {
		checkLen("input gradient", v, H)
		checkLen("input gradient", h, H*n)
		checkLen("input gradient", out, n)
		checkLen("input gradient", dOut, n)
		checkLen("input gradient", d, n)
		lo = n - n%8
		inputGradAVX(sig, &v[0], H, &h[0], &out[0], &dOut[0], n, lo, &d[0])
		if lo == n {
			return
		}
	}
	inputGradRows(sig, h, out, dOut, n, lo, H, v, d)
}

// gradChunk is the number of hidden units whose lane partials paramGradAVX
// leaves in paramGradKernel's scratch per call.
const gradChunk = 32

func paramGradKernel(sig bool, p []float64, I, H int, in, h, out, dOut []float64, n int, grad []float64) {
	_, _, w2, _ := layers(p, I, H)
	if !hasAVX || n < 8 {
		paramGradRows(sig, in, h, out, dOut, n, I, H, w2, grad)
		return
	}
	checkLen("parameter gradient", in, I*n)
	checkLen("parameter gradient", h, H*n)
	checkLen("parameter gradient", out, n)
	checkLen("parameter gradient", dOut, n)
	checkLen("parameter gradient", grad, I*H+2*H+1)
	n8 := n - n%8
	x0, x1 := in[:n], in[:n] // x1 is a placeholder when I = 1
	if I > 1 {
		x1 = in[n : 2*n]
	}
	// Per hidden unit, four 4-lane partials (lanes k and k+4 of the eight
	// already added): gw2, gb1, gW1 of input 0, of input 1.
	var part [16 * gradChunk]float64
	c4 := func(v []float64) float64 { return (v[0] + v[2]) + (v[1] + v[3]) }
	for j0 := 0; j0 < H; j0 += gradChunk {
		j1 := min(j0+gradChunk, H)
		paramGradAVX(sig, &w2[j0], j1-j0, &x0[0], &x1[0], &h[j0*n], &out[0], &dOut[0], n, n8, &part[0])
		for j := j0; j < j1; j++ {
			q := part[16*(j-j0) : 16*(j-j0)+16]
			paramGradUnit(sig, in, h, out, dOut, n, n8, I, H, j, w2[j], grad,
				c4(q[0:4]), c4(q[4:8]), c4(q[8:12]), c4(q[12:16]))
		}
	}
	grad[I*H+2*H] = outputBiasGrad(sig, out, dOut, n, n8)
}
