package gauss

import (
	"fmt"
	"github.com/mmds-project/mmds/loss"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Linear is the privatizer F = A·X + B·R + C with R ~ N(0,1) independent of
// (X, side variables). C does not change any MSE: the MMSE estimators of a
// jointly Gaussian vector are affine and absorb it.
type Linear struct{ A, B, C float64 }

// JointCov returns the covariance of (V_0, …, V_{n−1}, F) for the variables
// V with covariance cov and F = A·V_private + B·R + C: Cov(F, V_j) = A·Σ_{Xj}
// and Var[F] = A²σ_X² + B² (Appendix A: σ_F² = a²σ_X² + b²).
func JointCov(cov mat.Symmetric, private int, p Linear) *mat.SymDense {
	n := cov.SymmetricDim()
	out := mat.NewSymDense(n+1, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			out.SetSym(i, j, cov.At(i, j))
		}
		out.SetSym(n, i, p.A*cov.At(private, i))
	}
	out.SetSym(n, n, p.A*p.A*cov.At(private, private)+p.B*p.B)
	return out
}

// LinearLosses returns the exact MSEs of the MMSE estimators given F — the
// reconstructor's E[Var[X | F, Y]] (side variables
// recon) and each adversary's E[Var[X | F, Z_i]] (side variables advs[i]) for the linear
// privatizer p, computed from the explicit joint covariance of (variables, F)
// by Schur complements: Var[X | F, S] = Σ_XX − Σ_X,SF Σ_SF,SF⁺ Σ_SF,X. This is
// cross-check 5(a) of the closed form; it assumes nothing about p's
// optimality. cov must be PSD and the indices in range.
func LinearLosses(cov mat.Symmetric, private int, recon []int, advs [][]int, p Linear) (loss.Losses, error) {
	if !finite(p.A) || !finite(p.B) || !finite(p.C) {
		return loss.Losses{}, fmt.Errorf("gauss: privatizer (a, b, c) = (%g, %g, %g): must be finite", p.A, p.B, p.C)
	}
	n := cov.SymmetricDim()
	if private < 0 || private >= n {
		return loss.Losses{}, fmt.Errorf("gauss: private index %d out of range [0, %d)", private, n)
	}
	joint := JointCov(cov, private, p)
	f := n // index of F in joint
	cond := func(side []int) (float64, error) {
		return CondVar(joint, private, append(append([]int(nil), side...), f))
	}
	rec, err := cond(recon)
	if err != nil {
		return loss.Losses{}, err
	}
	adv := make([]float64, len(advs))
	for i, s := range advs {
		if adv[i], err = cond(s); err != nil {
			return loss.Losses{}, err
		}
	}
	return loss.New(rec, adv), nil
}

// LinearLosses returns the exact losses of p on the model (see the function
// LinearLosses).
func (m *Model) LinearLosses(p Linear) (loss.Losses, error) {
	return LinearLosses(m.cov, m.private, m.recon, m.advs, p)
}

// CheckTol is the tolerance of Check: the closed form and the Schur
// complement construction must agree to 1e-9 relative.
const CheckTol = 1e-9

// Check recomputes every loss of p from the joint covariance of (X, F, side
// variables) at p's privatizer and returns the largest discrepancy with the
// closed form, |schur − closed| / max(|closed|, 1e-3·Var[X]). Losses below
// 1e-3·Var[X] are compared on that absolute scale because the covariance-form
// Schur complement loses log10(Var[X]/loss) digits to cancellation. It is an
// error when the discrepancy exceeds CheckTol.
func (m *Model) Check(p Prop1Optimum) (float64, error) {
	got, err := m.LinearLosses(p.Privatizer())
	if err != nil {
		return 0, err
	}
	scale := 1e-3 * m.VarX()
	worst := discrepancy(got.Recon, p.Recon, scale)
	for i := range got.Adv {
		worst = math.Max(worst, discrepancy(got.Adv[i], p.Adv[i], scale))
	}
	if !(worst <= CheckTol) {
		return worst, fmt.Errorf("gauss: cross-check failed at D = %g: Schur complement and closed form differ by %.3g relative (tolerance %g)", p.D, worst, CheckTol)
	}
	return worst, nil
}

func discrepancy(got, want, scale float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), scale)
}
