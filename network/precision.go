package network

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Unit roundoffs: u = 2⁻²⁴ for float32, 2⁻⁵³ for float64 (a float64
// runtime's and mmds's own evaluation).
const (
	u32 = 0x1p-24
	u64 = 0x1p-53
)

// The rounding model of a runtime's elementwise functions. A runtime's
// sigmoid, tanh and exp are granted activationUlps ulps of their value
// (relative error activationUlps·u): PyTorch's vectorized functions (Sleef)
// and libm are within 1–4 ulps, ONNX Runtime's (MLAS: rational and
// polynomial approximations after Eigen's) within a few; the sigmoid and
// tanh also get an absolute u, which covers runtimes that clamp their
// argument (MLAS's logistic at |z| = 18, where σ(−18) ≈ 1.5e-8 < 2⁻²⁴, and
// its tanh at |z| = 9); the smallest normal number of the format is a
// further absolute allowance for results in its subnormal range. Sums and
// products are IEEE 754 roundings in any order, with or without fused
// multiply-adds (an FMA rounds once where a product and a sum round twice,
// so Higham's γ_n bounds still hold).
const activationUlps = 8

// roundoff returns the unit roundoff u of p, its largest finite value, and
// the smallest normal number (the subnormal allowance).
func (p Precision) roundoff() (u, maxv, tiny float64) {
	if p == Float64 {
		return u64, math.MaxFloat64, 0x1p-1022
	}
	return u32, math.MaxFloat32, 0x1p-126
}

// underflow returns the absolute error of one rounded operation whose
// result is subnormal in p (half its smallest subnormal), which γ_n's
// relative bound does not cover.
func underflow(p Precision) float64 {
	if p == Float64 {
		return 0x1p-1075
	}
	return 0x1p-150
}

// gamma is γ_n = n·u/(1 − n·u), the bound of Higham (Accuracy and Stability
// of Numerical Algorithms, §3.1) on the relative error of a sum of n terms
// in any order; +Inf when n·u ≥ 1.
func gamma(n int, u float64) float64 {
	nu := float64(n) * u
	if nu >= 1 {
		return math.Inf(1)
	}
	return nu / (1 - nu)
}

// fold records how a file's runtime computes a layer whose W and b a reader
// folded together (ONNX: W = α·B, b = β·C plus the constants of Add nodes):
// the runtime forms B·a = W·a/α before it scales, rounds each scaling and
// each addition of a bias part, and holds every part of the bias on its own.
type fold struct {
	// unscale is 1/|α|: the runtime's B·a has magnitude up to |W|·|a|/|α|
	// (1 when the layer has no α).
	unscale float64
	// ops counts the extra rounded operations: the α scaling, β·C and each
	// folded Add.
	ops int
	// biasMag[j] is Σ of the magnitudes of unit j's bias parts, |β·C_j| +
	// Σ|v_j| (≥ |b_j|; nil: |b_j|).
	biasMag []float64
	// bn, when not nil, is a batch normalization folded into the layer,
	// which the runtime computes after the affine map (bnFold.bound).
	bn *bnFold
}

// foldOf returns layer l's fold (the identity fold when there is none).
func (m *Network) foldOf(l int) fold {
	if l < len(m.folds) && m.folds[l].unscale > 0 {
		return m.folds[l]
	}
	return fold{unscale: 1}
}

// EvalBound returns k(x, r) as Eval computes it (float64) and δ(x, r), a
// bound on |k_rt(x, r) − k(x, r)| where k_rt is what a runtime computing in
// m.Precision returns, for any summation order it may use (PyTorch's addmm
// adds the bias last, mmds first: a Float64 network is not exempt). With u
// the precision's unit roundoff (2⁻²⁴ or 2⁻⁵³) and u' = 2⁻⁵³ (mmds's own
// float64 evaluation), inputs rounded to float32 for a Float32 network
// (error u·|x|, u·|r|; none for Float64), and e_i bounding |a_rt,i − a_i|
// for the layer's inputs a_i,
//
//	|z_rt − z| ≤ (γ_{n+1+f}(u) + γ_{n+1+f}(u'))·(|b| + Σ|w_i|(|a_i| + e_i)) + Σ|w_i|e_i,
//
// the standard bound on a rounded dot product plus the propagated input
// error, f the extra operations of a folded layer (ONNX's alpha, beta and
// Add nodes, |b| then the sum of the bias parts' magnitudes); then ReLU and
// identity are 1-Lipschitz, the sigmoid ¼-Lipschitz and tanh 1-Lipschitz,
// each of the last two adding 4 ulps of its value (and the smallest normal
// number for the subnormal range). An intermediate value beyond the
// precision's range — the runtime's unscaled B·a of a folded layer
// included — is an error wrapping ErrPrecision: the runtime overflows.
// m must be valid; a categorical network is an error (ProbsBound).
func (m *Network) EvalBound(x, r float64) (k, delta float64, err error) {
	return m.bound(x, r, m.Precision, true)
}

// ProbsBound is EvalBound for a categorical network: it writes Probs(x, r)
// into p and returns δ, a bound on Σ_f |s_rt,f − s_f|, the ℓ1 distance
// between the law a runtime in m.Precision releases and the one mmds
// computes. With D the largest logit error (EvalBound's per-unit bound on
// the softmax layer's z), T = 1 − max_f s_f and m labels,
//
//	δ = min(2D, 4D·e^{2D}·T) + (a + 2)(u + u') + γ_m(u) + γ_m(u') + (u + u')·m/e + 2m(t + t'),
//
// where the first term bounds ‖s(z + Δ) − s(z)‖₁ for |Δ_f| ≤ D (softmaxShift)
// and the rest is the runtime's (and mmds's, u' = 2⁻⁵³) own rounding of
// exp(z_f − max z)/Σ: a = 8 ulps per exponential, the sum's γ_m, the
// division or reciprocal and its product, the smallest normals t, t' for
// subnormal results, and the subtraction's error u·y_f in the exponent, y_f
// = max z − z_f, which moves s_f by s_f·y_f·u ≤ u/e (s_f ≤ e^{−y_f}).
func (m *Network) ProbsBound(x, r float64, p []float64) ([]float64, float64, error) {
	if !m.Categorical() {
		return nil, 0, m.errorf("ProbsBound of a network with one output (use EvalBound)")
	}
	return m.probsBound(x, r, m.Precision, true, p)
}

// probsBound is ProbsBound for a runtime in precision p, with the folds or
// not.
func (m *Network) probsBound(x, r float64, p Precision, folded bool, dst []float64) ([]float64, float64, error) {
	s, d, t, err := m.probsState(x, r, p, folded, dst)
	if err != nil {
		return nil, 0, err
	}
	return s, softmaxBound(p, len(s), d, t), nil
}

// probsState writes the softmax at (x, r) into dst and returns it with the
// largest logit error D (precision p) and a bound on T = 1 − max_f s_f of
// the exact softmax of mmds's logits (restBound).
func (m *Network) probsState(x, r float64, p Precision, folded bool, dst []float64) (s []float64, d, t float64, err error) {
	z, d, _, err := m.outputBound(x, r, p, folded, dst)
	if err != nil {
		return nil, 0, 0, err
	}
	SoftmaxInPlace(z)
	return z, d, restBound(z), nil
}

// restBound bounds T = 1 − max_f s_f of the exact softmax of the logits
// whose computed softmax is s: the computed sum of the other labels plus
// mmds's own rounding of it.
func restBound(s []float64) float64 {
	var t float64
	top := 0
	for f, v := range s {
		if v > s[top] {
			top = f
		}
	}
	for f, v := range s {
		if f != top {
			t += v
		}
	}
	return min(1, t*(1+0x1p-40)+softmaxRounding(Float64, len(s)))
}

// softmaxBound is ProbsBound's δ for m labels in precision p from the
// largest logit error d and the bound t on 1 − max_f s_f (softmaxShift).
func softmaxBound(p Precision, m int, d, t float64) float64 {
	return (softmaxShift(d, t) + softmaxRounding(p, m)) * (1 + 0x1p-40)
}

// softmaxShift bounds ‖s(z + Δ) − s(z)‖₁ over |Δ_f| ≤ d, given
// 1 − max_f s_f(z) ≤ t: min(2d, 4d·e^{2d}·t). Along w = z + τΔ the
// derivative is J(w)Δ, J = diag(s) − s sᵀ, and Σ_f s_f(w)|Δ_f − s(w)·Δ| is
// at most 2d (each |Δ_f − s·Δ| ≤ 2d) and at most 4d·(1 − s_f*(w)) for f* the
// largest label at z (|Δ_f* − s·Δ| = |Σ_{g≠f*} s_g(Δ_f* − Δ_g)| ≤ 2d(1 −
// s_f*), and the other labels weigh 1 − s_f* in all); since each ratio
// s_g/s_f* grows by at most e^{2τd} along the path, 1 − s_f*(w) ≤
// e^{2d}(1 − s_f*(z)). A near one-hot softmax is thus almost insensitive to
// its logits' rounding, as a runtime's is.
func softmaxShift(d, t float64) float64 {
	if !(d < 1) {
		return 2 * d
	}
	return min(2*d, 4*d*math.Exp(2*d)*t*(1+0x1p-40))
}

// outputBound appends the output units at (x, r) (a softmax layer's
// logits) to dst[:0] and returns them with the largest of their error
// bounds for a runtime in precision p, and the headroom (evalBound);
// networks up to 64 units wide use stack scratch.
func (m *Network) outputBound(x, r float64, p Precision, folded bool, dst []float64) ([]float64, float64, float64, error) {
	w := m.Width()
	var s [4][64]float64
	a, e, na, ne := s[0][:0], s[1][:0], s[2][:0], s[3][:0]
	if w <= 64 {
		a, e, na, ne = s[0][:w], s[1][:w], s[2][:w], s[3][:w]
	} else {
		a, e, na, ne = make([]float64, w), make([]float64, w), make([]float64, w), make([]float64, w)
	}
	out, dz, head, err := m.evalBound(x, r, p, folded, a, e, na, ne)
	if err != nil {
		return nil, 0, 0, err
	}
	var d float64
	for _, v := range dz {
		d = max(d, v)
	}
	return append(dst[:0], out...), d, head, nil
}

// softmaxRounding is ProbsBound's own-rounding part for m labels in
// precision p (and mmds's float64), with a margin of 1e-3 for the
// second-order terms.
func softmaxRounding(p Precision, m int) float64 {
	u, _, tiny := p.roundoff()
	_, _, tiny64 := Float64.roundoff()
	n := float64(m)
	r := (activationUlps+2)*(u+u64) + gamma(m, u) + gamma(m, u64) + (u+u64)*n/math.E + 2*n*(tiny+tiny64)
	return r * 1.001
}

// evalError returns Eval's k(x, r) and a bound on its distance to the exact
// k(x, r) of m's weights: EvalBound for a float64 runtime that sums as mmds
// does, folds ignored (a bound at least twice mmds's own error).
func (m *Network) evalError(x, r float64) (k, delta float64, err error) {
	return m.bound(x, r, Float64, false)
}

// bound is EvalBound for a runtime in precision p, with the folds or not.
func (m *Network) bound(x, r float64, p Precision, folded bool) (k, delta float64, err error) {
	if m.Categorical() {
		return 0, 0, m.errorf("EvalBound of a categorical network (use ProbsBound)")
	}
	var o [1]float64
	out, d, _, err := m.outputBound(x, r, p, folded, o[:0])
	if err != nil {
		return 0, 0, err
	}
	return out[0], d, nil
}

// evalBound is bound with scratch a, e, na, ne of length Width(): it
// returns the output units and their bounds (for a softmax layer, its
// logits z, before the softmax), and the headroom: the largest fraction of
// p's range that a bound on a runtime's intermediate values reaches, each
// range check's magnitude over its limit (≤ 1 here; meanRounding needs it
// between the points it evaluates).
func (m *Network) evalBound(x, r float64, p Precision, folded bool, a, e, na, ne []float64) (out, delta []float64, head float64, err error) {
	u, maxv, tiny := p.roundoff()
	a = m.inputs(x, r, a)
	e = e[:len(a)]
	for i, v := range a {
		e[i] = 0
		if p == Float32 {
			e[i] = u * math.Abs(v)
		}
	}
	for l, ly := range m.Layers {
		f := fold{unscale: 1}
		if folded {
			f = m.foldOf(l)
		}
		na, ne = na[:len(ly.W)], ne[:len(ly.W)]
		for j, row := range ly.W {
			bm := math.Abs(ly.B[j])
			if f.biasMag != nil {
				bm = f.biasMag[j]
			}
			z, prod, prop, terms := ly.B[j], 0.0, 0.0, 0
			for i, wt := range row {
				z += wt * a[i]
				aw := math.Abs(wt)
				prod += aw * (math.Abs(a[i]) + e[i])
				prop += aw * e[i]
				if wt != 0 {
					terms++
				}
			}
			// A zero weight's product is an exact 0, and adding it to a
			// partial sum is exact: only the terms count.
			n := terms + 1 + f.ops
			g := gamma(n, u) + gamma(n, u64)
			mag := bm + prod
			if !(mag*(1+g) <= maxv) || !(prod*f.unscale*(1+g) <= maxv) {
				return nil, nil, 0, fmt.Errorf("%w: network %s: layer %d unit %d at (x, r) = (%g, %g): a pre-activation (or its unscaled product) of magnitude up to %.3g is beyond %v's range", ErrPrecision, m.Name, l, j, x, r, max(mag, prod*f.unscale), p)
			}
			head = max(head, max(mag, prod*f.unscale)*(1+g)/maxv)
			// The bound is itself computed in float64: the factor 1 + 2⁻⁴⁰
			// covers its own rounding. Each rounding to p's subnormal
			// range is an absolute error, and the runtime's unscaled A·B of
			// a folded Gemm carries its products' into the scaling by |α| =
			// 1/unscale: 2⁻¹⁴⁹·α with α = 1e38 is 1.4e-7, an error W = α·B
			// does not show.
			dz := (g*mag + prop + float64(2*n)*(underflow(p)*max(1, 1/f.unscale)+underflow(Float64))) * (1 + 0x1p-40)
			if f.bn != nil {
				var ok bool
				var h float64
				if dz, h, ok = f.bn.bound(j, a, e, f, p); !ok {
					return nil, nil, 0, fmt.Errorf("%w: network %s: layer %d unit %d at (x, r) = (%g, %g): its affine map or batch normalization may leave %v's range", ErrPrecision, m.Name, l, j, x, r, p)
				}
				head = max(head, h)
			}
			v := z
			if ly.Act != Softmax {
				v = ly.Act.apply(z)
			}
			switch ly.Act {
			case Sigmoid:
				dz = 0.25*dz + activationUlps*(u+u64)*(math.Abs(v)+0.25*dz) + u + tiny
			case Tanh:
				dz = dz + activationUlps*(u+u64)*(math.Abs(v)+dz) + u + tiny
			}
			na[j], ne[j] = v, dz
		}
		a, na = na, a[:cap(a)]
		e, ne = ne, e[:cap(e)]
	}
	for _, v := range e {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, 0, fmt.Errorf("%w: network %s: the %v error bound at (x, r) = (%g, %g) is not finite", ErrPrecision, m.Name, p, x, r)
		}
	}
	return a, e, head, nil
}

// Rounding tracks the sup of δ (EvalBound) over a certificate's evaluations
// of a network, and the first error; it is safe for concurrent use.
type Rounding struct {
	sup atomic.Uint64 // bits of a float64 ≥ 0: ordered as the numbers
	err atomic.Pointer[error]
}

func maxBits(a *atomic.Uint64, v float64) {
	b := math.Float64bits(v)
	for {
		old := a.Load()
		if b <= old || a.CompareAndSwap(old, b) {
			return
		}
	}
}

// Observe records one evaluation's δ or error.
func (t *Rounding) Observe(delta float64, err error) {
	if err != nil {
		t.err.CompareAndSwap(nil, &err)
		return
	}
	maxBits(&t.sup, delta)
}

// Sup returns the largest δ observed, or the first error.
func (t *Rounding) Sup() (float64, error) {
	if p := t.err.Load(); p != nil {
		return 0, *p
	}
	return math.Float64frombits(t.sup.Load()), nil
}

// Tracked returns k(x, r) as a function that records δ(x, r) of every
// evaluation in t (both precisions: a float64 runtime may sum in another
// order); on an error it returns NaN, which every certificate refuses.
func (m *Network) Tracked(t *Rounding) func(x, r float64) float64 {
	return func(x, r float64) float64 {
		k, d, err := m.EvalBound(x, r)
		t.Observe(d, err)
		if err != nil {
			return math.NaN()
		}
		return k
	}
}
