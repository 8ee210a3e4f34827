package gauss

import (
	"math"

	"github.com/mmds-project/mmds/internal/stdnormal"
)

// Interval-cell mechanisms: nested quantizers F = ⌊X/δ⌉ mod K and uniform
// scalar quantizers F = ⌊(X − μ_X − o)/δ⌋ (docs/gauss.md, "Binning
// mechanisms").
//
// The cells [b_c, b_c + δ), b_c = b₀ + cδ, carry the label c mod K (K = 0:
// every cell its own label). An observer with X | W ~ N(m, v) who sees the
// label l has posterior N(m, v) restricted to the cells labelled l, so
//
//	ℓ(m) = E[Var(X | F, W) | m(W) = m] = v − Σ_l B_l(m)²/A_l(m),
//	A_l = Σ_{c ∈ l} P(X ∈ c | m),  B_l = Σ_{c ∈ l} E[(X − m)·1{X ∈ c} | m],
//
// with P(X ∈ [a, b) | m) = Φ(β) − Φ(α) and E[(X − m)1{X ∈ [a,b)} | m] =
// √v(φ(α) − φ(β)), α, β the standardized ends. Unlike X mod Δ the cells are
// anchored, so the loss depends on where m(W) falls: it is E[ℓ(m(W))] with
// m(W) ~ N(μ_X, σ_X² − v). ℓ is periodic with period P = Kδ (δ for K = 0),
// so the expectation is the integral of ℓ against the wrapped normal
// density of m(W) over one period, computed by the trapezoidal rule with
// node doubling (geometric convergence for smooth periodic integrands) to
// cellRelTol.

const (
	cellRelTol = 1e-11
	cellTail   = 10.0 // standard deviations of X | W kept: neglected mass < 2e-23
	cellMaxLog = 14
)

// cellGrid is an anchored lattice of cells with periodic labels.
type cellGrid struct {
	delta  float64 // cell width δ > 0
	origin float64 // b₀: a cell boundary
	labels int     // K ≥ 2, or 0 for distinct labels
}

// period returns P, the period of ℓ in m.
func (g cellGrid) period() float64 {
	if g.labels == 0 {
		return g.delta
	}
	return float64(g.labels) * g.delta
}

// cellScratch holds per-label accumulators so ℓ allocates nothing per call.
type cellScratch struct{ a, b []float64 }

// condLoss returns ℓ(m) for an observer with conditional variance v > 0.
func (g cellGrid) condLoss(m, v float64, sc *cellScratch) float64 {
	sd := math.Sqrt(v)
	lo := int(math.Floor((m - cellTail*sd - g.origin) / g.delta))
	hi := int(math.Ceil((m + cellTail*sd - g.origin) / g.delta))
	if g.labels > 0 {
		clear(sc.a)
		clear(sc.b)
	}
	x := (g.origin + float64(lo)*g.delta - m) / sd
	tail, pdf := stdTail(x)
	sum := 0.0
	for c := lo; c < hi; c++ {
		x2 := (g.origin + float64(c+1)*g.delta - m) / sd
		tail2, pdf2 := stdTail(x2)
		q := cellMass(x, x2, tail, tail2)
		r := sd * (pdf - pdf2)
		x, tail, pdf = x2, tail2, pdf2
		if g.labels == 0 {
			if q > 0 {
				sum += r * r / q
			}
			continue
		}
		l := ((c % g.labels) + g.labels) % g.labels
		sc.a[l] += q
		sc.b[l] += r
	}
	for l := range sc.a {
		if sc.a[l] > 0 {
			sum += sc.b[l] * sc.b[l] / sc.a[l]
		}
	}
	return math.Max(v-sum, 0)
}

// stdTail returns the tail mass beyond |x|, 1 − Φ(|x|) = φ(x)·Mills(|x|),
// and φ(x): one exponential for both.
func stdTail(x float64) (float64, float64) {
	pdf := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
	return pdf * stdnormal.Mills(math.Abs(x)), pdf
}

// cellMass returns Φ(x2) − Φ(x1), x1 < x2, from the tail masses of stdTail,
// subtracting only tails of one side so far-tail cells keep their digits.
func cellMass(x1, x2, t1, t2 float64) float64 {
	switch {
	case x1 >= 0:
		return t1 - t2
	case x2 <= 0:
		return t2 - t1
	}
	return 1 - t1 - t2
}

// loss returns E[ℓ(m(W))] for an observer with Var[X|W] = v, m(W) ~
// N(mu, tau2), tau2 = σ_X² − v.
func (g cellGrid) loss(mu, v, tau2 float64) float64 {
	if v <= 0 {
		return 0
	}
	sc := &cellScratch{}
	if g.labels > 0 {
		sc.a, sc.b = make([]float64, g.labels), make([]float64, g.labels)
	}
	if tau2 <= 1e-14*v {
		return g.condLoss(mu, v, sc)
	}
	tau := math.Sqrt(tau2)
	p := g.period()
	// wrapped normal density of m − mu on [−P/2, P/2)
	jmax := int(math.Ceil(cellTail*tau/p)) + 1
	f := func(x float64) float64 {
		w := 0.0
		for j := -jmax; j <= jmax; j++ {
			z := (x + float64(j)*p) / tau
			w += math.Exp(-z * z / 2)
		}
		w /= tau * math.Sqrt(2*math.Pi)
		if w == 0 {
			return 0
		}
		return w * g.condLoss(mu+x, v, sc)
	}
	n := max(8, int(math.Ceil(4*p/math.Min(tau, math.Sqrt(v)))))
	return trapezoid(f, p, min(n, 1<<cellMaxLog), 1<<cellMaxLog, cellRelTol)
}

// trapezoid integrates f over one period [−p/2, p/2) by the trapezoidal
// rule of n nodes, doubling them (at most up to maxN) until two successive
// values agree to relTol: geometric convergence for smooth periodic f.
func trapezoid(f func(float64) float64, p float64, n, maxN int, relTol float64) float64 {
	h := p / float64(n)
	sum := 0.0
	for i := range n {
		sum += f(-p/2 + float64(i)*h)
	}
	t := sum * h
	for n < maxN {
		mid := 0.0
		for i := range n {
			mid += f(-p/2 + (float64(i)+0.5)*h)
		}
		sum += mid
		n *= 2
		h /= 2
		t2 := sum * h
		if math.Abs(t2-t) <= relTol*math.Abs(t2) || t2 == 0 {
			return t2
		}
		t = t2
	}
	return t
}
