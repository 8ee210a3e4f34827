package bench

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// lpSolve is lp_solve, run as `lp_solve -fmps FILE -S3 -timeout T`. It has
// no random seed (solve seed s > 0 reads a permuted file, PermutationSeed)
// and prints its solution on standard output with 6 significant digits per
// value (the command line offers no more), so its answers carry rounding
// errors of about 5e-7 relative that the check sees. Its exit status is the
// solve's: 0 optimal, 1 suboptimal (stopped with an incumbent), 2
// infeasible, 7 timeout.
var lpSolve = program{bin: "lp_solve",
	info: func(SolverConfig) SolverInfo {
		return SolverInfo{Name: "lp_solve", Threads: 1, ReadsFile: true, SeedOption: PermutationSeed,
			Options: "-fmps -S3 (defaults otherwise; -timeout in whole seconds, rounded up)"}
	},
	version: func(ctx context.Context, path string) (string, error) {
		out, err := probe(ctx, true, path, "-h")
		if err != nil {
			return "", err
		}
		// "Usage of /usr/bin/lp_solve version 5.5.2.5:" (the program as called).
		first, _, _ := strings.Cut(out, "\n")
		_, v, ok := strings.Cut(strings.TrimSuffix(strings.TrimSpace(first), ":"), " version ")
		if !ok || !strings.HasPrefix(first, "Usage of ") || v == "" {
			return "", fmt.Errorf("%s -h printed %s: not lp_solve?", path, quoteLine(first))
		}
		return v, nil
	},
	args: func(t Task, _ string, _ SolverConfig) []string {
		args := []string{"-fmps", t.File, "-S3"}
		if t.Limit > 0 {
			args = append(args, "-timeout", limitSeconds(t.Limit))
		}
		return args
	},
	okExit: func(code int) bool { return code == lpsSuboptimal || code == lpsInfeasible || code == lpsTimeout },
	read: func(e execution, t Task, o Outcome) Outcome {
		r, err := ParseLPSolve(string(e.out), e.exit, t.Instance.Problem.NumCols())
		return o.with(r, err)
	},
}

// lp_solve's exit statuses (lp_lib.h).
const (
	lpsOptimal    = 0
	lpsSuboptimal = 1
	lpsInfeasible = 2
	lpsTimeout    = 7
)

// ParseLPSolve reads lp_solve's standard output (-S3) for a model of ncols
// columns named x<j>, given its exit status: "Value of objective function:
// v", then "Actual values of the variables:" and one "name value" line per
// column, then "Actual values of the constraints:". Exit 0 is an optimum, 1
// (a suboptimal incumbent) and 7 a time-out, 2 infeasibility ("This
// problem is infeasible").
func ParseLPSolve(out string, exit, ncols int) (Outcome, error) {
	r := Outcome{Objective: math.NaN(), Nodes: -1}
	switch exit {
	case lpsOptimal:
		r.Status, r.SolverStatus = StatusOptimal, "OPTIMAL"
	case lpsSuboptimal:
		r.Status, r.SolverStatus = StatusTimeLimit, "SUBOPTIMAL"
	case lpsTimeout:
		r.Status, r.SolverStatus = StatusTimeLimit, "TIMEOUT"
		return r, nil
	case lpsInfeasible:
		if !strings.Contains(out, "This problem is infeasible") {
			return r, fmt.Errorf("lp_solve: exit status 2 without \"This problem is infeasible\"")
		}
		r.Status, r.SolverStatus = StatusInfeasible, "INFEASIBLE"
		return r, nil
	default:
		return r, fmt.Errorf("lp_solve: exit status %d", exit)
	}
	var inVars bool
	var seen int
	x := make([]float64, ncols)
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "Value of objective function:"):
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Value of objective function:")), 64)
			if err != nil {
				return r, fmt.Errorf("lp_solve: objective line %s", quoteLine(line))
			}
			r.Objective = v
		case line == "Actual values of the variables:":
			inVars = true
		case inVars && (line == "" || strings.HasPrefix(line, "Actual values of the constraints")):
			inVars = false
		case inVars:
			f := strings.Fields(line)
			if len(f) != 2 {
				return r, fmt.Errorf("lp_solve solution line %s", quoteLine(line))
			}
			if err := readValue("lp_solve", line, f, x); err != nil {
				return r, err
			}
			seen++
		}
	}
	if err := sc.Err(); err != nil {
		return r, fmt.Errorf("lp_solve output: %w", err)
	}
	switch {
	case seen == ncols:
		r.X = x
	case r.Status == StatusOptimal || seen > 0:
		return r, fmt.Errorf("lp_solve output: %d of %d variable values", seen, ncols)
	}
	return r, nil
}
