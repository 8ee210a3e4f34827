package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// GLPK is GLPK's glpsol, run as `glpsol --freemps FILE --tmlim T -w SOL`.
// It is single-threaded and has no random seed: solve seed s > 0 reads the
// file with rows and columns permuted by s (PermutationSeed).
type GLPK struct{ external }

// NewGLPK probes the glpsol binary at path ("" looks it up on PATH): it
// must print its version and solve a test MIP.
func NewGLPK(ctx context.Context, path string) GLPK {
	s := GLPK{}
	s.info = SolverInfo{Name: "GLPK", Threads: 1, ReadsFile: true, SeedOption: PermutationSeed,
		Options: "--freemps (defaults otherwise; --tmlim in whole seconds, rounded up)"}
	if !s.lookup(path, "glpsol") {
		return s
	}
	out, err := probe(ctx, false, s.info.Path, "--version")
	if err != nil {
		s.info.Reason = err.Error()
		return s
	}
	first, _, _ := strings.Cut(out, "\n")
	if i := strings.LastIndex(first, " "); strings.HasPrefix(first, "GLPSOL") && i > 0 {
		s.info.Version = first[i+1:]
	} else {
		s.info.Reason = fmt.Sprintf("%s --version printed %q: not glpsol?", s.info.Path, first)
		return s
	}
	s.ready(ctx, s)
	return s
}

// Solve implements Solver.
func (s GLPK) Solve(ctx context.Context, t Task) Outcome {
	e := execute(ctx, t.Limit, s.info.Path, "glpsol", func(sol string) []string {
		args := []string{"--freemps", t.File, "-w", sol}
		if t.Limit > 0 {
			args = append(args, "--tmlim", limitSeconds(t.Limit))
		}
		return args
	})
	o, ok := e.outcome("glpsol", nil)
	if !ok {
		return o
	}
	if e.sol == nil {
		o.Status, o.Err = StatusError, "glpsol wrote no solution: "+lastLines(e.out, 3)
		return o
	}
	o = parseGLPKSolution(e.sol, t.Instance.Problem.NumCols(), o, bytes.Contains(e.out, []byte("TIME LIMIT EXCEEDED")))
	o.X = unpermute(o.X, t.Columns)
	return o
}

// parseGLPKSolution reads glpsol's -w format: "s mip ROWS COLS STAT OBJ"
// (STAT o optimal, f feasible, n no feasible, u undefined) or
// "s bas ROWS COLS PST DST OBJ" for an LP, then "j COL VALUE" lines (an
// LP's carry a status before the value).
func parseGLPKSolution(data []byte, ncols int, o Outcome, timedOut bool) Outcome {
	x := make([]float64, ncols)
	var kind string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "s":
			if len(f) < 6 {
				o.Status, o.Err = StatusError, fmt.Sprintf("glpsol solution line %q", sc.Text())
				return o
			}
			kind = f[1]
			o.SolverStatus = strings.Join(f[1:], " ")
			o.Objective, _ = strconv.ParseFloat(f[len(f)-1], 64)
			switch {
			case kind == "mip" && f[4] == "o", kind == "bas" && len(f) >= 7 && f[4] == "f" && f[5] == "f":
				o.Status = StatusOptimal
			case (kind == "mip" && f[4] == "n") || (kind == "bas" && (f[4] == "n" || f[4] == "i")):
				if timedOut {
					o.Status = StatusTimeLimit
				} else {
					o.Status = StatusInfeasible
				}
				return o
			case timedOut && kind == "mip" && f[4] == "f":
				o.Status = StatusTimeLimit
			case timedOut:
				o.Status, o.Objective = StatusTimeLimit, math.NaN()
				return o
			default:
				o.Status, o.Err = StatusError, "glpsol: status "+o.SolverStatus
				return o
			}
		case "j":
			vi := 2
			if kind == "bas" {
				vi = 3
			}
			if len(f) <= vi {
				o.Status, o.Err = StatusError, fmt.Sprintf("glpsol solution line %q", sc.Text())
				return o
			}
			j, err1 := strconv.Atoi(f[1])
			v, err2 := strconv.ParseFloat(f[vi], 64)
			if err := errors.Join(err1, err2); err != nil || j < 1 || j > len(x) {
				o.Status, o.Err = StatusError, fmt.Sprintf("glpsol solution line %q", sc.Text())
				return o
			}
			x[j-1] = v
		}
	}
	if kind == "" {
		o.Status, o.Err = StatusError, "glpsol: no status line in the solution file"
		return o
	}
	o.X = x
	return o
}
