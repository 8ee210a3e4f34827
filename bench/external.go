package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
)

// external is a solver run as a program on an MPS file, as its program
// says.
type external struct {
	info   SolverInfo
	prog   program
	config SolverConfig
}

// program is what sets one external solver apart: its binary, what a run
// records of it, how its version is probed, its command line and how its
// answer is read.
type program struct {
	bin  string // looked up on PATH, and named in messages
	info func(c SolverConfig) SolverInfo
	// version probes the binary at path for its version.
	version func(ctx context.Context, path string) (string, error)
	// args is the command line that solves t, sol a solution file.
	args func(t Task, sol string, c SolverConfig) []string
	// okExit accepts the non-zero exit statuses that are answers (nil:
	// none).
	okExit func(exit int) bool
	// solution: the answer is in the solution file, which must be written.
	solution bool
	// read reads the answer of e, which ran and exited as okExit allows,
	// into o.
	read func(e execution, t Task, o Outcome) Outcome
}

// newExternal probes p's binary at path ("" looks p.bin up on PATH): it
// must print its version and solve a test MIP (probeSolve). The solver's
// info records that it is available, or why not.
func newExternal(ctx context.Context, p program, path string, c SolverConfig) external {
	s := external{info: p.info(c), prog: p, config: c}
	if path == "" {
		path = p.bin
	}
	full, err := exec.LookPath(path)
	if err != nil {
		s.info.Reason = fmt.Sprintf("%s not found (scripts/install-solvers.sh installs it)", path)
		return s
	}
	s.info.Path = full
	if s.info.Version, err = p.version(ctx, full); err == nil {
		err = probeSolve(ctx, s)
	}
	if err != nil {
		s.info.Reason = err.Error()
		return s
	}
	s.info.Available = true
	return s
}

// Info implements Solver.
func (s external) Info() SolverInfo { return s.info }

// Solve implements Solver: a time-out when the program was killed at the
// hard deadline, an error when it failed (or exited non-zero and okExit
// rejects the status, or wrote no solution file it must write), else the
// answer it gave.
func (s external) Solve(ctx context.Context, t Task) Outcome {
	p := s.prog
	e := execute(ctx, t.Limit, s.info.Path, p.bin, func(sol string) []string { return p.args(t, sol, s.config) })
	o := Outcome{Objective: math.NaN(), Nodes: -1, Seconds: e.secs}
	switch {
	case e.killed:
		o.Status, o.SolverStatus = StatusTimeLimit, "killed at the hard deadline"
	case e.err != nil:
		o.Status, o.Err = StatusError, fmt.Sprintf("%s: %v: %s", p.bin, e.err, lastLines(e.out, 3))
	case e.exit != 0 && (p.okExit == nil || !p.okExit(e.exit)):
		o.Status, o.Err = StatusError, fmt.Sprintf("%s: exit status %d: %s", p.bin, e.exit, lastLines(e.out, 3))
	case p.solution && e.sol == nil:
		o.Status, o.Err = StatusError, p.bin+" wrote no solution: "+lastLines(e.out, 3)
	default:
		return p.read(e, t, o)
	}
	return o
}

// probe runs path with args under a short deadline and returns its output;
// a binary that is missing or cannot start is an error. Some solvers exit
// non-zero after printing their version: with anyExit, only a failure to
// start is an error.
func probe(ctx context.Context, anyExit bool, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !(anyExit && errors.As(err, &exit) && ctx.Err() == nil) {
		return string(out), fmt.Errorf("%s %s: %w", path, strings.Join(args, " "), err)
	}
	return string(out), nil
}

// tinyFile writes TinyInstance's MPS file into a fresh temporary folder,
// which the caller removes.
func tinyFile() (dir, file string, err error) {
	if dir, err = os.MkdirTemp("", "mmds-probe-"); err != nil {
		return "", "", err
	}
	file = filepath.Join(dir, "tiny.mps")
	data, err := TinyInstance().MPSBytes()
	if err == nil {
		err = os.WriteFile(file, data, 0o600)
	}
	return dir, file, err
}

// probeSolve has s solve a two-column MIP (TinyInstance) and checks the
// answer: a binary that prints a version but cannot solve is of no use.
func probeSolve(ctx context.Context, s Solver) error {
	in := TinyInstance()
	dir, file, err := tinyFile()
	defer os.RemoveAll(dir)
	if err != nil {
		return err
	}
	o := s.Solve(ctx, Task{Instance: in, File: file, Limit: 20 * time.Second})
	if j := DefaultCheck().Judge(in, o); !j.Status.Solved() {
		return fmt.Errorf("solving a 2-column test MIP: %s %s%s (solver said %q)", j.Status, j.Why, o.Err, o.SolverStatus)
	}
	return nil
}

// TinyInstance is min x0 − 2 x1 s.t. x0 + x1 ≤ 1.5, x0 ≥ 0.2, x1 ∈ {0, 1}:
// x1 = 1 and x0 at its smallest, 0.2, so the optimum is −1.8. The probe
// of every external solver solves it.
func TinyInstance() Instance {
	m := highsx.NewProblem(2)
	m.Cost[0], m.Cost[1] = 1, -2
	m.Upper[1], m.Integer[1] = 1, true
	m.AddRow(math.Inf(-1), 1.5, []int{0, 1}, []float64{1, 1})
	m.AddRow(0.2, math.Inf(1), []int{0}, []float64{1})
	return Instance{Name: "tiny", Optimal: -1.8, Bound: -1.8, Problem: m}
}

// execution is one run of a solver program.
type execution struct {
	out    []byte  // stdout and stderr
	sol    []byte  // the solution file, nil when none was written
	secs   float64 // wall clock
	killed bool    // stopped at the hard deadline
	exit   int     // exit status (0 when killed or not started)
	err    error   // the program could not start, or was killed by a signal
}

// execute runs the solver program path with args(sol), sol a solution file
// in a fresh temporary folder. A run with a time limit is killed at a hard
// deadline past it, limit + max(5 s, limit/2) (reading the file, writing
// the solution).
func execute(ctx context.Context, limit time.Duration, path, name string, args func(sol string) []string) execution {
	tmp, err := os.MkdirTemp("", "mmds-"+name+"-")
	if err != nil {
		return execution{err: err}
	}
	defer os.RemoveAll(tmp)
	sol := filepath.Join(tmp, "sol.txt")
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit+max(5*time.Second, limit/2))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, path, args(sol)...)
	cmd.Stdin = strings.NewReader("")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	e := execution{out: out, secs: time.Since(start).Seconds(), killed: ctx.Err() == context.DeadlineExceeded}
	var exit *exec.ExitError
	switch {
	case e.killed:
	case errors.As(err, &exit) && exit.Exited():
		e.exit = exit.ExitCode()
	case err != nil:
		e.err = err
	}
	if data, err := os.ReadFile(sol); err == nil {
		e.sol = data
	}
	return e
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// colIndex maps WriteMPS's column name x<j> back to j.
func colIndex(name string, n int) (int, error) {
	s, ok := strings.CutPrefix(name, "x")
	j, err := strconv.Atoi(s)
	if !ok || err != nil || j < 0 || j >= n || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("column %q: not one of x0..x%d", name, n-1)
	}
	return j, nil
}

// limitSeconds is limit in whole seconds, rounded up (at least 1).
func limitSeconds(limit time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(limit.Seconds()))))
}

// readValue reads a solution line "x<j> value" (its fields f) that the
// solver name printed into x.
func readValue(name, line string, f []string, x []float64) error {
	j, err := colIndex(f[0], len(x))
	if err != nil {
		return fmt.Errorf("%s solution line %s: %w", name, quoteLine(line), err)
	}
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s solution line %s: not a number", name, quoteLine(line))
	}
	x[j] = v
	return nil
}

// quoteLine is a short, escaped excerpt of a solver's output line for an
// error message.
func quoteLine(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return strconv.Quote(s)
}
