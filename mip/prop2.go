package mip

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/loss"
)

// SolverOptions are the HiGHS settings of a solve; start from DefaultSolver.
type SolverOptions = highsx.Options

// DefaultSolver returns mmds's HiGHS settings (see package internal/highsx).
func DefaultSolver() SolverOptions { return highsx.Defaults() }

// Prop2Optimum is the solution of Proposition 2 at one distortion threshold D.
type Prop2Optimum struct {
	D           float64       // distortion threshold
	S           Privatizer    // optimal privatizer (s0*, s1*)
	Gamma       float64       // γ*, HiGHS's objective value
	loss.Losses               // L_recon(s*), L_adv,i(s*) and their min, recomputed exactly from s*
	Status      highsx.Status // HiGHS's outcome (Optimal: Solve returns an error otherwise)
	// MIPGap is HiGHS's relative MIP gap at termination, or for a point a
	// sweep proved from the MIP's leaves (SweepProp2Each) the proven gap
	// relative to max(1, γ).
	MIPGap float64
	// Nodes is HiGHS's branch-and-bound node count, or for a point a sweep
	// proved the number of leaves feasible at D whose bounds prove it.
	Nodes     int64
	SolveTime time.Duration // HiGHS run time, or the point's share of a sweep's work
}

// prop2Layout names the columns of the Proposition 2 MIP.
type prop2Layout struct{ k int }

func (l prop2Layout) s0() int         { return 0 }
func (l prop2Layout) s1() int         { return 1 }
func (l prop2Layout) gamma() int      { return 2 }
func (l prop2Layout) t(i, c int) int  { return 3 + 4*i + c }
func (l prop2Layout) w(c int) int     { return 3 + 4*l.k + c }
func (l prop2Layout) delta(c int) int { return 3 + 4*l.k + 4 + c }
func (l prop2Layout) numCols() int    { return 3 + 4*l.k + 8 }

// checkD validates a distortion threshold.
func checkD(d float64) error {
	if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
		return fmt.Errorf("D = %v: must be a finite number ≥ 0", d)
	}
	return nil
}

// Prop2Model builds the mixed-integer program of Proposition 2 (see the
// package comment) for threshold d.
func (m Binary) Prop2Model(d float64) (*highsx.Problem, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := checkD(d); err != nil {
		return nil, err
	}
	p := m.prop2(d)
	return p.mod, nil
}

// prop2MIP is Proposition 2's MIP with the rows where D enters: the upper
// bound of row dRows[k] is D + dOff[k] (all other data are free of D).
type prop2MIP struct {
	mod   *highsx.Problem
	dRows []int
	dOff  []float64
}

// prop2 builds Proposition 2's MIP for a valid model and threshold.
func (m Binary) prop2(d float64) prop2MIP {
	l := prop2Layout{k: len(m.QZ)}
	n := l.numCols()
	mod := highsx.NewProblem(n) // every column is ≥ 0
	mod.Maximize = true
	mod.Cost[l.gamma()] = 1
	mod.Upper[l.s0()], mod.Upper[l.s1()] = 1, 1
	row := newRowBuilder(mod)
	m.adversaryRows(row, l)

	// Reconstructor: Σ_c min(u_c, v_c) ≤ D with big-M branch binaries.
	for c, cl := range m.cells(m.QY) {
		mod.Integer[l.delta(c)] = true
		mod.Upper[l.delta(c)] = 1
		mu, mv := maxOnTriangle(cl[0]), maxOnTriangle(cl[1])
		// w_c ≥ u_c − M_u δ_c  ⇔  w_c − a·s + M_u δ_c ≥ c_u
		row.add(cl[0].c, math.Inf(1), entry{l.w(c), 1}, entry{l.s0(), -cl[0].a0}, entry{l.s1(), -cl[0].a1}, entry{l.delta(c), mu})
		// w_c ≥ v_c − M_v (1 − δ_c)  ⇔  w_c − a·s − M_v δ_c ≥ c_v − M_v
		row.add(cl[1].c-mv, math.Inf(1), entry{l.w(c), 1}, entry{l.s0(), -cl[1].a0}, entry{l.s1(), -cl[1].a1}, entry{l.delta(c), -mv})
	}
	es := make([]entry, 4)
	for c := range es {
		es[c] = entry{l.w(c), 1}
	}
	p := prop2MIP{mod: mod}
	p.dRows = append(p.dRows, row.add(math.Inf(-1), d, es...))
	p.dOff = append(p.dOff, 0)

	// Symmetry breaking: relabelling F maps (s0, s1) to (1−s0, 1−s1) and
	// leaves every loss unchanged, so we may ask for s0 + s1 ≥ 1 (F agrees
	// with X at least as often as not).
	row.add(1, math.Inf(1), entry{l.s0(), 1}, entry{l.s1(), 1})

	// Valid inequalities that tighten the LP relaxation (they cut off no
	// feasible point): each min-term, and L_recon itself, is concave, so on
	// the triangle s0 + s1 ≥ 1 it lies above the plane through its values at
	// the triangle's corners.
	for c, cl := range m.cells(m.QY) {
		pl := cornerPlane(func(s Privatizer) float64 { return math.Min(cl[0].at(s), cl[1].at(s)) })
		// w_c ≥ plane(s)
		row.add(pl.c, math.Inf(1), entry{l.w(c), 1}, entry{l.s0(), -pl.a0}, entry{l.s1(), -pl.a1})
	}
	pl := cornerPlane(m.ReconLoss)
	// plane(s) ≤ L_recon(s) ≤ D
	p.dRows = append(p.dRows, row.add(math.Inf(-1), d-pl.c, entry{l.s0(), pl.a0}, entry{l.s1(), pl.a1}))
	p.dOff = append(p.dOff, -pl.c)
	return p
}

// adversaryRows writes the adversaries' rows, nine per adversary: the
// exact epigraph of a sum of minima (concave), t_ic ≤ both terms of cell
// c, and γ ≤ Σ_c t_ic.
func (m Binary) adversaryRows(row rowBuilder, l prop2Layout) {
	for i, q := range m.QZ {
		for c, cl := range m.cells(q) {
			for _, term := range cl {
				// t_ic ≤ term  ⇔  t_ic − a·s ≤ c
				row.add(math.Inf(-1), term.c, entry{l.t(i, c), 1}, entry{l.s0(), -term.a0}, entry{l.s1(), -term.a1})
			}
		}
		es := []entry{{l.gamma(), 1}}
		for c := 0; c < 4; c++ {
			es = append(es, entry{l.t(i, c), -1})
		}
		row.add(math.Inf(-1), 0, es...)
	}
}

// triangle is the corners of the symmetry-broken domain s0 + s1 ≥ 1 within
// the unit box.
var triangle = [3]Privatizer{{1, 0}, {0, 1}, {1, 1}}

// cornerPlane is the plane through f's values at the corners of triangle.
// For concave f it lies below f on the whole triangle: f is at least the
// interpolation of its corner values, which is this plane.
func cornerPlane(f func(Privatizer) float64) affine {
	f10, f01, f11 := f(triangle[0]), f(triangle[1]), f(triangle[2])
	return affine{c: f10 + f01 - f11, a0: f11 - f01, a1: f11 - f10}
}

// maxOnTriangle is the largest value of the affine t on triangle (an affine
// function attains its maximum over a polytope at a vertex).
func maxOnTriangle(t affine) float64 {
	m := math.Inf(-1)
	for _, s := range triangle {
		m = math.Max(m, t.at(s))
	}
	return m
}

type entry struct {
	col int
	val float64
}

type rowBuilder struct {
	m *highsx.Problem
}

func newRowBuilder(m *highsx.Problem) rowBuilder { return rowBuilder{m} }

// add appends the row lo ≤ Σ val·x[col] ≤ hi (zero coefficients dropped)
// and returns its index.
func (b rowBuilder) add(lo, hi float64, es ...entry) int {
	col := make([]int, len(es))
	val := make([]float64, len(es))
	for k, e := range es {
		col[k], val[k] = e.col, e.val
	}
	return b.m.AddRow(lo, hi, col, val)
}

// SolveProp2 solves Proposition 2 at threshold d. The losses in the result
// are recomputed exactly from the optimal (s0*, s1*), clamped to [0, 1].
func (m Binary) SolveProp2(d float64, o SolverOptions) (Prop2Optimum, error) {
	mod, err := m.Prop2Model(d)
	if err != nil {
		return Prop2Optimum{}, err
	}
	res, err := mod.Solve(context.Background(), o)
	if err != nil {
		return Prop2Optimum{}, fmt.Errorf("proposition 2 at D = %g: %w", d, err)
	}
	l := prop2Layout{k: len(m.QZ)}
	s := Privatizer{S0: clamp01(res.X[l.s0()]), S1: clamp01(res.X[l.s1()])}
	opt := Prop2Optimum{
		D:         d,
		S:         s,
		Gamma:     res.Objective,
		Losses:    loss.New(m.ReconLoss(s), m.AdvLosses(s)),
		Status:    res.Status,
		MIPGap:    res.MIPGap,
		Nodes:     res.Nodes,
		SolveTime: res.Time,
	}
	return opt, nil
}

// SweepProp2 solves Proposition 2 at every threshold in ds, in order. It
// stops at the first error or when ctx is cancelled.
func (m Binary) SweepProp2(ctx context.Context, ds []float64, o SolverOptions) ([]Prop2Optimum, error) {
	opts, _, err := m.SweepProp2Within(ctx, ds, o, SweepOptions{})
	return opts, err
}

// SweepProp2Within is SweepProp2 within sw's limits: it returns the points
// solved, a prefix of ds, and why it stopped before the others.
func (m Binary) SweepProp2Within(ctx context.Context, ds []float64, o SolverOptions, sw SweepOptions) ([]Prop2Optimum, Stop, error) {
	return collect(len(ds), func(emit func(Prop2Optimum) error) (int, Stop, error) { return m.SweepProp2Each(ctx, ds, o, sw, emit) })
}

// SweepProp2Each is SweepProp2Within that hands each optimum to emit, in
// the order of ds, as soon as it is known, and keeps none: a sweep's
// memory does not grow with its length. It returns how many points were
// emitted. Every point is solved exactly as SolveProp2 would (to the same
// tolerances), but not by one MIP per point: the sweep solves the MIP's
// δ-leaves as LPs where their pieces change and proves each point from
// them (see prop2sweep.go); Nodes is then the number of leaves feasible at
// D whose dual bounds prove the point, and MIPGap the proven gap relative
// to max(1, γ). The first point's SolveTime includes the leaves' solves.
// A sweep that can reach one threshold only solves it as one MIP.
func (m Binary) SweepProp2Each(ctx context.Context, ds []float64, o SolverOptions, sw SweepOptions, emit func(Prop2Optimum) error) (int, Stop, error) {
	if err := m.Validate(); err != nil {
		return 0, StopNone, err
	}
	for _, d := range ds {
		if err := checkD(d); err != nil {
			return 0, StopNone, err
		}
	}
	b := sw.budget()
	reach := sw.reach(ds)
	if len(reach) == 1 {
		// one threshold: the MIP itself (as fast as the leaves, and HiGHS's
		// own answer)
		return sweepEmit(ctx, ds, sw, b, func(_ int, d float64) (Prop2Optimum, error) { return m.SolveProp2(d, o) }, emit)
	}
	var ps *prop2Sweep
	return sweepEmit(ctx, ds, sw, b, func(_ int, d float64) (Prop2Optimum, error) {
		if ps == nil {
			start := time.Now()
			var err error
			if ps, err = m.newProp2Sweep(ctx, slices.Min(reach), slices.Max(reach), o); err != nil {
				return Prop2Optimum{}, err
			}
			opt, err := ps.at(d)
			opt.SolveTime = time.Since(start)
			return opt, err
		}
		return ps.at(d)
	}, emit)
}

// WriteProp2Model writes the MIP for threshold d to path (.mps or .lp,
// chosen by HiGHS from the extension). The write is not atomic; callers
// that need atomicity write to a temporary name with the same extension.
func (m Binary) WriteProp2Model(d float64, path string) error {
	mod, err := m.Prop2Model(d)
	if err != nil {
		return err
	}
	return mod.Write(path)
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }
