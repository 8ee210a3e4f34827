package gauss

import (
	"math"
)

// Lattice binning F = X mod Δ (docs/gauss.md, "Binning mechanisms").
//
// An observer whose side information W gives X | W ~ N(m(W), v) sees the
// coset F = X mod Δ. Write U = X − m(W) ~ N(0, v), independent of m(W).
// Given F and W the posterior of U lives on the coset {u₀ + kΔ : k ∈ ℤ}
// with u₀ ≡ F − m(W), weights ∝ φ_v(u₀ + kΔ). The posterior depends on
// (F, W) only through U mod Δ, so the observer's loss
//
//	E[Var(X | F, W)] = E[Var(U | U mod Δ)] = Δ²·g(√v/Δ)
//
// does not depend on the prior mean, where g(s) = E[Var(U' | U' mod 1)] for
// U' ~ N(0, s²). With t the representative of U' mod 1 in [−½, ½),
// p(t) = Σ_k φ_s(t + k) the wrapped normal density and
// w_k(t) = φ_s(t + k)/p(t) the posterior weights,
//
//	g(s) = ∫_{−½}^{½} p(t) Σ_{j<k} w_j(t) w_k(t) (k − j)² dt        (M1)
//	     = s² − s⁴ ∫_{−½}^{½} p′(t)²/p(t) dt                         (M2)
//
// (M1) is the weighted variance written as a sum of squared differences (no
// cancellation: every term is ≥ 0); (M2) uses Σ_k (t+k) φ_s(t+k) = −s² p′(t),
// i.e. E[U'|t] = −s² p′/p, and the theta series
// p(t) = 1 + 2 Σ_{n≥1} e^{−2π²n²s²} cos 2πnt. For s ≤ moduloSplit the
// direct sum (M1) converges in a few terms; above it the Fourier series
// (M2) does, with s⁴∫p′²/p ≪ s², again without cancellation. Both
// integrands are smooth and 1-periodic, so the trapezoidal rule converges
// geometrically; moduloG doubles the nodes until two successive values
// agree to moduloRelTol, the a-posteriori error estimate of a geometrically
// convergent rule.

const (
	moduloSplit  = 0.35  // s at which (M1) hands over to (M2)
	moduloRelTol = 1e-13 // trapezoid convergence: successive values agree to this
	// moduloTail is the number of standard deviations kept in the direct
	// sum: the neglected weight is below e^{−moduloTail²/2} ≈ 1e-44.
	moduloTail   = 14.0
	moduloMaxLog = 20 // at most 2^20 trapezoid nodes
)

// ModuloLoss returns E[Var(X | X mod Δ, W)] for an observer with
// Var[X|W] = v ≥ 0 and lattice step Δ > 0: Δ²·g(√v/Δ), to about 1e-12
// relative. Δ = +Inf means F = X (loss 0).
func ModuloLoss(v, delta float64) float64 {
	switch {
	case v == 0 || math.IsInf(delta, 1):
		return 0
	case delta <= 0:
		return v
	}
	return delta * delta * moduloG(math.Sqrt(v)/delta)
}

// moduloG returns g(s) = E[Var(U | U mod 1)], U ~ N(0, s²).
func moduloG(s float64) float64 {
	if s <= 0 {
		return 0
	}
	f := directIntegrand(s)
	if s > moduloSplit {
		f = fourierIntegrand(s)
	}
	n := max(16, int(math.Ceil(4/s)))
	t := trapezoid(f, 1, n, n<<moduloMaxLog, moduloRelTol)
	if s > moduloSplit {
		return s*s - s*s*s*s*t
	}
	return t
}

// directIntegrand returns t ↦ p(t)·Σ_{j<k} w_j w_k (k−j)², (M1). Weights
// are scaled by φ_s(t) (the k = 0 term, the largest on [−½, ½]) so nothing
// overflows: e_k = exp(−(2tk + k²)/(2s²)) ≤ 1.
func directIntegrand(s float64) func(float64) float64 {
	kmax := int(math.Ceil(0.5 + moduloTail*s))
	ks := 2*kmax + 1
	e := make([]float64, ks)
	inv2s2 := 1 / (2 * s * s)
	norm := 1 / (s * math.Sqrt(2*math.Pi))
	return func(t float64) float64 {
		tot := 0.0
		for i := range e {
			k := float64(i - kmax)
			e[i] = math.Exp(-(2*t*k + k*k) * inv2s2)
			tot += e[i]
		}
		// Σ_{j<k} e_j e_k (k−j)² = Σ_k e_k Σ_{j<k} e_j (k−j)², accumulated
		// with running moments of the earlier weights: Σ e_j, Σ e_j j, Σ e_j j².
		var m0, m1, m2, pair float64
		for i := range e {
			k := float64(i - kmax)
			pair += e[i] * (m0*k*k - 2*k*m1 + m2)
			m0 += e[i]
			m1 += e[i] * k
			m2 += e[i] * k * k
		}
		return norm * math.Exp(-t*t*inv2s2) * pair / tot
	}
}

// fourierIntegrand returns t ↦ p′(t)²/p(t) from the theta series, (M2).
func fourierIntegrand(s float64) func(float64) float64 {
	var q []float64 // q[n-1] = e^{−2π²n²s²}, down to 1e-20
	for n := 1; ; n++ {
		v := math.Exp(-2 * math.Pi * math.Pi * float64(n*n) * s * s)
		if v < 1e-20 {
			break
		}
		q = append(q, v)
	}
	return func(t float64) float64 {
		p, dp := 1.0, 0.0
		for i, qn := range q {
			n := float64(i + 1)
			sin, cos := math.Sincos(2 * math.Pi * n * t)
			p += 2 * qn * cos
			dp -= 4 * math.Pi * n * qn * sin
		}
		return dp * dp / p
	}
}
