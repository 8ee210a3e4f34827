package mip

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/internal/sweep"
)

// TestWitnessBrackets: on the paper's binary model, random binary models
// and the finite examples, every witness brackets the optimum its solver
// found — lower ≤ γ* ≤ upper — within WitnessPrecision, its privatizer
// meets D, and every branch or leaf bound is at most the upper end. The
// checker (checker/) confirms the same witnesses in exact arithmetic.
func TestWitnessBrackets(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 8))
	bins := []Binary{PaperBinary(), {P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.3}}}
	for range 6 {
		bins = append(bins, randomBinary(rng))
	}
	var widest float64
	for _, b := range bins {
		for _, d := range (sweep.Spec{D0: 0, D1: 1.05 * b.DMax(), N: 9}).Values() {
			opt, err := b.SolveProp2(d, DefaultSolver())
			if err != nil {
				t.Fatal(err)
			}
			w, err := b.WitnessProp2(ctx, d, opt.S, DefaultSolver())
			if err != nil {
				t.Fatalf("%+v D=%g: %v", b, d, err)
			}
			s := Privatizer{S0: w.S[0], S1: w.S[1]}
			if f := b.Finite(); !f.exactRiskAtMost(f.Recon, s.Mechanism(), d) {
				t.Fatalf("%+v D=%g: witness distortion %g", b, d, b.ReconLoss(s))
			}
			checkBracket(t, "prop2", d, w.Losses.MinAdv, opt.MinAdv, w.Upper, &widest)
		}
		f := b.Finite()
		g := mustGlobal(t, f)
		for _, d := range (sweep.Spec{D0: 0, D1: 1.05 * b.DMax(), N: 5}).Values() {
			checkGlobalWitness(t, f, g, d, &widest)
		}
	}
	for _, name := range []string{"finite-ternary.json", "finite-paper-binary.json"} {
		f := loadExample(t, name)
		g := mustGlobal(t, f)
		for _, d := range f.DefaultSweep().Values() {
			checkGlobalWitness(t, f, g, d, &widest)
		}
	}
	t.Logf("widest bracket: %.3g", widest)
}

func checkGlobalWitness(t *testing.T, f Finite, g *Global, d float64, widest *float64) {
	t.Helper()
	opt, err := g.Solve(d, DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	du, err := g.Duals(d, DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.WitnessGlobal(context.Background(), d, opt.Mechanism, &du, 0, DefaultSolver())
	if err != nil {
		t.Fatalf("D=%g: %v", d, err)
	}
	if !f.exactRiskAtMost(f.Recon, w.Mechanism, d) {
		t.Fatalf("D=%g: witness distortion %g", d, f.ReconLoss(w.Mechanism))
	}
	checkBracket(t, "global", d, w.Losses.MinAdv, opt.MinAdv, w.Dual.Upper, widest)
	t.Logf("global D=%.4g: %d pricing leaves, r̄ = %.3g", d, len(w.Dual.Pricing), w.Dual.MaxReducedCost)
}

func checkBracket(t *testing.T, what string, d, lower, opt, upper float64, widest *float64) {
	t.Helper()
	if !(lower <= opt+1e-9 && opt <= upper+1e-9 && upper-lower <= WitnessPrecision) {
		t.Fatalf("%s D=%g: bracket [%.15g, %.15g] around %.15g", what, d, lower, upper, opt)
	}
	*widest = math.Max(*widest, upper-lower)
}

// TestWitnessGlobalRefusesShapes: a mechanism without one row per x, or
// with ragged or empty rows, is an error, never a panic or a truncation.
func TestWitnessGlobalRefusesShapes(t *testing.T) {
	f := PaperBinary().Finite()
	for _, p := range []Mechanism{
		{{1, 0}},                 // one row for n = 2
		{{1, 0}, {0, 1}, {1, 0}}, // three rows
		{{1, 0}, {1}},            // ragged
		{{}, {}},                 // no outputs
	} {
		if _, err := f.WitnessGlobal(context.Background(), 0.25, p, nil, 0, DefaultSolver()); err == nil {
			t.Errorf("%v: no error", p)
		}
	}
}
