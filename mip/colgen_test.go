package mip

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mmds-project/mmds/loss"
)

var colgenInstances = flag.Int("colgen.instances", colgenDefaultInstances(), "random instances in TestColGenAgainstRayLP (the long check: 1000)")

// colgenDefaultInstances is 200 under -tags slow, 50 in make test.
func colgenDefaultInstances() int {
	if slow {
		return 200
	}
	return 50
}

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
		checkIterations(t, fmt.Sprintf("instance %d", i), got)
	}
}

// checkIterations checks that the bracket of every master iteration lies
// inside the one before: the upper bound is the best so far and the master
// only gains columns.
func checkIterations(t *testing.T, name string, r ColGenResult) {
	t.Helper()
	for j, it := range r.Iterations[1:] {
		if it.Upper > r.Iterations[j].Upper || it.Lower < r.Iterations[j].Lower-1e-12 {
			t.Errorf("%s, iteration %d: bracket [%v, %v] after [%v, %v]: the upper bound is the best so far and the master only gains columns",
				name, it.Iteration, it.Lower, it.Upper, r.Iterations[j].Lower, r.Iterations[j].Upper)
		}
	}
}

// checkCertificate re-checks a certificate from its multipliers alone: the
// bound recomputes, the multipliers are valid, and no ray of the common
// refinement has a reduced cost above the claimed maximum.
func checkCertificate(t *testing.T, m Finite, g *Global, r ColGenResult, opt float64) {
	t.Helper()
	c := *r.DualBound
	if c.Proof == ProofSaturation {
		if r.Upper != loss.Min(m.AdvSaturation()) || r.Upper < opt-1e-9 {
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

// TestColGenBruteForce: on n = 2 and n = 3 models no privatizer of a grid
// (every row on a 1/20 grid of the simplex, m = 3 outputs for n = 2 and
// m = 2 for n = 3) that meets D beats column generation's certified upper
// bound, and the grid's best comes within the grid's resolution of the
// proven optimum for n = 2.
func TestColGenBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2))
	const steps = 20
	for i := 0; i < 12; i++ {
		n := 2 + i%2
		m := randomSmall(rng, n, 1+rng.IntN(2))
		d := m.DMin() + rng.Float64()*(m.DMax()-m.DMin())
		r, err := m.SolveColGen(context.Background(), d, ColGenOptions{Solver: DefaultSolver()})
		if err != nil || !r.Proven {
			t.Fatalf("instance %d: proven %v, %v", i, r.Proven, err)
		}
		outs := 5 - n // 3 outputs for n = 2, 2 for n = 3
		var rows [][]float64
		gridSimplex(outs, steps, nil, &rows)
		best := math.Inf(-1)
		idx := make([]int, n)
		p := make(Mechanism, n)
		for {
			for x := range p {
				p[x] = rows[idx[x]]
			}
			if m.ReconLoss(p) <= d+1e-12 {
				if v := loss.Min(m.AdvLosses(p)); v > best {
					best = v
				}
			}
			x := 0
			for x < n && idx[x] == len(rows)-1 {
				idx[x] = 0
				x++
			}
			if x == n {
				break
			}
			idx[x]++
		}
		if best > r.Upper+1e-9 {
			t.Fatalf("instance %d (n=%d D=%g): a grid privatizer reaches %v > certified upper %v", i, n, d, best, r.Upper)
		}
		if n == 2 && best < r.Gamma-0.1 {
			t.Errorf("instance %d (n=2 D=%g): grid best %v far below the optimum %v", i, d, best, r.Gamma)
		}
	}
}

// gridSimplex appends every point of the simplex in R^k with coordinates
// in multiples of 1/steps.
func gridSimplex(k, steps int, prefix []int, out *[][]float64) {
	used := 0
	for _, v := range prefix {
		used += v
	}
	if len(prefix) == k-1 {
		row := make([]float64, k)
		for j, v := range prefix {
			row[j] = float64(v) / float64(steps)
		}
		row[k-1] = float64(steps-used) / float64(steps)
		*out = append(*out, row)
		return
	}
	for v := 0; v <= steps-used; v++ {
		gridSimplex(k, steps, append(prefix, v), out)
	}
}

// TestColGenHeuristicOnlyBracket: without exact pricing the bracket still
// holds (its upper bound from the relaxation or saturation is ≥ the ray
// LP's optimum) and the privatizer is valid.
func TestColGenHeuristicOnlyBracket(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 3))
	for i := 0; i < 30; i++ {
		m, d := colgenInstance(rng)
		g := mustGlobal(t, m)
		want, err := g.Solve(d, DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.SolveColGen(context.Background(), d, ColGenOptions{Solver: DefaultSolver(), NoExactPricing: true})
		if err != nil {
			t.Fatal(err)
		}
		checkFiniteOptimum(t, m, r.FiniteOptimum, "heuristic column generation")
		if r.Gamma > want.Gamma+1e-9 || r.Upper < want.Gamma-1e-9 {
			t.Fatalf("instance %d: bracket [%v, %v] misses the optimum %v", i, r.Gamma, r.Upper, want.Gamma)
		}
		checkCertificate(t, m, g, r, want.Gamma)
	}
}

// TestColGenTimeLimit: a time limit that ends the search still returns a
// valid privatizer and a bracket that contains the optimum, and a
// cancelled context is ErrInterrupted. The first master iteration waits
// out the limit, so that the limit ends the search after it however fast
// the machine is, and a generous limit leaves that iteration the time it
// needs on a loaded one.
func TestColGenTimeLimit(t *testing.T) {
	m, err := RandomFinite(rand.New(rand.NewPCG(3, 3)), 9, 2)
	if err != nil {
		t.Fatal(err)
	}
	d := 0.3 * m.DMax()
	const limit = 2 * time.Second
	start := time.Now()
	wait := func(ColGenIteration) { time.Sleep(limit - time.Since(start)) }
	r, err := m.SolveColGen(context.Background(), d, ColGenOptions{Solver: DefaultSolver(), TimeLimit: limit, Iteration: wait})
	if err != nil {
		t.Fatal(err)
	}
	if r.Proven || len(r.Iterations) != 1 {
		t.Errorf("proven %v after %d iterations; want the limit to end the search after the first", r.Proven, len(r.Iterations))
	}
	checkFiniteOptimum(t, m, r.FiniteOptimum, "time-limited column generation")
	if r.Upper < r.Gamma-1e-9 || r.Upper > loss.Min(m.AdvSaturation())+1e-12 || len(r.Iterations) == 0 {
		t.Errorf("bracket [%v, %v], saturation %v, %d iterations", r.Gamma, r.Upper, m.AdvSaturation(), len(r.Iterations))
	}
	checkIterations(t, "time-limited column generation", r)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.SolveColGen(ctx, d, ColGenOptions{Solver: DefaultSolver()}); !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if _, err := m.SolveColGen(context.Background(), -1, ColGenOptions{}); !errors.Is(err, ErrInfeasible) {
		t.Errorf("D = −1: err = %v", err)
	}
}

// ExampleFinite_SolveColGen proves the global optimum of the paper's binary
// model at D = 0.1 by column generation: 2.2·D, as the ray LP finds.
func ExampleFinite_SolveColGen() {
	m := PaperBinary().Finite()
	r, err := m.SolveColGen(context.Background(), 0.1, ColGenOptions{Solver: DefaultSolver()})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: γ* = %.4f ≤ %.4f (certificate: %s)\n", r.Status, r.Gamma, r.Upper, r.DualBound.Proof)
	// Output: optimal: γ* = 0.2200 ≤ 0.2200 (certificate: decision rules)
}

// TestSolveFiniteInterrupted: a cancelled context stops every path of
// SolveFinite (ray enumeration, column generation, fixed MIP) with
// ErrInterrupted.
func TestSolveFiniteInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := PaperBinary().Finite()
	for _, o := range []FiniteSolveOptions{{Method: MethodRays}, {Method: MethodColGen}, {Alphabet: 2}} {
		o.Solver = DefaultSolver()
		if _, err := m.SolveFinite(ctx, []float64{0.1}, o); !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
			t.Errorf("%+v: err = %v, want ErrInterrupted", o, err)
		}
	}
	big, err := RandomFinite(rand.New(rand.NewPCG(4, 4)), 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := big.PrepareGlobal(GlobalOptions{Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("enumeration: err = %v, want context.Canceled", err)
	}
}

// TestColGenGapTarget: with a relative gap target the search may stop
// early, but the bracket it certifies is within the target and contains
// the ray LP's optimum (40 random instances under -tags slow, the first 12
// in make test).
func TestColGenGapTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 4))
	n := 40
	if !slow {
		n = 12 // four of each gap target
	}
	for i := range n {
		m, d := colgenInstance(rng)
		g := mustGlobal(t, m)
		want, err := g.Solve(d, DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		target := []float64{0.001, 0.01, 0.1}[i%3]
		r, err := m.SolveColGen(context.Background(), d, ColGenOptions{Solver: DefaultSolver(), GapTol: target})
		if err != nil {
			t.Fatal(err)
		}
		checkFiniteOptimum(t, m, r.FiniteOptimum, "column generation with a gap target")
		if r.Upper-r.Gamma > target*math.Max(1, math.Abs(r.Upper))+1e-12 || r.Gamma > want.Gamma+1e-9 || r.Upper < want.Gamma-1e-9 {
			t.Fatalf("instance %d, target %g: bracket [%v, %v], optimum %v", i, target, r.Gamma, r.Upper, want.Gamma)
		}
		if r.Proven != (r.Status == StatusOptimal) {
			t.Fatalf("instance %d: proven %v but status %v", i, r.Proven, r.Status)
		}
		checkCertificate(t, m, g, r, want.Gamma)
	}
}
