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

// glpk is GLPK's glpsol, run as `glpsol --freemps FILE --tmlim T -w SOL`.
// It is single-threaded and has no random seed: solve seed s > 0 reads the
// file with rows and columns permuted by s (PermutationSeed).
var glpk = program{bin: "glpsol", solution: true,
	info: func(SolverConfig) SolverInfo {
		return SolverInfo{Name: "GLPK", Threads: 1, ReadsFile: true, SeedOption: PermutationSeed,
			Options: "--freemps (defaults otherwise; --tmlim in whole seconds, rounded up)"}
	},
	version: func(ctx context.Context, path string) (string, error) {
		out, err := probe(ctx, false, path, "--version")
		if err != nil {
			return "", err
		}
		first, _, _ := strings.Cut(out, "\n")
		if i := strings.LastIndex(first, " "); strings.HasPrefix(first, "GLPSOL") && i > 0 {
			return first[i+1:], nil
		}
		return "", fmt.Errorf("%s --version printed %q: not glpsol?", path, first)
	},
	args: func(t Task, sol string, _ SolverConfig) []string {
		args := []string{"--freemps", t.File, "-w", sol}
		if t.Limit > 0 {
			args = append(args, "--tmlim", limitSeconds(t.Limit))
		}
		return args
	},
	read: func(e execution, t Task, o Outcome) Outcome {
		o = parseGLPKSolution(e.sol, t.Instance.Problem.NumCols(), o, bytes.Contains(e.out, []byte("TIME LIMIT EXCEEDED")))
		o.X = unpermute(o.X, t.Columns) // glpsol writes values by position
		return o
	},
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
