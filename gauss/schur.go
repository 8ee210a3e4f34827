package gauss

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// unitRoundoff is u = 2⁻⁵³, the unit roundoff of float64.
const unitRoundoff = 0x1p-53

// gamma returns Higham's γ_n = n·u/(1 − n·u), the bound on the relative
// error of n floating-point operations accumulated in a dot product.
func gamma(n int) float64 {
	nu := float64(n) * unitRoundoff
	return nu / (1 - nu)
}

// schurErr returns the rounding bound on a Schur complement computed by
// this file's Cholesky steps (docs/gauss.md, "Numerics"): appending the
// target t to the kept variables K is Cholesky of the (k+1)×(k+1) matrix
// A = Σ_{K∪t}, whose computed factor is exact for A + E with
// |E_ij| ≤ γ_{k+2}·σ_i·σ_j (Higham, Accuracy and Stability of Numerical
// Algorithms, Thm 10.3, with |L̂||L̂ᵀ|_ij ≤ σ_iσ_j). To first order the Schur
// complement then moves by (1, −β)ᵀ E (1, −β), so
//
//	|V̂ − V| ≤ γ_{k+2}·(σ_t + Σ_{j∈K} |β_j|·σ_j)²,
//
// with β the regression coefficients of t on K. Ill-conditioned side sets
// have large β, so the bound grows with the covariance's conditioning; for
// an exactly singular Σ the computed residual lies within it.
func (c *cholesky) schurErr(t int, beta []float64) float64 {
	s := math.Sqrt(c.cov.At(t, t))
	for i, b := range beta {
		s += math.Abs(b) * math.Sqrt(c.cov.At(c.kept[i], c.kept[i]))
	}
	return gamma(len(c.rows)+2) * s * s
}

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

// schur is Var[j | K] with its rounding bound and the regression coefficients
// of j on K (one per kept variable).
type schur struct {
	v, err float64
	beta   []float64
}

// residual returns Var[j | K], deciding it is exactly 0 (j a linear function
// of K) when the computed value is at most its rounding bound schurErr: a
// residual that rounding alone could produce is not evidence of information.
func (c *cholesky) residual(j int) (schur, []float64) {
	w := c.project(j)
	beta := c.solveT(w)
	s := schur{v: c.cov.At(j, j) - dot(w, w), err: c.schurErr(j, beta), beta: beta}
	if s.v <= s.err {
		s.v = 0
	}
	return s, w
}

// add appends j to K unless it is (numerically) a linear function of K, and
// returns L w = Σ_Kj and the residual variance Var[j | K] (0 when dropped).
func (c *cholesky) add(j int) (w []float64, r float64, kept bool) {
	s, w := c.residual(j)
	if s.v == 0 {
		return w, 0, false
	}
	c.rows = append(c.rows, append(w, math.Sqrt(s.v)))
	c.kept = append(c.kept, j)
	return w, s.v, true
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
// complement of Σ_SS in the covariance of (target, S)) with its rounding
// bound (schurErr) and the coefficients β of the linear MMSE estimator
// E[t|S] = μ_t + βᵀ(S − μ_S), one per entry of given (0 for a variable that
// is a linear function of the ones before it). For a PSD Σ this equals the
// pseudo-inverse form; it never divides by 0.
func regress(cov mat.Symmetric, target int, given []int) schur {
	c := &cholesky{cov: cov}
	pos := make([]int, 0, len(given))
	for p, j := range given {
		if _, _, ok := c.add(j); ok {
			pos = append(pos, p)
		}
	}
	s, _ := c.residual(target)
	beta := make([]float64, len(given))
	for i, p := range pos {
		beta[p] = s.beta[i]
	}
	s.beta = beta
	return s
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
	return regress(cov, target, given).v, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
