package gauss

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RedundancyTol is the relative threshold below which a residual variance is
// treated as exactly zero: a side variable whose variance left after
// conditioning on the variables before it is at most RedundancyTol times its
// own variance adds no information and is dropped, and a conditional variance
// of the target at most RedundancyTol times its variance is reported as 0.
// This is what makes singular but valid covariances (ρ = ±1, a side variable
// that is an exact linear function of others) give their exact limits rather
// than rounding noise or NaN. Exact singularity computed in float64 leaves
// residuals near 1e-16 relative, far below the threshold.
const RedundancyTol = 1e-12

// cholesky is a lower-triangular factor L Lᵀ = Σ_KK of the covariance of
// the kept variables K, built one variable at a time. Appending variable j is
// one rank-one Schur complement step: its residual variance given K is
// Σ_jj − Σ_jK Σ_KK⁻¹ Σ_Kj = Σ_jj − |w|² with L w = Σ_Kj.
type cholesky struct {
	cov  mat.Symmetric
	rows [][]float64 // rows[i] has i+1 entries; rows[i][i] > 0
	kept []int       // variable index of each row
}

// project solves L w = Σ_Kj by forward substitution.
func (c *cholesky) project(j int) []float64 {
	w := make([]float64, len(c.rows))
	for i, row := range c.rows {
		s := c.cov.At(c.kept[i], j)
		for m := 0; m < i; m++ {
			s -= row[m] * w[m]
		}
		w[i] = s / row[i]
	}
	return w
}

// residual returns Var[j | K] and the projection w, clamping rounding noise
// (at most RedundancyTol·Σ_jj, or negative) to exactly 0.
func (c *cholesky) residual(j int) (float64, []float64) {
	w := c.project(j)
	r := c.cov.At(j, j) - dot(w, w)
	if r <= RedundancyTol*c.cov.At(j, j) || r < 0 {
		r = 0
	}
	return r, w
}

// add appends j to K unless it is (numerically) a linear function of K.
func (c *cholesky) add(j int) (w []float64, r float64, kept bool) {
	r, w = c.residual(j)
	if r == 0 {
		return w, 0, false
	}
	c.rows = append(c.rows, append(w, math.Sqrt(r)))
	c.kept = append(c.kept, j)
	return w, r, true
}

// solveT solves Lᵀ β = w by back substitution.
func (c *cholesky) solveT(w []float64) []float64 {
	beta := make([]float64, len(w))
	for i := len(w) - 1; i >= 0; i-- {
		s := w[i]
		for m := i + 1; m < len(w); m++ {
			s -= c.rows[m][i] * beta[m]
		}
		beta[i] = s / c.rows[i][i]
	}
	return beta
}

// regress returns Var[target | given] = Σ_tt − Σ_tS Σ_SS⁺ Σ_St (the Schur
// complement of Σ_SS in the covariance of (target, S)) and the coefficients β
// of the linear MMSE estimator E[t|S] = μ_t + βᵀ(S − μ_S), one per entry of
// given (0 for a variable that is a linear function of the ones before it).
// For a PSD Σ this equals the pseudo-inverse form; it never divides by 0.
func regress(cov mat.Symmetric, target int, given []int) (float64, []float64) {
	c := &cholesky{cov: cov}
	pos := make([]int, 0, len(given))
	for p, j := range given {
		if _, _, ok := c.add(j); ok {
			pos = append(pos, p)
		}
	}
	v, w := c.residual(target)
	betaK := c.solveT(w)
	beta := make([]float64, len(given))
	for i, p := range pos {
		beta[p] = betaK[i]
	}
	return v, beta
}

// CondVar returns Var[target | given] for a jointly Gaussian vector with
// covariance cov, by the Schur complement Σ_tt − Σ_tS Σ_SS⁺ Σ_St (Section
// III-A: the MMSE of the optimal estimator E[X|S]). An empty given returns
// Σ_tt. Indices out of range are an error; cov must be PSD (New checks this
// for a model) for the result to be a variance.
func CondVar(cov mat.Symmetric, target int, given []int) (float64, error) {
	n := cov.SymmetricDim()
	for _, j := range append([]int{target}, given...) {
		if j < 0 || j >= n {
			return 0, fmt.Errorf("gauss: CondVar: index %d out of range [0, %d)", j, n)
		}
	}
	v, _ := regress(cov, target, given)
	return v, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
