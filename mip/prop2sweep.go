package mip

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/loss"
)

// A sweep of Proposition 2 over many thresholds does not solve the MIP
// once per threshold. Fixing the four branch binaries δ of the MIP (one of
// 2⁴ leaves of its branch-and-bound tree) leaves an LP whose thresholds D
// enter only as right-hand sides, so its optimum V_δ(D) is concave,
// nondecreasing and piecewise linear in D; the MIP's optimum is
// max_δ V_δ(D). Each leaf is one HiGHS model, re-solved with changed
// bounds (δ, and the rows that hold D), and its pieces are found with few
// solves (Eisner and Severance's sandwich: solve at both ends of an
// interval; when the tangent line at one end passes through the other
// end's optimum, the function is that line in between, else solve where
// the two tangents meet and recurse).
//
// Every reported point is then proven, not merely interpolated:
//   - the privatizer s(D) interpolates two LP optima of one leaf and one
//     piece, so it satisfies the leaf's rows at D (they are linear in
//     (x, D) jointly), and its losses are recomputed exactly; it must
//     meet L_recon(s) ≤ D to within the solver's feasibility tolerance;
//   - every leaf's LP solve gives row multipliers whose weak-duality bound
//     (highsx.Model.DualBound) is an affine function of D valid at every D,
//     so max over the leaves of their bounds at D bounds the MIP's
//     optimum; a leaf that is infeasible at D is ruled out by the bound
//     D < min Σ_c w_c its phase-1 LP proves.
//
// A point whose proven gap between min_i L_adv,i(s(D)) and that bound
// exceeds paramGapTol, or which no piece covers, is solved as a MIP by
// HiGHS instead (Binary.SolveProp2).

// paramGapTol is the largest proven gap (absolute, losses are in [0, 1])
// between a reported point's objective and the bound on every leaf's
// optimum; paramFeasTol is how far its recomputed L_recon may exceed D.
// Both are the tolerances HiGHS's own solves are held to (Defaults).
const (
	paramGapTol  = 1e-9
	paramFeasTol = 1e-9
)

// errNoDuals: HiGHS solved a leaf LP but gave no dual solution to prove
// it by.
var errNoDuals = errors.New("HiGHS gave no duals")

// paramMaxSolves bounds the LP solves spent on one leaf's pieces; a leaf
// that needs more leaves its remaining intervals to per-point MIPs.
const paramMaxSolves = 200

// leafLine is a weak-duality bound on a leaf's optimum, valid at every D:
// V_δ(D) ≤ at + slope·(D − d).
type leafLine struct{ d, at, slope float64 }

func (l leafLine) eval(d float64) float64 {
	v := l.at + l.slope*(d-l.d)
	// the rounding of this evaluation (two operations on values of this size)
	return v + 4*0x1p-53*(math.Abs(l.at)+math.Abs(l.slope*(d-l.d))+math.Abs(v))
}

// leafNode is a leaf's LP optimum at one threshold: its value, privatizer
// and dual bound.
type leafNode struct {
	d, gamma float64
	s        Privatizer
	line     leafLine
}

// leafCurve is one leaf's optimum over the sweep's range: nodes in
// increasing D, linear between consecutive ones (unless open marks a gap
// the solve budget left unproven), and the phase-1 bound below which the
// leaf is infeasible.
type leafCurve struct {
	minD  float64 // proven: no point of the leaf has Σ_c w_c < minD
	nodes []leafNode
	open  []bool // open[i]: the interval (nodes[i], nodes[i+1]) was not proven linear
}

// prop2Leaves holds the LP of Proposition 2 with δ fixed, in HiGHS and as
// a Go model with the same bounds (for the dual bounds).
type prop2Leaves struct {
	m      Binary
	l      prop2Layout
	p      prop2MIP
	lp     *highsx.LP
	cost   []float64
	solves int
}

// leafOptions are the HiGHS options of a leaf LP: mmds's defaults with a
// dual feasibility tolerance as tight as the primal one (the dual bounds
// are tight to it), and for a tiny model re-solved from its last basis no
// presolve (it would discard the basis) and the dual simplex alone.
func leafOptions(o SolverOptions) SolverOptions {
	extra := map[string]any{
		"dual_feasibility_tolerance": 1e-10,
		"presolve":                   "off",
		"solver":                     "simplex",
		"simplex_strategy":           1, // dual simplex
	}
	for k, v := range o.Extra {
		extra[k] = v
	}
	o.Extra = extra
	return o
}

func (m Binary) newProp2Leaves(o SolverOptions) (*prop2Leaves, error) {
	p := m.prop2(0)
	l := prop2Layout{k: len(m.QZ)}
	mod := p.mod
	// An LP: δ's bounds fix it. γ, t and w get the upper bound 1, which
	// cuts off no optimum (γ ≤ Σ_c t_ic ≤ L_adv,i ≤ 1, t_ic ≤ a joint
	// probability ≤ 1, and lowering any w_c > 1 to 1 keeps every row) and
	// gives every column two finite bounds, so that any multipliers prove
	// a finite bound.
	for j := range mod.Integer {
		mod.Integer[j] = false
	}
	for j := range mod.Upper {
		mod.Upper[j] = math.Min(mod.Upper[j], 1)
	}
	// A D row without coefficients (the corner plane of a constant
	// L_recon) is implied by Σ_c w_c ≤ D: drop it.
	var rows []int
	var off []float64
	for k, r := range p.dRows {
		if _, _, col, _ := mod.Row(r); len(col) == 0 {
			mod.SetRowBounds(r, math.Inf(-1), math.Inf(1))
			continue
		}
		rows, off = append(rows, r), append(off, p.dOff[k])
	}
	p.dRows, p.dOff = rows, off
	lp, err := highsx.NewLP(mod, leafOptions(o))
	if err != nil {
		return nil, err
	}
	return &prop2Leaves{m: m, l: l, p: p, lp: lp, cost: slices.Clone(mod.Cost)}, nil
}

// fix sets δ to the leaf's bits.
func (pl *prop2Leaves) fix(leaf int) error {
	cols := make([]int, 4)
	v := make([]float64, 4)
	for c := range 4 {
		cols[c] = pl.l.delta(c)
		v[c] = float64(leaf >> c & 1)
		pl.p.mod.Lower[cols[c]], pl.p.mod.Upper[cols[c]] = v[c], v[c]
	}
	return pl.lp.SetColBounds(cols, v, v)
}

// setD sets the rows that hold D (D = +Inf frees them).
func (pl *prop2Leaves) setD(d float64) error {
	lo := make([]float64, len(pl.p.dRows))
	hi := make([]float64, len(pl.p.dRows))
	for k, r := range pl.p.dRows {
		lo[k], hi[k] = math.Inf(-1), d+pl.p.dOff[k]
		pl.p.mod.SetRowBounds(r, lo[k], hi[k])
	}
	return pl.lp.SetRowBounds(pl.p.dRows, lo, hi)
}

// solve solves the current leaf at d: ok is false when HiGHS finds it
// infeasible.
func (pl *prop2Leaves) solve(ctx context.Context, d float64) (leafNode, bool, error) {
	if err := pl.setD(d); err != nil {
		return leafNode{}, false, err
	}
	pl.solves++
	res, err := pl.lp.Solve(ctx)
	if errors.Is(err, highsx.ErrInfeasible) {
		return leafNode{}, false, nil
	}
	if err != nil {
		return leafNode{}, false, err
	}
	if len(res.RowDual) != pl.p.mod.NumRows() {
		return leafNode{}, false, errNoDuals
	}
	b := pl.p.mod.DualBound(res.RowDual)
	var slope float64
	for _, r := range pl.p.dRows {
		slope += b.Y[r] // ≥ 0: these rows have upper sides only
	}
	return leafNode{
		d: d, gamma: res.X[pl.l.gamma()],
		s:    Privatizer{S0: res.X[pl.l.s0()], S1: res.X[pl.l.s1()]},
		line: leafLine{d: d, at: b.Value, slope: slope},
	}, true, nil
}

// minD is the phase-1 bound of the current leaf: a proven lower bound on
// Σ_c w_c over its points (below it the leaf is infeasible at every D),
// and HiGHS's minimum, where its pieces start.
func (pl *prop2Leaves) minD(ctx context.Context) (proven, attained float64, err error) {
	l := pl.l
	c := make([]float64, len(pl.cost))
	for k := range 4 {
		c[l.w(k)] = -1 // maximize −Σ w
	}
	defer func() {
		copy(pl.p.mod.Cost, pl.cost)
		if rerr := pl.lp.SetCosts(pl.cost); err == nil {
			err = rerr
		}
	}()
	copy(pl.p.mod.Cost, c)
	if err := pl.lp.SetCosts(c); err != nil {
		return 0, 0, err
	}
	if err := pl.setD(math.Inf(1)); err != nil {
		return 0, 0, err
	}
	pl.solves++
	res, err := pl.lp.Solve(ctx)
	if errors.Is(err, highsx.ErrInfeasible) {
		// the leaf is empty whatever D is (cannot happen: s = (1,1) with
		// w = branch values is a point of every leaf)
		return math.Inf(1), math.Inf(1), nil
	}
	if err != nil {
		return 0, 0, err
	}
	if len(res.RowDual) != pl.p.mod.NumRows() {
		return 0, 0, errNoDuals
	}
	return -pl.p.mod.DualBound(res.RowDual).Value, -res.Objective, nil
}

// curve finds the current leaf's pieces on [a, b].
func (pl *prop2Leaves) curve(ctx context.Context, a, b float64) (leafCurve, error) {
	proven, attained, err := pl.minD(ctx)
	if err != nil {
		return leafCurve{}, err
	}
	cv := leafCurve{minD: proven}
	if proven > b {
		return cv, nil // infeasible on the whole range
	}
	start := pl.solves
	// The pieces start where the leaf becomes feasible; HiGHS may call the
	// boundary itself infeasible by a rounding, so step in a little.
	// A boundary within the feasibility tolerance above a is tried at a
	// (HiGHS holds rows to that tolerance, as in a MIP solve at a).
	lo := math.Max(a, attained)
	tries := []float64{lo, lo + 1e-12*math.Max(1, lo), lo + 1e-10*math.Max(1, lo), lo + 1e-8*math.Max(1, lo)}
	if lo > a && lo-a <= paramFeasTol {
		tries = append([]float64{a}, tries...)
	}
	var first leafNode
	ok := false
	for _, d := range tries {
		if d > b {
			break
		}
		if first, ok, err = pl.solve(ctx, d); err != nil || ok {
			break
		}
	}
	if err != nil || !ok {
		return cv, err // no piece: points in [minD, b] go to the MIP
	}
	if first.d == b {
		cv.nodes = []leafNode{first}
		return cv, nil
	}
	last, ok, err := pl.solve(ctx, b)
	if err != nil || !ok {
		cv.nodes = []leafNode{first}
		return cv, err
	}
	cv.nodes = append(cv.nodes, first)
	if err := pl.refine(ctx, &cv, first, last, start); err != nil {
		return cv, err
	}
	cv.nodes = append(cv.nodes, last)
	return cv, nil
}

// refine appends the nodes strictly between p and q (p already appended)
// and marks each interval it closes.
func (pl *prop2Leaves) refine(ctx context.Context, cv *leafCurve, p, q leafNode, start int) error {
	// One piece: the tangent at one end passes through the other end's
	// optimum (to well within paramGapTol).
	const tol = paramGapTol / 10
	if p.line.eval(q.d) <= q.gamma+tol || q.line.eval(p.d) <= p.gamma+tol {
		cv.open = append(cv.open, false)
		return nil
	}
	if pl.solves-start >= paramMaxSolves || q.d-p.d <= 1e-12*math.Max(1, q.d) {
		cv.open = append(cv.open, true)
		return nil
	}
	// where the tangents meet (concavity puts it between p and q); the
	// middle when rounding does not
	d := (q.line.at - q.line.slope*q.line.d - p.line.at + p.line.slope*p.line.d) / (p.line.slope - q.line.slope)
	if !(d > p.d && d < q.d) {
		d = p.d + (q.d-p.d)/2
	}
	mid, ok, err := pl.solve(ctx, d)
	if err != nil {
		return err
	}
	if !ok { // cannot happen between two feasible thresholds
		cv.open = append(cv.open, true)
		return nil
	}
	if err := pl.refine(ctx, cv, p, mid, start); err != nil {
		return err
	}
	cv.nodes = append(cv.nodes, mid)
	return pl.refine(ctx, cv, mid, q, start)
}

// at is the leaf's optimum at d from its pieces: the interpolated value
// and privatizer (gamma = −Inf where no proven piece covers d), and a
// proven bound on the leaf's optimum (every node's line bounds it at every
// D). excluded: the leaf is infeasible at d (proven); ok false: the leaf
// has nothing to bound it with.
func (cv *leafCurve) at(d float64) (gamma float64, s Privatizer, bound float64, excluded, ok bool) {
	if d < cv.minD {
		return 0, Privatizer{}, math.Inf(-1), true, true
	}
	n := len(cv.nodes)
	switch {
	case n == 0:
		return 0, Privatizer{}, 0, false, false
	case d < cv.nodes[0].d:
		return math.Inf(-1), Privatizer{}, cv.nodes[0].line.eval(d), false, true
	case d > cv.nodes[n-1].d:
		return math.Inf(-1), Privatizer{}, cv.nodes[n-1].line.eval(d), false, true
	}
	i, found := slices.BinarySearchFunc(cv.nodes, d, func(nd leafNode, d float64) int {
		switch {
		case nd.d < d:
			return -1
		case nd.d > d:
			return 1
		}
		return 0
	})
	if found {
		nd := cv.nodes[i]
		return nd.gamma, nd.s, nd.line.eval(d), false, true
	}
	p, q := cv.nodes[i-1], cv.nodes[i]
	bound = math.Min(p.line.eval(d), q.line.eval(d))
	if cv.open[i-1] {
		return math.Inf(-1), Privatizer{}, bound, false, true
	}
	t := (d - p.d) / (q.d - p.d)
	gamma = p.gamma + t*(q.gamma-p.gamma)
	s = Privatizer{S0: p.s.S0 + t*(q.s.S0-p.s.S0), S1: p.s.S1 + t*(q.s.S1-p.s.S1)}
	return gamma, s, bound, false, true
}

// prop2Sweep is Proposition 2's optimum over a range of thresholds: the
// curve of every leaf.
type prop2Sweep struct {
	m      Binary
	o      SolverOptions
	leaves [16]leafCurve
	solves int // LP solves spent
	mips   int // points solved as MIPs (not proven by the leaves)
}

// newProp2Sweep solves every leaf's pieces on [a, b].
func (m Binary) newProp2Sweep(ctx context.Context, a, b float64, o SolverOptions) (*prop2Sweep, error) {
	pl, err := m.newProp2Leaves(o)
	if err != nil {
		return nil, err
	}
	ps := &prop2Sweep{m: m, o: o}
	for leaf := range ps.leaves {
		if err := pl.fix(leaf); err != nil {
			return nil, err
		}
		ps.leaves[leaf], err = pl.curve(ctx, a, b)
		switch {
		case errors.Is(err, errNoDuals):
			// nothing proven for this leaf: its range goes to the MIP
			ps.leaves[leaf] = leafCurve{minD: math.Inf(-1)}
		case err != nil:
			return nil, fmt.Errorf("proposition 2 on [%g, %g]: %w", a, b, err)
		}
	}
	ps.solves = pl.solves
	return ps, nil
}

// at is Proposition 2's optimum at d from the leaves' pieces, proven as in
// the comment at the top of this file; a point the pieces do not prove is
// solved as a MIP.
func (ps *prop2Sweep) at(d float64) (Optimum, error) {
	start := time.Now()
	best, bestGamma, bound := -1, math.Inf(-1), math.Inf(-1)
	var bestS Privatizer
	leaves := 0
	for leaf := range ps.leaves {
		g, s, ub, excluded, ok := ps.leaves[leaf].at(d)
		if !ok {
			return ps.mip(d)
		}
		if excluded {
			continue
		}
		leaves++
		bound = math.Max(bound, ub)
		if g > bestGamma {
			best, bestGamma, bestS = leaf, g, s
		}
	}
	if best < 0 {
		return ps.mip(d)
	}
	s := Privatizer{S0: clamp01(bestS.S0), S1: clamp01(bestS.S1)}
	opt := Optimum{
		D: d, S: s, Gamma: bestGamma + 0, // no −0
		Losses: loss.New(ps.m.ReconLoss(s), ps.m.AdvLosses(s)),
		Status: highsx.StatusOptimal,
		Nodes:  int64(leaves),
	}
	gap := bound - opt.MinAdv
	if opt.Recon > d+paramFeasTol || !(gap <= paramGapTol) {
		return ps.mip(d)
	}
	opt.MIPGap = math.Max(gap, 0) / math.Max(1, math.Abs(opt.MinAdv))
	opt.SolveTime = time.Since(start)
	return opt, nil
}

// mip solves Proposition 2 at d as one MIP.
func (ps *prop2Sweep) mip(d float64) (Optimum, error) {
	ps.mips++
	return ps.m.SolveProp2(d, ps.o)
}
