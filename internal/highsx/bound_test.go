package highsx

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// randomLP is a feasible LP with n columns in [−2, 3] and m rows whose
// sides hold at x = 0 (or at a random point), some of them one-sided.
func randomLP(rng *rand.Rand, n, m int, maximize bool) *Problem {
	mod := NewProblem(n)
	mod.Maximize = maximize
	x0 := make([]float64, n)
	for j := range n {
		mod.Cost[j] = rng.NormFloat64()
		mod.Lower[j], mod.Upper[j] = -2, 3
		x0[j] = rng.Float64()*5 - 2
	}
	for range m {
		col := make([]int, 0, n)
		val := make([]float64, 0, n)
		var ax float64
		for j := range n {
			if rng.IntN(3) > 0 {
				v := rng.NormFloat64()
				col, val = append(col, j), append(val, v)
				ax += v * x0[j]
			}
		}
		lo, hi := ax-rng.Float64(), ax+rng.Float64()
		switch rng.IntN(3) {
		case 0:
			lo = math.Inf(-1)
		case 1:
			hi = math.Inf(1)
		}
		mod.AddRow(lo, hi, col, val)
	}
	return mod
}

// TestDualBound: the bound of HiGHS's optimal duals equals the optimum to
// within the solver's tolerances and never falls on the wrong side of it;
// the bound of arbitrary multipliers is on the right side too (weak
// duality), checked against HiGHS's optimum on 200 random LPs of each sense.
func TestDualBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	o := Defaults()
	o.Extra = map[string]any{"dual_feasibility_tolerance": 1e-10}
	for i := range 400 {
		maximize := i%2 == 0
		m := randomLP(rng, 2+rng.IntN(6), 1+rng.IntN(6), maximize)
		res, err := solve(m, o)
		if err != nil {
			t.Fatalf("LP %d: %v", i, err)
		}
		side := 1.0 // bound − optimum must be ≥ 0 (maximize) or ≤ 0
		if !maximize {
			side = -1
		}
		if len(res.RowDual) != m.NumRows() {
			t.Fatalf("LP %d: %d row duals for %d rows (status %v)", i, len(res.RowDual), m.NumRows(), res.Status)
		}
		b := m.DualBound(res.RowDual)
		if d := side * (b.Value - res.Objective); d < -1e-12 || d > 1e-8 {
			t.Errorf("LP %d (maximize %v): optimal duals bound %v, optimum %v", i, maximize, b.Value, res.Objective)
		}
		y := make([]float64, m.NumRows())
		for r := range y {
			y[r] = rng.NormFloat64()
		}
		if b := m.DualBound(y); side*(b.Value-res.Objective) < 0 {
			t.Errorf("LP %d: multipliers %v bound %v below the optimum %v", i, y, b.Value, res.Objective)
		}
	}
}

// TestDualBoundCases: the known duals of lp2 prove its optimum exactly;
// a multiplier that needs an infinite side is dropped; a column without
// the bound its reduced cost needs proves nothing.
func TestDualBoundCases(t *testing.T) {
	m := lp2()
	// 2/5 and 1/5 are not floats: the reduced costs of x and y are 0 only
	// to rounding, and without upper bounds on x and y nothing is proven.
	if b := m.DualBound([]float64{2.0 / 5, 1.0 / 5}); !math.IsInf(b.Value, 1) {
		t.Errorf("lp2's duals, x and y unbounded: %v, want +Inf", b.Value)
	}
	m.Upper[0], m.Upper[1] = 10, 10
	if b := m.DualBound([]float64{2.0 / 5, 1.0 / 5}); math.Abs(b.Value-14.0/5) > 1e-13 || b.Value < 14.0/5 {
		t.Errorf("lp2's duals bound %v, want 14/5", b.Value)
	}
	// −1 on a row with no lower side: dropped; 1/5 on the other row leaves
	// reduced costs 2/5 and 4/5, so x + y ≤ 6/5 + 4 + 8.
	if b := m.DualBound([]float64{-1, 1.0 / 5}); math.Abs(b.Value-13.2) > 1e-12 || b.Y[0] != 0 {
		t.Errorf("wrong-sign multiplier: bound %v, y %v", b.Value, b.Y)
	}
	// With x, y ≤ 10, y = 0 proves x + y ≤ 20.
	if b := m.DualBound([]float64{0, 0}); math.Abs(b.Value-20) > 1e-13 {
		t.Errorf("box bound %v, want 20", b.Value)
	}
	m.Offset = 1
	if b := m.DualBound([]float64{2.0 / 5, 1.0 / 5}); math.Abs(b.Value-19.0/5) > 1e-12 {
		t.Errorf("with offset 1: %v, want 19/5", b.Value)
	}
}

// TestLPBounds: changing column and row bounds of a persistent LP gives
// the optimum of a fresh model with those bounds, with its duals.
func TestLPBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	o := Defaults()
	for i := range 50 {
		m := randomLP(rng, 2+rng.IntN(5), 1+rng.IntN(5), i%2 == 0)
		lp, err := NewLP(m, o)
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			j, r := rng.IntN(m.NumCols()), rng.IntN(m.NumRows())
			if _, _, col, _ := m.Row(r); len(col) == 0 {
				continue // HiGHS never sees an empty row
			}
			lo, hi := m.Lower[j]+rng.Float64(), m.Upper[j]-rng.Float64()
			rlo, rhi, _, _ := m.Row(r)
			rlo, rhi = rlo-rng.Float64(), rhi+rng.Float64()
			m.Lower[j], m.Upper[j] = lo, hi
			m.SetRowBounds(r, rlo, rhi)
			if err := lp.SetColBounds([]int{j}, []float64{lo}, []float64{hi}); err != nil {
				t.Fatal(err)
			}
			if err := lp.SetRowBounds([]int{r}, []float64{rlo}, []float64{rhi}); err != nil {
				t.Fatal(err)
			}
			want, werr := solve(m, o)
			got, gerr := lp.Solve(context.Background())
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("LP %d: fresh %v, kept %v", i, werr, gerr)
			}
			if werr != nil {
				continue
			}
			if math.Abs(got.Objective-want.Objective) > 1e-9 {
				t.Errorf("LP %d: kept %v, fresh %v", i, got.Objective, want.Objective)
			}
			if b := m.DualBound(got.RowDual); math.Abs(b.Value-got.Objective) > 1e-6 {
				t.Errorf("LP %d: the kept LP's duals bound %v, optimum %v", i, b.Value, got.Objective)
			}
		}
	}
}
