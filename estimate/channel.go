package estimate

import (
	"fmt"
	"slices"
)

// Symbols are discrete rows: X[k] ∈ [0, NX) and the observer's side
// symbol S[k] ∈ [0, NS).
type Symbols struct {
	X, S   []int
	NX, NS int
}

// ChannelBayes is the plug-in estimate of an observer's 0-1 loss under the
// channel ch (ch[x][f] = P(F = f | X = x)): the Bayes rule of the training
// rows' empirical law, d(f, s) = argmax_x n(x, s)·P(f | x) (the smallest x
// of equals; where no training row supports (f, s), the rule of the
// empirical prior, argmax_x n(x)·P(f | x), then argmax_x n(x)), scored on
// the test rows in expectation over F: ℓ_k = Σ_f P(f | x_k)·1{d(f, s_k) ≠
// x_k}, with the mean and standard error of Fit's estimates. A held-out
// loss of a rule mmds built: an unbiased estimate of that rule's risk, and
// so of an upper bound of the observer's Bayes risk.
func ChannelBayes(ch [][]float64, train, test Symbols) (Estimate, error) {
	if err := checkSymbols(ch, train); err != nil {
		return Estimate{}, err
	}
	if err := checkSymbols(ch, test); err != nil {
		return Estimate{}, err
	}
	if len(test.X) == 0 {
		return Estimate{}, fmt.Errorf("%w: no test rows", ErrSample)
	}
	nx, ns, nf := train.NX, train.NS, len(ch[0])
	joint := make([]float64, nx*ns)
	prior := make([]float64, nx)
	for k, x := range train.X {
		joint[x*ns+train.S[k]]++
		prior[x]++
	}
	argmax := func(score func(x int) float64) (int, bool) {
		best, bv := 0, score(0)
		for x := 1; x < nx; x++ {
			if v := score(x); v > bv {
				best, bv = x, v
			}
		}
		return best, bv > 0
	}
	fallback := make([]int, nf)
	for f := range nf {
		d, ok := argmax(func(x int) float64 { return prior[x] * ch[x][f] })
		if !ok {
			d, _ = argmax(func(x int) float64 { return prior[x] })
		}
		fallback[f] = d
	}
	rule := make([]int, nf*ns)
	for s := range ns {
		for f := range nf {
			d, ok := argmax(func(x int) float64 { return joint[x*ns+s] * ch[x][f] })
			if !ok {
				d = fallback[f]
			}
			rule[f*ns+s] = d
		}
	}
	per := make([]float64, len(test.X))
	for k, x := range test.X {
		for f, p := range ch[x] {
			if rule[f*ns+test.S[k]] != x {
				per[k] += p
			}
		}
	}
	return MeanSE(per), nil
}

// checkSymbols checks rows against the channel's shape.
func checkSymbols(ch [][]float64, s Symbols) error {
	switch {
	case s.NX < 1 || s.NS < 1 || len(ch) != s.NX || len(ch[0]) == 0:
		return fmt.Errorf("%w: a channel of %d rows for %d values of X and %d side symbols", ErrSample, len(ch), s.NX, s.NS)
	case slices.ContainsFunc(ch, func(row []float64) bool { return len(row) != len(ch[0]) }):
		return fmt.Errorf("%w: the channel's rows have different lengths", ErrSample)
	case len(s.X) != len(s.S):
		return fmt.Errorf("%w: %d values of X, %d side symbols", ErrSample, len(s.X), len(s.S))
	}
	for k, x := range s.X {
		if x < 0 || x >= s.NX || s.S[k] < 0 || s.S[k] >= s.NS {
			return fmt.Errorf("%w: row %d: X = %d, S = %d outside [0, %d) × [0, %d)", ErrSample, k, x, s.S[k], s.NX, s.NS)
		}
	}
	return nil
}
