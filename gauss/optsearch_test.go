package gauss

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/internal/highsx"
)

// testSearch is a small optimum search (49 grid points) for tests.
func testSearch() OptimumSearch {
	s := DefaultOptimumSearch()
	s.Step, s.TriplePoints, s.TripleWeights, s.Ascents, s.Tol = 0.25, 13, 3, 4, 1e-3
	return s
}

// testGrid builds the test search's grid on the paper model.
func testGrid(t *testing.T) (*Model, *optGrid) {
	t.Helper()
	m := Paper()
	g, err := m.newOptGrid(testSearch().Step*math.Sqrt(m.VarX()), testSearch())
	if err != nil {
		t.Fatal(err)
	}
	return m, g
}

// randomDuals draws multipliers of the size the master gives.
func randomDuals(rng *rand.Rand, g *optGrid) lpDuals {
	w := rng.Float64()
	du := lpDuals{w: []float64{w, 1 - w}, lam: 0.3 + 4*rng.Float64(), g: make([]float64, len(g.xs))}
	for j, x := range g.xs {
		z := (x - g.xs[len(g.xs)/2]) / 4
		du.g[j] = 2 + 3*rng.Float64() + z*z*rng.Float64()
	}
	return du
}

// TestPairBoundSound: the certified pair search's bound holds every pair of
// the grid at any weight, each reduced cost computed independently (the
// closed form of pairMMSE, gonum's Gauss–Legendre rule), at random
// multipliers.
func TestPairBoundSound(t *testing.T) {
	_, g := testGrid(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2 {
		du := randomDuals(rng, g)
		ps := g.pairs.searchPairs(du.price(), 1e-4, 10, 0)
		if ps.Bound < ps.Best {
			t.Fatalf("trial %d: bound %g below the best evaluated %g", trial, ps.Bound, ps.Best)
		}
		worst := math.Inf(-1)
		for range 250 {
			a, b := rng.IntN(len(g.xs)), rng.IntN(len(g.xs))
			if a == b {
				continue
			}
			a, b = min(a, b), max(a, b)
			p := rng.Float64()
			if rng.IntN(3) == 0 {
				p = math.Exp(-30 * rng.Float64()) // the extreme weights
			}
			d := g.xs[b] - g.xs[a]
			rc := -p*du.g[a] - (1-p)*du.g[b] - du.lam*pairMMSE(p, d, g.s[0])
			for i, w := range du.w {
				rc += w * pairMMSE(p, d, g.s[i+1])
			}
			worst = math.Max(worst, rc)
			if rc > ps.Bound+1e-9 {
				t.Errorf("trial %d: pair (%d, %d) at p = %g has rc %.12g above the bound %.12g", trial, a, b, p, rc, ps.Bound)
			}
		}
		if ps.Bound > math.Max(worst, ps.Best)+1e-2 {
			t.Logf("trial %d: bound %g, best evaluated %g, best sampled %g", trial, ps.Bound, ps.Best, worst)
		}
	}
}

// TestLiftSound: an atom whose multiplier is raised to Rmax never raises
// the reduced cost above max(0, rc without it) (the lemma of lift), on
// random posteriors of up to five atoms.
func TestLiftSound(t *testing.T) {
	m, g := testGrid(t)
	rng := rand.New(rand.NewPCG(5, 6))
	cg := newColGen(m, g, 0.5)
	for range 200 {
		du := randomDuals(rng, g)
		lifted := cg.lift(du, math.Inf(1)) // every atom lifted: the lemma must hold for each
		k := 2 + rng.IntN(4)
		idx := rng.Perm(len(g.xs))[:k]
		w := make([]float64, k)
		for a := range w {
			w[a] = rng.ExpFloat64()
		}
		idx, w = sortIdx(idx, normalized(w))
		if len(idx) < 2 {
			continue
		}
		// lift one atom only: the rest keep their multipliers
		j := rng.IntN(len(idx))
		one := du
		one.g = append([]float64(nil), du.g...)
		one.g[idx[j]] = lifted.g[idx[j]]
		full := cg.rc(one, cg.evalColumn(&cg.e, idx, w))
		rest := append(append([]int(nil), idx[:j]...), idx[j+1:]...)
		rw := normalized(append(append([]float64(nil), w[:j]...), w[j+1:]...))
		without := cg.rc(one, cg.evalColumn(&cg.e, rest, rw))
		if full > math.Max(0, without)+1e-9 {
			t.Errorf("atoms %v %v, lifted %d: rc %g above max(0, %g)", idx, w, idx[j], full, without)
		}
	}
}

// TestOptimumSearch runs the small search at D = 0.5 and checks what it
// prints: the estimate is at least the grid LP's value (weak duality), the
// mechanism meets D, re-evaluates to its losses and stays below the
// proven upper bound, and no splitting of the grid prior into posteriors of
// at most two atoms (a master of random pairs) beats the pairs estimate,
// which the search proves.
func TestOptimumSearch(t *testing.T) {
	m := Paper()
	o, err := m.NewOptimumSearcher(testSearch())
	if err != nil {
		t.Fatal(err)
	}
	const d = 0.5
	est, err := o.Estimate(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("grid value %.6f, estimate %.6f (pairs %.6f, slack %.3g), mechanism %.6f, %d iterations", est.GridValue, est.Estimate, est.TwoAtomBound, est.Slack, est.Mechanism.MinAdv, est.Iterations)
	if est.Estimate < est.GridValue-1e-9*est.GridValue || est.TwoAtomBound < est.Dual-1e-12 {
		t.Errorf("estimate %g below the grid value %g, or pairs estimate %g below the dual %g", est.Estimate, est.GridValue, est.TwoAtomBound, est.Dual)
	}
	mech := est.Mechanism
	if mech.Recon > d {
		t.Errorf("mechanism's L_R = %g above D", mech.Recon)
	}
	got, err := m.Losses(mech.Mechanism)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.MinAdv-mech.MinAdv) > 1e-9*mech.MinAdv || math.Abs(got.Recon-mech.Recon) > 1e-9*d {
		t.Errorf("mechanism re-evaluates to %v, reported %v", got, mech.Losses)
	}
	if ub := m.UpperBound(d); mech.MinAdv > ub {
		t.Errorf("mechanism %g above the proven upper bound %g", mech.MinAdv, ub)
	}
	// the envelope with the search's kernel among its points (as
	// searchOptimum offers it to every threshold)
	b1, err := m.Bracket(d)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := m.Envelope().withPoints([]Achievable{est.kernel}).At(d)
	if err != nil {
		t.Fatal(err)
	}
	if a2.MinAdv < math.Max(b1.Achievable.MinAdv, mech.MinAdv)-1e-9 || a2.Recon > d {
		t.Errorf("withPoints: best achievable %g (L_R %g), want at least the model's %g and the search's %g", a2.MinAdv, a2.Recon, b1.Achievable.MinAdv, mech.MinAdv)
	}
	// a master over random two-atom posteriors (and the point masses)
	g, err := o.grid()
	if err != nil {
		t.Fatal(err)
	}
	cg := &colGen{m: m, g: g, d: d, seen: map[string]bool{}}
	for j := range g.xs {
		cg.add([]int{j}, []float64{1})
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		a, b := rng.IntN(len(g.xs)), rng.IntN(len(g.xs))
		if a != b {
			p := math.Max(minWeight, math.Min(1-minWeight, rng.Float64()))
			cg.add([]int{min(a, b), max(a, b)}, []float64{p, 1 - p})
		}
	}
	mr, err := cg.master(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if mr.value > est.TwoAtomBound+1e-7 {
		t.Errorf("a splitting into pairs achieves %g on the grid, above the proven pairs estimate %g", mr.value, est.TwoAtomBound)
	}
}

// TestOptimumSearchErrors: thresholds outside (0, V_Y), bad settings and a
// master HiGHS cannot take are errors, never a panic.
func TestOptimumSearchErrors(t *testing.T) {
	m := Paper()
	o, err := m.NewOptimumSearcher(testSearch())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []float64{0, -1, m.VarRecon(), math.NaN(), math.Inf(1)} {
		if _, err := o.Estimate(context.Background(), d); err == nil {
			t.Errorf("D = %g: no error", d)
		}
	}
	bad := testSearch()
	bad.Step = 0
	if _, err := m.NewOptimumSearcher(bad); err == nil {
		t.Error("step 0: no error")
	}
	_, g := testGrid(t)
	cg := newColGen(m, g, 0.5)
	cg.cols = append(cg.cols, column{idx: []int{0, 1}, w: []float64{0.5, 0.5}, loss: []float64{math.NaN(), 1, 1}})
	if _, err := cg.master(context.Background()); !errors.Is(err, ErrOptimumLP) || !errors.Is(err, highsx.ErrInvalidModel) {
		t.Errorf("a NaN loss: err = %v, want ErrOptimumLP wrapping highsx.ErrInvalidModel", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Estimate(ctx, 0.5); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestOptimumDeterministic: the search through Solve gives the same
// numbers on one worker and on four.
func TestOptimumDeterministic(t *testing.T) {
	m := Paper()
	var got [2]Bracket
	for i, workers := range []int{1, 4} {
		s := testSearch()
		s.Workers = workers
		sol, err := m.Solve(context.Background(), []float64{1.5}, SolveOptions{Optimum: &s})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Brackets[0].Optimum == nil {
			t.Fatal("no optimum search")
		}
		got[i] = sol.Brackets[0]
	}
	a, b := got[0].Optimum, got[1].Optimum
	if a.Estimate != b.Estimate || a.GridValue != b.GridValue || got[0].Achievable.MinAdv != got[1].Achievable.MinAdv || a.Iterations != b.Iterations {
		t.Errorf("1 worker: estimate %v value %v best %v (%d iterations); 4 workers: %v %v %v (%d)",
			a.Estimate, a.GridValue, got[0].Achievable.MinAdv, a.Iterations, b.Estimate, b.GridValue, got[1].Achievable.MinAdv, b.Iterations)
	}
}
