package mip

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"math"
	"slices"

	"github.com/mmds-project/mmds/internal/highsx"
)

// A sweep over many thresholds D of an LP in which D enters only as
// right-hand sides (the upper bounds D + offset of a few rows) need not
// solve the LP once per threshold: its optimum V(D) is concave and
// piecewise linear in D, with few pieces, and each piece is found with
// few solves of one HiGHS model whose row bounds change (Eisner and
// Severance's sandwich: solve at both ends of an interval; when the
// tangent line at one end passes through the other end's optimum, V is
// linear in between, else solve where the two tangents meet and recurse).
// Between two solves on one piece, every point is proven rather than
// interpolated:
//   - primal: the interpolation of the two optima satisfies every row at
//     the interpolated D (the rows are linear in (x, D) jointly), so it is
//     feasible to the solver's tolerance and its exact objective can be
//     recomputed by the caller;
//   - dual: every solve's row multipliers give a weak-duality bound
//     (highsx.Problem.DualBound) that is an affine function of D valid at
//     every D, so the bounds of the two solves bound V between them.
// A caller reports a point only when the two meet to within paramGapTol.

// paramGapTol is the largest proven gap (absolute; mmds's losses are
// probabilities or bounded risks) between a reported point's objective
// and its dual bound; paramFeasTol is how far its recomputed
// reconstructor's loss may exceed D. Both are the tolerances HiGHS's own
// solves are held to (highsx.Defaults).
const (
	paramGapTol  = 1e-9
	paramFeasTol = 1e-9
)

// paramMaxSolves bounds the solves spent on one curve's pieces; intervals
// left unproven then go to per-point solves.
const paramMaxSolves = 200

// errNoDuals: HiGHS solved an LP but gave no dual solution to prove it by.
var errNoDuals = errors.New("mip: HiGHS gave no duals")

// dualLine is a weak-duality bound on V, valid at every D:
// V(D) ≤ at + slope·(D − d).
type dualLine struct{ d, at, slope float64 }

func (l dualLine) eval(d float64) float64 {
	v := l.at + l.slope*(d-l.d)
	// the rounding of this evaluation (two operations on values of this size)
	return v + 4*0x1p-53*(math.Abs(l.at)+math.Abs(l.slope*(d-l.d))+math.Abs(v))
}

// paramNode is the LP's optimum at one threshold: its value and point,
// and its dual bound.
type paramNode struct {
	d, value float64
	x        []float64
	line     dualLine
}

// paramCurve is V over a range of thresholds: nodes in increasing D,
// linear between consecutive ones unless open marks an interval the solve
// budget left unproven, and minD, below which the LP is proven infeasible.
type paramCurve struct {
	minD  float64
	nodes []paramNode
	open  []bool // open[i]: the interval (nodes[i], nodes[i+1])
}

// paramLP is an LP kept in HiGHS whose thresholds D are the upper bounds
// D + dOff[k] of rows dRows, with a Go copy of the model whose bounds are
// kept in step (for the dual bounds).
type paramLP struct {
	mod    *highsx.Problem
	lp     *highsx.LP
	dRows  []int
	dOff   []float64
	solves int
}

// paramOptions are the HiGHS options of a parametric LP: mmds's defaults
// with a dual feasibility tolerance as tight as the primal one (the dual
// bounds are as tight as it), and for a small model re-solved from its
// last basis no presolve (it would discard the basis) and the dual
// simplex alone.
func paramOptions(o SolverOptions) SolverOptions {
	extra := map[string]any{
		"dual_feasibility_tolerance": 1e-10,
		"presolve":                   "off",
		"solver":                     "simplex",
		"simplex_strategy":           1, // dual simplex
	}
	maps.Copy(extra, o.Extra)
	o.Extra = extra
	return o
}

// newParamLP loads mod, whose rows dRows hold D (upper bounds D + dOff).
// Every column of mod must have two finite bounds (else a dual bound may
// be infinite). A D row without coefficients, a constant constraint, must
// be implied by the others: it is dropped.
func newParamLP(mod *highsx.Problem, dRows []int, dOff []float64, o SolverOptions) (*paramLP, error) {
	p := &paramLP{mod: mod}
	for k, r := range dRows {
		if _, _, col, _ := mod.Row(r); len(col) == 0 {
			mod.SetRowBounds(r, math.Inf(-1), math.Inf(1))
			continue
		}
		p.dRows, p.dOff = append(p.dRows, r), append(p.dOff, dOff[k])
	}
	lp, err := highsx.NewLP(mod, paramOptions(o))
	if err != nil {
		return nil, err
	}
	p.lp = lp
	return p, nil
}

// setD sets the rows that hold D (D = +Inf frees them).
func (p *paramLP) setD(d float64) error {
	lo := make([]float64, len(p.dRows))
	hi := make([]float64, len(p.dRows))
	for k, r := range p.dRows {
		lo[k], hi[k] = math.Inf(-1), d+p.dOff[k]
		p.mod.SetRowBounds(r, lo[k], hi[k])
	}
	return p.lp.SetRowBounds(p.dRows, lo, hi)
}

// solve solves the LP at d: ok is false when HiGHS finds it infeasible.
func (p *paramLP) solve(ctx context.Context, d float64) (paramNode, bool, error) {
	if err := p.setD(d); err != nil {
		return paramNode{}, false, err
	}
	p.solves++
	res, err := p.lp.Solve(ctx)
	if errors.Is(err, highsx.ErrInfeasible) {
		return paramNode{}, false, nil
	}
	if err != nil {
		return paramNode{}, false, err
	}
	if len(res.RowDual) != p.mod.NumRows() {
		return paramNode{}, false, errNoDuals
	}
	b := p.mod.DualBound(res.RowDual)
	var slope float64
	for _, r := range p.dRows {
		slope += b.Y[r] // ≥ 0: these rows have upper sides only
	}
	return paramNode{d: d, value: res.Objective, x: res.X, line: dualLine{d: d, at: b.Value, slope: slope}}, true, nil
}

// curveFrom solves V's pieces on [d, b] from the first threshold d of
// tries at which the LP is feasible; false when it is feasible at none.
func (p *paramLP) curveFrom(ctx context.Context, cv *paramCurve, tries []float64, b float64) (bool, error) {
	for _, d := range tries {
		first, ok, err := p.solve(ctx, d)
		if err != nil {
			return false, err
		}
		if ok {
			return true, p.curve(ctx, cv, first, b)
		}
	}
	return false, nil
}

// curve solves V's pieces on [first.d, b] from the solve first (which
// must be feasible): first.d ≥ b gives the one node.
func (p *paramLP) curve(ctx context.Context, cv *paramCurve, first paramNode, b float64) error {
	cv.nodes = append(cv.nodes, first)
	if first.d >= b {
		return nil
	}
	start := p.solves
	last, ok, err := p.solve(ctx, b)
	if err != nil || !ok { // infeasible at b after feasible at first.d: cannot happen
		return err
	}
	if err := p.refine(ctx, cv, first, last, start); err != nil {
		return err
	}
	cv.nodes = append(cv.nodes, last)
	return nil
}

// refine appends the nodes strictly between a and b (a is already
// appended) and marks each interval it closes. The LP maximizes: V is
// concave.
func (p *paramLP) refine(ctx context.Context, cv *paramCurve, a, b paramNode, start int) error {
	// One piece: the tangent at one end passes through the other end's
	// optimum (to well within paramGapTol).
	const tol = paramGapTol / 10
	if a.line.eval(b.d) <= b.value+tol || b.line.eval(a.d) <= a.value+tol {
		cv.open = append(cv.open, false)
		return nil
	}
	if p.solves-start >= paramMaxSolves || b.d-a.d <= 1e-12*math.Max(1, b.d) {
		cv.open = append(cv.open, true)
		return nil
	}
	// where the tangents meet (concavity puts it between a and b); the
	// middle when rounding does not
	d := (b.line.at - b.line.slope*b.line.d - a.line.at + a.line.slope*a.line.d) / (a.line.slope - b.line.slope)
	if !(d > a.d && d < b.d) {
		d = a.d + (b.d-a.d)/2
	}
	mid, ok, err := p.solve(ctx, d)
	if err != nil {
		return err
	}
	if !ok { // infeasible between two feasible thresholds: cannot happen
		cv.open = append(cv.open, true)
		return nil
	}
	if err := p.refine(ctx, cv, a, mid, start); err != nil {
		return err
	}
	cv.nodes = append(cv.nodes, mid)
	return p.refine(ctx, cv, mid, b, start)
}

// at locates d on the curve: the interval [a, b] of the piece holding it
// and d's weight t on b (a = b, t = 0 on a node; a nil where no proven
// piece holds d), and a proven bound on V(d) (every node's line bounds V
// at every D). excluded: the LP is infeasible at d (proven); ok false:
// nothing bounds V at d.
func (cv *paramCurve) at(d float64) (a, b *paramNode, t, bound float64, excluded, ok bool) {
	if d < cv.minD {
		return nil, nil, 0, math.Inf(-1), true, true
	}
	n := len(cv.nodes)
	switch {
	case n == 0:
		return nil, nil, 0, 0, false, false
	case d < cv.nodes[0].d:
		return nil, nil, 0, cv.nodes[0].line.eval(d), false, true
	case d > cv.nodes[n-1].d:
		return nil, nil, 0, cv.nodes[n-1].line.eval(d), false, true
	}
	// the first node at or after d
	lo, _ := slices.BinarySearchFunc(cv.nodes, d, func(nd paramNode, d float64) int { return cmp.Compare(nd.d, d) })
	if cv.nodes[lo].d == d {
		nd := &cv.nodes[lo]
		return nd, nd, 0, nd.line.eval(d), false, true
	}
	a, b = &cv.nodes[lo-1], &cv.nodes[lo]
	bound = math.Min(a.line.eval(d), b.line.eval(d))
	if cv.open[lo-1] {
		return nil, nil, 0, bound, false, true
	}
	return a, b, (d - a.d) / (b.d - a.d), bound, false, true
}

// lerp is a + t·(b − a).
func lerp(a, b, t float64) float64 { return a + t*(b-a) }
