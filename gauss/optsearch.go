package gauss

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/mmds-project/mmds/loss"
)

// OptimumEstimate is the optimum search at one threshold: the grid problem's
// LP value, its dual with the pricing slack the searches found (a numerical
// upper estimate of the grid problem, never a proven bound), and a
// mechanism built from the LP's posteriors whose losses are certified on the
// continuum (KernelLosses).
type OptimumEstimate struct {
	D float64 `json:"D"`
	// Grid: Points grid points of step Step on μ_X ± Span·σ_X.
	Points int     `json:"grid_points"`
	Step   float64 `json:"grid_step"`
	Span   float64 `json:"grid_span"`
	// GridValue is the master LP's optimum over the posteriors found: what
	// they achieve on the grid problem (X replaced by its grid point).
	GridValue float64 `json:"grid_value"`
	// Dual is λD + Σ_j g_j p_j of the last master's multipliers; Weights
	// are w_i and Lambda is λ.
	Dual    float64   `json:"dual"`
	Weights []float64 `json:"weights"`
	Lambda  float64   `json:"lambda"`
	// PairBound bounds the reduced cost of every posterior with at most two
	// atoms on the grid (certified search, pairs.go); TripleBest is the
	// largest reduced cost of the triple scan and AscentBest that of the
	// ascents (found values, not bounds).
	PairBound  float64 `json:"pair_bound"`
	TripleBest float64 `json:"triple_best"`
	AscentBest float64 `json:"ascent_best"`
	// Slack = max(0, PairBound, TripleBest, AscentBest), and Estimate =
	// Dual + Slack: the numerical upper estimate of the grid problem.
	Slack    float64 `json:"slack"`
	Estimate float64 `json:"estimate"`
	// TwoAtomBound = Dual + max(0, PairBound) is a proven upper bound
	// (up to the pair search's stated rounding margin) of the grid problem
	// restricted to splittings of the prior into posteriors of at most two
	// atoms: a bound for that class of privatizers of the discretized X,
	// not for the optimum.
	TwoAtomBound float64 `json:"two_atom_bound"`
	Columns      int     `json:"columns"`
	Iterations   int     `json:"iterations"`
	// Converged: the last pricing round found no column above the
	// tolerance (false: MaxIterations stopped it).
	Converged bool `json:"converged"`
	// Mechanism is the certified continuum mechanism (a kernel on cells
	// centred on the grid points, time-shared with F = X where needed to
	// meet D); QuadErr is the quadrature-error estimate of its losses
	// (KernelLosses). JSON has its losses and description; its kernel is
	// in JSON where it is the bracket's best achievable.
	Mechanism       Achievable  `json:"-"`
	MechanismLosses loss.Losses `json:"mechanism_losses"`
	MechanismName   string      `json:"mechanism"`
	QuadErr         float64     `json:"quad_err"`
	// kernel is the kernel alone (its L_R may exceed D): a point of the
	// achievable envelope for the other thresholds.
	kernel Achievable
}

// OptimumSearcher runs the optimum search at many thresholds of one model,
// sharing the grid (and its tables) between thresholds: it is built once,
// at the first search. Safe for concurrent use.
type OptimumSearcher struct {
	m    *Model
	s    OptimumSearch
	grid func() (*optGrid, error)
}

// NewOptimumSearcher checks the settings and returns a searcher.
func (m *Model) NewOptimumSearcher(s OptimumSearch) (*OptimumSearcher, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	grid := sync.OnceValues(func() (*optGrid, error) { return m.newOptGrid(s.Step*math.Sqrt(m.VarX()), s) })
	return &OptimumSearcher{m: m, s: s, grid: grid}, nil
}

// Estimate runs the search at threshold 0 < D < V_Y.
func (o *OptimumSearcher) Estimate(ctx context.Context, d float64) (OptimumEstimate, error) {
	est, _, err := o.estimate(ctx, d, nil)
	return est, err
}

// ImproveBracketOptimum runs the optimum search at b's threshold (when
// 0 < D < V_Y and the bracket is open): b.Optimum gets the estimate, and
// b.Achievable the search's mechanism when that is better (the same rule
// as ImproveBracket). Seconds per call: the grid's tables are built anew.
func (m *Model) ImproveBracketOptimum(ctx context.Context, b *Bracket, s OptimumSearch) error {
	if !(b.D > 0 && b.D < m.vRecon) || !b.Open() {
		return nil
	}
	o, err := m.NewOptimumSearcher(s)
	if err != nil {
		return err
	}
	est, err := o.Estimate(ctx, b.D)
	if err != nil {
		return err
	}
	b.Optimum = &est
	_, err = b.offer(est.Mechanism)
	return err
}

// estimate runs the search at d with the columns warm in the master from
// the start, and returns the estimate and the columns of its last master
// (the warm start of a neighbouring threshold).
func (o *OptimumSearcher) estimate(ctx context.Context, d float64, warm []column) (OptimumEstimate, []column, error) {
	m := o.m
	if !(d > 0 && d < m.vRecon) {
		return OptimumEstimate{}, nil, fmt.Errorf("gauss: optimum search at D = %g: need 0 < D < V_Y = %g", d, m.vRecon)
	}
	g, err := o.grid()
	if err != nil {
		return OptimumEstimate{}, nil, err
	}
	cg := newColGen(m, g, d)
	for _, c := range warm {
		cg.addColumn(c)
	}
	est, mr, err := cg.solve(ctx, o.s)
	if err != nil {
		return OptimumEstimate{}, nil, err
	}
	var basis []column
	for ci, t := range mr.tau {
		if t > 0 && len(cg.cols[ci].idx) > 1 {
			basis = append(basis, cg.cols[ci])
		}
	}
	mech, kern, qe, err := o.continuum(ctx, cg, mr)
	if err != nil {
		return OptimumEstimate{}, nil, err
	}
	est.Mechanism, est.kernel, est.QuadErr = mech, kern, qe
	est.MechanismLosses, est.MechanismName = mech.Losses, mech.Mechanism.String()
	return est, basis, nil
}

// solve runs column generation, master after master, until the best
// estimate is within Tol of the value, a full pricing round finds nothing
// to add, neither has gained Tol over the last stallRounds full rounds, or
// MaxIterations. Pricing runs at multipliers smoothed towards those of the
// best estimate so far (Wentges smoothing: the master's own multipliers
// are degenerate, and pricing at them finds large reduced costs in columns
// that cannot improve it); every full round's multipliers give an
// estimate, weak duality holding for any of them, and the lowest is
// reported. It returns the estimate (without mechanism) and the last
// master, the best primal.
func (cg *colGen) solve(ctx context.Context, s OptimumSearch) (OptimumEstimate, masterResult, error) {
	g := cg.g
	est := OptimumEstimate{D: cg.d, Points: len(g.xs), Step: g.step, Span: s.Span,
		Estimate: math.Inf(1), TwoAtomBound: math.Inf(1)}
	var mr masterResult
	var center *lpDuals
	alpha := smoothing
	var values, bounds []float64 // at each full round
	for it := 1; ; it++ {
		if err := ctx.Err(); err != nil {
			return est, mr, err
		}
		var err error
		if mr, err = cg.master(ctx); err != nil {
			return est, mr, err
		}
		est.Iterations = it
		scale := math.Max(math.Abs(mr.value), 1e-300)
		final := it >= s.MaxIterations
		tol := s.Tol * enterShare * scale
		lp := mr.du
		sep := mr
		if center != nil && alpha > 0 {
			sep.du = mixDuals(*center, lp, alpha)
		}
		sep.du = cg.lift(sep.du, s.Tol*scale/4)
		before := len(cg.cols)
		pr := cg.price(sep, s, tol, final)
		improving := false
		for _, c := range cg.cols[before:] {
			if cg.rc(lp, c) > tol {
				improving = true
				break
			}
		}
		if pr.added > 0 && !improving && alpha > 0 {
			alpha /= 2 // mispricing: the smoothed multipliers found nothing for the master
			if alpha < 0.05 {
				alpha = 0
			}
		}
		if !pr.full {
			continue
		}
		est.GridValue, est.Columns = mr.value, len(cg.cols)
		slack := math.Max(0, math.Max(pr.pairBound, math.Max(pr.tripleBest, pr.ascentBest)))
		dual := cg.value(sep.du)
		if dual+slack < est.Estimate {
			est.Dual, est.Weights, est.Lambda = dual, sep.du.w, sep.du.lam
			est.PairBound, est.TripleBest, est.AscentBest = pr.pairBound, pr.tripleBest, pr.ascentBest
			est.Slack, est.Estimate = slack, dual+slack
			c := sep.du
			center = &c
		}
		est.TwoAtomBound = math.Min(est.TwoAtomBound, dual+math.Max(0, pr.pairBound))
		values, bounds = append(values, mr.value), append(bounds, est.Estimate)
		est.Converged = est.Estimate-mr.value <= s.Tol*scale || (pr.added == 0 && alpha == 0)
		k := len(values) - 1 - stallRounds
		stalled := k >= 0 && mr.value-values[k] <= s.Tol*scale && bounds[k]-est.Estimate <= s.Tol*scale
		if est.Converged || stalled || final {
			return est, mr, nil
		}
		if pr.added == 0 {
			alpha = 0 // nothing at the smoothed multipliers: price at the master's
		}
	}
}

// smoothing is the weight of the best multipliers in those pricing runs at.
const smoothing = 0.7

// mixDuals returns a·c + (1 − a)·d, the lifted atoms dropped (lift redoes
// them).
func mixDuals(c, d lpDuals, a float64) lpDuals {
	out := lpDuals{w: make([]float64, len(d.w)), lam: a*c.lam + (1-a)*d.lam, g: make([]float64, len(d.g))}
	for i := range out.w {
		out.w[i] = a*c.w[i] + (1-a)*d.w[i]
	}
	for j := range out.g {
		out.g[j] = a*c.g[j] + (1-a)*d.g[j]
	}
	return out
}

// stallRounds is the number of full pricing rounds without a gain of Tol
// after which the search stops.
const stallRounds = 3

// enterShare is the share of Tol above which a column's reduced cost
// makes it enter.
const enterShare = 0.01

// pricing is one pricing round's outcome: the columns added and, for a
// full round (every search run on the same multipliers), the searches'
// results.
type pricing struct {
	added                             int
	full                              bool
	pairBound, tripleBest, ascentBest float64
}

// price adds the columns of reduced cost above tol that the cheapest search
// finds: the pairs at the tabulated weights; when none, the certified pair
// search and the triple scan; when neither finds any, the ascents (a full
// round). A final round runs every search.
func (cg *colGen) price(mr masterResult, s OptimumSearch, tol float64, final bool) pricing {
	pp := mr.du.price()
	p := pricing{}
	const enter = 400 // columns entering per search
	addPairs := func(cs []pairCandidate) {
		for _, c := range cs {
			if c.rc > tol && cg.add([]int{c.a, c.b}, []float64{c.p, 1 - c.p}) {
				p.added++
			}
		}
	}
	if !final {
		addPairs(cg.g.pairs.searchPairs(pp, 0, enter, s.Workers).Candidates)
		if p.added > 0 {
			return p
		}
	}
	ps := cg.g.pairs.searchPairs(pp, tol, enter, s.Workers)
	p.pairBound = ps.Bound
	addPairs(ps.Candidates)
	tb, tc := cg.g.triples.scan(pp, enter)
	p.tripleBest = tb
	for _, c := range tc {
		if c.rc > tol {
			if idx, w := sortIdx(c.idx[:], c.w[:]); cg.add(idx, w) {
				p.added++
			}
		}
	}
	if p.added > 0 && !final {
		return p
	}
	p.ascentBest = cg.ascents(mr, s.Ascents, s.Workers, tol, &p.added)
	p.full = true
	return p
}

// ascents climbs from the n master columns of largest weight (in
// parallel; results are added in the starts' order, so they do not depend
// on scheduling), adds every result above tol with its translates and
// returns the largest reduced cost found.
func (cg *colGen) ascents(mr masterResult, n, workers int, tol float64, added *int) float64 {
	order := make([]int, 0, len(cg.cols))
	for ci, c := range cg.cols {
		if mr.tau[ci] > 0 && len(c.idx) > 1 {
			order = append(order, ci)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return mr.tau[order[a]] > mr.tau[order[b]] })
	order = order[:min(n, len(order))]
	res := make([]column, len(order))
	val := make([]float64, len(order))
	parallel(len(order), workers, nil, func(k int) {
		c := cg.cols[order[k]]
		res[k], val[k] = cg.ascend(mr.du, c.idx, c.w)
	})
	best := math.Inf(-1)
	for k := range order {
		best = math.Max(best, val[k])
		if val[k] > tol && len(res[k].idx) > 1 && cg.addColumn(res[k]) {
			*added++
			*added += cg.addTranslates(res[k])
		}
	}
	return best
}
