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
// the 2⁴ leaves of its branch-and-bound tree) leaves an LP whose
// thresholds enter only as right-hand sides: its optimum V_δ(D) is
// concave and piecewise linear in D (parametric.go), and the MIP's optimum
// is max_δ V_δ(D). All leaves are one HiGHS model, re-solved with changed
// bounds (δ, and the rows that hold D). A reported point is proven:
//   - its privatizer s(D) interpolates two LP optima of one leaf on one
//     piece, so it satisfies that leaf's rows at D; its losses are
//     recomputed exactly, and L_recon(s) ≤ D must hold to within
//     paramFeasTol;
//   - max over the leaves of their dual bounds at D bounds the MIP's
//     optimum; a leaf that is infeasible at D is ruled out by the bound
//     D < min Σ_c w_c that its phase-1 LP proves;
//   - min_i L_adv,i(s(D)) is within paramGapTol of that bound.
// A point the leaves do not prove is solved as one MIP (SolveProp2).

// prop2Leaves is the LP of Proposition 2 with δ fixed by its bounds.
type prop2Leaves struct {
	l    prop2Layout
	p    *paramLP
	cost []float64
}

func (m Binary) newProp2Leaves(o SolverOptions) (*prop2Leaves, error) {
	mip := m.prop2(0)
	mod := mip.mod
	// An LP: δ's bounds fix it. γ, t and w get the upper bound 1, which
	// cuts off no optimum (γ ≤ Σ_c t_ic ≤ L_adv,i ≤ 1, t_ic ≤ a joint
	// probability ≤ 1, and lowering any w_c > 1 to 1 keeps every row) and
	// gives every column two finite bounds. A D row without coefficients
	// (the corner plane of a constant L_recon) is implied by Σ_c w_c ≤ D.
	for j := range mod.Integer {
		mod.Integer[j] = false
		mod.Upper[j] = math.Min(mod.Upper[j], 1)
	}
	p, err := newParamLP(mod, mip.dRows, mip.dOff, o)
	if err != nil {
		return nil, err
	}
	return &prop2Leaves{l: prop2Layout{k: len(m.QZ)}, p: p, cost: slices.Clone(mod.Cost)}, nil
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
	return pl.p.lp.SetColBounds(cols, v, v)
}

// minD is the phase-1 bound of the current leaf: a proven lower bound on
// Σ_c w_c over its points (below it the leaf is infeasible at every D),
// and HiGHS's minimum, where its pieces start.
func (pl *prop2Leaves) minD(ctx context.Context) (proven, attained float64, err error) {
	c := make([]float64, len(pl.cost))
	for k := range 4 {
		c[pl.l.w(k)] = -1 // maximize −Σ w
	}
	setCosts := func(c []float64) error {
		copy(pl.p.mod.Cost, c)
		return pl.p.lp.SetCosts(c)
	}
	defer func() {
		if rerr := setCosts(pl.cost); err == nil {
			err = rerr
		}
	}()
	if err := setCosts(c); err != nil {
		return 0, 0, err
	}
	nd, ok, err := pl.p.solve(ctx, math.Inf(1))
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		// empty whatever D is (cannot happen: s = (1,1) with w at the
		// branch values is a point of every leaf)
		return math.Inf(1), math.Inf(1), nil
	}
	return -nd.line.at, -nd.value, nil
}

// curve finds the current leaf's pieces on [a, b].
func (pl *prop2Leaves) curve(ctx context.Context, a, b float64) (paramCurve, error) {
	proven, attained, err := pl.minD(ctx)
	if err != nil {
		return paramCurve{}, err
	}
	cv := paramCurve{minD: proven}
	if proven > b {
		return cv, nil // infeasible on the whole range
	}
	// The pieces start where the leaf becomes feasible; HiGHS may call the
	// boundary itself infeasible by a rounding, so step in a little. A
	// boundary within the feasibility tolerance above a is tried at a, or
	// above b at b (HiGHS holds rows to that tolerance, as in a MIP solve
	// there). A first solve beyond b still bounds the leaf on [minD, b]:
	// its dual bound holds at every D.
	lo := math.Max(a, attained)
	tries := []float64{lo, lo + 1e-12*math.Max(1, lo), lo + 1e-10*math.Max(1, lo), lo + 1e-8*math.Max(1, lo)}
	if lo > a && lo-a <= paramFeasTol {
		tries = append([]float64{a}, tries...)
	}
	if lo > b && lo-b <= paramFeasTol {
		tries = append([]float64{b}, tries...)
	}
	// no piece: points in [minD, b] go to the MIP
	_, err = pl.p.curveFrom(ctx, &cv, tries, b)
	return cv, err
}

// prop2Sweep is Proposition 2's optimum over a range of thresholds: the
// curve of every leaf.
type prop2Sweep struct {
	m      Binary
	o      SolverOptions
	l      prop2Layout
	leaves [16]paramCurve
	mips   int // points solved as MIPs (not proven by the leaves)
}

// newProp2Sweep solves every leaf's pieces on [a, b].
func (m Binary) newProp2Sweep(ctx context.Context, a, b float64, o SolverOptions) (*prop2Sweep, error) {
	pl, err := m.newProp2Leaves(o)
	if err != nil {
		return nil, err
	}
	ps := &prop2Sweep{m: m, o: o, l: pl.l}
	for leaf := range ps.leaves {
		if err := pl.fix(leaf); err != nil {
			return nil, err
		}
		ps.leaves[leaf], err = pl.curve(ctx, a, b)
		switch {
		case errors.Is(err, errNoDuals):
			// nothing proven for this leaf: its range goes to the MIP
			ps.leaves[leaf] = paramCurve{minD: math.Inf(-1)}
		case err != nil:
			return nil, fmt.Errorf("proposition 2 on [%g, %g]: %w", a, b, err)
		}
	}
	return ps, nil
}

// at is Proposition 2's optimum at d, proven from the leaves' pieces as in
// the comment at the top of this file, or solved as a MIP.
func (ps *prop2Sweep) at(d float64) (Prop2Optimum, error) {
	start := time.Now()
	bestGamma, bound := math.Inf(-1), math.Inf(-1)
	var bestS Privatizer
	leaves := 0
	for leaf := range ps.leaves {
		a, b, t, ub, excluded, ok := ps.leaves[leaf].at(d)
		if !ok {
			return ps.mip(d)
		}
		if excluded {
			continue
		}
		leaves++
		bound = math.Max(bound, ub)
		if a == nil {
			continue // bounded, but no privatizer here
		}
		if g := lerp(a.value, b.value, t); g > bestGamma {
			s0, s1 := ps.l.s0(), ps.l.s1()
			bestGamma, bestS = g, Privatizer{S0: lerp(a.x[s0], b.x[s0], t), S1: lerp(a.x[s1], b.x[s1], t)}
		}
	}
	if math.IsInf(bestGamma, -1) {
		return ps.mip(d)
	}
	s := Privatizer{S0: clamp01(bestS.S0), S1: clamp01(bestS.S1)}
	opt := Prop2Optimum{
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
func (ps *prop2Sweep) mip(d float64) (Prop2Optimum, error) {
	ps.mips++
	return ps.m.SolveProp2(d, ps.o)
}
