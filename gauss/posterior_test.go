package gauss

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// pairMMSE is the MMSE of a two-atom prior (p at 0, 1 − p at d) seen
// through N(0, s²) noise, from the closed form
//
//	m = d²·p(1−p)·e^{−δ²/8}·E[1/(p e^{−Uδ/2} + (1−p) e^{Uδ/2})],  δ = d/s,
//
// U ~ N(0, 1) (the posterior variance π(1−π)d² against the mixture density,
// centred at the midpoint), integrated by gonum's Gauss–Legendre rule.
func pairMMSE(p, d, s float64) float64 {
	delta := d / s
	f := func(u float64) float64 {
		return math.Exp(-u*u/2) / math.Sqrt(2*math.Pi) / (p*math.Exp(-u*delta/2) + (1-p)*math.Exp(u*delta/2))
	}
	e := quad.Fixed(f, -12, 12, 1500, quad.Legendre{}, 0)
	return d * d * p * (1 - p) * math.Exp(-delta*delta/8) * e
}

func TestDiscreteMMSEPairs(t *testing.T) {
	for _, c := range []struct{ p, d, s float64 }{
		{0.5, 1, 3}, {0.5, 14, 3}, {0.01, 20, 3}, {0.999, 40, 3}, {0.3, 14, 36}, {0.2, 3, 0.5}, {0.7, 60, 4.7},
	} {
		got := discreteMMSE([]float64{5, 5 + c.d}, []float64{c.p, 1 - c.p}, c.s)
		want := pairMMSE(c.p, c.d, c.s)
		if math.Abs(got-want) > 1e-10*want+1e-300 {
			t.Errorf("p %g d %g s %g: %.15g, closed form %.15g", c.p, c.d, c.s, got, want)
		}
	}
}

func TestDiscreteMMSEGaussianLimit(t *testing.T) {
	// a fine discretization of N(0, v) seen through N(0, s²): vs²/(v + s²)
	v, s := 4.0, 1.5
	var xs, ws []float64
	for x := -30.0; x <= 30; x += 0.05 {
		xs = append(xs, x)
		ws = append(ws, math.Exp(-x*x/(2*v)))
	}
	sum := 0.0
	for _, w := range ws {
		sum += w
	}
	for j := range ws {
		ws[j] /= sum
	}
	got, want := discreteMMSE(xs, ws, s), v*s*s/(v+s*s)
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("Gaussian prior: %.12g, want %.12g", got, want)
	}
}

func TestAtomRisksSupergradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	grid := make([]float64, 41)
	for j := range grid {
		grid[j] = -20 + float64(j)
	}
	var e postEval
	risk := make([]float64, len(grid))
	for range 20 {
		k := 1 + rng.IntN(4)
		idx := rng.Perm(len(grid))[:k]
		xs, ws := make([]float64, k), make([]float64, k)
		for a, j := range idx {
			xs[a], ws[a] = grid[j], rng.Float64()+0.01
		}
		normalize(ws)
		s := []float64{0.7, 3, 30}[rng.IntN(3)]
		m := e.mmse(xs, ws, s, grid, risk)
		// Euler: Σ_k μ_k R(x_k) = m
		sum := 0.0
		for a, j := range idx {
			sum += ws[a] * risk[j]
		}
		if math.Abs(sum-m) > 1e-9*(1+m) {
			t.Errorf("Σ μ R = %g, m = %g", sum, m)
		}
		// supergradient: m(ν) ≤ Σ ν R for random ν
		nu := make([]float64, len(grid))
		for j := range nu {
			nu[j] = rng.ExpFloat64()
		}
		normalize(nu)
		lin := 0.0
		for j := range nu {
			lin += nu[j] * risk[j]
		}
		if mv := discreteMMSE(grid, nu, s); mv > lin+1e-9 {
			t.Errorf("m(ν) = %g above Σ ν R = %g", mv, lin)
		}
	}
}

func normalize(w []float64) {
	s := 0.0
	for _, v := range w {
		s += v
	}
	for j := range w {
		w[j] /= s
	}
}

// discreteMMSE returns m_W(μ) for atoms xs with probabilities ws (summing
// to 1, not checked) and channel noise s (0: the observer knows X; +Inf:
// it sees nothing, m = Var_μ).
func discreteMMSE(xs, ws []float64, s float64) float64 {
	var e postEval
	return e.mmse(xs, ws, s, nil, nil)
}
