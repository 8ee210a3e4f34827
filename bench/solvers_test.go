package bench

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lanl/highs"

	"github.com/mmds-project/mmds/mip"
)

func TestParseCBCRecorded(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cbc-optimal.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseCBC(string(data))
	if err != nil {
		t.Fatal(err)
	}
	// The recorded run: examples/finite-ternary.json, m = 3, D = 0.1.
	if r.Status != "Optimal" || r.Objective != 0.2 || r.Nodes != 56 || r.Time != 620*time.Millisecond {
		t.Errorf("got %+v", r)
	}
	lp, err := os.ReadFile(filepath.Join("testdata", "cbc-lp.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := ParseCBC(string(lp)); err != nil || r.Status != "Optimal" || r.Objective != 0.22 || r.Nodes != 0 {
		t.Errorf("LP: %+v %v", r, err)
	}
	if _, err := ParseCBC("Coin0008I no_name read with 0 errors\n"); err == nil {
		t.Error("output without a result line: no error")
	}
}

// tiny is min x0 − 2 x1 s.t. x0 + x1 ≤ 1.5, x0 ≥ 0.2, x1 ∈ {0, 1}: x1 = 1
// and x0 at its smallest, 0.2, so the optimum is −1.8.
func tiny() Instance {
	return Instance{Name: "tiny", Optimal: -1.8, Bound: -1.8, Problem: &highs.Model{
		ColCosts: []float64{1, -2}, ColLower: []float64{0, 0}, ColUpper: []float64{math.Inf(1), 1},
		RowLower: []float64{math.Inf(-1), 0.2}, RowUpper: []float64{1.5, math.Inf(1)},
		VarTypes:    []highs.VariableType{highs.ContinuousType, highs.IntegerType},
		ConstMatrix: []highs.Nonzero{{Row: 0, Col: 0, Val: 1}, {Row: 0, Col: 1, Val: 1}, {Row: 1, Col: 0, Val: 1}},
	}}
}

func TestParseSolutionFiles(t *testing.T) {
	in := tiny()
	base := Outcome{Objective: math.NaN(), Nodes: -1}
	for _, tc := range []struct {
		name, text string
		glpk, tl   bool
		status     string
		x          []float64
	}{
		{"cbc optimal", "Optimal - objective value -1.80000000\n      0 x0   0.2   0\n      1 x1   1   -2\n", false, false, StatusOptimal, []float64{0.2, 1}},
		{"cbc omits zeros", "Optimal - objective value 0\n      1 x1   1   -2\n", false, false, StatusOptimal, []float64{0, 1}},
		{"cbc time limit, incumbent", "Stopped on time - objective value -1.5\n      0 x0   0.5   0\n      1 x1   1   0\n", false, false, StatusTimeLimit, []float64{0.5, 1}},
		{"cbc time limit, none", "Stopped on time - objective value 1e+50\n", false, false, StatusTimeLimit, nil},
		{"cbc infeasible", "Infeasible - objective value 0\n", false, false, StatusInfeasible, nil},
		{"cbc bad column", "Optimal - objective value 0\n      7 y7   1   0\n", false, false, StatusError, nil},
		{"glpk mip", "c x\ns mip 2 2 o -1.8\ni 1 1.2\ni 2 0.2\nj 1 0.2\nj 2 1\ne o f\n", true, false, StatusOptimal, []float64{0.2, 1}},
		{"glpk lp", "s bas 2 2 f f -1.8\ni 1 u 1.2 0\nj 1 b 0.2 0\nj 2 u 1 -2\ne o f\n", true, false, StatusOptimal, []float64{0.2, 1}},
		{"glpk time limit", "s mip 2 2 f -1.5\nj 1 0.5\nj 2 1\ne o f\n", true, true, StatusTimeLimit, []float64{0.5, 1}},
		{"glpk no feasible", "s mip 2 2 n 0\ne o f\n", true, false, StatusInfeasible, nil},
		{"glpk feasible, no limit", "s mip 2 2 f -1.5\n", true, false, StatusError, nil},
		{"glpk garbage", "hello\n", true, false, StatusError, nil},
	} {
		var o Outcome
		if tc.glpk {
			o = parseGLPKSolution([]byte(tc.text), in, base, tc.tl)
		} else {
			o = parseCBCSolution([]byte(tc.text), in, base)
		}
		if o.Status != tc.status || (tc.x != nil && !slicesEqual(o.X, tc.x)) || (tc.x == nil && o.X != nil && tc.status != StatusError) {
			t.Errorf("%s: %+v", tc.name, o)
		}
	}
}

// Every solver that runs here solves tiny and a library instance to their
// certified optima; one that does not run is reported unavailable, with a
// reason, and the rest of the test still runs.
func TestSolversAgreeOnCertifiedInstances(t *testing.T) {
	ctx := context.Background()
	cfg := SolverConfig{Threads: 1, Seed: 1}
	solvers := []Solver{HiGHS{Config: cfg}, HiGHS{Config: cfg, File: true}, NewCBC(ctx, "", cfg), NewGLPK(ctx, "")}
	missing := NewCBC(ctx, "/nonexistent/cbc", cfg)
	if info := missing.Info(); info.Available || info.Reason == "" {
		t.Errorf("a missing binary: %+v", info)
	}
	notCBC := NewCBC(ctx, "false", cfg) // runs, exits 1: cannot be used
	if info := notCBC.Info(); info.Available {
		t.Errorf("`false` as cbc: %+v", info)
	}
	lib, err := smallLibrary(9).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ins := []Instance{tiny(), lib[0]} // a binary Proposition 2 MIP
	for _, in := range lib {
		if in.Variant == GlobalName {
			ins = append(ins, in)
			break
		}
	}
	runs, err := Solve(ctx, ins, nil, RunSpec{Solvers: solvers, TimeLimit: 20 * time.Second, Dir: t.TempDir(), Tol: DefaultTolerances()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	avail := 0
	for _, s := range solvers {
		if s.Info().Available {
			avail++
		} else {
			t.Logf("%s unavailable: %s", s.Info().Name, s.Info().Reason)
		}
	}
	if len(runs) != avail*len(ins) || avail < 2 {
		t.Fatalf("%d runs with %d solvers", len(runs), avail)
	}
	for _, r := range runs {
		if r.Status != StatusOptimal || math.Abs(r.Objective-r.Optimal) > 1e-6 {
			t.Errorf("%s on %s: %s %g (certified %g) %s %s", r.Solver, r.Instance, r.Status, r.Objective, r.Optimal, r.Wrong, r.Err)
		}
	}
}

// HiGHS-file under a tiny time limit reports a time-out, as in-process
// HiGHS does, never an error: HiGHS's reader also stops at time_limit, so
// reading the file under the limit used to fail with "ReadModelFromFile
// failed". The instance is a hard-tier MIP, which no limit here lets close.
func TestHiGHSFileTinyTimeLimitIsATimeOut(t *testing.T) {
	m, err := mip.RandomFinite(rand.New(rand.NewPCG(1, stream(1, 3, 1, 0))), 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	fam := Family{Model: m, Tier: "hard", Outputs: m.GlobalOutputs(), Variants: Variants()[:1],
		DFromFraction: func(f float64) float64 { return f * m.DMax() }}
	ins, err := fam.Instances([]float64{0.25})
	if err != nil {
		t.Fatal(err)
	}
	in := ins[0]
	data, err := in.MPSBytes()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), in.Name+".mps")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := SolverConfig{Threads: 1}
	for _, limit := range []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, 20 * time.Millisecond} {
		for _, s := range []HiGHS{{Config: cfg}, {Config: cfg, File: true}} {
			o := s.Solve(context.Background(), in, file, limit)
			if o.Status != StatusTimeLimit || o.Err != "" {
				t.Errorf("%s at %v: status %q, error %q; want a time-out", s.Info().Name, limit, o.Status, o.Err)
			}
		}
	}
}

func TestShiftedGeomeanAndSummary(t *testing.T) {
	// exp(mean(ln 2, ln 8)) − 1 = 4 − 1.
	if g := ShiftedGeomean([]float64{1, 7}, 1); math.Abs(g-3) > 1e-12 {
		t.Errorf("SGM %g, want 3", g)
	}
	runs := []Run{
		{Solver: "A", Variant: "v", Status: StatusOptimal, Seconds: 1},
		{Solver: "A", Variant: "v", Status: StatusTimeLimit, Seconds: 10.3},
		{Solver: "A", Variant: "w", Status: StatusWrong, Seconds: 0.1},
		{Solver: "B", Variant: "v", Status: StatusOptimal, Seconds: 3},
	}
	sums := Summarize(runs, 7*time.Second, 1)
	// A/v: times 1 and 7 → 3; A/w: wrong at 2 × 7 = 14 → 14; B/v: 3; A/all: (2·8·15)^(1/3) − 1.
	want := map[string]float64{"A/v": 3, "A/w": 14, "B/v": 3, "A/all": math.Cbrt(2*8*15) - 1}
	if len(sums) != len(want) {
		t.Fatalf("%d summaries: %+v", len(sums), sums)
	}
	for _, s := range sums {
		if w := want[s.Solver+"/"+s.Variant]; math.Abs(s.SGM-w) > 1e-12 {
			t.Errorf("%s/%s: SGM %g, want %g", s.Solver, s.Variant, s.SGM, w)
		}
	}
	if sums[1].Wrong != 1 || sums[1].Failed != 1 || sums[0].TimeLimited != 1 || sums[0].Solved != 1 {
		t.Errorf("counts %+v", sums)
	}
}

func TestProfile(t *testing.T) {
	// p1: A 1 s, B 2 s; p2: A 4 s, B 1 s; p3: A solves (1 s), B wrong; p4: only A ran.
	runs := []Run{
		{Instance: "p1", Solver: "A", Status: StatusOptimal, Seconds: 1}, {Instance: "p1", Solver: "B", Status: StatusOptimal, Seconds: 2},
		{Instance: "p2", Solver: "A", Status: StatusOptimal, Seconds: 4}, {Instance: "p2", Solver: "B", Status: StatusOptimal, Seconds: 1},
		{Instance: "p3", Solver: "A", Status: StatusOptimal, Seconds: 1}, {Instance: "p3", Solver: "B", Status: StatusWrong, Seconds: 0.5},
		{Instance: "p4", Solver: "A", Status: StatusOptimal, Seconds: 1},
	}
	cs := Profile(runs, func(r Run) string { return r.Solver }, func(r Run) string { return r.Instance })
	// A: ratios 1, 4, 1 over 3 problems → steps (1, 2/3), (4, 1). B: 2, 1 → (1, 1/3), (2, 2/3).
	want := []ProfileCurve{{"A", []float64{1, 4}, []float64{2. / 3, 1}}, {"B", []float64{1, 2}, []float64{1. / 3, 2. / 3}}}
	for i, c := range cs {
		if c.Label != want[i].Label || !slicesEqual(c.Tau, want[i].Tau) || !slicesEqual(c.Rho, want[i].Rho) {
			t.Errorf("curve %+v, want %+v", c, want[i])
		}
	}
}
