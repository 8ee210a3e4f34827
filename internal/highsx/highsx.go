// Package highsx is the only code in mmds that touches HiGHS (through
// github.com/lanl/highs). It builds a HiGHS model from a highs.Model, sets
// mmds's solver options, solves, turns every non-optimal status into a Go
// error, and keeps the HiGHS object alive while its solution is read.
//
// Options chosen for mmds's small, exact models (see Defaults):
//   - console output off;
//   - tight tolerances (primal feasibility and MIP integrality 1e-9, relative
//     and absolute MIP gaps 1e-9 and 1e-12), because mmds reports optima that
//     tests compare with independent methods to 1e-7;
//   - HiGHS 1.13's feasibility-jump primal heuristic off: on mmds's models it
//     adds a fixed ~5 ms to every MIP solve and never shortens one (measured in
//     BenchmarkFeasibilityJump in package mip; figures in the README).
package highsx

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/lanl/highs"
)

// Options are the HiGHS settings mmds uses. The zero value is not useful:
// start from Defaults.
type Options struct {
	Verbose          bool          // HiGHS's own log on stdout
	FeasibilityJump  bool          // mip_heuristic_run_feasibility_jump
	PrimalFeasTol    float64       // primal_feasibility_tolerance
	MIPFeasTol       float64       // mip_feasibility_tolerance (integrality)
	MIPRelGap        float64       // mip_rel_gap
	MIPAbsGap        float64       // mip_abs_gap
	TimeLimit        time.Duration // time_limit; 0 means none
	Threads          int           // threads; 0 leaves HiGHS's default
	RandomSeed       int           // random_seed
	DetectSymmetries bool          // mip_detect_symmetry
}

// Defaults returns the options described in the package comment.
func Defaults() Options {
	return Options{
		PrimalFeasTol:    1e-9,
		MIPFeasTol:       1e-9,
		MIPRelGap:        1e-9,
		MIPAbsGap:        1e-12,
		DetectSymmetries: true,
	}
}

// Result is an optimal solution and the solver's account of it.
type Result struct {
	X         []float64     // column values
	Objective float64       // objective value, in the model's sense
	Status    string        // HiGHS model status ("Optimal")
	MIPGap    float64       // relative MIP gap at the end; 0 for an LP
	Nodes     int64         // branch-and-bound nodes; 0 for an LP
	Time      time.Duration // wall time of the HiGHS run alone
	IsMIP     bool
}

// ErrNotOptimal is wrapped by every error Solve returns for a model that
// HiGHS did not solve to optimality (infeasible, unbounded, time limit, ...).
var ErrNotOptimal = errors.New("highs: no optimal solution")

// Solve solves m with the options o. A status other than Optimal is an error
// wrapping ErrNotOptimal, never a silently returned number.
func Solve(m *highs.Model, o Options) (Result, error) {
	raw, err := build(m, o)
	if err != nil {
		return Result{}, err
	}
	isMIP := false
	for _, t := range m.VarTypes {
		if t != highs.ContinuousType {
			isMIP = true
		}
	}
	start := time.Now()
	sol, err := raw.Solve()
	elapsed := time.Since(start)
	// lanl/highs v1.0.0 frees the HiGHS object in the RawModel's finalizer,
	// while sol still points at it: keep raw alive until sol is read.
	defer runtime.KeepAlive(raw)
	if err != nil {
		return Result{}, fmt.Errorf("highs: run: %w", err)
	}
	res := Result{
		Status: sol.Status.String(),
		Time:   elapsed,
		IsMIP:  isMIP,
	}
	if sol.Status != highs.Optimal {
		return res, fmt.Errorf("%w: HiGHS status %s", ErrNotOptimal, res.Status)
	}
	res.X = append([]float64(nil), sol.ColumnPrimal...)
	res.Objective = sol.Objective
	if isMIP {
		if res.MIPGap, err = sol.GetFloat64Info("mip_gap"); err != nil {
			return res, fmt.Errorf("highs: mip_gap: %w", err)
		}
		if res.Nodes, err = sol.GetInt64Info("mip_node_count"); err != nil {
			return res, fmt.Errorf("highs: mip_node_count: %w", err)
		}
	}
	for i, x := range res.X {
		if math.IsNaN(x) {
			return res, fmt.Errorf("%w: column %d is NaN", ErrNotOptimal, i)
		}
	}
	return res, nil
}

// WriteModel writes m to path; HiGHS picks the format from the extension
// (.mps or .lp). The caller is responsible for atomicity (write to a
// temporary name with the same extension, then rename).
func WriteModel(m *highs.Model, path string) error {
	raw, err := build(m, Defaults())
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(raw)
	if err := raw.WriteModelToFile(path); err != nil {
		var cs highs.CallStatus
		if errors.As(err, &cs) && cs.IsWarning() {
			return nil
		}
		return fmt.Errorf("highs: write model: %w", err)
	}
	return nil
}

func build(m *highs.Model, o Options) (*highs.RawModel, error) {
	raw, err := m.ToRawModel()
	if err != nil {
		return nil, fmt.Errorf("highs: build model: %w", err)
	}
	set := func(err error) error {
		if err != nil {
			return fmt.Errorf("highs: set option: %w", err)
		}
		return nil
	}
	errs := []error{
		set(raw.SetBoolOption("output_flag", o.Verbose)),
		set(raw.SetBoolOption("log_to_console", o.Verbose)),
		set(raw.SetBoolOption("mip_heuristic_run_feasibility_jump", o.FeasibilityJump)),
		set(raw.SetBoolOption("mip_detect_symmetry", o.DetectSymmetries)),
		set(raw.SetIntOption("random_seed", o.RandomSeed)),
	}
	if o.PrimalFeasTol > 0 {
		errs = append(errs, set(raw.SetFloat64Option("primal_feasibility_tolerance", o.PrimalFeasTol)))
	}
	if o.MIPFeasTol > 0 {
		errs = append(errs, set(raw.SetFloat64Option("mip_feasibility_tolerance", o.MIPFeasTol)))
	}
	if o.MIPRelGap > 0 {
		errs = append(errs, set(raw.SetFloat64Option("mip_rel_gap", o.MIPRelGap)))
	}
	if o.MIPAbsGap > 0 {
		errs = append(errs, set(raw.SetFloat64Option("mip_abs_gap", o.MIPAbsGap)))
	}
	if o.TimeLimit > 0 {
		errs = append(errs, set(raw.SetFloat64Option("time_limit", o.TimeLimit.Seconds())))
	}
	if o.Threads > 0 {
		errs = append(errs, set(raw.SetIntOption("threads", o.Threads)))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return raw, nil
}
