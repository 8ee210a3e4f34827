package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mmds-project/mmds/internal/report"
)

// Run is one solve of one instance by one solver, after the check.
type Run struct {
	Instance     string
	Problem      string // Instance.ProblemKey
	Source       string
	Variant      string
	Tier         string
	N, K         int
	Fraction     float64
	Solver       string
	Status       string // see the Status constants
	SolverStatus string
	Seconds      float64
	Objective    float64 // c·x recomputed by the check; the reported one when no solution came back; NaN when none
	Nodes        int64
	Optimal      float64 // the instance's certified optimum, NaN when none
	Bound        float64 // the instance's best bound, NaN when none
	MaxViolation float64 // largest scaled row or bound violation of the solution
	Wrong        string  // why the check failed
	Err          string
	File         string
}

// RunSpec is how Solve runs a set of instances.
type RunSpec struct {
	Solvers   []Solver
	TimeLimit time.Duration // per solve; 0: none
	// Dir receives the MPS file of an instance that has none on disk when a
	// solver reads files.
	Dir string
	Tol Tolerances
}

// Solve runs every available solver on every instance, in a fixed order
// (instance-major), checks every answer and calls progress after each run.
// files maps an instance name to its MPS file, when it has one.
func Solve(ctx context.Context, ins []Instance, files map[string]string, s RunSpec, progress func(Run)) ([]Run, error) {
	var runs []Run
	needFile := slices.ContainsFunc(s.Solvers, func(v Solver) bool { return v.Info().ReadsFile && v.Info().Available })
	for _, in := range ins {
		file := files[in.Name]
		if needFile && file == "" {
			if s.Dir == "" {
				return runs, fmt.Errorf("%s: a solver reads files, but the instance has none and no folder was given", in.Name)
			}
			data, err := in.MPSBytes()
			if err != nil {
				return runs, err
			}
			file = filepath.Join(s.Dir, in.Name+".mps")
			if err := report.WriteAtomic(file, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
				return runs, err
			}
		}
		for _, sv := range s.Solvers {
			info := sv.Info()
			if !info.Available {
				continue
			}
			if err := ctx.Err(); err != nil {
				return runs, err
			}
			o := sv.Solve(ctx, in, file, s.TimeLimit)
			if err := ctx.Err(); err != nil {
				return runs, err // a run cut short by Ctrl-C is not a result
			}
			status, v, why := Judge(in, o, s.Tol)
			r := Run{Instance: in.Name, Problem: in.ProblemKey(), Source: in.Source, Variant: in.Variant, Tier: in.Tier, N: in.N, K: in.K,
				Fraction: in.Fraction, Solver: info.Name, Status: status, SolverStatus: o.SolverStatus, Seconds: o.Seconds,
				Objective: v.Objective, Nodes: o.Nodes, Optimal: in.Optimal, Bound: in.Bound,
				MaxViolation: math.Max(v.MaxRow, v.MaxBound), Wrong: why, Err: o.Err}
			if o.X == nil {
				r.Objective = o.Objective
			}
			if info.ReadsFile {
				r.File = file
			}
			runs = append(runs, r)
			if progress != nil {
				progress(r)
			}
		}
	}
	return runs, nil
}

// TempDir makes a folder for MPS files that Solve writes; the caller
// removes it.
func TempDir() (string, error) { return os.MkdirTemp("", "mmds-bench-") }

// FailurePenalty is the multiple of the time limit at which a failure
// (error, wrong, a false infeasible) counts in the shifted geometric mean:
// more than a time-out, so a wrong answer never scores better than giving up.
const FailurePenalty = 2

// Summary aggregates the runs of one solver on one formulation.
type Summary struct {
	Solver, Variant string
	Runs            int
	Solved          int // optimal and checked
	TimeLimited     int
	Failed          int // error, wrong or infeasible
	Wrong           int
	SGM             float64 // shifted geometric mean of the times, seconds
	Shift           float64 // seconds
	CountedLimit    float64 // the time a time-out counts at, seconds
}

// ShiftedGeomean is exp(mean ln(t_i + shift)) − shift.
func ShiftedGeomean(ts []float64, shift float64) float64 {
	if len(ts) == 0 {
		return math.NaN()
	}
	var s float64
	for _, t := range ts {
		s += math.Log(t + shift)
	}
	return math.Exp(s/float64(len(ts))) - shift
}

// CountedTime is the time a run counts at in the aggregates: its time when
// solved (capped at the limit), the limit when stopped by it, and
// FailurePenalty × limit when it failed. limit must be > 0.
func CountedTime(r Run, limit float64) float64 {
	switch r.Status {
	case StatusOptimal:
		return math.Min(r.Seconds, limit)
	case StatusTimeLimit:
		return limit
	}
	return FailurePenalty * limit
}

// EffectiveLimit is the time limit the aggregates use: the run's limit, or
// with none the longest time of any run (so a failure still costs more
// than any success).
func EffectiveLimit(runs []Run, limit time.Duration) float64 {
	if limit > 0 {
		return limit.Seconds()
	}
	var mx float64
	for _, r := range runs {
		mx = math.Max(mx, r.Seconds)
	}
	return math.Max(mx, 1e-3)
}

// Summarize returns one Summary per (solver, variant) in order of first
// appearance, then one per solver over all variants (Variant "all").
func Summarize(runs []Run, limit time.Duration, shift float64) []Summary {
	lim := EffectiveLimit(runs, limit)
	type key struct{ solver, variant string }
	var keys []key
	times := map[key][]float64{}
	sums := map[key]*Summary{}
	add := func(k key, r Run) {
		s, ok := sums[k]
		if !ok {
			s = &Summary{Solver: k.solver, Variant: k.variant, Shift: shift, CountedLimit: lim}
			sums[k] = s
			keys = append(keys, k)
		}
		s.Runs++
		switch r.Status {
		case StatusOptimal:
			s.Solved++
		case StatusTimeLimit:
			s.TimeLimited++
		case StatusWrong:
			s.Wrong++
			s.Failed++
		default:
			s.Failed++
		}
		times[k] = append(times[k], CountedTime(r, lim))
	}
	perSolver := map[string]int{}
	for _, r := range runs {
		if _, seen := sums[key{r.Solver, r.Variant}]; !seen {
			perSolver[r.Solver]++
		}
		add(key{r.Solver, r.Variant}, r)
	}
	nv := len(keys)
	for _, r := range runs {
		add(key{r.Solver, "all"}, r)
	}
	var out []Summary
	for i, k := range keys {
		if i >= nv && perSolver[k.solver] < 2 {
			continue // "all" repeats a solver's only variant
		}
		s := sums[k]
		s.SGM = ShiftedGeomean(times[k], shift)
		out = append(out, *s)
	}
	return out
}

// ProfileCurve is one solver's performance profile: ρ(τ) is the fraction
// of problems solved within a factor τ of the fastest solver, a step
// function that rises at each Tau.
type ProfileCurve struct {
	Label string
	Tau   []float64 // sorted ratios at which ρ steps up (finite)
	Rho   []float64 // ρ just after each Tau
}

// MinProfileTime floors times in the performance profile: below a
// millisecond the ratios measure timer and process start-up noise.
const MinProfileTime = 1e-3

// Profile computes Dolan and Moré's performance profiles. series names
// the curve of a run and problem the problem it solves; a problem counts
// only when every series ran on it. A run counts as solved when its status
// is optimal (checked).
func Profile(runs []Run, series, problem func(Run) string) []ProfileCurve {
	var names, probs []string
	t := map[string]map[string]float64{}
	for _, r := range runs {
		s, p := series(r), problem(r)
		if !slices.Contains(names, s) {
			names = append(names, s)
		}
		if t[p] == nil {
			t[p] = map[string]float64{}
			probs = append(probs, p)
		}
		v := math.Inf(1)
		if r.Status == StatusOptimal {
			v = math.Max(r.Seconds, MinProfileTime)
		}
		t[p][s] = v
	}
	var kept []string
	for _, p := range probs {
		if len(t[p]) == len(names) {
			kept = append(kept, p)
		}
	}
	out := make([]ProfileCurve, len(names))
	for i, s := range names {
		var ratios []float64
		for _, p := range kept {
			best := math.Inf(1)
			for _, v := range t[p] {
				best = math.Min(best, v)
			}
			if r := t[p][s] / best; !math.IsInf(t[p][s], 1) {
				ratios = append(ratios, r)
			}
		}
		slices.Sort(ratios)
		c := ProfileCurve{Label: s}
		for k, r := range ratios {
			if k+1 < len(ratios) && ratios[k+1] == r {
				continue
			}
			c.Tau = append(c.Tau, r)
			c.Rho = append(c.Rho, float64(k+1)/float64(len(kept)))
		}
		out[i] = c
	}
	return out
}
