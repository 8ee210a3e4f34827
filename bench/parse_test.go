package bench

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Recorded outputs of SYMPHONY 5.6.17 and lp_solve 5.5.2.5 (Debian 12):
// TinyInstance (2 columns, optimum −1.8), an infeasible LP, a 73-column
// library MIP solved to optimality, and a 91-column one stopped at 2 s
// (SYMPHONY) or 1 s (lp_solve) with an incumbent.
func TestParseRecordedOutputs(t *testing.T) {
	for _, tc := range []struct {
		file    string
		exit    int // lp_solve's exit status
		ncols   int
		status  Status
		obj     float64
		nonzero int // nonzero values in the solution; −1: no solution
	}{
		{"symphony-preprocessed.txt", 0, 2, StatusOptimal, -1.8, 2},
		{"symphony-optimal.txt", 0, 73, StatusOptimal, -0.0694032462, -2},
		{"symphony-timelimit.txt", 0, 91, StatusTimeLimit, -0.0967958140, -2},
		{"symphony-infeasible.txt", 0, 1, StatusInfeasible, math.NaN(), -1},
		{"lpsolve-optimal.txt", 0, 2, StatusOptimal, -1.8, 2},
		{"lpsolve-infeasible.txt", 2, 1, StatusInfeasible, math.NaN(), -1},
		{"lpsolve-suboptimal.txt", 1, 91, StatusTimeLimit, -0.12712768, -2},
	} {
		out := readTestdata(t, tc.file)
		var r Outcome
		var err error
		if strings.HasPrefix(tc.file, "symphony") {
			r, err = ParseSYMPHONY(out, tc.ncols)
		} else {
			r, err = ParseLPSolve(out, tc.exit, tc.ncols)
		}
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		nz := 0
		for _, v := range r.X {
			if v != 0 {
				nz++
			}
		}
		okObj := (math.IsNaN(tc.obj) && math.IsNaN(r.Objective)) || r.Objective == tc.obj
		okX := (tc.nonzero == -1 && r.X == nil) || (tc.nonzero == -2 && len(r.X) == tc.ncols && nz > 0) || (tc.nonzero >= 0 && nz == tc.nonzero && len(r.X) == tc.ncols)
		if r.Status != tc.status || !okObj || !okX {
			t.Errorf("%s: %s obj %g, %d values (%d nonzero)", tc.file, r.Status, r.Objective, len(r.X), nz)
		}
	}
	// The preprocessed optimum is followed by "The problem is infeasible!":
	// the banner wins, and the values are the optimum's.
	r, _ := ParseSYMPHONY(readTestdata(t, "symphony-preprocessed.txt"), 2)
	if r.X[0] != 0.2 || r.X[1] != 1 {
		t.Errorf("preprocessed solution %v", r.X)
	}
	for _, bad := range []struct {
		out  string
		exit int
	}{
		{"Fatal errors encountered. Exiting with code -122.\n", 0},
		{"* Optimal Solution Found *\nSolution Cost: -1\n", 0}, // no solution printed
		{"* Optimal Solution Found *\nColumn names and values of nonzeros in the solution\ny3 1\n", 0},
		{"* Optimal Solution Found *\nColumn names and values of nonzeros in the solution\nx1 NaN\n", 0},
	} {
		if r, err := ParseSYMPHONY(bad.out, 2); err == nil {
			t.Errorf("symphony %q: no error (%+v)", bad.out, r)
		}
	}
	for _, bad := range []struct {
		out  string
		exit int
	}{
		{"This problem is unbounded\n", 3},
		{"\nValue of objective function: 0\n\nActual values of the variables:\nx0 1\n", 0}, // 1 of 2 values
		{"\nValue of objective function: 0\n\nActual values of the variables:\nx9 1\nx0 1\n", 0},
		{"Unable to read model.", 255},
		{"", 2},
	} {
		if r, err := ParseLPSolve(bad.out, bad.exit, 2); err == nil {
			t.Errorf("lp_solve %q (exit %d): no error (%+v)", bad.out, bad.exit, r)
		}
	}
}

// checkReport: a parser's report is self-consistent whatever the input.
func checkReport(t *testing.T, r Outcome, err error, ncols int) {
	if err != nil {
		return
	}
	if r.X != nil && len(r.X) != ncols {
		t.Fatalf("%d values for %d columns", len(r.X), ncols)
	}
	for _, v := range r.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite value %v", v)
		}
	}
	if r.Status == StatusOptimal && r.X == nil {
		t.Fatal("optimal without a solution")
	}
}

func FuzzParseSYMPHONY(f *testing.F) {
	for _, name := range []string{"symphony-preprocessed.txt", "symphony-optimal.txt", "symphony-timelimit.txt", "symphony-infeasible.txt"} {
		f.Add(readTestdata(f, name))
	}
	f.Fuzz(func(t *testing.T, out string) {
		r, err := ParseSYMPHONY(out, 3)
		checkReport(t, r, err, 3)
	})
}

func FuzzParseLPSolve(f *testing.F) {
	for _, tc := range []struct {
		name string
		exit int
	}{{"lpsolve-optimal.txt", 0}, {"lpsolve-infeasible.txt", 2}, {"lpsolve-suboptimal.txt", 1}} {
		f.Add(readTestdata(f, tc.name), tc.exit)
	}
	f.Fuzz(func(t *testing.T, out string, exit int) {
		r, err := ParseLPSolve(out, exit, 3)
		checkReport(t, r, err, 3)
	})
}

func FuzzParseSolutionFiles(f *testing.F) {
	f.Add("Optimal - objective value -1.80000000\n      0 x0   0.2   0\n      1 x1   1   -2\n", false, false)
	f.Add("s mip 2 2 o -1.8\nj 1 0.2\nj 2 1\ne o f\n", true, false)
	f.Add("s bas 2 2 f f -1.8\nj 1 b 0.2 0\nj 2 u 1 -2\n", true, true)
	f.Fuzz(func(t *testing.T, text string, glpk, timedOut bool) {
		base := Outcome{Objective: math.NaN(), Nodes: -1}
		var o Outcome
		if glpk {
			o = parseGLPKSolution([]byte(text), 3, base, timedOut)
		} else {
			o = parseCBCSolution([]byte(text), 3, base)
		}
		if o.Status != StatusError && o.X != nil && len(o.X) != 3 {
			t.Fatalf("%d values for 3 columns: %+v", len(o.X), o)
		}
		if o.Status == StatusWrong || o.Status == StatusImprecise {
			t.Fatalf("a parser judged: %+v", o)
		}
	})
}
