package bench

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mmds-project/mmds/mip"
)

// The nodes of CBC's recorded summaries: an optimal MIP (the recorded run:
// examples/finite-ternary.json, m = 3, D = 0.1) and an LP; an output
// without a result is an error.
func TestCBCNodesRecorded(t *testing.T) {
	for _, tc := range []struct {
		file  string
		nodes int64
	}{{"cbc-optimal.txt", 56}, {"cbc-lp.txt", 0}} {
		if n, err := cbcNodes(readTestdata(t, tc.file)); err != nil || n != tc.nodes {
			t.Errorf("%s: %d nodes, %v; want %d", tc.file, n, err, tc.nodes)
		}
	}
	if _, err := cbcNodes("Coin0008I no_name read with 0 errors\n"); err == nil {
		t.Error("output without a result line: no error")
	}
}

func tiny() Instance { return TinyInstance() }

func TestParseSolutionFiles(t *testing.T) {
	in := tiny()
	base := Outcome{Objective: math.NaN(), Nodes: -1}
	for _, tc := range []struct {
		name, text string
		glpk, tl   bool
		status     Status
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
			o = parseGLPKSolution([]byte(tc.text), in.Problem.NumCols(), base, tc.tl)
		} else {
			o = parseCBCSolution([]byte(tc.text), in.Problem.NumCols(), base)
		}
		if o.Status != tc.status || (tc.x != nil && !slices.Equal(o.X, tc.x)) || (tc.x == nil && o.X != nil && tc.status != StatusError) {
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
	solvers := []Solver{HiGHS{Config: cfg}, HiGHS{Config: cfg, File: true}, newExternal(ctx, cbc, "", cfg), newExternal(ctx, glpk, "", cfg),
		newExternal(ctx, symphony, "", cfg), newExternal(ctx, lpSolve, "", cfg)}
	missing := newExternal(ctx, cbc, "/nonexistent/cbc", cfg)
	if info := missing.Info(); info.Available || info.Reason == "" {
		t.Errorf("a missing binary: %+v", info)
	}
	// Binaries that run but are not the solver, or cannot solve: `false`
	// exits 1, `true` prints nothing, `echo` prints its arguments.
	for _, fake := range []string{"false", "true", "echo"} {
		for _, s := range []program{cbc, glpk, symphony, lpSolve} {
			s := newExternal(ctx, s, fake, cfg)
			if info := s.Info(); info.Available || info.Reason == "" {
				t.Errorf("`%s` as %s: %+v", fake, info.Name, info)
			}
		}
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
	runs, err := Solve(ctx, ins, RunSpec{Solvers: solvers, Options: Options{TimeLimit: 20 * time.Second, Seeds: 2}, Dir: t.TempDir(), Check: DefaultCheck()}, nil)
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
	if len(runs) != 2*avail*len(ins) || avail < 2 {
		t.Fatalf("%d runs with %d solvers", len(runs), avail)
	}
	for _, r := range runs {
		// lp_solve prints 6 significant digits: its answers may be imprecise.
		if !r.Status.Solved() || (r.Status == StatusImprecise && r.Solver != "lp_solve") || math.Abs(r.Objective-r.Optimal) > 1e-4 {
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
	fam := Family{Model: m, Tier: "hard", Outputs: m.GlobalOutputs(), Variants: Variants()[:1]}
	ins, err := fam.Instances(context.Background(), []float64{0.25})
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
			o := s.Solve(context.Background(), Task{Instance: in, File: file, Limit: limit})
			if o.Status != StatusTimeLimit || o.Err != "" {
				t.Errorf("%s at %v: status %q, error %q; want a time-out", s.Info().Name, limit, o.Status, o.Err)
			}
		}
	}
}
