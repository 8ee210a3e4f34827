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

// cbc is COIN-OR's CBC, run as `cbc FILE -timeMode elapsed -sec T -threads
// N -randomSeed S -randomCbcSeed S -solve -solution SOL`. CBC takes a seed
// of 0 to mean the time of day, so solve seed s is given as s + 1.
var cbc = program{bin: "cbc", solution: true,
	info: func(c SolverConfig) SolverInfo {
		seed := c.Seed
		return SolverInfo{Name: "CBC", Threads: c.Threads, Seed: &seed, ReadsFile: true, SeedOption: "-randomSeed and -randomCbcSeed, seed + 1",
			Options: fmt.Sprintf("-timeMode elapsed -threads %d -randomSeed S+1 -randomCbcSeed S+1 (defaults otherwise)", c.Threads)}
	},
	version: func(ctx context.Context, path string) (string, error) {
		out, err := probe(ctx, false, path, "-quit")
		if err != nil {
			return "", err
		}
		var version string
		for _, line := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Version:"); ok {
				version = strings.TrimSpace(v)
			}
		}
		if version == "" {
			return "", fmt.Errorf("%s -quit printed no version: not CBC?", path)
		}
		return version, nil
	},
	args: func(t Task, sol string, c SolverConfig) []string {
		args := []string{t.File}
		if t.Limit > 0 {
			// CBC's default time mode is CPU time, which on a loaded machine
			// lets it run far past a wall-clock limit.
			args = append(args, "-timeMode", "elapsed", "-sec", shortest(t.Limit.Seconds()))
		}
		if c.Threads > 0 {
			args = append(args, "-threads", strconv.Itoa(c.Threads))
		}
		seed := strconv.Itoa(t.Seed + 1)
		return append(args, "-randomSeed", seed, "-randomCbcSeed", seed, "-solve", "-solution", sol)
	},
	read: func(e execution, t Task, o Outcome) Outcome {
		if n, err := cbcNodes(string(e.out)); err == nil {
			o.Nodes = n
		}
		return parseCBCSolution(e.sol, t.Instance.Problem.NumCols(), o)
	},
}

// cbcNodes reads the branch-and-bound nodes from the summary CBC prints
// at the end of a solve:
//
//	Result - Optimal solution found
//	Objective value:                0.20000000
//	Enumerated nodes:               56
//	Time (Wallclock seconds):       0.62
//
// or, for an LP, "Optimal objective 0.22 - 2 iterations time 0.002" (0
// nodes); −1 when it names none. An output without a result line, or with
// a number on these lines that does not parse, is an error.
func cbcNodes(out string) (int64, error) {
	nodes := int64(-1)
	var result, sawTime bool
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		key, val, ok := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		switch {
		case strings.HasPrefix(line, "Optimal objective ") && !result:
			f := strings.Fields(line)
			if _, err := strconv.ParseFloat(f[2], 64); err != nil {
				return -1, fmt.Errorf("cbc output: LP objective %q: %w", f[2], err)
			}
			result, nodes = true, 0
		case strings.HasPrefix(line, "Result - "):
			result = true
		case ok && key == "Objective value":
			if _, err := strconv.ParseFloat(val, 64); err != nil {
				return -1, fmt.Errorf("cbc output: objective %q: %w", val, err)
			}
		case ok && key == "Enumerated nodes":
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return -1, fmt.Errorf("cbc output: nodes %q: %w", val, err)
			}
			nodes = v
		case ok && key == "Time (Wallclock seconds)" && !sawTime:
			if _, err := strconv.ParseFloat(val, 64); err != nil {
				return -1, fmt.Errorf("cbc output: time %q: %w", val, err)
			}
			sawTime = true
		}
	}
	if !result {
		return -1, fmt.Errorf("cbc output: no \"Result - \" or \"Optimal objective\" line")
	}
	return nodes, nil
}

// parseCBCSolution reads CBC's solution file: a status line
// "Optimal - objective value -0.2", then "index name value reduced-cost"
// per nonzero column (the column names are WriteMPS's x<j>).
func parseCBCSolution(data []byte, ncols int, o Outcome) Outcome {
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() {
		o.Status, o.Err = StatusError, "cbc: empty solution file"
		return o
	}
	head := strings.TrimSpace(sc.Text())
	o.SolverStatus = head
	word, objText, _ := strings.Cut(head, " - objective value ")
	lw := strings.ToLower(word)
	switch {
	case strings.HasPrefix(lw, "optimal"):
		o.Status = StatusOptimal
	case strings.Contains(lw, "time"):
		o.Status = StatusTimeLimit
	case strings.Contains(lw, "infeasible"):
		o.Status = StatusInfeasible
		return o
	default:
		o.Status, o.Err = StatusError, "cbc: "+head
		return o
	}
	if v, err := strconv.ParseFloat(strings.TrimSpace(objText), 64); err == nil && math.Abs(v) < 1e49 {
		o.Objective = v
	} else if o.Status == StatusTimeLimit {
		return o // stopped before any solution
	}
	x := make([]float64, ncols)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if f[0] == "**" { // "** 0 x1 value rc": an infeasibility flag
			f = f[1:]
		}
		if len(f) < 3 {
			o.Status, o.Err = StatusError, fmt.Sprintf("cbc solution line %q", sc.Text())
			return o
		}
		j, err1 := colIndex(f[1], len(x))
		v, err2 := strconv.ParseFloat(f[2], 64)
		if err := errors.Join(err1, err2); err != nil {
			o.Status, o.Err = StatusError, fmt.Sprintf("cbc solution line %q: %v", sc.Text(), err)
			return o
		}
		x[j] = v
	}
	o.X = x
	return o
}
