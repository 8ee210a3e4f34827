package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/mip"
)

// SolverInfo is what a run records about a solver.
type SolverInfo struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Path      string `json:"path,omitempty"`   // the binary, for external solvers
	Options   string `json:"options"`          // every option mmds sets, as given
	Threads   int    `json:"threads"`          // threads asked for
	Seed      *int   `json:"seed"`             // random seed set; null when the solver has none
	Available bool   `json:"available"`        // the solver ran its probe
	Reason    string `json:"reason,omitempty"` // why it is unavailable
	ReadsFile bool   `json:"reads_file"`       // solves the MPS file rather than the in-memory model
}

// Solver solves one instance under a time limit (0: none).
type Solver interface {
	Info() SolverInfo
	Solve(ctx context.Context, in Instance, file string, limit time.Duration) Outcome
}

// SolverConfig is what every solver is given.
type SolverConfig struct {
	Threads int // 0: the solver's default
	Seed    int
}

// HiGHS solves in-process through internal/highsx with mmds's options
// (tight tolerances, feasibility jump off; see highsx.Defaults).
type HiGHS struct {
	Config SolverConfig
	// File reads the instance's MPS file instead of the in-memory model.
	File bool
}

func (h HiGHS) options(limit time.Duration) highsx.Options {
	o := mip.DefaultSolver()
	o.TimeLimit, o.Threads, o.RandomSeed = limit, h.Config.Threads, h.Config.Seed
	return o
}

// Info implements Solver.
func (h HiGHS) Info() SolverInfo {
	o := h.options(0)
	seed := h.Config.Seed
	name := "HiGHS"
	if h.File {
		name = "HiGHS-file"
	}
	return SolverInfo{Name: name, Version: mip.HiGHSVersion, Threads: h.Config.Threads, Seed: &seed, Available: true, ReadsFile: h.File,
		Options: fmt.Sprintf("primal_feasibility_tolerance=%g mip_feasibility_tolerance=%g mip_rel_gap=%g mip_abs_gap=%g mip_heuristic_run_feasibility_jump=%t mip_detect_symmetry=%t",
			o.PrimalFeasTol, o.MIPFeasTol, o.MIPRelGap, o.MIPAbsGap, o.FeasibilityJump, o.DetectSymmetries)}
}

// Solve implements Solver.
func (h HiGHS) Solve(ctx context.Context, in Instance, file string, limit time.Duration) Outcome {
	start := time.Now()
	var res highsx.Result
	var err error
	// Ctrl-C stops either solve. The file is read before the time limit
	// starts (highsx.SolveFileContext), so a tiny limit is a time-out, not a
	// read error; the time reported still includes reading.
	if h.File {
		res, err = highsx.SolveFileContext(ctx, file, h.options(limit))
	} else {
		res, err = highsx.SolveContext(ctx, in.Problem, h.options(limit))
	}
	o := Outcome{SolverStatus: res.Status.String(), Objective: math.NaN(), Seconds: time.Since(start).Seconds(), Nodes: -1}
	switch {
	case err == nil:
		o.Status, o.X, o.Objective = StatusOptimal, res.X, res.Objective
		if res.IsMIP {
			o.Nodes = res.Nodes
		}
	case errors.Is(err, highsx.ErrTimeLimit):
		o.Status = StatusTimeLimit
	case errors.Is(err, highsx.ErrInfeasible):
		o.Status = StatusInfeasible
	default:
		o.Status, o.Err = StatusError, err.Error()
	}
	return o
}

// external is a solver run as a program on the MPS file.
type external struct {
	info SolverInfo
}

// probe runs path with args (a version request) under a short deadline and
// returns its output; a binary that is missing or cannot start is an error.
func probe(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w", path, strings.Join(args, " "), err)
	}
	return string(out), nil
}

// grace is how long past its own limit an external solver may run before
// it is killed (reading the file, writing the solution).
func grace(limit time.Duration) time.Duration {
	if limit == 0 {
		return 0
	}
	return limit + max(5*time.Second, limit/2)
}

// runProgram runs cmd with a hard deadline and returns its output and wall
// time; killed reports that the deadline stopped it.
func runProgram(ctx context.Context, limit time.Duration, path string, args ...string) (out []byte, secs float64, killed bool, err error) {
	if g := grace(limit); g > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader("")
	start := time.Now()
	out, err = cmd.CombinedOutput()
	secs = time.Since(start).Seconds()
	return out, secs, ctx.Err() == context.DeadlineExceeded, err
}

// CBC is COIN-OR's CBC, run as `cbc FILE -timeMode elapsed -sec T -threads N
// -randomCbcSeed S -solve -solution SOL`.
type CBC struct {
	external
	Config SolverConfig
}

// NewCBC probes the cbc binary at path ("" looks it up on PATH).
func NewCBC(ctx context.Context, path string, c SolverConfig) CBC {
	s := CBC{Config: c}
	seed := c.Seed
	s.info = SolverInfo{Name: "CBC", Threads: c.Threads, Seed: &seed, ReadsFile: true,
		Options: fmt.Sprintf("-timeMode elapsed -threads %d -randomCbcSeed %d (defaults otherwise)", c.Threads, c.Seed)}
	if path == "" {
		path = "cbc"
	}
	full, err := exec.LookPath(path)
	if err != nil {
		s.info.Reason = fmt.Sprintf("%s not found (scripts/install-solvers.sh installs it)", path)
		return s
	}
	s.info.Path = full
	out, err := probe(ctx, full, "-quit")
	if err != nil {
		s.info.Reason = err.Error()
		return s
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Version:"); ok {
			s.info.Version = strings.TrimSpace(v)
		}
	}
	if s.info.Version == "" {
		s.info.Reason = fmt.Sprintf("%s -quit printed no version: not CBC?", full)
		return s
	}
	s.info.Available = true
	return s
}

// Info implements Solver.
func (s CBC) Info() SolverInfo { return s.info }

// Solve implements Solver.
func (s CBC) Solve(ctx context.Context, in Instance, file string, limit time.Duration) Outcome {
	o, out, data, ok := runExternal(ctx, limit, s.info.Path, "cbc", func(sol string) []string {
		args := []string{file}
		if limit > 0 {
			// CBC's default time mode is CPU time, which on a loaded machine
			// lets it run far past a wall-clock limit.
			args = append(args, "-timeMode", "elapsed", "-sec", strconv.FormatFloat(limit.Seconds(), 'g', -1, 64))
		}
		if s.Config.Threads > 0 {
			args = append(args, "-threads", strconv.Itoa(s.Config.Threads))
		}
		return append(args, "-randomCbcSeed", strconv.Itoa(s.Config.Seed), "-solve", "-solution", sol)
	})
	if !ok {
		return o
	}
	if r, err := ParseCBC(string(out)); err == nil {
		o.Nodes = r.Nodes
	}
	return parseCBCSolution(data, in, o)
}

// runExternal runs the solver program path (named name in messages) with
// the arguments args(sol), sol a solution file in a fresh temporary folder,
// under runProgram's hard deadline. ok reports whether the program exited
// normally and wrote sol, whose contents are data; otherwise o says why (a
// time-out or an error) and is final. out is the program's output.
func runExternal(ctx context.Context, limit time.Duration, path, name string, args func(sol string) []string) (o Outcome, out, data []byte, ok bool) {
	o = Outcome{Objective: math.NaN(), Nodes: -1}
	tmp, err := os.MkdirTemp("", "mmds-"+name+"-")
	if err != nil {
		o.Status, o.Err = StatusError, err.Error()
		return o, nil, nil, false
	}
	defer os.RemoveAll(tmp)
	sol := filepath.Join(tmp, "sol.txt")
	out, secs, killed, err := runProgram(ctx, limit, path, args(sol)...)
	o.Seconds = secs
	if killed {
		o.Status, o.SolverStatus = StatusTimeLimit, "killed at the hard deadline"
		return o, out, nil, false
	}
	if err != nil {
		o.Status, o.Err = StatusError, fmt.Sprintf("%s: %v: %s", name, err, lastLines(out, 3))
		return o, out, nil, false
	}
	if data, err = os.ReadFile(sol); err != nil {
		o.Status, o.Err = StatusError, fmt.Sprintf("%s wrote no solution: %s", name, lastLines(out, 3))
		return o, out, nil, false
	}
	return o, out, data, true
}

// parseCBCSolution reads CBC's solution file: a status line
// "Optimal - objective value -0.2", then "index name value reduced-cost"
// per nonzero column (the column names are WriteMPS's x<j>).
func parseCBCSolution(data []byte, in Instance, o Outcome) Outcome {
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
	x := make([]float64, len(in.Problem.ColCosts))
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

// colIndex maps WriteMPS's column name x<j> back to j.
func colIndex(name string, n int) (int, error) {
	s, ok := strings.CutPrefix(name, "x")
	j, err := strconv.Atoi(s)
	if !ok || err != nil || j < 0 || j >= n {
		return 0, fmt.Errorf("column %q: not one of x0..x%d", name, n-1)
	}
	return j, nil
}

// GLPK is GLPK's glpsol, run as `glpsol --freemps FILE --tmlim T -w SOL`
// (single-threaded, no random seed).
type GLPK struct{ external }

// NewGLPK probes the glpsol binary at path ("" looks it up on PATH).
func NewGLPK(ctx context.Context, path string) GLPK {
	s := GLPK{}
	s.info = SolverInfo{Name: "GLPK", Threads: 1, ReadsFile: true, Options: "--freemps (defaults otherwise; --tmlim in whole seconds, rounded up)"}
	if path == "" {
		path = "glpsol"
	}
	full, err := exec.LookPath(path)
	if err != nil {
		s.info.Reason = fmt.Sprintf("%s not found (scripts/install-solvers.sh installs it)", path)
		return s
	}
	s.info.Path = full
	out, err := probe(ctx, full, "--version")
	if err != nil {
		s.info.Reason = err.Error()
		return s
	}
	first, _, _ := strings.Cut(out, "\n")
	if i := strings.LastIndex(first, " "); strings.HasPrefix(first, "GLPSOL") && i > 0 {
		s.info.Version = first[i+1:]
	} else {
		s.info.Reason = fmt.Sprintf("%s --version printed %q: not glpsol?", full, first)
		return s
	}
	s.info.Available = true
	return s
}

// Info implements Solver.
func (s GLPK) Info() SolverInfo { return s.info }

// Solve implements Solver.
func (s GLPK) Solve(ctx context.Context, in Instance, file string, limit time.Duration) Outcome {
	o, out, data, ok := runExternal(ctx, limit, s.info.Path, "glpsol", func(sol string) []string {
		args := []string{"--freemps", file, "-w", sol}
		if limit > 0 {
			args = append(args, "--tmlim", strconv.Itoa(int(math.Ceil(limit.Seconds()))))
		}
		return args
	})
	if !ok {
		return o
	}
	return parseGLPKSolution(data, in, o, bytes.Contains(out, []byte("TIME LIMIT EXCEEDED")))
}

// parseGLPKSolution reads glpsol's -w format: "s mip ROWS COLS STAT OBJ"
// (STAT o optimal, f feasible, n no feasible, u undefined) or
// "s bas ROWS COLS PST DST OBJ" for an LP, then "j COL VALUE" lines (an
// LP's carry a status before the value).
func parseGLPKSolution(data []byte, in Instance, o Outcome, timedOut bool) Outcome {
	x := make([]float64, len(in.Problem.ColCosts))
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

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// Machine describes where a run happened.
type Machine struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	GoVersion string `json:"go_version"`
}

// ThisMachine reads the CPU model from /proc/cpuinfo where there is one.
func ThisMachine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU(), GoVersion: runtime.Version(), CPU: "unknown"}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}
