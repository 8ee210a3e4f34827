//go:build !amd64 || purego

package learn

// The portable build runs the canonical scalar kernels of kernel.go.

// simdKernels reports whether the vector kernels are in use.
func simdKernels() bool { return false }

func forwardKernel(p []float64, I, H int, in []float64, n int, h, out []float64) {
	w1, b1, w2, b2 := layers(p, I, H)
	forwardRows(in, n, 0, I, H, w1, b1, w2, b2, h, out)
}

func inputGradKernel(sig bool, p []float64, I, H, col int, h, out, dOut []float64, n int, v, d []float64) {
	inputGradRows(sig, h, out, dOut, n, 0, H, v, d)
}

func paramGradKernel(sig bool, p []float64, I, H int, in, h, out, dOut []float64, n int, grad []float64) {
	_, _, w2, _ := layers(p, I, H)
	paramGradRows(sig, in, h, out, dOut, n, I, H, w2, grad)
}
