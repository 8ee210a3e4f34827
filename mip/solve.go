package mip

import (
	"context"
	"errors"
	"fmt"
	"github.com/mmds-project/mmds/loss"
	"math"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
)

// Method is how SolveFinite finds the global optimum.
type Method int

// The methods. MethodAuto uses the ray LP while the ray enumeration is
// small (n ≤ AutoRayMaxN and within GlobalOptions.MaxSubsets) and column
// generation beyond.
const (
	MethodAuto Method = iota
	MethodRays
	MethodColGen
)

// AutoRayMaxN is the largest n for which MethodAuto tries the ray LP: its
// enumeration visits 2^n supports, and beyond n = 4 column generation is
// faster anyway (docs/finite.md, "Targets").
const AutoRayMaxN = 4

// FiniteSolveOptions configure SolveFinite.
type FiniteSolveOptions struct {
	Method Method
	// Alphabet > 0 solves the fixed-alphabet MIP with that many outputs
	// (convex-hull formulation) instead of the global optimum.
	Alphabet int
	// TimeLimit bounds the whole run over all thresholds (0: none); each
	// threshold gets an equal share of what is left (column generation and
	// the MIP stop at their share with a bracket), and the thresholds the
	// limit is reached before are not reached (SweepOptions). MaxPoints
	// bounds the thresholds solved (0: all).
	TimeLimit time.Duration
	MaxPoints int
	// Progress, when set, is called after each solved threshold with the
	// number solved so far.
	Progress func(done int)
	// Iteration, when set, is called after each master iteration of column
	// generation with its bracket.
	Iteration func(ColGenIteration)
	// Now is the clock of TimeLimit (time.Now when nil).
	Now func() time.Time
	// Ready, when set, is called once the method is chosen (and the ray
	// LP prepared), before the first threshold, with the solution's Method
	// and Global.
	Ready func(FiniteSolution)
	// Emit, when set, receives each point as soon as it is solved, in
	// order, and the solution keeps none (Points stays empty, Solved
	// counts them): a sweep's memory then does not grow with its length.
	// An error from Emit stops the sweep with that error.
	Emit func(FiniteOptimum) error
	// GapTol is column generation's relative gap target (0: 1e-8, proven
	// optimal; see ColGenOptions.GapTol).
	GapTol     float64
	MaxSubsets int64 // ray enumeration budget (0: DefaultMaxSubsets)
	Seed       uint64
	Solver     SolverOptions
}

// FiniteSolution is SolveFinite's answer: one point per threshold, each
// with its status (an infeasible D or a time limit is a point, not an
// error).
type FiniteSolution struct {
	Points []FiniteOptimum
	// Global is the ray LP when it was used (nil otherwise).
	Global *Global
	// Method is how the points were found.
	Method Algorithm
	// Stopped says why Points ends before the last threshold (a prefix of
	// the thresholds, see SweepOptions); StopNone when every one was solved.
	Stopped Stop
	// Solved is the number of thresholds solved (len(Points) unless the
	// points went to FiniteSolveOptions.Emit).
	Solved int
}

// MaxPricingNonzeros bounds the constraint matrix of column generation's
// pricing LP (Σ_i |Z_i|·|A_i| rows of up to n entries): HiGHS needs some
// hundred bytes per nonzero, so this keeps a solve within a few GB.
const MaxPricingNonzeros = 5_000_000

// CheckSize refuses models too large to start column generation on,
// naming the size and the limit.
func (m Finite) CheckSize() error {
	var nz int64
	n := int64(m.N())
	for _, a := range m.Adv {
		l := a.LossMatrix(m.N())
		nz += int64(len(a.Channel[0])) * int64(len(l[0])) * (n + 1)
	}
	if nz > MaxPricingNonzeros {
		return fmt.Errorf("model too large: the pricing LP would have %d nonzeros (n = %d, K = %d); the limit is %d", nz, n, m.K(), MaxPricingNonzeros)
	}
	return nil
}

// SolveFinite solves m at every threshold in ds and always answers: the
// global optimum (proven, or the best privatizer found with a certified
// bracket when the time limit ends the search), or the fixed-alphabet
// optimum. The error is non-nil only for invalid input or when ctx ends
// (wrapping ErrInterrupted and ctx.Err()); the points solved so far are
// returned with it.
func (m Finite) SolveFinite(ctx context.Context, ds []float64, o FiniteSolveOptions) (FiniteSolution, error) {
	if err := m.Validate(); err != nil {
		return FiniteSolution{}, err
	}
	if err := m.CheckSize(); err != nil {
		return FiniteSolution{}, err
	}
	for _, d := range ds {
		if err := checkD(d); err != nil {
			return FiniteSolution{}, err
		}
	}
	sw := SweepOptions{MaxPoints: o.MaxPoints, TimeLimit: o.TimeLimit, Progress: o.Progress, Now: o.Now}
	b := sw.budget()
	sol := FiniteSolution{}
	var solve func(i int, d float64) (FiniteOptimum, error)
	// column generation's options at threshold i (its share of the time
	// left when it starts), from the columns pool
	colGen := func(i int, pool [][]float64) ColGenOptions {
		return ColGenOptions{TimeLimit: b.Share(i, len(ds)), GapTol: o.GapTol, Seed: o.Seed, Solver: o.Solver, Columns: pool, Iteration: o.Iteration}
	}
	switch {
	case o.Alphabet > 0:
		sol.Method = AlgorithmFixedMIP
		solve = func(i int, d float64) (FiniteOptimum, error) { return m.fixedPoint(ctx, d, o, b.Share(i, len(ds))) }
	default:
		g, err := m.rayLP(ctx, o)
		if ctx.Err() != nil {
			return sol, fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
		}
		if err != nil {
			return sol, err
		}
		if g != nil {
			sol.Method, sol.Global = AlgorithmGlobalLP, g
			curve := g.sweepOver(ds, sw, o.Solver) // the pieces of the ray LP's optimum (raysweep.go)
			solve = func(i int, d float64) (FiniteOptimum, error) {
				return curve(ctx, d, func() (FiniteOptimum, error) {
					return g.pointOrColGen(ctx, d, o.Solver, func() ColGenOptions { return colGen(i, nil) })
				})
			}
		} else {
			sol.Method = AlgorithmColGen
			var pool [][]float64 // the previous threshold's columns: a warm start
			solve = func(i int, d float64) (FiniteOptimum, error) {
				p, next, err := m.colGenPoint(ctx, d, colGen(i, pool))
				if next != nil {
					pool = next
				}
				return p, err
			}
		}
	}
	if o.Ready != nil {
		o.Ready(sol)
	}
	var err error
	if o.Emit != nil {
		sol.Solved, sol.Stopped, err = sweepEmit(ctx, ds, sw, b, solve, o.Emit)
	} else {
		sol.Points, sol.Stopped, err = sweepEach(ctx, ds, sw, b, solve)
		sol.Solved = len(sol.Points)
	}
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrInterrupted) {
		err = fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	return sol, err
}

// rayLP prepares the ray LP when o's method allows it and the enumeration
// is small; nil (no error) means column generation.
func (m Finite) rayLP(ctx context.Context, o FiniteSolveOptions) (*Global, error) {
	if o.Method == MethodColGen || (o.Method == MethodAuto && m.N() > AutoRayMaxN) {
		return nil, nil
	}
	g, err := m.PrepareGlobal(GlobalOptions{MaxSubsets: o.MaxSubsets, Context: ctx})
	if errors.Is(err, ErrTooLarge) && o.Method == MethodAuto {
		return nil, nil
	}
	return g, err
}

// noPoint is the point of a threshold without a privatizer.
func noPoint(d float64, method Algorithm, status Status, elapsed time.Duration) FiniteOptimum {
	return FiniteOptimum{D: d, Method: method, Status: status, Gamma: math.NaN(), Upper: math.NaN(),
		Losses: loss.Losses{Recon: math.NaN(), MinAdv: math.NaN()}, SolveTime: elapsed}
}

func interrupted(ctx context.Context, d float64) error {
	return fmt.Errorf("D = %g: %w: %w", d, ErrInterrupted, ctx.Err())
}

// point solves the ray LP at d as a SolveFinite point: exact, so its upper
// bound is its value.
func (g *Global) point(ctx context.Context, d float64, so SolverOptions) (FiniteOptimum, error) {
	if d < g.model.DMin()-1e-12 {
		return noPoint(d, AlgorithmGlobalLP, StatusInfeasible, 0), nil
	}
	if ctx.Err() != nil {
		return FiniteOptimum{}, interrupted(ctx, d)
	}
	return g.Solve(d, so)
}

// pointOrColGen is point, or, when HiGHS leaves the ray LP of this valid
// model without a verified optimum, column generation at d with the options
// co returns (it solves the same problem through its own LPs, with a
// certified bracket); the point's Fallback then says why.
func (g *Global) pointOrColGen(ctx context.Context, d float64, so SolverOptions, co func() ColGenOptions) (FiniteOptimum, error) {
	p, err := g.point(ctx, d, so)
	if err == nil || ctx.Err() != nil || !errors.Is(err, highsx.ErrNotOptimal) {
		return p, err
	}
	q, _, cerr := g.model.colGenPoint(ctx, d, co())
	if cerr != nil {
		return q, fmt.Errorf("%w; column generation: %w", err, cerr)
	}
	q.Fallback = err.Error()
	return q, nil
}

// colGenPoint runs column generation at d as a SolveFinite point; it also
// returns the final master's columns.
func (m Finite) colGenPoint(ctx context.Context, d float64, co ColGenOptions) (FiniteOptimum, [][]float64, error) {
	if d < m.DMin()-1e-12 {
		return noPoint(d, AlgorithmColGen, StatusInfeasible, 0), nil, nil
	}
	start := time.Now()
	r, err := m.SolveColGen(ctx, d, co)
	switch {
	case errors.Is(err, ErrInterrupted):
		return FiniteOptimum{}, nil, err
	case errors.Is(err, highsx.ErrTimeLimit) && r.Mechanism == nil:
		p := noPoint(d, AlgorithmColGen, StatusNoSolution, time.Since(start))
		p.Upper = r.Upper
		return p, r.Pool, nil
	case err != nil:
		return FiniteOptimum{}, nil, err
	}
	return r.FiniteOptimum, r.Pool, nil
}

// fixedPoint solves the fixed-alphabet MIP at d as a SolveFinite point: at
// a limit it keeps HiGHS's incumbent with the MIP's dual bound as upper
// bound (on the m-output optimum).
func (m Finite) fixedPoint(ctx context.Context, d float64, o FiniteSolveOptions, limit time.Duration) (FiniteOptimum, error) {
	if d < m.DMin()-1e-12 {
		return noPoint(d, AlgorithmFixedMIP, StatusInfeasible, 0), nil
	}
	fo := FixedOptions{Outputs: o.Alphabet, Hull: true}
	mod, err := m.FixedModel(d, fo)
	if err != nil {
		return FiniteOptimum{}, err
	}
	so := o.Solver
	if limit > 0 {
		so.TimeLimit = limit
	}
	res, err := mod.Solve(ctx, so)
	switch {
	case ctx.Err() != nil:
		return FiniteOptimum{}, interrupted(ctx, d)
	case errors.Is(err, highsx.ErrInfeasible):
		p := noPoint(d, AlgorithmFixedMIP, StatusInfeasible, res.Time)
		p.Alphabet = o.Alphabet
		return p, nil
	case err != nil && !res.HasSolution:
		if errors.Is(err, highsx.ErrTimeLimit) {
			p := noPoint(d, AlgorithmFixedMIP, StatusNoSolution, res.Time)
			p.Alphabet, p.Upper = o.Alphabet, res.DualBound
			return p, nil
		}
		return FiniteOptimum{}, fmt.Errorf("fixed-alphabet MIP (m = %d) at D = %g: %w", o.Alphabet, d, err)
	}
	p := m.fixedOptimum(d, o.Alphabet, res)
	p.Upper = res.DualBound
	if err == nil {
		p.Status, p.Upper = StatusOptimal, p.Gamma
	} else {
		p.Status, p.LowerBound = StatusGap, true
	}
	return p, nil
}

// fixedOptimum reads the fixed MIP's privatizer from its solution.
func (m Finite) fixedOptimum(d float64, mo int, res highsx.Result) FiniteOptimum {
	n := m.N()
	p := make(Mechanism, n)
	for x := range p {
		p[x] = make([]float64, mo)
		for f := range p[x] {
			p[x][f] = clamp01(res.X[x*mo+f])
		}
		normalize(p[x])
	}
	opt := FiniteOptimum{
		D: d, Gamma: res.Objective, Upper: res.Objective, Mechanism: p, Method: AlgorithmFixedMIP, Alphabet: mo,
		Status: pointStatus(res.Status), MIPGap: res.MIPGap, Nodes: res.Nodes, SolveTime: res.Time,
	}
	opt.fill(m)
	return opt
}
