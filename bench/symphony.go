package bench

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// symphony is COIN-OR's SYMPHONY, run as `symphony -F FILE -t T`. It has
// no random seed (solve seed s > 0 reads a permuted file, PermutationSeed)
// and prints its solution, 10 decimals per value, on standard output. It
// exits 0 even on fatal errors, so its output alone says what happened.
var symphony = program{bin: "symphony",
	info: func(SolverConfig) SolverInfo {
		return SolverInfo{Name: "SYMPHONY", Threads: 1, ReadsFile: true, SeedOption: PermutationSeed,
			Options: "-F (defaults otherwise; -t wall-clock seconds)"}
	},
	// SYMPHONY prints its version only in the banner of a solve.
	version: func(ctx context.Context, path string) (string, error) {
		dir, file, err := tinyFile()
		defer os.RemoveAll(dir)
		if err != nil {
			return "", err
		}
		out, err := probe(ctx, false, path, "-F", file)
		if err != nil {
			return "", err
		}
		if v := bannerVersion(out); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("%s printed no version: not SYMPHONY?", path)
	},
	args: func(t Task, _ string, _ SolverConfig) []string {
		args := []string{"-F", t.File}
		if t.Limit > 0 {
			args = append(args, "-t", shortest(t.Limit.Seconds()))
		}
		return args
	},
	read: func(e execution, t Task, o Outcome) Outcome {
		r, err := ParseSYMPHONY(string(e.out), t.Instance.Problem.NumCols())
		return o.with(r, err)
	},
}

// bannerVersion reads "==  Version: 5.6.17" from SYMPHONY's banner.
func bannerVersion(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if _, v, ok := strings.Cut(line, "Version:"); ok && strings.HasPrefix(strings.TrimSpace(line), "==") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// with is o with the answer r that a solver printed, or with err when it
// could not be read.
func (o Outcome) with(r Outcome, err error) Outcome {
	if err != nil {
		o.Status, o.Err = StatusError, err.Error()
		return o
	}
	o.Status, o.SolverStatus, o.Objective, o.Nodes = r.Status, r.SolverStatus, r.Objective, r.Nodes
	o.X = r.X // by name: the model's order whatever the file's
	return o
}

// ParseSYMPHONY reads SYMPHONY's standard output for a model of ncols
// columns named x<j>: the banner ("* Optimal Solution Found", "* Time
// Limit Reached", "Preprocessing found the optimum"), "The problem is
// infeasible!", "Solution Cost: v", "Number of analyzed nodes: N" and the
// nonzero values after "Column names and values of nonzeros in the
// solution". Anything else is an error: SYMPHONY exits 0 even when it
// fails. After an optimum found in preprocessing SYMPHONY also prints "The
// problem is infeasible!"; the banner wins.
func ParseSYMPHONY(out string, ncols int) (Outcome, error) {
	r := Outcome{Objective: math.NaN(), Nodes: -1}
	var optimal, timeLimit, infeasible bool
	var inSol, solDone bool // the solution section has begun, has ended
	var x []float64
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if inSol && !solDone {
			// "x<j> value", or a blank or "+++" line to skip; anything
			// else ends the section.
			f := strings.Fields(line)
			switch {
			case line == "" && len(x) == 0, strings.HasPrefix(line, "+++"):
				continue
			case len(f) == 2:
				if x == nil {
					x = make([]float64, ncols)
				}
				if err := readValue("symphony", line, f, x); err != nil {
					return r, err
				}
				continue
			}
			solDone = true
		}
		switch {
		case strings.HasPrefix(line, "* Optimal Solution Found"), strings.HasPrefix(line, "Preprocessing found the optimum"):
			optimal, r.SolverStatus = true, strings.Trim(line, "* ")
		case strings.HasPrefix(line, "* Time Limit Reached"):
			timeLimit, r.SolverStatus = true, strings.Trim(line, "* ")
		case strings.HasPrefix(line, "The problem is infeasible"):
			infeasible = true
		case strings.HasPrefix(line, "Solution Cost:"):
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Solution Cost:")), 64)
			if err != nil {
				return r, fmt.Errorf("symphony: objective line %s", quoteLine(line))
			}
			r.Objective = v
		case strings.HasPrefix(line, "Number of analyzed nodes:"):
			if n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "Number of analyzed nodes:")), 10, 64); err == nil {
				r.Nodes = n
			}
		case strings.HasPrefix(line, "Column names and values of nonzeros"):
			inSol, solDone, x = true, false, nil
		}
	}
	if err := sc.Err(); err != nil {
		return r, fmt.Errorf("symphony output: %w", err)
	}
	// A banner wins over "infeasible".
	switch {
	case optimal:
		r.Status = StatusOptimal
	case timeLimit:
		r.Status = StatusTimeLimit
	case infeasible:
		r.Status, r.SolverStatus = StatusInfeasible, "The problem is infeasible!"
		return r, nil
	default:
		return r, fmt.Errorf("symphony output: no status (last lines: %s)", quoteLine(lastLines([]byte(out), 2)))
	}
	switch {
	case inSol && x == nil:
		r.X = make([]float64, ncols) // every value zero
	case inSol:
		r.X = x
	case r.Status == StatusOptimal:
		return r, fmt.Errorf("symphony output: optimal, but no solution printed")
	}
	return r, nil
}
