package highsx

import (
	"errors"
	"math"
	"testing"

	"github.com/lanl/highs"
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
	for name, m := range map[string]*highs.Model{"infeasible": infeasible, "unbounded": unbounded} {
		res, err := Solve(m, Defaults())
		if !errors.Is(err, ErrNotOptimal) {
			t.Errorf("%s: err = %v, want ErrNotOptimal", name, err)
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
