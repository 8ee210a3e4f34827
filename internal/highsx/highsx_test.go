package highsx

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lanl/highs"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
)

// lp2 is: maximize x + y s.t. x + 2y ≤ 4, 3x + y ≤ 6, x, y ≥ 0, whose optimum
// is the vertex where both rows bind: x = 8/5, y = 6/5, objective 14/5.
func lp2() *highs.Model {
	m := &highs.Model{Maximize: true, ColCosts: []float64{1, 1}, ColLower: []float64{0, 0}}
	m.AddDenseRow(math.Inf(-1), []float64{1, 2}, 4)
	m.AddDenseRow(math.Inf(-1), []float64{3, 1}, 6)
	return m
}

func TestSolveLP(t *testing.T) {
	res, err := Solve(lp2(), Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbs(res.Objective, 14.0/5, 1e-12) || !scalar.EqualWithinAbs(res.X[0], 8.0/5, 1e-12) || !scalar.EqualWithinAbs(res.X[1], 6.0/5, 1e-12) {
		t.Errorf("got x = %v, objective %v; want (8/5, 6/5), 14/5", res.X, res.Objective)
	}
	if res.IsMIP || res.Status != "Optimal" {
		t.Errorf("IsMIP = %v, Status = %q", res.IsMIP, res.Status)
	}
}

func TestSolveMIP(t *testing.T) {
	m := lp2()
	m.VarTypes = []highs.VariableType{highs.IntegerType, highs.IntegerType}
	res, err := Solve(m, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	// Integer points with x + 2y ≤ 4 and 3x + y ≤ 6: the best sum is 2 (e.g. (2, 0), (1, 1), (0, 2)).
	if !scalar.EqualWithinAbs(res.Objective, 2, 1e-9) || !res.IsMIP {
		t.Errorf("objective %v (IsMIP %v), want 2", res.Objective, res.IsMIP)
	}
}

func TestEmptyRows(t *testing.T) {
	m := lp2()
	// An empty row that holds (−1 ≤ 0 ≤ 1) in the middle must not disturb the others.
	m.RowLower = []float64{m.RowLower[0], -1, m.RowLower[1]}
	m.RowUpper = []float64{m.RowUpper[0], 1, m.RowUpper[1]}
	for i := range m.ConstMatrix {
		if m.ConstMatrix[i].Row == 1 {
			m.ConstMatrix[i].Row = 2
		}
	}
	res, err := Solve(m, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbs(res.Objective, 14.0/5, 1e-12) {
		t.Errorf("objective %v, want 14/5", res.Objective)
	}
	// The duals follow m's rows, the empty one's 0: both other rows bind,
	// and their duals are those of lp2 without the empty row.
	plain, err := Solve(lp2(), Defaults())
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
	if err := lp.AddRows([]Row{{Lower: math.Inf(-1), Upper: 100, Index: []int{0, 1}, Value: []float64{1, 1}}}); err != nil {
		t.Fatal(err)
	}
	if kept, err = lp.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := kept.RowDual; len(d) != 4 || !floats.EqualApprox(d[:3], res.RowDual, 1e-12) || d[3] != 0 {
		t.Errorf("LP row duals after a slack row %v, want %v then 0", d, res.RowDual)
	}
	// An empty row that cannot hold (1 ≤ 0) makes the model infeasible.
	m.RowLower[1] = 1
	if _, err := Solve(m, Defaults()); !errors.Is(err, ErrNotOptimal) {
		t.Errorf("unsatisfiable empty row: err = %v, want ErrNotOptimal", err)
	}
}

func TestNotOptimal(t *testing.T) {
	infeasible := lp2()
	infeasible.AddDenseRow(5, []float64{1, 1}, math.Inf(1)) // x + y ≥ 5 but x + y ≤ 14/5
	unbounded := &highs.Model{Maximize: true, ColCosts: []float64{1}, ColLower: []float64{0}}
	unbounded.AddDenseRow(0, []float64{1}, math.Inf(1))
	for _, c := range []struct {
		name   string
		m      *highs.Model
		status Status
		err    error
	}{{"infeasible", infeasible, StatusInfeasible, ErrInfeasible}, {"unbounded", unbounded, StatusUnbounded, ErrUnbounded}} {
		name := c.name
		res, err := Solve(c.m, Defaults())
		if !errors.Is(err, ErrNotOptimal) || !errors.Is(err, c.err) {
			t.Errorf("%s: err = %v, want ErrNotOptimal and %v", name, err, c.err)
		}
		if res.ModelStatus != c.status {
			t.Errorf("%s: status %v, want %v", name, res.ModelStatus, c.status)
		}
		if res.X != nil {
			t.Errorf("%s: a non-optimal solve returned values %v", name, res.X)
		}
	}
}

func TestBadOption(t *testing.T) {
	o := Defaults()
	o.Extra = map[string]any{"no_such_option": true}
	if _, err := Solve(lp2(), o); err == nil {
		t.Error("unknown option: no error")
	}
	o.Extra = map[string]any{"mip_rel_gap": []int{1}}
	if _, err := Solve(lp2(), o); err == nil {
		t.Error("option of unsupported type: no error")
	}
}

// marketSplit is a market-split feasibility MIP (Cornuéjols and Dawande
// 1999): Σ_j a_rj x_j + s_r⁺ − s_r⁻ = ⌊Σ_j a_rj / 2⌋ for r < rows, x binary,
// minimize the slacks. Branch and bound needs a number of nodes exponential
// in cols; with rows = 4, cols = 40 HiGHS runs for minutes.
func marketSplit(rows, cols int) *highs.Model {
	m := &highs.Model{}
	nc := cols + 2*rows
	m.ColCosts = make([]float64, nc)
	m.ColLower = make([]float64, nc)
	m.ColUpper = make([]float64, nc)
	m.VarTypes = make([]highs.VariableType, nc)
	for j := 0; j < cols; j++ {
		m.ColUpper[j] = 1
		m.VarTypes[j] = highs.IntegerType
	}
	for j := cols; j < nc; j++ {
		m.ColCosts[j], m.ColUpper[j] = 1, math.Inf(1)
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
		m.AddDenseRow(rhs, row, rhs)
	}
	return m
}

// TestInterrupt: a hard MIP stops with StatusInterrupted when its context
// ends, and an already cancelled context starts nothing.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := SolveContext(ctx, marketSplit(4, 40), Defaults())
	t.Logf("returned %v after the deadline (status %v)", time.Since(start)-200*time.Millisecond, res.ModelStatus)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNotOptimal) {
		t.Fatalf("err = %v, want ErrInterrupted wrapping the context's error", err)
	}
	if res.ModelStatus != StatusInterrupted {
		t.Errorf("status %v, want Interrupted", res.ModelStatus)
	}
	if res.HasSolution && len(res.X) != len(marketSplit(4, 40).ColCosts) {
		t.Errorf("incumbent has %d values", len(res.X))
	}
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := SolveContext(done, lp2(), Defaults()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
	// The same LP with a live context is unaffected by the callback.
	if res, err := SolveContext(context.Background(), lp2(), Defaults()); err != nil || res.ModelStatus != StatusOptimal {
		t.Errorf("live context: %v, %v", res.ModelStatus, err)
	}
}

// TestTimeLimit: a time limit is StatusTimeLimit with ErrTimeLimit, and the
// MIP's dual bound is reported.
func TestTimeLimit(t *testing.T) {
	o := Defaults()
	o.TimeLimit = 100 * time.Millisecond
	res, err := Solve(marketSplit(4, 40), o)
	if !errors.Is(err, ErrTimeLimit) || res.ModelStatus != StatusTimeLimit {
		t.Fatalf("status %v, err = %v; want TimeLimit", res.ModelStatus, err)
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
	if err := WriteModel(marketSplit(4, 40), hard); err != nil {
		t.Fatal(err)
	}
	if err := WriteModel(lp2(), lp); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, 100 * time.Millisecond} {
		o := Defaults()
		o.TimeLimit = limit
		res, err := SolveFile(hard, o)
		if !errors.Is(err, ErrTimeLimit) || res.ModelStatus != StatusTimeLimit {
			t.Fatalf("limit %v: status %v, err = %v; want TimeLimit", limit, res.ModelStatus, err)
		}
		if !res.IsMIP || math.IsNaN(res.DualBound) {
			t.Errorf("limit %v: IsMIP %v, dual bound %v: the file's MIP was not solved as one", limit, res.IsMIP, res.DualBound)
		}
	}
	res, err := SolveFile(lp, Defaults())
	if err != nil || res.IsMIP || !scalar.EqualWithinAbs(res.Objective, 14.0/5, 1e-12) {
		t.Errorf("LP from a file: objective %v, IsMIP %v, err %v; want 14/5, an LP", res.Objective, res.IsMIP, err)
	}
	if _, err := SolveFile(filepath.Join(dir, "missing.mps"), Defaults()); err == nil || errors.Is(err, ErrTimeLimit) {
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
		m.ColCosts = c
		want, err := Solve(m, Defaults())
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(got.Objective, want.Objective, 1e-12) {
			t.Errorf("costs %v: persistent %v, fresh %v", c, got.Objective, want.Objective)
		}
	}
}

// TestLPRows: rows added to a persistent LP change its optimum like a
// fresh model with those rows, and truncating restores the original.
func TestLPRows(t *testing.T) {
	lp, err := NewLP(lp2(), Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if lp.NumRows() != 2 {
		t.Fatalf("%d rows", lp.NumRows())
	}
	// x ≤ y cuts the optimum (8/5, 6/5) off: the best is then x = y = 4/3.
	if err := lp.AddRows([]Row{{Lower: math.Inf(-1), Upper: 0, Index: []int{0, 1}, Value: []float64{1, -1}}}); err != nil {
		t.Fatal(err)
	}
	res, err := lp.Solve(context.Background())
	if err != nil || !scalar.EqualWithinAbs(res.Objective, 8.0/3, 1e-9) {
		t.Errorf("with x ≤ y: %v, %v; want 8/3", res.Objective, err)
	}
	if err := lp.TruncateRows(2); err != nil {
		t.Fatal(err)
	}
	res, err = lp.Solve(context.Background())
	if err != nil || !scalar.EqualWithinAbs(res.Objective, 14.0/5, 1e-9) || lp.NumRows() != 2 {
		t.Errorf("truncated: %v, %v, %d rows; want 14/5", res.Objective, err, lp.NumRows())
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
