package network

import "math"

// bnUlps is the error, in units of the runtime's u, granted to a runtime's
// batch normalization of a value z_rt:
//
//	|y_rt − (s·z_rt − s·μ + β)| ≤ bnUlps·u·(|s|·(|z_rt| + |μ|) + |β|) + γ_{n+1+f}(u)·(|s|·|μ| + |β|)
//
// for s = γ/√(v + ε) exact (the last term only for a fold into the affine
// map, whose own γ_{n+1+f} rounding covers s·|z| but not the bias terms the
// fold adds). It covers s computed in the runtime's precision
// to within 4 ulps (v + ε, a square root, a division or a reciprocal and a
// product: 3.5 ulps when each is correctly rounded), then any of
// y = z·s + (β − μ·s) (7 ulps to first order), y = (z − μ)·s + β (7),
// y = ((z − μ)/√(v + ε))·γ + β (6), with or without fused multiply-adds, or a
// graph optimizer's fold of s into the affine map before it, s·W and
// s·(b − μ) + β formed in the runtime's precision (7, plus the affine map's
// γ_{n+1} on the terms s·μ and β that the fold adds to its bias).
const bnUlps = 8

// bnFold records a batch normalization y = s·(z − μ) + β folded into a
// layer: the reader stores W_f = s·W and b_f = s·(b − μ) + β, each rounded
// to the network's precision, while the runtime computes the affine map
// z = W·a + b and then y.
type bnFold struct {
	w     [][]float64 // the affine map's W before the fold
	bmag  []float64   // its bias's magnitude (the sum of its parts')
	s     []float64   // s_j = γ_j/√(v_j + ε) computed in float64: within 4u' of it
	mu    []float64   // |μ_j|
	beta  []float64   // |β_j|
	gamma []float64   // |γ_j|
}

// bound returns a bound on |y_rt − y| for unit j of a layer with a folded
// batch normalization, y = W_f·a + b_f as mmds evaluates it, y_rt what a
// runtime in precision p computes from inputs within e of a, and the
// headroom of its range checks (evalBound); false when the runtime's
// affine map or its normalization may leave p's range. With
// D the standard bound on |z_rt − z| of the affine map before the fold
// (EvalBound's, with f's extra roundings) and
// M = |s|(|b| + Σ|w_i|(|a_i| + e_i) + D + |μ|) + |β| ≥ |s|(|z_rt| + |μ|) + |β|,
//
//	|y_rt − y| ≤ |s|·D + bnUlps·u·M + γ·(|s|·|μ| + |β|) + (ρ + γ_{n+1}(u'))·M,
//
// the first two terms the runtime's (its z_rt propagated through the
// normalization, then the normalization's own rounding), the last mmds's:
// its W_f and b_f are within ρ = 1.001u + 8u' of s·W and s·(b − μ) + β
// (the float64 scale within 4u' of s, the products and sums rounded in
// float64 and then to p), and its float64 evaluation of W_f·a + b_f rounds
// by γ_{n+1}(u') of the same magnitude. Products rounded to p's subnormal
// range add an absolute error, at most underflow(p) per term — times |α|
// for a Gemm's unscaled A·B; the runtime's fold of s into W (its s·w_i
// rounded apart from mmds's) once more per input, (Σ_i (|a_i| + e_i) + 1)
// times 2·underflow(p) + underflow(Float64) with mmds's; and in the form
// ((z − μ)/√(v + ε))·γ + β the quotient's, times |γ|: 8·underflow(p)·(1 +
// |γ|). The scale s itself is normal (foldBN refuses a subnormal one, whose
// absolute rounding the product with z would carry).
func (bn *bnFold) bound(j int, a, e []float64, f fold, p Precision) (d, head float64, ok bool) {
	u, maxv, _ := p.roundoff()
	var prod, prop, sum float64
	terms := 0
	for i, w := range bn.w[j] {
		aw := math.Abs(w)
		prod += aw * (math.Abs(a[i]) + e[i])
		prop += aw * e[i]
		sum += math.Abs(a[i]) + e[i]
		if w != 0 {
			terms++
		}
	}
	n := terms + 1 + f.ops
	g := gamma(n, u) + gamma(n, u64)
	mag := bn.bmag[j] + prod
	if !(mag*(1+g) <= maxv) || !(prod*f.unscale*(1+g) <= maxv) {
		return 0, 0, false
	}
	d = (g*mag + prop + float64(2*n)*(underflow(p)*max(1, 1/f.unscale)+underflow(Float64))) * (1 + 0x1p-40)
	s := math.Abs(bn.s[j]) * (1 + 4*u64)
	m := s*(mag+d+bn.mu[j]) + bn.beta[j]
	if !(m*(1+bnUlps*u+g) <= maxv) {
		return 0, 0, false
	}
	head = max(max(mag, prod*f.unscale)*(1+g), m*(1+bnUlps*u+g)) / maxv
	// k·M is bnUlps·u·M (the runtime's normalization) plus (ρ + γ_{n+1}(u'))·M
	// (mmds's folded weights and its evaluation of them).
	rt := s*d + g*(s*bn.mu[j]+bn.beta[j]) + 8*underflow(p)*(1+bn.gamma[j])
	own := bn.k(u, len(bn.w[j]))*m + (sum+1)*(2*underflow(p)+underflow(Float64))
	return (rt + own) * (1 + 0x1p-40), head, true
}

// lower returns the record of a layer whose units y_j became the units
// sign·y_j + shift of lowerPL, part after part: each is bounded as y_j is
// (|sign·y_rt + shift − (sign·y + shift)| = |y_rt − y|), with |shift| added
// to |β_j| for mmds's float64 evaluation of the shifted bias.
func (bn *bnFold) lower(parts []plPart) *bnFold {
	out := &bnFold{}
	for _, p := range parts {
		out.w = append(out.w, bn.w...)
		out.bmag = append(out.bmag, bn.bmag...)
		out.s = append(out.s, bn.s...)
		out.mu = append(out.mu, bn.mu...)
		out.gamma = append(out.gamma, bn.gamma...)
		for _, b := range bn.beta {
			out.beta = append(out.beta, b+math.Abs(p.shift))
		}
	}
	return out
}

// lip is roundingLip's bound for unit j of a layer with a folded batch
// normalization: the r-derivative of bound with exact magnitudes, given the
// Lipschitz bounds la of the layer's inputs |a_i| and le of their error
// bounds e_i, g ≥ the affine map's γ_{n+1+f}(u) + γ_{n+1+f}(u') and its
// fold's unscale. d moves by ∂d = g·Σ|w|(la + le) + Σ|w|·le and M by
// |s|·(Σ|w|(la + le) + ∂d), and the subnormal allowance of the fold by
// (2·underflow(p) + underflow(Float64))·Σ(la + le); the terms without
// magnitudes are constant in r. It also returns the same for bound's headroom: the r-derivatives of
// its range checks' magnitudes (Σ|w|(|a| + e) and M) over their limits.
func (bn *bnFold) lip(j int, la, le []float64, g, unscale float64, p Precision) (lip, head float64) {
	u, maxv, _ := p.roundoff()
	var sa, se, sl float64
	for i, w := range bn.w[j] {
		aw := math.Abs(w)
		sa += aw * (la[i] + le[i])
		se += aw * le[i]
		sl += la[i] + le[i]
	}
	dd := (g*sa + se) * (1 + 0x1p-40)
	s := math.Abs(bn.s[j]) * (1 + 4*u64)
	head = max(sa*max(1, unscale)*(1+g), s*(sa+dd)*(1+bnUlps*u+g)) / maxv
	return (s*dd + bn.k(u, len(bn.w[j]))*s*(sa+dd) + sl*(2*underflow(p)+underflow(Float64))) * (1 + 0x1p-40), head * (1 + 0x1p-40)
}

// k is the coefficient of M in bound: bnUlps·u + ρ + γ_{n+1}(u'). A
// computed magnitude within its error e_i of the exact one moves M by at
// most 3|s|·D (D ≥ Σ|w|e_i): bound with exact magnitudes is within
// (1 + 2γ)(1 + 3k) of the computed one (roundingLip's jitter).
func (bn *bnFold) k(u float64, n int) float64 {
	return bnUlps*u + 1.001*u + 8*u64 + gamma(n+1, u64)
}
