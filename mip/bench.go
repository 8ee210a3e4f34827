package mip

import (
	"fmt"
	"math/rand/v2"
)

// RandomFinite draws a model of the benchmark family (docs/bench.md):
// X ∈ {0..n−1} with a random prior, K adversaries, every side alphabet of
// size n, 0-1 losses. Each observer's channel is W(·|x) = s·e_x + (1−s)·u_x
// with a strength s ~ U(0.1, 0.9) per observer and u_x a random
// distribution per row, so every observer is informative but noisy. Prior
// entries are at least 0.05/n before normalization, so none is negligible.
func RandomFinite(rng *rand.Rand, n, k int) (Finite, error) {
	if n < 1 || k < 1 {
		return Finite{}, fmt.Errorf("random model: n = %d and K = %d must be ≥ 1", n, k)
	}
	m := Finite{Prior: randomDist(rng, n, 0.05/float64(n))}
	obs := func() Observer {
		s := 0.1 + 0.8*rng.Float64()
		w := make([][]float64, n)
		for x := range w {
			u := randomDist(rng, n, 0)
			for v := range u {
				u[v] *= 1 - s
			}
			u[x] += s
			w[x] = u
		}
		return Observer{Channel: w}
	}
	m.Recon = obs()
	for range k {
		m.Adv = append(m.Adv, obs())
	}
	return m, nil
}

// randomDist is a random probability vector of length n with entries
// proportional to floor + U(0, 1).
func randomDist(rng *rand.Rand, n int, floor float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = floor + rng.Float64()
	}
	normalize(v)
	return v
}
