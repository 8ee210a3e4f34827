package mip

import "math/rand/v2"

// BinarySamples holds n joint draws (X, Y, Z_1..Z_K) of the binary model as
// float64 columns of 0s and 1s, the form learn.Dataset takes.
type BinarySamples struct {
	X, Y []float64
	Z    [][]float64 // Z[i] is adversary i's column
}

// Sample draws n ≥ 0 independent samples of (X, Y, Z_1..Z_K) from rng:
// X ~ Bernoulli(P), then Y and each Z_i through their BSCs, independently
// given X. Per sample the uniforms are drawn in the order X, Y, Z_1..Z_K, so
// a seeded rng gives bit-identical samples.
func (m Binary) Sample(rng *rand.Rand, n int) BinarySamples {
	n = max(n, 0)
	s := BinarySamples{X: make([]float64, n), Y: make([]float64, n), Z: make([][]float64, len(m.QZ))}
	for i := range s.Z {
		s.Z[i] = make([]float64, n)
	}
	for r := range n {
		var x float64
		if rng.Float64() < m.P {
			x = 1
		}
		s.X[r] = x
		s.Y[r] = flip(rng, x, m.QY)
		for i, q := range m.QZ {
			s.Z[i][r] = flip(rng, x, q)
		}
	}
	return s
}

// flip passes bit x through a BSC with crossover q.
func flip(rng *rand.Rand, x, q float64) float64 {
	if rng.Float64() < q {
		return 1 - x
	}
	return x
}
