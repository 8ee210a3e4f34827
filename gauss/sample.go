package gauss

import (
	"math"
	"math/rand/v2"
)

// factor is a lower-triangular L with L Lᵀ = Σ whose columns are the kept
// variables' innovations: variable j = μ_j + Σ_m rows[j][m]·z_m for standard
// normal z_0..z_{r−1}, r = rank. It is the semidefinite Cholesky factor built
// by the same rank-one Schur steps as regress, so it works for singular (PSD)
// covariances: a variable that is a linear function of earlier ones gets no
// innovation of its own.
func (m *Model) factor() [][]float64 {
	c := &cholesky{cov: m.cov}
	rows := make([][]float64, len(m.names))
	for j := range m.names {
		w, r, kept := c.add(j)
		if kept {
			w = append(w, math.Sqrt(r))
		}
		rows[j] = w
	}
	return rows
}

// Samples holds n joint draws of every model variable, one column per
// variable in Names order.
type Samples struct {
	cols [][]float64
	m    *Model
}

// Sample draws n ≥ 0 independent joint samples of all variables from rng:
// x = μ + L z with z standard normal (z drawn sample by sample in a fixed
// order, so a seeded rng gives bit-identical samples).
func (m *Model) Sample(rng *rand.Rand, n int) *Samples {
	rows := m.factor()
	d := len(m.names)
	cols := make([][]float64, d)
	for j := range cols {
		cols[j] = make([]float64, max(n, 0))
	}
	z := make([]float64, 0, d)
	for s := 0; s < n; s++ {
		z = z[:0]
		for j, row := range rows {
			if len(row) > len(z) { // variable j has its own innovation
				z = append(z, rng.NormFloat64())
			}
			cols[j][s] = m.mean[j] + dot(row, z[:len(row)])
		}
	}
	return &Samples{cols: cols, m: m}
}

// Private returns the samples of X (shared, not copied).
func (s *Samples) Private() []float64 { return s.cols[s.m.private] }

// Reconstructor returns one column per reconstructor side variable, in config order.
func (s *Samples) Reconstructor() [][]float64 { return pick(s.cols, s.m.recon) }

// Adversary returns one column per side variable of adversary i, in config order.
func (s *Samples) Adversary(i int) [][]float64 { return pick(s.cols, s.m.advs[i]) }
