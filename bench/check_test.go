package bench

import (
	"context"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

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
		res, err := in.Problem.Solve(context.Background(), mip.DefaultSolver())
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
	c := DefaultCheck()
	p := in.Problem
	ex, err := in.ExactModel()
	if err != nil {
		t.Fatal(err)
	}
	in.Exact = ex
	obj := CheckExact(ex, x).Objective
	good := Outcome{Status: StatusOptimal, X: x, Objective: obj}
	if j := c.Judge(in, good); j.Status != StatusOptimal || j.Why != "" || j.Verdict.Reason != "" {
		t.Fatalf("the true optimum: %+v", j)
	}
	intCol := slices.Index(p.Integer, true)
	gamma := slices.IndexFunc(p.Cost, func(c float64) bool { return c != 0 })
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
			o.X[gamma] -= 0.01 * math.Copysign(1, -p.Cost[gamma])
			o.Objective = math.NaN()
		}, "certified optimum"},
		{"above γ's rows", func(o *Outcome) { o.X[gamma] -= 0.01 * p.Cost[gamma]; o.Objective = math.NaN() }, "row"},
		{"short solution", func(o *Outcome) { o.X = o.X[:len(o.X)-1] }, "values for"},
		{"NaN value", func(o *Outcome) { o.X[1] = math.NaN() }, "NaN"},
		{"no solution", func(o *Outcome) { o.X = nil }, "no solution"},
		{"false infeasible", func(o *Outcome) { o.Status, o.X = StatusInfeasible, nil }, "claims infeasible"},
	} {
		o := good
		o.X = slices.Clone(x)
		tc.edit(&o)
		j := c.Judge(in, o)
		if j.Status != StatusWrong || !strings.Contains(j.Why, tc.want) {
			t.Errorf("%s: status %q, reason %q (want wrong, %q)", tc.name, j.Status, j.Why, tc.want)
		}
	}
	// A time-limited run with a feasible incumbent, or none, is a time-out.
	worse := slices.Clone(x)
	worse[gamma] -= 0.01 * math.Copysign(1, -p.Cost[gamma])
	for _, o := range []Outcome{{Status: StatusTimeLimit, X: worse, Objective: math.NaN()}, {Status: StatusTimeLimit, Objective: math.NaN()}} {
		if j := c.Judge(in, o); j.Status != StatusTimeLimit {
			t.Errorf("time limit: %+v", j)
		}
	}
	// A feasible solution below a (here: false) proven bound is wrong: the
	// bound or the solution is.
	lying := in
	lying.Bound, lying.Optimal = obj+0.01, math.NaN()
	if j := c.Judge(lying, good); j.Status != StatusWrong || !strings.Contains(j.Why, "below the proven bound") {
		t.Errorf("bound: %+v", j)
	}
	// Within mmds's tolerance is optimal; beyond it but within MIPLIB's,
	// imprecise.
	for _, tc := range []struct {
		d    float64
		want Status
	}{{1e-9, StatusOptimal}, {1e-5, StatusImprecise}} {
		o := good
		o.X = slices.Clone(x)
		o.X[0] += tc.d
		if j := c.Judge(in, o); j.Status != tc.want {
			t.Errorf("%g perturbation: %+v, want %s", tc.d, j, tc.want)
		}
	}
}

// exactTiny is min x + y, x + y ≥ 1, 0 ≤ x ≤ 1, y ∈ {0, 1}, and a row
// 0.1 x + 0.2 y ≤ 0.3 whose numbers are not float64s: the check reads them
// as the decimals written, so x = y = 1 meets it exactly (in float64,
// 0.1 + 0.2 > 0.3).
const exactTiny = `NAME t FREE
ROWS
 N obj
 G r0
 L r1
COLUMNS
 x0 obj 1
 x0 r0 1
 x0 r1 0.1
 M1 'MARKER' 'INTORG'
 x1 obj 1
 x1 r0 1
 x1 r1 0.2
 M2 'MARKER' 'INTEND'
RHS
 rhs r0 1
 rhs r1 0.3
BOUNDS
 UP bnd x0 1
 UP bnd x1 1
ENDATA
`

func TestCheckExactMeasuresViolations(t *testing.T) {
	ex, err := exactFromMPS(exactTiny)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultCheck()
	for _, tc := range []struct {
		name                   string
		x                      []float64
		obj, row, bound, integ float64
		want                   Status
	}{
		{"feasible", []float64{1, 0}, 1, 0, 0, 0, StatusOptimal},
		{"at a decimal side", []float64{1, 1}, 2, 0, 0, 0, StatusOptimal},
		{"row far off", []float64{0.5, 0}, 0.5, 0.5, 0, 0, StatusWrong},         // (1 − 0.5) / max{1, 0.55, 1}
		{"bound far off", []float64{1.5, 0}, 1.5, 0, 0.5 / 1.5, 0, StatusWrong}, // 0.5 / max{1, 1, 1.5}
		{"fractional", []float64{0.7, 0.3}, 1, 0, 0, 0.3, StatusWrong},          // y fractional
		{"integrality inside MIPLIB's", []float64{0, 1 + 2e-5}, 1 + 2e-5, 0, 2e-5 / (1 + 2e-5), 2e-5, StatusImprecise},
		{"row inside MIPLIB's", []float64{1 - 1.6e-6, 0}, 1 - 1.6e-6, 1.6e-6, 0, 0, StatusImprecise},
		{"row inside mmds's", []float64{1 - 1e-9, 0}, 1 - 1e-9, 1e-9, 0, 0, StatusOptimal},
		{"row beyond MIPLIB's", []float64{1 - 2e-4, 0}, 1 - 2e-4, 2e-4, 0, 0, StatusWrong},
	} {
		v := CheckExact(ex, tc.x)
		if tc.name == "at a decimal side" && (v.MaxRow != 0 || v.Worst != "") {
			t.Errorf("%s: %+v: want no violation at all", tc.name, v)
		}
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
		if !near(v.Objective, tc.obj) || !near(v.MaxRow, tc.row) || !near(v.MaxBound, tc.bound) || !near(v.MaxInt, tc.integ) {
			t.Errorf("%s: x = %v: %+v", tc.name, tc.x, v)
		}
		in := Instance{Name: "t", Exact: ex, Optimal: math.NaN(), Bound: math.NaN()}
		if j := c.Judge(in, Outcome{Status: StatusOptimal, X: tc.x, Objective: math.NaN()}); j.Status != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, j.Status, j.Why, tc.want)
		}
	}
}

// The row that made GLPK "wrong" in the library version 1 run (docs/bench.md):
// big-M row r167 of fin-n3-k2-i0-d0.25-derivedM_sym violated by 1.6e-6
// absolute (the float check scaled it by 1 + |bound| to 1.2e-6 > 1e-6). Its
// positive part P and right-hand side are below 1, so MIPLIB's scale is 1
// and the relative violation stays 1.6e-6: inside MIPLIB's 1e-4, beyond
// mmds's 1e-6, so imprecise, not wrong.
func TestGLPKRowIsImprecise(t *testing.T) {
	const mps = `NAME g FREE
ROWS
 N obj
 L r0
COLUMNS
 x0 obj -1
 x0 r0 1
 x1 obj 0
 x1 r0 -0.329
RHS
 rhs r0 0
BOUNDS
 UP bnd x0 1
 UP bnd x1 1
ENDATA
`
	ex, err := exactFromMPS(mps)
	if err != nil {
		t.Fatal(err)
	}
	// x0 − 0.329 x1 ≤ 0 with x1 = 0 and x0 = 1.6e-6.
	x := []float64{1.6e-6, 0}
	v := CheckExact(ex, x)
	if math.Abs(v.MaxRow-1.6e-6) > 1e-15 || v.Worst != "row 0" {
		t.Fatalf("%+v", v)
	}
	in := Instance{Name: "g", Exact: ex, Optimal: math.NaN(), Bound: math.NaN()}
	if j := DefaultCheck().Judge(in, Outcome{Status: StatusOptimal, X: x, Objective: -1.6e-6}); j.Status != StatusImprecise {
		t.Errorf("%+v", j)
	}
}

// Judge holds a solution's exact objective against the claims around it:
// the instance's proven bound in the model's own sense (a maximization's
// best_bound is an upper bound) and the reported objective, also where
// either lies at infinity. Attacks: a maximization's bound read as a lower
// bound made a feasible incumbent below it "wrong" and a solution above it
// (refuting the bound) pass; an objective of ±Inf ("Value of objective
// function: inf" parses) or a bound at infinity on the refuted side gave a
// relative gap of NaN, which exceeds no tolerance, so an absurd claimed
// optimum came out optimal.
func TestJudgeBoundsAndClaims(t *testing.T) {
	min, err := exactFromMPS(exactTiny)
	if err != nil {
		t.Fatal(err)
	}
	// max −x − y over the same rows: optimum −1, proven upper bound −1.
	neg := *min
	neg.Maximize = true
	neg.Cost = make([]*big.Rat, len(min.Cost))
	for j, c := range min.Cost {
		neg.Cost[j] = new(big.Rat).Neg(c)
	}
	neg.Offset = new(big.Rat).Neg(min.Offset)
	// max x + y: the minimization's costs, maximized.
	max := *min
	max.Maximize = true
	c := DefaultCheck()
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name       string
		ex         *ExactModel
		x          []float64
		status     Status
		obj, bound float64
		want       Status
		why        string
	}{
		{"maximization: optimum at the bound", &neg, []float64{1, 0}, StatusOptimal, nan, -1, StatusOptimal, ""},
		{"maximization: incumbent below the upper bound", &neg, []float64{1, 1}, StatusTimeLimit, nan, -1, StatusTimeLimit, ""},
		{"maximization: solution above a false upper bound", &neg, []float64{1, 0}, StatusTimeLimit, nan, -1.5, StatusWrong, "above the proven bound"},
		{"reported objective +Inf", min, []float64{1, 0}, StatusOptimal, inf, nan, StatusWrong, "reported objective"},
		{"reported objective −Inf", min, []float64{1, 0}, StatusOptimal, -inf, nan, StatusWrong, "reported objective"},
		{"lower bound +Inf on a minimization", min, []float64{1, 0}, StatusOptimal, 1, inf, StatusWrong, "below the proven bound"},
		{"lower bound −Inf on a minimization (no bound)", min, []float64{1, 0}, StatusOptimal, 1, -inf, StatusOptimal, ""},
		{"upper bound −Inf on a maximization", &max, []float64{1, 0}, StatusOptimal, 1, -inf, StatusWrong, "above the proven bound"},
		{"upper bound +Inf on a maximization (no bound)", &max, []float64{1, 0}, StatusOptimal, 1, inf, StatusOptimal, ""},
	} {
		in := Instance{Name: "t", Exact: tc.ex, Optimal: nan, Bound: tc.bound}
		j := c.Judge(in, Outcome{Status: tc.status, X: tc.x, Objective: tc.obj})
		if j.Status != tc.want || !strings.Contains(j.Why, tc.why) {
			t.Errorf("%s: %s (%q), want %s (%q)", tc.name, j.Status, j.Why, tc.want, tc.why)
		}
	}
}

// exactFromMPS reads the exact model of an MPS file's text.
func exactFromMPS(text string) (*ExactModel, error) {
	m, err := ReadMPS(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	return m.Exact, nil
}
