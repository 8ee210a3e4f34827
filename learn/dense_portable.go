//go:build !amd64 || purego

package learn

// The portable build runs denseNet's scalar output layer alone.

func secondKernel(out, b2, w2t, h []float64, act []int, acc *[8]float64) bool { return false }

func hiddenKernel(h, biased, col []float64, r float64, act []int) (done, k int) { return 0, 0 }

func backwardKernel(gw2, w2, h, dz, gh []float64) (done int) { return 0 }

func denseForwardKernel(h, biased, col []float64, r float64, act []int, w2t, b2, out []float64) bool {
	return false
}

func firstGradKernel(gb1, gx, gn, gh, h []float64, r float64) (done int) { return 0 }
