package mip

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
)

// raySweep is the ray LP over a range of thresholds: D is the upper bound
// of its reconstructor's row alone, so its optimum is one concave
// piecewise linear curve (parametric.go), solved where its pieces change
// in one HiGHS model. A point is proven: the weights λ(D) interpolate two
// optima on one piece and satisfy every row at D; the mechanism built
// from them has its risks recomputed exactly, which must meet
// L_recon ≤ D + paramFeasTol and come within paramGapTol of the curve's
// dual bound at D. Any other point is solved by itself (Global.point).
type raySweep struct {
	g     *Global
	o     SolverOptions
	cv    paramCurve
	built bool // cv was solved (else every point is solved by itself)
	// solved counts the points not proven from the curve.
	solved int
}

// newRaySweep solves the ray LP's pieces on [a, b] (the part of it at or
// above D_min, where the LP is feasible).
func (g *Global) newRaySweep(ctx context.Context, a, b float64, o SolverOptions) (*raySweep, error) {
	rs := &raySweep{g: g, o: o}
	lo := math.Max(a, g.model.DMin())
	if lo > b {
		return rs, nil
	}
	nr, n, k := len(g.rays), g.model.N(), g.model.K()
	mod := g.lpModel(lo)
	// Two finite bounds on every column, cutting off no point: λ_j v_j(x)
	// ≤ Σ_j λ_j v_j(x) = 1 bounds λ_j by 1/max_x v_j(x), and γ lies between
	// 0 and every adversary's risk, which is at most its side-only risk
	// (losses are ≥ 0).
	for j, v := range g.rays {
		mod.Upper[j] = 1 / slices.Max(v)
	}
	mod.Lower[nr], mod.Upper[nr] = 0, slices.Min(g.model.AdvSaturation())
	p, err := newParamLP(mod, []int{n + k}, []float64{0}, o)
	if err != nil {
		return nil, err
	}
	// HiGHS may call D_min itself infeasible by a rounding: step in a
	// little (the points below the first solve are solved by themselves).
	rs.cv.minD = math.Inf(-1) // infeasibility is D < D_min, decided by point
	ok, err := p.curveFrom(ctx, &rs.cv, []float64{lo, lo + 1e-12*math.Max(1, lo), lo + 1e-10*math.Max(1, lo)}, b)
	switch {
	case ctx.Err() != nil:
		return nil, interrupted(ctx, lo)
	case errors.Is(err, errNoDuals), errors.Is(err, highsx.ErrNotOptimal):
		return rs, nil // nothing proven: every point by itself
	case err != nil:
		return nil, err
	}
	rs.built = ok
	return rs, nil
}

// point is the ray LP's optimum at d as a SolveFinite point: proven from
// the curve, or solved by solve.
func (rs *raySweep) point(ctx context.Context, d float64, solve func() (FiniteOptimum, error)) (FiniteOptimum, error) {
	g := rs.g
	if d < g.model.DMin()-1e-12 || !rs.built {
		return rs.alone(solve)
	}
	if ctx.Err() != nil {
		return FiniteOptimum{}, interrupted(ctx, d)
	}
	start := time.Now()
	a, b, t, bound, _, ok := rs.cv.at(d)
	if !ok || a == nil {
		return rs.alone(solve)
	}
	lam := make([]float64, len(g.rays))
	for j := range lam {
		lam[j] = lerp(a.x[j], b.x[j], t)
	}
	p := FiniteOptimum{
		D: d, Gamma: lerp(a.value, b.value, t) + 0, Upper: bound, Mechanism: g.mechanism(lam),
		Method: AlgorithmGlobalLP, Status: StatusOptimal,
	}
	p.fill(g.model)
	if p.Recon > d+paramFeasTol || !(bound-p.MinAdv <= paramGapTol) {
		return rs.alone(solve)
	}
	p.SolveTime = time.Since(start)
	return p, nil
}

func (rs *raySweep) alone(solve func() (FiniteOptimum, error)) (FiniteOptimum, error) {
	rs.solved++
	return solve()
}

// sweepOver returns the ray LP's optimum at a point of a sweep over ds
// within sw: proven from a raySweep over the thresholds the sweep can
// reach, built at its first point (whose time includes it), or solved by
// solve. A sweep that can reach one threshold only solves it by itself.
func (g *Global) sweepOver(ds []float64, sw SweepOptions, o SolverOptions) func(ctx context.Context, d float64, solve func() (FiniteOptimum, error)) (FiniteOptimum, error) {
	reach := sw.reach(ds)
	var rs *raySweep
	return func(ctx context.Context, d float64, solve func() (FiniteOptimum, error)) (FiniteOptimum, error) {
		if len(reach) == 1 {
			return solve() // one threshold: one solve, the LP's own vertex
		}
		if rs != nil {
			return rs.point(ctx, d, solve)
		}
		start := time.Now()
		var err error
		if rs, err = g.newRaySweep(ctx, slices.Min(reach), slices.Max(reach), o); err != nil {
			return FiniteOptimum{}, err
		}
		p, err := rs.point(ctx, d, solve)
		p.SolveTime = time.Since(start)
		return p, err
	}
}
