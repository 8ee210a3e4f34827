// Package highsx is the only code in mmds that touches HiGHS (through
// github.com/lanl/highs and HiGHS's C API; TestOnlyHighsxImportsHiGHS
// keeps it so). Its callers (package mip, and package bench's in-process
// runner) build a Problem (columns with costs, bounds and integrality;
// sparse rows; a sense and an objective offset), or name an MPS or LP file
// for HiGHS's own reader (SolveFile); it loads the model into HiGHS, sets
// mmds's solver options (tolerances, time limit, threads, random seed),
// solves, turns every non-optimal status into a Go error, and keeps the
// HiGHS object alive while its solution (point, objective, and a MIP's
// dual bound, gap and node count) is read. An LP kept in HiGHS (NewLP) is
// re-solved from its last basis after its costs, rows or bounds change;
// Problem.DualBound turns any row multipliers into a proven bound on the
// optimum (weak duality, rounding included).
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
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
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
	// Extra sets further HiGHS options by name; values must be bool, int,
	// float64 or string. Applied after the fields above.
	Extra map[string]any
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

// Result is a solution and the solver's account of it. Solve returns an
// error for every status but StatusOptimal; the Result then still says what
// happened and holds a MIP's incumbent when HiGHS has one (HasSolution).
type Result struct {
	X           []float64 // column values (nil without a primal solution)
	Objective   float64   // objective value, in the model's sense
	Status      Status    // the outcome
	HasSolution bool      // X is a feasible point (optimal, or a MIP incumbent)
	// DualBound is a MIP's proven bound on the optimum (NaN for an LP): with
	// maximization no feasible point exceeds it, even when a limit stopped
	// the search.
	DualBound float64
	MIPGap    float64       // relative MIP gap at the end; 0 for an LP
	Nodes     int64         // branch-and-bound nodes; 0 for an LP
	Time      time.Duration // wall time of the HiGHS run alone
	IsMIP     bool
	// RowDual holds an LP's row duals (nil when HiGHS has none): from Solve,
	// one per row of the model given, 0 for an empty row (never sent to
	// HiGHS); from an LP, the same.
	RowDual []float64
}

// Solve solves m with the options o and stops when ctx ends: HiGHS's
// interrupt callbacks poll a flag the context sets, so a cancelled solve
// returns within well under a second with StatusInterrupted and an error
// wrapping ErrInterrupted and ctx.Err(). A status other than Optimal is an
// error wrapping ErrNotOptimal, never a silently returned number.
func (m *Problem) Solve(ctx context.Context, o Options) (Result, error) {
	if !m.needsScaling() {
		return m.solve(ctx, o)
	}
	// Tiny coefficients: solve the equilibrated model, map its solution
	// back and re-check it against m (see scaleBelow).
	s := m.equilibrate()
	so := withSmallMatrixValue(o)
	res, err := s.apply(m).solve(ctx, so)
	if res.Status == StatusError || res.Status == StatusUnknown {
		// HiGHS gave up on the scaled model: try m as it is.
		s = scaling{row: ones(m.NumRows()), col: ones(m.NumCols()), obj: 1}
		res, err = m.solve(ctx, so)
	}
	s.unscale(&res)
	tol := max(o.PrimalFeasTol, o.MIPFeasTol, 1e-9)
	if !res.HasSolution || err != nil {
		return res, err
	}
	cerr := s.recheck(m, res.X, tol)
	if cerr == nil {
		return res, nil
	}
	// The scaled model's solution misses a row of m by more than the
	// tolerances allow: HiGHS scales its input once more, and its
	// tolerances then hold in neither model. Solve m as it is (HiGHS's own
	// scaling alone) and hold that answer to the tolerance unscaled.
	plain, perr := m.solve(ctx, so)
	switch {
	case ctx.Err() != nil:
		return plain, perr
	case perr == nil && !plain.HasSolution:
		perr = fmt.Errorf("%w: no primal solution", ErrNotOptimal)
	case perr == nil:
		unit := scaling{row: ones(m.NumRows()), col: ones(m.NumCols()), obj: 1}
		if perr = unit.recheck(m, plain.X, tol); perr == nil {
			return plain, nil
		}
	}
	return res, fmt.Errorf("%w; solved as given: %v", cerr, perr)
}

// withSmallMatrixValue is o with HiGHS's small_matrix_value at its least
// (see minMatrixValue), unless o sets it.
func withSmallMatrixValue(o Options) Options {
	if _, ok := o.Extra["small_matrix_value"]; ok {
		return o
	}
	extra := map[string]any{"small_matrix_value": minMatrixValue}
	maps.Copy(extra, o.Extra)
	o.Extra = extra
	return o
}

// solve loads m as it is and solves it.
func (m *Problem) solve(ctx context.Context, o Options) (Result, error) {
	raw, kept, err := m.load(o)
	if err != nil {
		return Result{}, err
	}
	res, err := runContext(ctx, raw, m.IsMIP())
	if kept != nil && res.RowDual != nil {
		// Row duals in m's row order: HiGHS never saw the empty rows, and 0
		// is an optimal dual for each (it has no coefficient, so it changes
		// no reduced cost and, at dual 0, not the dual objective).
		full := make([]float64, m.NumRows())
		for i, r := range kept {
			full[r] = res.RowDual[i]
		}
		res.RowDual = full
	}
	return res, err
}

// Write writes m to path; HiGHS picks the format from the extension (.mps
// or .lp). Entries below 1e-12 in magnitude are left out (HiGHS's least
// small_matrix_value). The caller is responsible for atomicity (write to a temporary
// name with the same extension, then rename).
func (m *Problem) Write(path string) error {
	raw, _, err := m.load(withSmallMatrixValue(Defaults()))
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

func applyOptions(raw *highs.RawModel, o Options) error {
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
	for name, v := range map[string]float64{
		"primal_feasibility_tolerance": o.PrimalFeasTol,
		"mip_feasibility_tolerance":    o.MIPFeasTol,
		"mip_rel_gap":                  o.MIPRelGap,
		"mip_abs_gap":                  o.MIPAbsGap,
		"time_limit":                   o.TimeLimit.Seconds(),
	} {
		if v > 0 {
			errs = append(errs, set(raw.SetFloat64Option(name, v)))
		}
	}
	if o.Threads > 0 {
		errs = append(errs, set(raw.SetIntOption("threads", o.Threads)))
	}
	for _, name := range slices.Sorted(maps.Keys(o.Extra)) {
		errs = append(errs, setExtra(raw, name, o.Extra[name]))
	}
	return errors.Join(errs...)
}

func setExtra(raw *highs.RawModel, name string, v any) error {
	var err error
	switch v := v.(type) {
	case bool:
		err = raw.SetBoolOption(name, v)
	case int:
		err = raw.SetIntOption(name, v)
	case float64:
		err = raw.SetFloat64Option(name, v)
	case string:
		err = raw.SetStringOption(name, v)
	default:
		return fmt.Errorf("highs: option %s: unsupported value type %T", name, v)
	}
	if err != nil {
		return fmt.Errorf("highs: option %s = %v: %w", name, v, err)
	}
	return nil
}

// SolveFile reads a model from an MPS or LP file with HiGHS's own reader
// and solves it like Problem.Solve (as read: never scaled), stopping when ctx
// ends. The time limit covers the solve alone: HiGHS's MPS reader also
// stops at time_limit, and then fails with a bare read error that says
// nothing of the clock, so a tiny limit would look like a broken file. The
// file is therefore read with no limit, and time_limit is set once the
// model is in.
func SolveFile(ctx context.Context, path string, o Options) (Result, error) {
	raw := highs.NewRawModel()
	defer runtime.KeepAlive(raw)
	// Options first, so that reading is as quiet as solving.
	read := o
	read.TimeLimit = 0
	if err := applyOptions(raw, read); err != nil {
		return Result{}, err
	}
	if err := raw.ReadModelFromFile(path); err != nil {
		var cs highs.CallStatus
		if !errors.As(err, &cs) || !cs.IsWarning() {
			return Result{}, fmt.Errorf("highs: read %s: %w", path, err)
		}
	}
	if o.TimeLimit > 0 {
		if err := raw.SetFloat64Option("time_limit", o.TimeLimit.Seconds()); err != nil {
			return Result{}, fmt.Errorf("highs: set option: %w", err)
		}
	}
	// The file says whether the model is a MIP (and so whether there is an
	// incumbent at a limit, a node count and a dual bound to read).
	return runContext(ctx, raw, hasIntegers(handle(raw)))
}
