package gauss

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// z975 is the 0.975 quantile of the standard normal: 95% two-sided intervals.
const z975 = 1.959963984540054

// Estimate is a test-set MSE with its 95% confidence interval
// MSE ± 1.96·sd(e²)/√n_test (normal approximation for the mean of the
// squared errors e² of the n_test test samples).
type Estimate struct {
	MSE    float64 `json:"mse"`
	StdErr float64 `json:"std_err"`
	Lo     float64 `json:"ci_low"`
	Hi     float64 `json:"ci_high"`
}

// MCResult is the outcome of one Monte Carlo run (cross-check 5(b)).
type MCResult struct {
	Train int        `json:"train"`
	Test  int        `json:"test"`
	Recon Estimate   `json:"recon"`
	Adv   []Estimate `json:"adv"`
}

// MonteCarlo repeats the paper's experiment for the privatizer p (Section
// V-A): it draws nTrain + nTest joint samples of the model and of
// F = A·X + B·R + C, fits each party's linear MMSE estimator of X from
// (side variables, F) on the first nTrain samples (least squares with
// intercept, via the training covariance), and reports its MSE on the last
// nTest samples. For jointly Gaussian data the linear MMSE estimator is the
// optimal one, so the test MSEs estimate the exact losses. Deterministic for
// a given rng state.
func (m *Model) MonteCarlo(rng *rand.Rand, p Linear, nTrain, nTest int) (MCResult, error) {
	d := len(m.names)
	if nTrain < 2*(d+2) || nTest < 2 {
		return MCResult{}, fmt.Errorf("gauss: Monte Carlo with %d training and %d test samples: need ≥ %d training and ≥ 2 test samples", nTrain, nTest, 2*(d+2))
	}
	if !finite(p.A) || !finite(p.B) || !finite(p.C) {
		return MCResult{}, fmt.Errorf("gauss: privatizer (a, b, c) = (%g, %g, %g): must be finite", p.A, p.B, p.C)
	}
	cols := m.sampleWithF(rng, p, nTrain+nTest)
	mean, cov := trainMoments(cols, nTrain)
	res := MCResult{Train: nTrain, Test: nTest, Adv: make([]Estimate, len(m.advs))}
	res.Recon = m.testMSE(cols, mean, cov, m.recon, nTrain)
	for i, s := range m.advs {
		res.Adv[i] = m.testMSE(cols, mean, cov, s, nTrain)
	}
	return res, nil
}

// sampleWithF returns the model's columns plus F as the last column. R is
// drawn after all model samples so the model's columns match Sample's.
func (m *Model) sampleWithF(rng *rand.Rand, p Linear, n int) [][]float64 {
	s := m.Sample(rng, n)
	f := make([]float64, n)
	x := s.Private()
	for i := range f {
		f[i] = p.A*x[i] + p.B*rng.NormFloat64() + p.C
	}
	return append(s.cols, f)
}

// trainMoments returns the mean and (1/n) covariance of the first n rows.
func trainMoments(cols [][]float64, n int) ([]float64, *mat.SymDense) {
	d := len(cols)
	mean := make([]float64, d)
	for j, c := range cols {
		for _, v := range c[:n] {
			mean[j] += v
		}
		mean[j] /= float64(n)
	}
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for r := 0; r < n; r++ {
				s += (cols[i][r] - mean[i]) * (cols[j][r] - mean[j])
			}
			cov.SetSym(i, j, s/float64(n))
		}
	}
	return mean, cov
}

// testMSE fits E[X | side, F] on the training moments and scores it on the
// test rows (from nTrain on).
func (m *Model) testMSE(cols [][]float64, mean []float64, cov *mat.SymDense, side []int, nTrain int) Estimate {
	given := append(append([]int(nil), side...), len(cols)-1)
	beta := regress(cov, m.private, given).beta
	x := cols[m.private]
	sq := make([]float64, 0, len(x)-nTrain)
	for r := nTrain; r < len(x); r++ {
		pred := mean[m.private]
		for k, j := range given {
			pred += beta[k] * (cols[j][r] - mean[j])
		}
		e := x[r] - pred
		sq = append(sq, e*e)
	}
	return meanCI(sq)
}

// meanCI returns the mean of xs with its 95% normal-approximation interval.
func meanCI(xs []float64) Estimate {
	n := float64(len(xs))
	mu := 0.0
	for _, v := range xs {
		mu += v
	}
	mu /= n
	ss := 0.0
	for _, v := range xs {
		ss += (v - mu) * (v - mu)
	}
	se := math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	return Estimate{MSE: mu, StdErr: se, Lo: mu - z975*se, Hi: mu + z975*se}
}

// SplitSamples divides n Monte Carlo samples into training and test splits
// in the paper's ratio (Section V-A: 12,000 = 10,000 train + 2,000 test):
// the test split is ⌊n/6⌋, the rest trains.
func SplitSamples(n int) (train, test int) {
	test = n / 6
	return n - test, test
}
