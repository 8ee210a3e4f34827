package gauss

import (
	"math"
	"slices"
)

// The Bayes MMSE of a discrete posterior seen through an observer's channel
// (docs/gauss.md, "The optimum over all privatizers").
//
// Every side set W reduces to T = X + s_W·N with N ~ N(0, 1) independent of
// X and F, s_W² = 1/snr_W, snr_W = 1/V_W − 1/σ_X² ("Every side variable is
// X plus independent Gaussian noise"). Given F = f the observer faces T
// with X ~ μ_f, so its loss is E_f[m_W(μ_f)] with
//
//	m_W(μ) = E[Var(X | T)] = ∫ Σ_j w_j(t)(x_j − x̄(t))² dt,
//	w_j(t) = μ_j φ_s(t − x_j),  x̄(t) = Σ_j w_j x_j / Σ_j w_j,
//
// for μ = Σ_j μ_j δ_{x_j}: every term is ≥ 0, so no digits cancel even
// when m is far below Var_μ(X).
//
// The integrand is analytic in a strip: Σ_j w_j(t) is e^{−t²/2s²} times a
// sum of positive exponentials e^{α_j t}, α_j = x_j/s², which has no zero
// for |Im t| < π s²/L, L = max x_j − min x_j (factor out the middle
// exponential: every term keeps a positive real part). The trapezoidal rule
// of step h on such an integrand errs by about e^{−2π·(πs²/L)/h}; with
// h = min(s/2, s²/(2L)) that is e^{−4π²} ≈ 7e-18 relative from the poles
// and e^{−8π²} from the Gaussian factor. The range [min x − 9s, max x + 9s]
// leaves out Gaussian mass below 1e-18.

// postSpan is the range of t beyond the outer atoms, in units of s.
const postSpan = 9

// postCut is the log-ratio below which an atom's weight at t is dropped
// (e^{−45} ≈ 3e-20 relative to the largest).
const postCut = 45

// postEval holds the scratch of mmse and atomRisks, so that pricing
// loops allocate nothing.
type postEval struct{ e, lw, xhat []float64 }

// postStep returns the trapezoid step for atoms spanning span and noise s.
func postStep(span, s float64) float64 { return math.Min(s/2, s*s/(2*span)) }

// mmse returns m_W(μ); when grid is not nil it also stores in risk[j] the
// risk of the Bayes estimator of μ at X = grid[j],
//
//	R(x) = E[(x − x̄(x + sN))²],
//
// the supergradient of the concave m_W: m_W(ν) ≤ Σ_j ν_j R(x_j) for every
// ν on the grid, with equality at ν = μ (Σ_k μ_k R(x_k) = m_W(μ)).
func (e *postEval) mmse(xs, ws []float64, s float64, grid, risk []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, x := range xs {
		if ws[j] > 0 {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if !(hi > lo) || s == 0 || math.IsInf(s, 1) {
		// a point mass, an observer who knows X, or one who sees nothing:
		// the estimate is the atom, X itself, or the mean
		c := weightedMean(xs, ws)
		for j, x := range grid {
			risk[j] = (x - c) * (x - c)
			if s == 0 {
				risk[j] = 0
			}
		}
		if math.IsInf(s, 1) {
			return weightedVar(xs, ws)
		}
		return 0
	}
	h := postStep(hi-lo, s)
	a, b := lo-postSpan*s, hi+postSpan*s
	if grid != nil {
		a, b = math.Min(a, grid[0]-postSpan*s), math.Max(b, grid[len(grid)-1]+postSpan*s)
	}
	n := int(math.Ceil((b - a) / h))
	h = (b - a) / float64(n)
	norm := h / (s * math.Sqrt(2*math.Pi))
	inv := 1 / (2 * s * s)
	e.e = slices.Grow(e.e[:0], len(xs))
	e.lw = slices.Grow(e.lw[:0], len(xs))
	ex, lw := e.e[:len(xs)], e.lw[:len(xs)]
	for j, w := range ws {
		lw[j] = math.Log(w) // −Inf for an empty atom
	}
	if grid != nil {
		e.xhat = e.xhat[:0]
	}
	total := 0.0
	for k := 0; k <= n; k++ {
		t := a + float64(k)*h
		// weights relative to the largest, so that no t underflows; an
		// atom below e^{−postCut} of the largest is left out
		top := math.Inf(-1)
		for j, x := range xs {
			d := t - x
			ex[j] = lw[j] - d*d*inv
			top = math.Max(top, ex[j])
		}
		sw, sx := 0.0, 0.0
		for j, x := range xs {
			if ex[j] -= top; ex[j] < -postCut {
				ex[j] = 0
				continue
			}
			ex[j] = math.Exp(ex[j])
			sw += ex[j]
			sx += ex[j] * x
		}
		mean := sx / sw
		if grid != nil {
			e.xhat = append(e.xhat, mean)
		}
		v := 0.0
		for j, x := range xs {
			d := x - mean
			v += ex[j] * d * d
		}
		if top > -745 {
			total += v * math.Exp(top)
		}
	}
	if grid != nil {
		e.risks(grid, risk, a, h, inv)
		for j := range risk {
			risk[j] *= norm
		}
	}
	return total * norm
}

func weightedMean(xs, ws []float64) float64 {
	mean := 0.0
	for j, x := range xs {
		mean += ws[j] * x
	}
	return mean
}

// weightedVar returns the variance of the atoms xs with probabilities ws.
func weightedVar(xs, ws []float64) float64 {
	mean := weightedMean(xs, ws)
	v := 0.0
	for j, x := range xs {
		v += ws[j] * (x - mean) * (x - mean)
	}
	return v
}

// channelNoise returns s_W = 1/√snr_W for an observer with Var[X|W] = v:
// 0 when v = 0 (W determines X) and +Inf when v ≥ σ_X² (W says nothing).
func (m *Model) channelNoise(v float64) float64 {
	vx := m.VarX()
	switch {
	case v <= 0:
		return 0
	case v >= vx:
		return math.Inf(1)
	}
	return 1 / math.Sqrt(1/v-1/vx)
}

// risks sets risk[j] = Σ_k φ_k(grid[j])·(grid[j] − x̄_k)², the risk of the
// estimates e.xhat at the nodes t_k = a + k·h up to the factor
// h/(s√(2π)), φ_k(x) = e^{−(t_k − x)²·inv}. The Gaussian factors come from
// the recurrence φ_{k+1} = φ_k·ρ_k, ρ_{k+1} = ρ_k·e^{−2h²·inv}, run from the
// node nearest x outwards in both directions (every factor then falls, so
// nothing overflows) until it drops below e^{−postCut}.
func (e *postEval) risks(grid, risk []float64, a, h, inv float64) {
	n := len(e.xhat)
	q := math.Exp(-2 * h * h * inv)
	floor := math.Exp(-postCut)
	for j, x := range grid {
		k0 := min(max(int(math.Round((x-a)/h)), 0), n-1)
		z := a + float64(k0)*h - x
		f0 := math.Exp(-z * z * inv)
		c := x - e.xhat[k0]
		r := f0 * c * c
		// upwards (z grows by h), then downwards (z falls by h)
		for _, dir := range [2]int{1, -1} {
			f, rho := f0, math.Exp(-(float64(2*dir)*z*h+h*h)*inv)
			for k := k0 + dir; k >= 0 && k < n; k += dir {
				f *= rho
				rho *= q
				if f < floor && k != k0+dir {
					break
				}
				c := x - e.xhat[k]
				r += f * c * c
			}
		}
		risk[j] = r
	}
}
