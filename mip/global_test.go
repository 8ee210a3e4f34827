package mip

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/loss"
)

// checkFiniteOptimum checks an optimum by its exactly recomputed risks: the
// mechanism is a privatizer, meets the constraint, attains γ*, and (global
// LP) has at most n + K + 1 outputs.
func checkFiniteOptimum(t *testing.T, m Finite, o FiniteOptimum, what string) {
	t.Helper()
	if err := m.ValidateMechanism(o.Mechanism); err != nil {
		t.Fatalf("%s D=%g: %v", what, o.D, err)
	}
	if r := m.ReconLoss(o.Mechanism); r > o.D+1e-8 || r != o.Recon {
		t.Fatalf("%s D=%g: recon %.12g (reported %.12g) exceeds D", what, o.D, r, o.Recon)
	}
	if !scalar.EqualWithinAbs(loss.Min(m.AdvLosses(o.Mechanism)), o.Gamma, 1e-7) || o.MinAdv != loss.Min(o.Adv) {
		t.Fatalf("%s D=%g: min adv %.12g but γ* = %.12g", what, o.D, o.MinAdv, o.Gamma)
	}
	if o.Alphabet == 0 && o.Mechanism.Outputs() > m.GlobalOutputs() {
		t.Fatalf("%s D=%g: %d outputs > n + K + 1 = %d", what, o.D, o.Mechanism.Outputs(), m.GlobalOutputs())
	}
}

func mustGlobal(t testing.TB, m Finite) *Global {
	t.Helper()
	g, err := m.PrepareGlobal(GlobalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFixedTwoOutputsIsProposition2: on binary models the fixed-alphabet
// MIP with m = 2 is Proposition 2, solved by a different formulation.
func TestFixedTwoOutputsIsProposition2(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	models := []Binary{PaperBinary(), {P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.3}}}
	n := 20
	if !slow {
		n = 5
	}
	for range n {
		models = append(models, randomBinary(rng))
	}
	for i, b := range models {
		f := b.Finite()
		g := mustGlobal(t, f)
		for _, d := range (sweep.Spec{D0: 0, D1: 1.1 * b.DMax(), N: 7}).Values() {
			p2, err := b.SolveProp2(d, DefaultSolver())
			if err != nil {
				t.Fatal(err)
			}
			for _, fo := range []FixedOptions{{Outputs: 2}, {Outputs: 2, Hull: true, NoSymmetryBreaking: true}, {Outputs: 2, NaiveBigM: true}} {
				fx, err := f.SolveFixed(d, fo, DefaultSolver())
				if err != nil {
					t.Fatalf("model %d %+v D=%g: %v", i, b, d, err)
				}
				if !scalar.EqualWithinAbs(fx.Gamma, p2.Gamma, 1e-7) {
					t.Fatalf("model %d %+v D=%g %+v: fixed m=2 %.12g, Proposition 2 %.12g", i, b, d, fo, fx.Gamma, p2.Gamma)
				}
				checkFiniteOptimum(t, f, fx, "fixed m=2")
			}
			gl, err := g.Solve(d, DefaultSolver())
			if err != nil {
				t.Fatal(err)
			}
			if gl.Gamma < p2.Gamma-1e-9 {
				t.Fatalf("model %d D=%g: global %.12g < Proposition 2 %.12g", i, d, gl.Gamma, p2.Gamma)
			}
			checkFiniteOptimum(t, f, gl, "global")
		}
	}
}

// TestPaperGlobalHandValues: on the paper's setup the global optimum is the
// erasure mechanism on all of [0, D_max]: F reveals X or erases it, and the
// erased fraction e costs the reconstructor q_Y·e = D and the adversary
// q_Z·e, so γ* = (q_Z/q_Y)·D = 2.2·D; Proposition 2 gives D up to D ≈ 0.115.
func TestPaperGlobalHandValues(t *testing.T) {
	b := PaperBinary()
	g := mustGlobal(t, b.Finite())
	for _, d := range []float64{0.01, 0.05, 0.1, 0.15} {
		o, err := g.Solve(d, DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		if want := 0.44 / 0.2 * d; !scalar.EqualWithinAbs(o.Gamma, want, 1e-9) {
			t.Errorf("D=%g: γ* = %.12g, want 2.2·D = %.12g", d, o.Gamma, want)
		}
	}
	for _, d := range []float64{0.2, 0.3} {
		o, err := g.Solve(d, DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(o.Gamma, 0.44, 1e-9) {
			t.Errorf("D=%g ≥ D_max: γ* = %.12g, want the side-information error 0.44", d, o.Gamma)
		}
	}
}

// randomSmall draws a small model with, now and then, a degenerate case:
// a zero prior entry, an uninformative adversary, a
// general loss matrix with ties.
func randomSmall(rng *rand.Rand, n, k int) Finite {
	m, _ := RandomFinite(rng, n, k)
	switch rng.IntN(5) {
	case 0:
		m.Prior[rng.IntN(n)] = 0
		normalize(m.Prior)
	case 1:
		row := randomDist(rng, n, 0)
		for x := range m.Adv[0].Channel {
			m.Adv[0].Channel[x] = row
		}
	case 2:
		m.Adv[k-1].Loss = randomLoss(rng, n, n)
	}
	return m
}

// TestGlobalProperties: on random small instances the global LP is ≥ every
// fixed-alphabet optimum, equals the fixed MIP at m = n + K + 1, and its
// mechanism's recomputed risks equal the reported ones.
func TestGlobalProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2))
	n := 24
	if !slow {
		n = 8
	}
	for i := range n {
		n, k := 2, 1+rng.IntN(3)
		if i%4 == 3 {
			n, k = 3, 1
		}
		m := randomSmall(rng, n, k)
		g := mustGlobal(t, m)
		d := m.DMin() + rng.Float64()*1.1*(m.DMax()-m.DMin())
		gl, err := g.Solve(d, DefaultSolver())
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		checkFiniteOptimum(t, m, gl, "global")
		for mo := 1; mo <= m.GlobalOutputs(); mo++ {
			if n == 3 && mo > 3 && mo < m.GlobalOutputs() {
				continue
			}
			fx, err := m.SolveFixed(d, FixedOptions{Outputs: mo, Hull: true}, DefaultSolver())
			if errors.Is(err, highsx.ErrInfeasible) && mo < n {
				continue // fewer outputs than values of X may not reach a small D
			}
			if err != nil {
				t.Fatalf("instance %d m=%d: %v", i, mo, err)
			}
			checkFiniteOptimum(t, m, fx, fmt.Sprintf("fixed m=%d", mo))
			if fx.Gamma > gl.Gamma+1e-7 {
				t.Fatalf("instance %d D=%g: fixed m=%d %.12g beats the global LP %.12g", i, d, mo, fx.Gamma, gl.Gamma)
			}
			if mo == m.GlobalOutputs() && !scalar.EqualWithinAbs(fx.Gamma, gl.Gamma, 1e-7) {
				t.Fatalf("instance %d D=%g: fixed m = n+K+1 = %d gives %.12g, global LP %.12g", i, d, mo, fx.Gamma, gl.Gamma)
			}
		}
	}
}

// TestSolveWithDuals: one solve gives Solve's optimum and the LP's row
// duals, which meet the primal value by strong duality. The only nonzero
// right-hand sides are the n row sums (1) and the reconstructor's row (D);
// the dual bound is |Σ_x y_x + ν·D| whatever HiGHS's sign convention.
func TestSolveWithDuals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 4))
	for i := 0; i < 8; i++ {
		n, k := 2+i%2, 1+i%3
		m := randomSmall(rng, n, k)
		g := mustGlobal(t, m)
		d := m.DMin() + rng.Float64()*(m.DMax()-m.DMin())
		want, err := g.Solve(d, DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		got, duals, err := g.SolveWithDuals(d, DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		if got.Gamma != want.Gamma || !reflect.DeepEqual(got.Mechanism, want.Mechanism) {
			t.Fatalf("instance %d: SolveWithDuals γ %v differs from Solve's %v", i, got.Gamma, want.Gamma)
		}
		if len(duals) != n+k+1 {
			t.Fatalf("instance %d: %d row duals, want n + K + 1 = %d", i, len(duals), n+k+1)
		}
		dual := duals[n+k] * d
		for x := 0; x < n; x++ {
			dual += duals[x]
		}
		if !scalar.EqualWithinAbs(math.Abs(dual), got.Gamma, 1e-8) {
			t.Errorf("instance %d: dual objective %.12g, primal %.12g", i, dual, got.Gamma)
		}
	}
}

// TestRandomSearchNeverBeatsGlobal: no privatizer drawn at random (up to 7
// outputs, some near-deterministic) is above the global curve at its own
// distortion.
func TestRandomSearchNeverBeatsGlobal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	for i := 0; i < 6; i++ {
		n := 2 + i%2
		m := randomSmall(rng, n, 1+rng.IntN(2))
		g := mustGlobal(t, m)
		for range 300 {
			p := randomMechanism(rng, n, 1+rng.IntN(7))
			r := m.ReconLoss(p)
			gl, err := g.Solve(r, DefaultSolver())
			if err != nil {
				t.Fatalf("instance %d D=%g: %v", i, r, err)
			}
			if a := loss.Min(m.AdvLosses(p)); a > gl.Gamma+1e-9 {
				t.Fatalf("instance %d: a random privatizer has min adv %.12g at recon %.12g, above the global %.12g\n%v", i, a, r, gl.Gamma, p)
			}
		}
	}
}

// TestFixedVariantsAgree: every formulation of the fixed MIP gives the same
// optimum (M = max L vs derived M, hull, symmetry breaking, global cuts).
func TestFixedVariantsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 4))
	n := 4
	if !slow {
		n = 2 // one model of each size
	}
	for i := range n {
		m := randomSmall(rng, 2+i%2, 1+rng.IntN(2))
		g := mustGlobal(t, m)
		d := m.DMin() + rng.Float64()*(m.DMax()-m.DMin())
		var ref float64
		for j, fo := range []FixedOptions{
			{Outputs: 3}, {Outputs: 3, NaiveBigM: true}, {Outputs: 3, NoSymmetryBreaking: true},
			{Outputs: 3, Hull: true}, {Outputs: 3, Global: g}, {Outputs: 3, Hull: true, Global: g},
		} {
			o, err := m.SolveFixed(d, fo, DefaultSolver())
			if err != nil {
				t.Fatalf("instance %d %+v: %v", i, fo, err)
			}
			checkFiniteOptimum(t, m, o, "fixed")
			if j == 0 {
				ref = o.Gamma
			} else if !scalar.EqualWithinAbs(o.Gamma, ref, 1e-7) {
				t.Fatalf("instance %d D=%g: %+v gives %.12g, derived big-M %.12g", i, d, fo, o.Gamma, ref)
			}
		}
	}
}

func TestGlobalLimitsAndBadD(t *testing.T) {
	b := Binary{P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.3}}
	m := b.Finite()
	g := mustGlobal(t, m)
	o, err := g.Solve(1, DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbs(o.Gamma, loss.Min(m.AdvSaturation()), 1e-9) {
		t.Errorf("D > D_max: γ* = %g, want %g", o.Gamma, loss.Min(m.AdvSaturation()))
	}
	if o, err = g.Solve(0, DefaultSolver()); err != nil || !scalar.EqualWithinAbs(o.Gamma, 0, 1e-12) {
		t.Errorf("D = 0 with a noisy reconstructor: γ* = %g, %v; want 0", o.Gamma, err)
	}
	// A loss with D_min > 0: below it, a clear error.
	m.Recon.Loss = [][]float64{{0.5, 1}, {1, 0.25}}
	g = mustGlobal(t, m)
	dmin := 0.46*0.5 + 0.54*0.25
	if !scalar.EqualWithinAbs(m.DMin(), dmin, 1e-15) {
		t.Fatalf("D_min %g, want %g", m.DMin(), dmin)
	}
	if _, err := g.Solve(dmin-0.01, DefaultSolver()); err == nil || !strings.Contains(err.Error(), "infeasible, below the smallest reconstructor loss") {
		t.Errorf("D < D_min: %v", err)
	}
	if _, err := g.Solve(dmin, DefaultSolver()); err != nil {
		t.Errorf("D = D_min: %v", err)
	}
	for _, d := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := g.Solve(d, DefaultSolver()); err == nil {
			t.Errorf("D = %v: no error", d)
		}
		if _, err := m.SolveFixed(d, FixedOptions{Outputs: 2}, DefaultSolver()); err == nil {
			t.Errorf("fixed D = %v: no error", d)
		}
	}
	if _, err := m.SolveFixed(0.5, FixedOptions{Outputs: 0}, DefaultSolver()); err == nil || !strings.Contains(err.Error(), "m = 0") {
		t.Errorf("m = 0: %v", err)
	}
}

func TestGlobalTooLarge(t *testing.T) {
	m, _ := RandomFinite(rand.New(rand.NewPCG(7, 5)), 2, 2)
	_, err := m.PrepareGlobal(GlobalOptions{MaxSubsets: 1})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("limit 1: %v, want ErrTooLarge", err)
	}
}

func TestSweepGlobalIsConcaveNondecreasing(t *testing.T) {
	m := randomSmall(rand.New(rand.NewPCG(7, 6)), 3, 2)
	g := mustGlobal(t, m)
	ds := sweep.Spec{D0: m.DMin(), D1: m.DMax(), N: 41}.Values()
	opts, err := g.Sweep(context.Background(), ds, DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(opts); i++ {
		if opts[i].Gamma < opts[i-1].Gamma-1e-9 {
			t.Fatalf("γ*(%g) = %g < γ*(%g) = %g", opts[i].D, opts[i].Gamma, opts[i-1].D, opts[i-1].Gamma)
		}
		// Mixing the optimal privatizers at two thresholds achieves the
		// average: the global curve is concave.
		if i+1 < len(opts) && opts[i].Gamma < (opts[i-1].Gamma+opts[i+1].Gamma)/2-1e-9 {
			t.Fatalf("not concave at D = %g", opts[i].D)
		}
	}
}

func ExampleGlobal_Solve() {
	g, err := PaperBinary().Finite().PrepareGlobal(GlobalOptions{})
	if err != nil {
		panic(err)
	}
	o, err := g.Solve(0.1, DefaultSolver())
	if err != nil {
		panic(err)
	}
	fmt.Printf("global γ* = %.4f with %d outputs\n", o.Gamma, o.Mechanism.Outputs())
	for x, row := range o.Mechanism {
		fmt.Printf("P(F|X=%d) = %.4f\n", x, row)
	}
	// Output:
	// global γ* = 0.2200 with 3 outputs
	// P(F|X=0) = [0.3913 0.0000 0.6087]
	// P(F|X=1) = [0.0000 0.5926 0.4074]
}
