package gauss

import (
	"fmt"
	"math"
)

// The grid problem (docs/gauss.md, "The optimum over all privatizers").
//
// Given F = f the posterior μ_f = law(X | F = f) is all an observer needs,
// so every loss is E_f[m_W(μ_f)] (posterior.go), and the posteriors average
// to the prior. On a grid x_0 < … < x_{n−1} with the prior's cell masses
// p_j, the optimum over distributions τ of posteriors is the LP
//
//	max t  s.t.  Σ_μ τ_μ μ_j = p_j (g_j),  Σ_μ τ_μ m_Y(μ) ≤ D (λ),
//	             Σ_μ τ_μ m_i(μ) ≥ t (w_i),  τ ≥ 0,
//
// whose columns are posteriors. Its dual (w ≥ 0 with Σ w = 1, λ ≥ 0, g)
// bounds every splitting: min_i L_i ≤ Σ_i w_i L_i ≤ λD + Σ_j g_j p_j +
// sup_μ rc(μ), rc(μ) = Σ_i w_i m_i(μ) − λ m_Y(μ) − Σ_j g_j μ_j, because
// the τ sum to 1.

// OptimumSearch holds the settings of the optimum search.
type OptimumSearch struct {
	// Step is the grid step in units of σ_X (the continuum kernel spreads
	// each atom over its cell, which costs the reconstructor about
	// step²/12: the finer, the better the mechanism at small D, and the
	// slower the search).
	Step float64 `json:"step"`
	// Span is the grid's half-width in units of σ_X.
	Span float64 `json:"span"`
	// TriplePoints is the size of the coarse sub-grid on which every
	// three-atom posterior is scanned, at TripleWeights weights per atom
	// pair (log-odds −TripleWeights/2·3 … in steps of 3).
	TriplePoints  int `json:"triple_points"`
	TripleWeights int `json:"triple_weights"`
	// Ascents is the number of local ascents from the master's columns in
	// each final pricing round.
	Ascents int `json:"ascents"`
	// MaxIterations bounds the master iterations.
	MaxIterations int `json:"max_iterations"`
	// Tol is the relative gap at which the search stops: once a full
	// pricing round leaves a slack below Tol times the LP's value (columns
	// enter from a hundredth of that, and the pair search refines its
	// bound to within it of the best pair).
	Tol float64 `json:"tol"`
	// Workers is the number of goroutines of the tables and scans (0:
	// GOMAXPROCS); results do not depend on it.
	Workers int `json:"-"`
}

// DefaultOptimumSearch returns the settings of mmds gauss --optimum: a grid
// of step 0.1σ_X on μ_X ± 6σ_X (121 points), triples on 25 points at
// 5×5 weights, 24 ascents per full round, relative gap 1e-3.
func DefaultOptimumSearch() OptimumSearch {
	return OptimumSearch{Step: 0.1, Span: 6, TriplePoints: 25, TripleWeights: 5,
		Ascents: 24, MaxIterations: 400, Tol: 1e-3}
}

// check validates the settings.
func (s OptimumSearch) check() error {
	switch {
	case !(s.Step >= 0.005 && s.Step <= 1):
		return fmt.Errorf("gauss: optimum search step %g σ_X: want [0.005, 1]", s.Step)
	case !(s.Span >= 2 && s.Span <= 12):
		return fmt.Errorf("gauss: optimum search span %g σ_X: want [2, 12]", s.Span)
	case s.TriplePoints < 3 || s.TriplePoints > 200:
		return fmt.Errorf("gauss: optimum search triple points %d: want [3, 200]", s.TriplePoints)
	case s.TripleWeights < 1 || s.TripleWeights > 15:
		return fmt.Errorf("gauss: optimum search triple weights %d: want [1, 15]", s.TripleWeights)
	case s.Ascents < 0 || s.MaxIterations < 1:
		return fmt.Errorf("gauss: optimum search ascents %d, iterations %d: want ≥ 0 and ≥ 1", s.Ascents, s.MaxIterations)
	case !(s.Tol > 0 && s.Tol < 0.1):
		return fmt.Errorf("gauss: optimum search tolerance %g: want (0, 0.1)", s.Tol)
	}
	return nil
}

// maxGridPoints bounds the grid (the pair table has one row per distance).
const maxGridPoints = 4001

// optGrid is a grid with its prior and the tables that do not depend on
// the threshold: shared by every threshold of a sweep that uses the same
// step (safe for concurrent use once built).
type optGrid struct {
	xs, prior []float64
	step      float64
	s         []float64 // channel noise: reconstructor, then adversaries
	pairs     *pairTable
	triples   *tripleTable
}

// newOptGrid lays the grid of the given step on μ_X ± span·σ_X (the step
// rounded down so that the grid is symmetric) and builds its tables.
func (m *Model) newOptGrid(step float64, s OptimumSearch) (*optGrid, error) {
	mu, sx := m.mean[m.private], math.Sqrt(m.VarX())
	half := int(math.Ceil(s.Span * sx / step))
	n := 2*half + 1
	if n > maxGridPoints {
		return nil, fmt.Errorf("gauss: optimum grid of step %.3g on μ_X ± %g σ_X has %d points: at most %d (a larger D or step)",
			step, s.Span, n, maxGridPoints)
	}
	h := s.Span * sx / float64(half)
	g := &optGrid{step: h}
	for j := range n {
		g.xs = append(g.xs, mu+float64(j-half)*h)
	}
	for j := range n {
		lo, hi := math.Inf(-1), math.Inf(1)
		if j > 0 {
			lo = (g.xs[j] - h/2 - mu) / sx
		}
		if j < n-1 {
			hi = (g.xs[j] + h/2 - mu) / sx
		}
		g.prior = append(g.prior, normalMass(lo, hi))
	}
	for _, v := range m.observers() {
		g.s = append(g.s, m.channelNoise(v))
	}
	g.pairs = newPairTable(n, h, g.s, s.Workers)
	g.triples = newTripleTable(n, h, g.s, s)
	return g, nil
}
