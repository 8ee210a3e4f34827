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
	p := &symphonyParser{r: Outcome{Objective: math.NaN(), Nodes: -1}, ncols: ncols}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if p.inSol && !p.solDone {
			if ok, err := p.solution(line); err != nil || ok {
				if err != nil {
					return p.r, err
				}
				continue
			}
			p.solDone = true
		}
		if err := p.line(line); err != nil {
			return p.r, err
		}
	}
	if err := sc.Err(); err != nil {
		return p.r, fmt.Errorf("symphony output: %w", err)
	}
	return p.finish(out)
}

// symphonyParser is ParseSYMPHONY's state: the report so far, the banners
// seen, and the solution section.
type symphonyParser struct {
	r                              Outcome
	ncols                          int
	optimal, timeLimit, infeasible bool
	// inSol: the solution section has begun; solDone: it has ended.
	inSol, solDone bool
	x              []float64
}

// solution reads a line of the solution section: "x<j> value", or a blank
// or "+++" line it skips; ok is false for a line that ends the section.
func (p *symphonyParser) solution(line string) (ok bool, err error) {
	f := strings.Fields(line)
	switch {
	case line == "" && len(p.x) == 0, strings.HasPrefix(line, "+++"):
		return true, nil
	case len(f) != 2:
		return false, nil
	}
	j, err := colIndex(f[0], p.ncols)
	if err != nil {
		return false, fmt.Errorf("symphony solution line %s: %w", quoteLine(line), err)
	}
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil || isNonFinite(v) {
		return false, fmt.Errorf("symphony solution line %s: not a number", quoteLine(line))
	}
	if p.x == nil {
		p.x = make([]float64, p.ncols)
	}
	p.x[j] = v
	return true, nil
}

// line reads a line outside the solution section: a banner, the
// objective, the node count, or the start of the solution section.
func (p *symphonyParser) line(line string) error {
	switch {
	case strings.HasPrefix(line, "* Optimal Solution Found"), strings.HasPrefix(line, "Preprocessing found the optimum"):
		p.optimal = true
		p.r.SolverStatus = strings.Trim(line, "* ")
	case strings.HasPrefix(line, "* Time Limit Reached"):
		p.timeLimit = true
		p.r.SolverStatus = strings.Trim(line, "* ")
	case strings.HasPrefix(line, "The problem is infeasible"):
		p.infeasible = true
	case strings.HasPrefix(line, "Solution Cost:"):
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Solution Cost:")), 64)
		if err != nil {
			return fmt.Errorf("symphony: objective line %s", quoteLine(line))
		}
		p.r.Objective = v
	case strings.HasPrefix(line, "Number of analyzed nodes:"):
		if n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "Number of analyzed nodes:")), 10, 64); err == nil {
			p.r.Nodes = n
		}
	case strings.HasPrefix(line, "Column names and values of nonzeros"):
		p.inSol, p.solDone, p.x = true, false, nil
	}
	return nil
}

// finish sets the status (a banner wins over "infeasible") and the
// solution; out is the whole output, for an error without a status.
func (p *symphonyParser) finish(out string) (Outcome, error) {
	r := p.r
	switch {
	case p.optimal:
		r.Status = StatusOptimal
	case p.timeLimit:
		r.Status = StatusTimeLimit
	case p.infeasible:
		r.Status, r.SolverStatus = StatusInfeasible, "The problem is infeasible!"
		return r, nil
	default:
		return r, fmt.Errorf("symphony output: no status (last lines: %s)", quoteLine(lastLines([]byte(out), 2)))
	}
	if p.inSol {
		if p.x == nil {
			p.x = make([]float64, p.ncols) // every value zero
		}
		r.X = p.x
	} else if r.Status == StatusOptimal {
		return r, fmt.Errorf("symphony output: optimal, but no solution printed")
	}
	return r, nil
}
