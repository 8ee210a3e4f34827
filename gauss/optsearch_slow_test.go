//go:build slow

package gauss

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestOptimumSlow runs the default search (mmds gauss --optimum) at five
// thresholds of the paper's model and checks the targets and what
// is printed as proven: the numerical bracket [best achievable, estimate
// capped by the upper bound] is at most 10% wide; at D = 0.5 the certified
// mechanism beats X mod Δ; no mechanism found (the search's, every family's
// grid point, the envelope) exceeds the proven upper bound, and no master of
// random two-atom posteriors exceeds the two-atom bound. About a minute.
func TestOptimumSlow(t *testing.T) {
	m := Paper()
	s := DefaultOptimumSearch()
	ds := []float64{0.2, 0.5, 1.5, 3, 5}
	sol, err := m.Solve(context.Background(), ds, SolveOptions{Optimum: &s})
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.NewOptimumSearcher(s)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, b := range sol.Brackets {
		lo, hi, ok := b.Numerical()
		if !ok {
			t.Fatalf("D = %g: no search", b.D)
		}
		t.Logf("D = %g: best %.6f (%s), estimate %.6f, two-atom bound %.6f", b.D, lo, b.Achievable.Mechanism, hi, b.Optimum.TwoAtomBound)
		if w := (hi - lo) / hi; w > 0.1 {
			t.Errorf("D = %g: numerical bracket [%g, %g] %.3g wide", b.D, lo, hi, w)
		}
		if b.Achievable.MinAdv > b.UpperBound || b.Optimum.Mechanism.MinAdv > b.UpperBound {
			t.Errorf("D = %g: a mechanism above the upper bound %g", b.D, b.UpperBound)
		}
		for _, a := range m.Envelope().Vertices() {
			if a.Recon <= b.D && a.MinAdv > b.UpperBound {
				t.Errorf("D = %g: %s achieves %g above the upper bound %g", b.D, a.Mechanism, a.MinAdv, b.UpperBound)
			}
		}
		g, err := o.grid()
		if err != nil {
			t.Fatal(err)
		}
		cg := &colGen{m: m, g: g, d: b.D, seen: map[string]bool{}}
		for j := range g.xs {
			cg.add([]int{j}, []float64{1})
		}
		for range 6000 {
			a, c := rng.IntN(len(g.xs)), rng.IntN(len(g.xs))
			if a != c {
				p := math.Max(minWeight, math.Min(1-minWeight, math.Exp(-8*rng.Float64())))
				if rng.IntN(2) == 0 {
					p = 1 - p
				}
				cg.add([]int{min(a, c), max(a, c)}, []float64{p, 1 - p})
			}
		}
		mr, err := cg.master(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if mr.value > b.Optimum.TwoAtomBound+1e-7 {
			t.Errorf("D = %g: pairs achieve %g on the grid, above the two-atom bound %g", b.D, mr.value, b.Optimum.TwoAtomBound)
		}
	}
	if b := sol.Brackets[1]; b.Achievable.MinAdv <= 3.06209 {
		t.Errorf("D = 0.5: best achievable %g does not beat X mod Δ (3.06209)", b.Achievable.MinAdv)
	}
}
