package highsx

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats/scalar"
)

// lp2 is: maximize x + y s.t. x + 2y ≤ 4, 3x + y ≤ 6, x, y ≥ 0, whose optimum
// is the vertex where both rows bind: x = 8/5, y = 6/5, objective 14/5.
func lp2() *Problem {
	m := NewProblem(2)
	m.Maximize = true
	m.Cost[0], m.Cost[1] = 1, 1
	m.AddRow(math.Inf(-1), 4, []int{0, 1}, []float64{1, 2})
	m.AddRow(math.Inf(-1), 6, []int{0, 1}, []float64{3, 1})
	return m
}

// solve is Problem.Solve without a context.
func solve(m *Problem, o Options) (Result, error) { return m.Solve(context.Background(), o) }

func TestSolveLP(t *testing.T) {
	res, err := solve(lp2(), Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbs(res.Objective, 14.0/5, 1e-12) || !scalar.EqualWithinAbs(res.X[0], 8.0/5, 1e-12) || !scalar.EqualWithinAbs(res.X[1], 6.0/5, 1e-12) {
		t.Errorf("got x = %v, objective %v; want (8/5, 6/5), 14/5", res.X, res.Objective)
	}
	if res.IsMIP || res.Status != StatusOptimal {
		t.Errorf("IsMIP = %v, Status = %q", res.IsMIP, res.Status)
	}
}

func TestSolveMIP(t *testing.T) {
	m := lp2()
	m.Integer[0], m.Integer[1] = true, true
	res, err := solve(m, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	// Integer points with x + 2y ≤ 4 and 3x + y ≤ 6: the best sum is 2 (e.g. (2, 0), (1, 1), (0, 2)).
	if !scalar.EqualWithinAbs(res.Objective, 2, 1e-9) || !res.IsMIP {
		t.Errorf("objective %v (IsMIP %v), want 2", res.Objective, res.IsMIP)
	}
}

func TestEmptyRows(t *testing.T) {
	// An empty row that holds (−1 ≤ 0 ≤ 1) in the middle must not disturb the others.
	withEmpty := func(lo float64) *Problem {
		m := NewProblem(2)
		m.Maximize = true
		m.Cost[0], m.Cost[1] = 1, 1
		m.AddRow(math.Inf(-1), 4, []int{0, 1}, []float64{1, 2})
		m.AddRow(lo, 1, nil, nil)
		m.AddRow(math.Inf(-1), 6, []int{1, 0}, []float64{1, 3})
		return m
	}
	m := withEmpty(-1)
	res, err := solve(m, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbs(res.Objective, 14.0/5, 1e-12) {
		t.Errorf("objective %v, want 14/5", res.Objective)
	}
	// The duals follow m's rows, the empty one's 0: both other rows bind,
	// and their duals are those of lp2 without the empty row.
	plain, err := solve(lp2(), Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if d := res.RowDual; len(d) != 3 || d[1] != 0 || d[0] != plain.RowDual[0] || d[2] != plain.RowDual[1] || d[0] == 0 {
		t.Errorf("row duals %v, want lp2's %v around a 0", res.RowDual, plain.RowDual)
	}
	// A kept LP maps its duals the same way, and appends added rows' duals.
	lp, err := NewLP(m, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	kept, err := lp.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept.RowDual, res.RowDual) {
		t.Errorf("LP row duals %v, want Solve's %v", kept.RowDual, res.RowDual)
	}
	// Only empty rows: HiGHS sees none, and every dual is 0.
	only := NewProblem(1)
	only.Upper[0], only.Cost[0] = 1, 1
	only.AddRow(-1, 1, nil, nil)
	only.AddRow(math.Inf(-1), 0, nil, nil)
	if res, err := solve(only, Defaults()); err != nil || !slices.Equal(res.RowDual, []float64{0, 0}) {
		t.Errorf("only empty rows: duals %v, %v; want [0 0]", res.RowDual, err)
	}
	// An empty row that cannot hold (1 ≤ 0) makes the model infeasible.
	if _, err := solve(withEmpty(1), Defaults()); !errors.Is(err, ErrNotOptimal) {
		t.Errorf("unsatisfiable empty row: err = %v, want ErrNotOptimal", err)
	}
}

func TestNotOptimal(t *testing.T) {
	infeasible := lp2()
	infeasible.AddRow(5, math.Inf(1), []int{0, 1}, []float64{1, 1}) // x + y ≥ 5 but x + y ≤ 14/5
	unbounded := NewProblem(1)
	unbounded.Maximize, unbounded.Cost[0] = true, 1
	unbounded.AddRow(0, math.Inf(1), []int{0}, []float64{1})
	for _, c := range []struct {
		name   string
		m      *Problem
		status Status
		err    error
	}{{"infeasible", infeasible, StatusInfeasible, ErrInfeasible}, {"unbounded", unbounded, StatusUnbounded, ErrUnbounded}} {
		name := c.name
		res, err := solve(c.m, Defaults())
		if !errors.Is(err, ErrNotOptimal) || !errors.Is(err, c.err) {
			t.Errorf("%s: err = %v, want ErrNotOptimal and %v", name, err, c.err)
		}
		if res.Status != c.status {
			t.Errorf("%s: status %v, want %v", name, res.Status, c.status)
		}
		if res.X != nil {
			t.Errorf("%s: a non-optimal solve returned values %v", name, res.X)
		}
	}
}

func TestBadOption(t *testing.T) {
	o := Defaults()
	o.Extra = map[string]any{"no_such_option": true}
	if _, err := solve(lp2(), o); err == nil {
		t.Error("unknown option: no error")
	}
	o.Extra = map[string]any{"mip_rel_gap": []int{1}}
	if _, err := solve(lp2(), o); err == nil {
		t.Error("option of unsupported type: no error")
	}
}

// marketSplit is a market-split feasibility MIP (Cornuéjols and Dawande
// 1999): Σ_j a_rj x_j + s_r⁺ − s_r⁻ = ⌊Σ_j a_rj / 2⌋ for r < rows, x binary,
// minimize the slacks. Branch and bound needs a number of nodes exponential
// in cols; with rows = 4, cols = 40 HiGHS runs for minutes.
func marketSplit(rows, cols int) *Problem {
	nc := cols + 2*rows
	m := NewProblem(nc)
	for j := 0; j < cols; j++ {
		m.Upper[j] = 1
		m.Integer[j] = true
	}
	for j := cols; j < nc; j++ {
		m.Cost[j] = 1
	}
	all := make([]int, nc)
	for j := range all {
		all[j] = j
	}
	seed := uint64(12345)
	for r := 0; r < rows; r++ {
		row := make([]float64, nc)
		var sum float64
		for j := 0; j < cols; j++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			row[j] = float64(seed>>33%100 + 1)
			sum += row[j]
		}
		row[cols+2*r], row[cols+2*r+1] = 1, -1
		rhs := math.Floor(sum / 2)
		m.AddRow(rhs, rhs, all, row)
	}
	return m
}

// TestInterrupt: a hard MIP stops with StatusInterrupted when its context
// ends, and an already cancelled context starts nothing.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := marketSplit(4, 40).Solve(ctx, Defaults())
	t.Logf("returned %v after the deadline (status %v)", time.Since(start)-200*time.Millisecond, res.Status)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNotOptimal) {
		t.Fatalf("err = %v, want ErrInterrupted wrapping the context's error", err)
	}
	if res.Status != StatusInterrupted {
		t.Errorf("status %v, want Interrupted", res.Status)
	}
	if res.HasSolution && len(res.X) != marketSplit(4, 40).NumCols() {
		t.Errorf("incumbent has %d values", len(res.X))
	}
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := lp2().Solve(done, Defaults()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
	// The same LP with a live context is unaffected by the callback.
	if res, err := solve(lp2(), Defaults()); err != nil || res.Status != StatusOptimal {
		t.Errorf("live context: %v, %v", res.Status, err)
	}
}

// TestTimeLimit: a time limit is StatusTimeLimit with ErrTimeLimit, and the
// MIP's dual bound is reported.
func TestTimeLimit(t *testing.T) {
	o := Defaults()
	o.TimeLimit = 100 * time.Millisecond
	res, err := solve(marketSplit(4, 40), o)
	if !errors.Is(err, ErrTimeLimit) || res.Status != StatusTimeLimit {
		t.Fatalf("status %v, err = %v; want TimeLimit", res.Status, err)
	}
	if math.IsNaN(res.DualBound) || (res.HasSolution && res.DualBound > res.Objective+1e-9) {
		t.Errorf("dual bound %v, incumbent %v (has %v): a minimization's bound must not exceed its incumbent", res.DualBound, res.Objective, res.HasSolution)
	}
}

// TestSolveFileTimeLimit: the time limit of a file solve covers the solve,
// not the reading. HiGHS's MPS reader stops at time_limit too and then fails
// with a bare read error, so a tiny limit used to look like a broken file.
// A MIP read from a file is also solved as a MIP (dual bound, nodes).
func TestSolveFileTimeLimit(t *testing.T) {
	dir := t.TempDir()
	hard, lp := filepath.Join(dir, "split.mps"), filepath.Join(dir, "lp2.mps")
	if err := marketSplit(4, 40).Write(hard); err != nil {
		t.Fatal(err)
	}
	if err := lp2().Write(lp); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, 100 * time.Millisecond} {
		o := Defaults()
		o.TimeLimit = limit
		res, err := SolveFile(context.Background(), hard, o)
		if !errors.Is(err, ErrTimeLimit) || res.Status != StatusTimeLimit {
			t.Fatalf("limit %v: status %v, err = %v; want TimeLimit", limit, res.Status, err)
		}
		if !res.IsMIP || math.IsNaN(res.DualBound) {
			t.Errorf("limit %v: IsMIP %v, dual bound %v: the file's MIP was not solved as one", limit, res.IsMIP, res.DualBound)
		}
	}
	res, err := SolveFile(context.Background(), lp, Defaults())
	if err != nil || res.IsMIP || !scalar.EqualWithinAbs(res.Objective, 14.0/5, 1e-12) {
		t.Errorf("LP from a file: objective %v, IsMIP %v, err %v; want 14/5, an LP", res.Objective, res.IsMIP, err)
	}
	if _, err := SolveFile(context.Background(), filepath.Join(dir, "missing.mps"), Defaults()); err == nil || errors.Is(err, ErrTimeLimit) {
		t.Errorf("missing file: err = %v, want a read error", err)
	}
}

// TestLPSetCosts: re-solving after a cost change gives the optimum of the
// changed model, as a fresh solve does.
func TestLPSetCosts(t *testing.T) {
	lp, err := NewLP(lp2(), Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]float64{{1, 1}, {1, 0}, {0, 1}, {3, 1}, {-1, -1}} {
		if err := lp.SetCosts(c); err != nil {
			t.Fatal(err)
		}
		got, err := lp.Solve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m := lp2()
		copy(m.Cost, c)
		want, err := solve(m, Defaults())
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(got.Objective, want.Objective, 1e-12) {
			t.Errorf("costs %v: persistent %v, fresh %v", c, got.Objective, want.Objective)
		}
	}
}

// BenchmarkLPResolve is the fixed cost of one persistent-LP re-solve after
// a cost change (a two-variable LP: all overhead).
func BenchmarkLPResolve(b *testing.B) {
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ctx := range []struct {
		name string
		ctx  context.Context
	}{{"background", context.Background()}, {"cancellable", cancellable}} {
		b.Run(ctx.name, func(b *testing.B) {
			lp, err := NewLP(lp2(), Defaults())
			if err != nil {
				b.Fatal(err)
			}
			costs := [][]float64{{1, 1}, {1, 2}}
			i := 0
			for b.Loop() {
				i++
				if err := lp.SetCosts(costs[i%2]); err != nil {
					b.Fatal(err)
				}
				if _, err := lp.Solve(ctx.ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOffset: the objective's constant term is part of the objective and
// of a MIP's dual bound, solved as given, solved scaled (tiny
// coefficients), kept in HiGHS (NewLP), and written to a file and read
// back by HiGHS's reader.
func TestOffset(t *testing.T) {
	const offset = 0.5
	withOffset := func(m *Problem) *Problem { m.Offset = offset; return m }
	mip := withOffset(lp2())
	mip.Integer = []bool{true, true} // integer optimum 2: (1, 1), (2, 0) or (0, 2)
	// max t + offset s.t. t − a·s ≤ 0, t ≤ 1, 0 ≤ s ≤ 1: t = a, scaled.
	const a = 5e-10
	tiny := NewProblem(2)
	tiny.Maximize, tiny.Cost[0], tiny.Upper[1], tiny.Offset = true, 1, 1, offset
	tiny.AddRow(math.Inf(-1), 0, []int{0, 1}, []float64{1, -a})
	tiny.AddRow(math.Inf(-1), 1, []int{0}, []float64{1})
	for _, tc := range []struct {
		name string
		m    *Problem
		want float64
	}{
		{"LP", withOffset(lp2()), 14.0/5 + offset},
		{"MIP", mip, 2 + offset},
		{"scaled", tiny, a + offset},
	} {
		res, err := solve(tc.m, Defaults())
		if err != nil || !scalar.EqualWithinAbs(res.Objective, tc.want, 1e-12) {
			t.Errorf("%s: objective %v, err %v; want %v", tc.name, res.Objective, err, tc.want)
		}
		if tc.m.IsMIP() && !scalar.EqualWithinAbs(res.DualBound, tc.want, 1e-9) {
			t.Errorf("%s: dual bound %v, want %v", tc.name, res.DualBound, tc.want)
		}
		path := filepath.Join(t.TempDir(), "m.mps")
		if err := tc.m.Write(path); err != nil {
			t.Fatal(err)
		}
		if res, err := SolveFile(context.Background(), path, Defaults()); err != nil || !scalar.EqualWithinAbs(res.Objective, tc.want, 1e-9) {
			t.Errorf("%s from a file: objective %v, err %v; want %v", tc.name, res.Objective, err, tc.want)
		}
	}
	lp, err := NewLP(withOffset(lp2()), Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if res, err := lp.Solve(context.Background()); err != nil || !scalar.EqualWithinAbs(res.Objective, 14.0/5+offset, 1e-12) {
		t.Errorf("NewLP: objective %v, err %v; want %v", res.Objective, err, 14.0/5+offset)
	}
}

// TestAddRow: entries are kept in column order with duplicates summed and
// zeros dropped.
func TestAddRow(t *testing.T) {
	m := NewProblem(4)
	m.AddRow(0, 1, []int{3, 1, 3, 0, 2}, []float64{1, 2, 0.5, 0, 1})
	m.AddRow(-1, 0, []int{2, 2}, []float64{1, -1})
	if _, _, col, val := m.Row(0); !slices.Equal(col, []int{1, 2, 3}) || !slices.Equal(val, []float64{2, 1, 1.5}) {
		t.Errorf("row 0: %v at %v", val, col)
	}
	if _, _, col, _ := m.Row(1); len(col) != 0 {
		t.Errorf("row 1 kept %v", col)
	}
}

// TestInvalidModel: NaN and infinite coefficients are errors before HiGHS
// runs; crossed bounds are an infeasible model.
func TestInvalidModel(t *testing.T) {
	for name, m := range map[string]*Problem{
		"NaN cost":     func() *Problem { m := lp2(); m.Cost[0] = math.NaN(); return m }(),
		"NaN bound":    func() *Problem { m := lp2(); m.Upper[1] = math.NaN(); return m }(),
		"NaN entry":    func() *Problem { m := lp2(); m.AddRow(0, 1, []int{0}, []float64{math.NaN()}); return m }(),
		"infinite one": func() *Problem { m := lp2(); m.AddRow(0, 1, []int{0}, []float64{math.Inf(1)}); return m }(),
		"NaN offset":   func() *Problem { m := lp2(); m.Offset = math.NaN(); return m }(),
		"inf offset":   func() *Problem { m := lp2(); m.Offset = math.Inf(-1); return m }(),
	} {
		if _, err := solve(m, Defaults()); !errors.Is(err, ErrInvalidModel) {
			t.Errorf("%s: err = %v, want ErrInvalidModel", name, err)
		}
	}
	for name, m := range map[string]*Problem{
		"crossed column": func() *Problem { m := lp2(); m.Lower[1], m.Upper[1] = 2, 1; return m }(),
		"crossed row":    func() *Problem { m := lp2(); m.AddRow(1, 0, []int{0}, []float64{1}); return m }(),
	} {
		if _, err := solve(m, Defaults()); !errors.Is(err, ErrInfeasible) {
			t.Errorf("%s: err = %v, want ErrInfeasible", name, err)
		}
	}
}

func TestStatusText(t *testing.T) {
	for s := StatusUnknown; s <= StatusError; s++ {
		text, err := s.MarshalText()
		var back Status
		if err != nil || back.UnmarshalText(text) != nil || back != s {
			t.Errorf("%v: %q, %v → %v", s, text, err, back)
		}
	}
	var s Status
	if err := s.UnmarshalText([]byte("optimal")); !errors.Is(err, ErrUnknownStatus) {
		t.Errorf("lower-case name: err = %v, want ErrUnknownStatus", err)
	}
	if _, err := Status(99).MarshalText(); !errors.Is(err, ErrUnknownStatus) {
		t.Errorf("Status(99): err = %v", err)
	}
}

// TestTinyCoefficients: entries below HiGHS's small_matrix_value (1e-9)
// used to be dropped with a warning (or refused); the model is now solved
// scaled, and its answer is the one of the model as given. (An entry below
// 1e-12 times the largest of its row is left out: see scaling.apply.)
func TestTinyCoefficients(t *testing.T) {
	for _, a := range []float64{5e-10, 2e-12, 1e-6} {
		// max t  s.t.  t − a·s ≤ 0, t ≤ 1, 0 ≤ s ≤ 1: t = a.
		m := NewProblem(2)
		m.Maximize, m.Cost[0], m.Upper[1] = true, 1, 1
		m.AddRow(math.Inf(-1), 0, []int{0, 1}, []float64{1, -a})
		m.AddRow(math.Inf(-1), 1, []int{0}, []float64{1})
		res, err := solve(m, Defaults())
		if err != nil || !scalar.EqualWithinRel(res.Objective, a, 1e-9) || !scalar.EqualWithinRel(res.X[0], a, 1e-9) {
			t.Errorf("a = %g: objective %v, x %v, err %v", a, res.Objective, res.X, err)
		}
		if len(res.RowDual) != 2 || !scalar.EqualWithinRel(res.RowDual[0], 1, 1e-9) {
			t.Errorf("a = %g: row duals %v, want 1 for the binding row", a, res.RowDual)
		}
	}
}

// TestLPCols: columns added to a persistent LP give the optimum of a fresh
// model with those columns, also when NewLP left an empty row out.
func TestLPCols(t *testing.T) {
	for _, empty := range []bool{false, true} {
		base := lp2()
		if empty {
			base.AddRow(math.Inf(-1), 5, nil, nil) // no coefficients yet: left out
		}
		lp, err := NewLP(base, Defaults())
		if err != nil {
			t.Fatal(err)
		}
		// z with cost 2 in both rows: max x + y + 2z, x + 2y + z ≤ 4, 3x + y + z ≤ 6
		if err := lp.AddCols([]Col{{Cost: 2, Upper: math.Inf(1), Index: []int{0, 1}, Value: []float64{1, 1}}}); err != nil {
			t.Fatal(err)
		}
		got, err := lp.Solve(context.Background())
		if err != nil || lp.NumCols() != 3 || len(got.X) != 3 {
			t.Fatalf("empty row %v: %v, %d columns, x %v", empty, err, lp.NumCols(), got.X)
		}
		fresh := NewProblem(3)
		fresh.Maximize = true
		copy(fresh.Cost, []float64{1, 1, 2})
		fresh.AddRow(math.Inf(-1), 4, []int{0, 1, 2}, []float64{1, 2, 1})
		fresh.AddRow(math.Inf(-1), 6, []int{0, 1, 2}, []float64{3, 1, 1})
		ref, err := solve(fresh, Defaults())
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(got.Objective, ref.Objective, 1e-9) || len(got.RowDual) != base.NumRows() {
			t.Errorf("empty row %v: persistent %v (duals %v), fresh %v", empty, got.Objective, got.RowDual, ref.Objective)
		}
		if empty {
			if err := lp.AddCols([]Col{{Cost: 1, Upper: 1, Index: []int{2}, Value: []float64{1}}}); err == nil {
				t.Error("an entry in the left-out row: no error")
			}
		}
	}
}
