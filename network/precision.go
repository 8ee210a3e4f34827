package network

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Unit roundoffs: u = 2⁻²⁴ for float32 (the runtime's), 2⁻⁵³ for float64
// (mmds's own evaluation).
const (
	u32 = 0x1p-24
	u64 = 0x1p-53
)

// activationUlps is the relative error, in units of u, granted to a
// runtime's sigmoid and tanh (correctly rounded to within a few ulps in
// PyTorch, ONNX Runtime and libm); smallF32 is an absolute allowance for
// results in float32's subnormal range.
const (
	activationUlps = 4
	smallF32       = 0x1p-126
)

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

// EvalBound returns k(x, r) as Eval computes it (float64) and δ(x, r), a
// bound on |k_rt(x, r) − k(x, r)| where k_rt is what a runtime computing in
// m.Precision returns, for any summation order it may use. For a Float64
// network δ = 0: mmds's own evaluation is the function that runs. For a
// Float32 network, with u = 2⁻²⁴ and u' = 2⁻⁵³, inputs rounded to float32
// (error u·|x|, u·|r|), and e_i bounding |a_rt,i − a_i| for the layer's
// inputs a_i,
//
//	|z_rt − z| ≤ (γ_{n+1}(u) + γ_{n+1}(u'))·(|b| + Σ|w_i|(|a_i| + e_i)) + Σ|w_i|e_i,
//
// the standard bound on a rounded dot product plus the propagated input
// error; then ReLU and identity are 1-Lipschitz, the sigmoid ¼-Lipschitz
// and tanh 1-Lipschitz, each of the last two adding 4 ulps of its value
// (and 2⁻¹²⁶ for float32's subnormal range). An intermediate value beyond
// float32's range is an error wrapping ErrPrecision: the runtime overflows.
// m must be valid.
func (m *Network) EvalBound(x, r float64) (k, delta float64, err error) {
	if m.Precision == Float64 {
		return m.Eval(x, r), 0, nil
	}
	w := m.Width()
	if w <= 64 {
		var s [4][64]float64
		return m.evalBound(x, r, s[0][:w], s[1][:w], s[2][:w], s[3][:w])
	}
	return m.evalBound(x, r, make([]float64, w), make([]float64, w), make([]float64, w), make([]float64, w))
}

// evalBound is EvalBound for a Float32 network with scratch a, e, na, ne of
// length Width().
func (m *Network) evalBound(x, r float64, a, e, na, ne []float64) (k, delta float64, err error) {
	a, e = m.inputs(x, r, a), e[:2]
	for i, v := range a {
		e[i] = u32 * math.Abs(v)
	}
	for l, ly := range m.Layers {
		g := gamma(len(a)+1, u32) + gamma(len(a)+1, u64)
		na, ne = na[:len(ly.W)], ne[:len(ly.W)]
		for j, row := range ly.W {
			z, mag, prop := ly.B[j], math.Abs(ly.B[j]), 0.0
			for i, wt := range row {
				z += wt * a[i]
				aw := math.Abs(wt)
				mag += aw * (math.Abs(a[i]) + e[i])
				prop += aw * e[i]
			}
			if !(mag*(1+g) <= math.MaxFloat32) {
				return 0, 0, fmt.Errorf("%w: network %s: layer %d unit %d at (x, r) = (%g, %g): a pre-activation of magnitude up to %.3g is beyond float32's range", ErrPrecision, m.Name, l, j, x, r, mag)
			}
			// The bound is itself computed in float64: the factor 1 + 2⁻⁴⁰
			// covers its own rounding.
			dz := (g*mag + prop) * (1 + 0x1p-40)
			v := ly.Act.apply(z)
			switch ly.Act {
			case Sigmoid:
				dz = 0.25*dz + activationUlps*(u32+u64)*(math.Abs(v)+0.25*dz) + smallF32
			case Tanh:
				dz = dz + activationUlps*(u32+u64)*(math.Abs(v)+dz) + smallF32
			}
			na[j], ne[j] = v, dz
		}
		a, na = na, a[:cap(a)]
		e, ne = ne, e[:cap(e)]
	}
	if math.IsNaN(e[0]) || math.IsInf(e[0], 0) {
		return 0, 0, fmt.Errorf("%w: network %s: the float32 error bound at (x, r) = (%g, %g) is not finite", ErrPrecision, m.Name, x, r)
	}
	return a[0], e[0], nil
}

// Rounding tracks the sup of δ (EvalBound) over a certificate's evaluations
// of a network, and the first error; it is safe for concurrent use.
type Rounding struct {
	sup atomic.Uint64 // bits of a float64 ≥ 0: ordered as the numbers
	mag atomic.Uint64 // the largest |k| evaluated, likewise
	err atomic.Pointer[error]
}

// Magnitude returns the largest |k(x, r)| observed by a Tracked function.
func (t *Rounding) Magnitude() float64 { return math.Float64frombits(t.mag.Load()) }

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
// evaluation in t (a Float64 network records nothing); on an error it
// returns NaN, which every certificate refuses.
func (m *Network) Tracked(t *Rounding) func(x, r float64) float64 {
	if m.Precision == Float64 {
		return m.Eval
	}
	return func(x, r float64) float64 {
		k, d, err := m.EvalBound(x, r)
		t.Observe(d, err)
		if err != nil {
			return math.NaN()
		}
		maxBits(&t.mag, math.Abs(k))
		return k
	}
}
