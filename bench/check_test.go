package bench

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lanl/highs"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/mip"
)

// solvedInstance returns a certified library instance with an integer
// column, and HiGHS's optimal solution of it.
func solvedInstance(t *testing.T) (Instance, []float64) {
	t.Helper()
	ins, err := smallLibrary(4).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.Variant != "derivedM+sym" || math.IsNaN(in.Optimal) {
			continue
		}
		res, err := highsx.Solve(in.Problem, mip.DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		return in, res.X
	}
	t.Fatal("no certified derivedM+sym instance")
	return Instance{}, nil
}

func TestJudgeCatchesCorruptedSolutions(t *testing.T) {
	in, x := solvedInstance(t)
	tol := DefaultTolerances()
	p := in.Problem
	obj := CheckSolution(p, x, tol).Objective
	good := Outcome{Status: StatusOptimal, X: x, Objective: obj}
	if st, v, why := Judge(in, good, tol); st != StatusOptimal || why != "" || v.Reason != "" {
		t.Fatalf("the true optimum: %s %q %+v", st, why, v)
	}
	intCol := slices.IndexFunc(p.VarTypes, func(t highs.VariableType) bool { return t != highs.ContinuousType })
	gamma := slices.IndexFunc(p.ColCosts, func(c float64) bool { return c != 0 })
	// The first column is a probability P[0][0] ∈ [0, 1] in a row Σ_f P[0][f] = 1.
	for _, tc := range []struct {
		name string
		edit func(o *Outcome)
		want string // part of the reason
	}{
		{"row violated", func(o *Outcome) { o.X[0] += 1e-3 }, "row"},
		{"bound violated", func(o *Outcome) { o.X[0] = -0.5 }, "column 0"},
		{"fractional integer", func(o *Outcome) { o.X[intCol] = 0.5 }, "integer column"},
		{"objective misreported", func(o *Outcome) { o.Objective -= 0.01 }, "reported objective"},
		{"suboptimal claimed optimal", func(o *Outcome) {
			// Lower γ: still feasible (every row bounds γ from above), worse.
			o.X[gamma] -= 0.01 * math.Copysign(1, -p.ColCosts[gamma])
			o.Objective = math.NaN()
		}, "certified optimum"},
		{"above γ's rows", func(o *Outcome) { o.X[gamma] -= 0.01 * p.ColCosts[gamma]; o.Objective = math.NaN() }, "row"},
		{"short solution", func(o *Outcome) { o.X = o.X[:len(o.X)-1] }, "values for"},
		{"NaN value", func(o *Outcome) { o.X[1] = math.NaN() }, "NaN"},
		{"no solution", func(o *Outcome) { o.X = nil }, "no solution"},
		{"false infeasible", func(o *Outcome) { o.Status, o.X = StatusInfeasible, nil }, "claims infeasible"},
	} {
		o := good
		o.X = slices.Clone(x)
		tc.edit(&o)
		st, _, why := Judge(in, o, tol)
		if st != StatusWrong || !strings.Contains(why, tc.want) {
			t.Errorf("%s: status %q, reason %q (want wrong, %q)", tc.name, st, why, tc.want)
		}
	}
	// A time-limited run with a feasible incumbent, or none, is a time-out.
	worse := slices.Clone(x)
	worse[gamma] -= 0.01 * math.Copysign(1, -p.ColCosts[gamma])
	for _, o := range []Outcome{{Status: StatusTimeLimit, X: worse, Objective: math.NaN()}, {Status: StatusTimeLimit, Objective: math.NaN()}} {
		if st, _, why := Judge(in, o, tol); st != StatusTimeLimit {
			t.Errorf("time limit: %s %q", st, why)
		}
	}
	// A feasible solution below a (here: false) proven bound is wrong: the
	// bound or the solution is.
	lying := in
	lying.Bound, lying.Optimal = obj+0.01, math.NaN()
	if st, _, why := Judge(lying, good, tol); st != StatusWrong || !strings.Contains(why, "below the proven bound") {
		t.Errorf("bound: %s %q", st, why)
	}
	// Within tolerance is not wrong.
	o := good
	o.X = slices.Clone(x)
	o.X[0] += 1e-9
	if st, _, why := Judge(in, o, tol); st != StatusOptimal {
		t.Errorf("1e-9 perturbation: %s %q", st, why)
	}
}

func TestCheckSolutionMeasuresViolations(t *testing.T) {
	// min x + y, x + y ≥ 1, 0 ≤ x ≤ 1, y ∈ {0, 1}.
	p := &highs.Model{ColCosts: []float64{1, 1}, ColLower: []float64{0, 0}, ColUpper: []float64{1, 1},
		RowLower: []float64{1}, RowUpper: []float64{math.Inf(1)},
		VarTypes:    []highs.VariableType{highs.ContinuousType, highs.IntegerType},
		ConstMatrix: []highs.Nonzero{{Row: 0, Col: 0, Val: 1}, {Row: 0, Col: 1, Val: 1}}}
	tol := DefaultTolerances()
	for _, tc := range []struct {
		x                      []float64
		obj, row, bound, integ float64
		ok                     bool
	}{
		{[]float64{1, 0}, 1, 0, 0, 0, true},
		{[]float64{0.5, 0}, 0.5, 0.25, 0, 0, false}, // (1 − 0.5) / (1 + 1)
		{[]float64{1.5, 0}, 1.5, 0, 0.25, 0, false}, // (1.5 − 1) / (1 + 1)
		{[]float64{0.7, 0.3}, 1, 0, 0, 0.3, false},  // y fractional
		{[]float64{0, 1 + 1e-7}, 1 + 1e-7, 0, 5e-8, 1e-7, true},
	} {
		v := CheckSolution(p, tc.x, tol)
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
		if !near(v.Objective, tc.obj) || !near(v.MaxRow, tc.row) || !near(v.MaxBound, tc.bound) || !near(v.MaxInt, tc.integ) || (v.Reason == "") != tc.ok {
			t.Errorf("x = %v: %+v", tc.x, v)
		}
	}
}
