package bench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/mmds-project/mmds/internal/report"
)

// Run is one solve of one instance by one solver with one seed, after the
// check.
type Run struct {
	Instance     string
	Problem      string // Instance.ProblemKey
	Source       string
	Variant      string
	Tier         string
	N, K         int
	Fraction     float64
	Solver       string
	Seed         int // the solver's seed, or the file's permutation (PermutationSeed)
	Status       Status
	SolverStatus string
	Seconds      float64
	Objective    float64 // c·x recomputed exactly by the check; the reported one when no solution came back; NaN when none
	Nodes        int64
	Optimal      float64 // the instance's certified optimum, NaN when none
	Bound        float64 // the instance's best bound, NaN when none
	// MaxViolation is the largest relative row or bound violation of the
	// solution (exact, scaled as MIPLIB's checker scales it); Violation
	// names it.
	MaxViolation float64
	Violation    string
	Wrong        string // why the status is wrong
	Imprecise    string // why a claimed optimum is imprecise
	Err          string
	File         string
}

// RunSpec is how Solve runs a set of instances: the solvers, the options
// of the solves (its time limit, seeds and workers; Solve runs at least
// one seed and one worker), the folder and the check.
type RunSpec struct {
	Options
	Solvers []Solver
	// Dir receives the MPS files that file-reading solvers read, and the
	// permuted files of solvers without a seed.
	Dir   string
	Check Check
}

// Permutation is the permutation of n rows (or columns, by salt) that seed
// s gives a solver without a seed; nil (the identity) for s = 0.
func Permutation(seed, n int, salt uint64) []int {
	if seed == 0 {
		return nil
	}
	return rand.New(rand.NewPCG(uint64(seed), salt)).Perm(n)
}

// The salts of the row and column permutations.
const (
	rowSalt = 0x726f7773 // "rows"
	colSalt = 0x636f6c73 // "cols"
)

// unpermute maps values in file order back to the model's order.
func unpermute(x []float64, cols []int) []float64 {
	if x == nil || cols == nil || len(x) != len(cols) {
		return x
	}
	out := make([]float64, len(x))
	for k, j := range cols {
		out[j] = x[k]
	}
	return out
}

// Solve runs every available solver on every instance with every seed,
// s.Workers solves at a time, checks every answer exactly and calls
// progress after each run (one call at a time, in the order the runs
// finish). The runs come back in a fixed order (instance, then seed, then
// solver) whatever the workers. When ctx is cancelled Solve returns the
// runs that finished, and ctx's error: a solve cut short is not a result.
func Solve(ctx context.Context, ins []Instance, s RunSpec, progress func(Run)) ([]Run, error) {
	feedCtx, stop := context.WithCancel(ctx)
	defer stop()
	jobs := make(chan job)
	fed := make(chan error, 1)
	go func() {
		fed <- s.feed(feedCtx, ins, jobs)
		close(jobs)
	}()
	var (
		mu   sync.Mutex
		done = map[int]Run{}
		wg   sync.WaitGroup
	)
	for range max(1, s.Workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				o := j.solver.Solve(ctx, j.task)
				if ctx.Err() != nil {
					continue // a run cut short by Ctrl-C is not a result
				}
				r := s.Check.record(j.task.Instance, j.solver.Info(), j.task, o)
				mu.Lock()
				done[j.index] = r
				if progress != nil {
					progress(r)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	err := <-fed
	runs := make([]Run, 0, len(done))
	for _, k := range slices.Sorted(maps.Keys(done)) {
		runs = append(runs, done[k])
	}
	if ctx.Err() != nil {
		return runs, ctx.Err()
	}
	return runs, err
}

// job is one solve: its place in the fixed order, the solver and the task
// (its instance with the exact model read).
type job struct {
	index  int
	solver Solver
	task   Task
}

// feed sends every solve to jobs in the fixed order, writing the MPS files
// (plain and permuted) that file-reading solvers need as it goes. It stops
// at the first error, or when ctx ends.
func (s RunSpec) feed(ctx context.Context, ins []Instance, jobs chan<- job) error {
	needFile := slices.ContainsFunc(s.Solvers, func(v Solver) bool { return v.Info().ReadsFile && v.Info().Available })
	index := 0
	for _, in := range ins {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		if in.Exact, err = in.ExactModel(); err != nil {
			return err
		}
		var file string
		if needFile {
			if file, err = writeInstanceFile(s.Dir, in, 0); err != nil {
				return err
			}
		}
		for k := range max(1, s.Seeds) {
			seed := s.FirstSeed + k
			var permFile string
			var cols []int
			for _, sv := range s.Solvers {
				info := sv.Info()
				if !info.Available {
					continue
				}
				t := Task{Instance: in, File: file, Limit: s.TimeLimit, Seed: seed}
				if info.ReadsFile && info.SeedOption == PermutationSeed && seed != 0 {
					if permFile == "" {
						if permFile, err = writeInstanceFile(s.Dir, in, seed); err != nil {
							return err
						}
						cols = Permutation(seed, in.Problem.NumCols(), colSalt)
					}
					t.File, t.Columns = permFile, cols
				}
				select {
				case jobs <- job{index: index, solver: sv, task: t}:
				case <-ctx.Done():
					return ctx.Err()
				}
				index++
			}
		}
	}
	return nil
}

// writeInstanceFile writes in's MPS file into dir, with rows and columns
// permuted by seed (none for seed 0), and returns its path.
func writeInstanceFile(dir string, in Instance, seed int) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("%s: a solver reads files, but the instance has none and no folder was given", in.Name)
	}
	name := in.Name + ".mps"
	if seed != 0 {
		name = in.Name + ".perm" + strconv.Itoa(seed) + ".mps"
	}
	path := filepath.Join(dir, name)
	rows, cols := Permutation(seed, in.Problem.NumRows(), rowSalt), Permutation(seed, in.Problem.NumCols(), colSalt)
	err := report.WriteAtomic(path, func(w io.Writer) error { return WriteMPSPermuted(w, in.Name, in.Problem, rows, cols) })
	return path, err
}

// record judges o and returns the run.
func (c Check) record(in Instance, info SolverInfo, t Task, o Outcome) Run {
	j := c.Judge(in, o)
	v := j.Verdict
	r := Run{Instance: in.Name, Problem: in.ProblemKey(), Source: in.Source, Variant: in.Variant, Tier: in.Tier, N: in.N, K: in.K,
		Fraction: in.Fraction, Solver: info.Name, Seed: t.Seed, Status: j.Status, SolverStatus: o.SolverStatus, Seconds: o.Seconds,
		Objective: v.Objective, Nodes: o.Nodes, Optimal: in.Optimal, Bound: in.Bound, MaxViolation: v.MaxViolation(), Err: o.Err}
	if v.Worst != "" {
		r.Violation = fmt.Sprintf("%s by %.3g", v.Worst, v.AbsViolation)
	}
	switch j.Status {
	case StatusWrong:
		r.Wrong = j.Why
	case StatusImprecise:
		r.Imprecise = j.Why
	case StatusError:
		if r.Err == "" {
			r.Err = j.Why
		}
	}
	if o.X == nil {
		r.Objective = o.Objective
	}
	if info.ReadsFile {
		r.File = t.File
	}
	return r
}
