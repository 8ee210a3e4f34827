package mip

import (
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"testing"
)

var colgenInstances = flag.Int("colgen.instances", 200, "random instances in TestColGenAgainstRayLP (the long check: 1000)")

// squaredLabel is the loss L(x, a) = (x − a)² on estimates a ∈ {0..n−1}.
func squaredLabel(n int) [][]float64 {
	l := make([][]float64, n)
	for x := range l {
		l[x] = make([]float64, n)
		for a := range l[x] {
			l[x][a] = float64((x - a) * (x - a))
		}
	}
	return l
}

// colgenInstance draws a model of the test family: randomSmall's variants,
// and a squared-label reconstructor loss one time in four.
func colgenInstance(rng *rand.Rand) (Finite, float64) {
	n, k := 2+rng.IntN(3), 1+rng.IntN(3)
	m := randomSmall(rng, n, k)
	if rng.IntN(4) == 0 {
		m.Recon.Loss = squaredLabel(n)
	}
	if rng.IntN(4) == 0 {
		m.Adv[0].Loss = squaredLabel(n)
	}
	d := m.DMin() + rng.Float64()*1.1*(m.DMax()-m.DMin())
	return m, d
}

// TestColGenAgainstRayLP: column generation proves the same optimum as the
// global ray LP (an independent method: every cell vertex of the common
// refinement enumerated), and its certificate holds on every one of those
// rays — rc is linear on each cell of the common refinement, so its
// maximum over the simplex is at one of them.
func TestColGenAgainstRayLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for i := 0; i < *colgenInstances; i++ {
		m, d := colgenInstance(rng)
		g := mustGlobal(t, m)
		want, err := g.Solve(d, DefaultSolver())
		if err != nil {
			t.Fatalf("instance %d: ray LP: %v", i, err)
		}
		got, err := m.SolveColGen(context.Background(), d, ColGenOptions{Solver: DefaultSolver(), Seed: uint64(i)})
		if err != nil {
			t.Fatalf("instance %d (n=%d K=%d D=%g): %v", i, m.N(), m.K(), d, err)
		}
		checkFiniteOptimum(t, m, got.FiniteOptimum, "column generation")
		if !got.Proven || math.Abs(got.Gamma-want.Gamma) > 1e-7 {
			t.Fatalf("instance %d (n=%d K=%d D=%g): colgen %.12g (proven %v, upper %.12g, %s), ray LP %.12g",
				i, m.N(), m.K(), d, got.Gamma, got.Proven, got.Upper, got.Status, want.Gamma)
		}
		checkCertificate(t, m, g, got, want.Gamma)
	}
}

// checkCertificate re-checks a certificate from its multipliers alone: the
// bound recomputes, the multipliers are valid, and no ray of the common
// refinement has a reduced cost above the claimed maximum.
func checkCertificate(t *testing.T, m Finite, g *Global, r ColGenResult, opt float64) {
	t.Helper()
	c := *r.Certificate
	if c.Proof == "saturation" {
		if r.Upper != minOf(m.AdvSaturation()) || r.Upper < opt-1e-9 {
			t.Fatalf("D=%g: saturation bound %v, adversaries saturate at %v, optimum %v", c.D, r.Upper, m.AdvSaturation(), opt)
		}
		return
	}
	var s float64
	for _, v := range c.Mu {
		if v < 0 {
			t.Fatalf("D=%g: μ = %v has a negative entry", c.D, c.Mu)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-12 || c.Nu < 0 {
		t.Fatalf("D=%g: Σμ = %v, ν = %v", c.D, s, c.Nu)
	}
	if math.Abs(c.Bound()-r.Upper) > 1e-12 {
		t.Fatalf("D=%g: certificate bound %v, reported upper %v", c.D, c.Bound(), r.Upper)
	}
	if r.Upper < opt-1e-9 {
		t.Fatalf("D=%g: upper %v below the optimum %v", c.D, r.Upper, opt)
	}
	for _, v := range g.Rays() {
		if rc := c.ReducedCost(m, v); rc > c.MaxReducedCost+1e-8 {
			t.Fatalf("D=%g: ray %v has reduced cost %v > the certified maximum %v (%s)", c.D, v, rc, c.MaxReducedCost, c.Proof)
		}
	}
}
