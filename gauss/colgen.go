package gauss

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mmds-project/mmds/internal/highsx"
)

// Column generation over posteriors (docs/gauss.md, "The optimum over all
// privatizers"): the master LP of grid.go over the posteriors found so far,
// and pricing that searches posteriors of positive reduced cost, pairs
// first (pairs.go), then triples (triples.go) and local ascents (ascent.go).

// ErrOptimumLP wraps a failure of the master LP: HiGHS could not solve it
// (twice), or returned a solution that violates its rows.
var ErrOptimumLP = errors.New("gauss: optimum master LP failed")

// column is a posterior on the grid: atoms idx (grid indices, increasing)
// with probabilities w, and its MMSE for every observer (0: the
// reconstructor, i ≥ 1: adversary i).
type column struct {
	idx  []int
	w    []float64
	loss []float64
}

// colGen is one threshold's column generation.
type colGen struct {
	m     *Model
	g     *optGrid
	d     float64
	cols  []column
	seen  map[string]bool
	e     postEval
	lp    *highsx.LP // the master, kept between iterations (nil: rebuild)
	inLP  int        // columns the master holds
	scale []float64  // the loss rows' divisors: D for the reconstructor, V_i
}

// lpDuals are the master's multipliers, sanitized: the adversaries' weights
// w (≥ 0, summing to 1), the reconstructor's price λ ≥ 0 and the prior rows'
// g. Weak duality holds for any such multipliers; only their quality
// depends on the LP's accuracy.
type lpDuals struct {
	w   []float64
	lam float64
	g   []float64
	off []bool // atoms lifted out of pricing (lift), nil for none
}

// price returns the coefficients of the reduced cost: −λ for the
// reconstructor, w_i for adversary i.
func (du lpDuals) price() pairPrice {
	return pairPrice{c: append([]float64{-du.lam}, du.w...), g: du.g, off: du.off}
}

// lift raises g_j to Rmax_j = max_k (x_j − x_k)² at the grid points of
// least mass, in order of p_j·Rmax_j while the bound grows by at most
// budget in all, and marks them off. This is sound for any multipliers:
// for μ = μ_j δ_j + (1 − μ_j)ν the estimator of ν bounds every adversary's
// m_i(μ) ≤ μ_j R_i^ν(x_j) + (1 − μ_j) m_i(ν) with R_i^ν(x_j) ≤ Rmax_j (the
// estimate lies in the grid's hull), and concavity gives m_Y(μ) ≥
// (1 − μ_j) m_Y(ν), so
//
//	rc(μ) ≤ μ_j (Rmax_j − g_j) + (1 − μ_j) rc(ν) ≤ max(0, rc(ν)):
//
// an atom so priced never raises the reduced cost above 0 or above that of
// the posterior without it, and pricing can leave every posterior with a
// lifted atom out. Rows of tiny mass have cheap multipliers, which the
// master leaves at whatever its degenerate basis gives; this is where
// pricing otherwise finds large, useless reduced costs.
func (cg *colGen) lift(du lpDuals, budget float64) lpDuals {
	xs, n := cg.g.xs, len(cg.g.xs)
	rmax := func(j int) float64 { return math.Max((xs[j]-xs[0])*(xs[j]-xs[0]), (xs[j]-xs[n-1])*(xs[j]-xs[n-1])) }
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	cost := func(j int) float64 { return cg.g.prior[j] * math.Max(0, rmax(j)-du.g[j]) }
	sort.Slice(order, func(a, b int) bool { return cost(order[a]) < cost(order[b]) })
	out := du
	out.g = append([]float64(nil), du.g...)
	out.off = make([]bool, n)
	spent := 0.0
	for _, j := range order {
		if spent+cost(j) > budget {
			break
		}
		spent += cost(j)
		out.g[j] = math.Max(du.g[j], rmax(j))
		out.off[j] = true
	}
	return out
}

// value is λD + Σ_j g_j p_j: the dual bound before pricing slack.
func (cg *colGen) value(du lpDuals) float64 {
	v := du.lam * cg.d
	for j, p := range cg.g.prior {
		v += du.g[j] * p
	}
	return v
}

func newColGen(m *Model, g *optGrid, d float64) *colGen {
	cg := &colGen{m: m, g: g, d: d, seen: map[string]bool{}}
	// point masses (F = X) keep the master feasible at every D ≥ 0
	for j := range g.xs {
		cg.add([]int{j}, []float64{1})
	}
	cg.seedCosets()
	return cg
}

// seedCosets adds the cosets of X mod Δ on the grid, Δ = M grid steps for
// M around the best single Δ at D (moduloDeltaAt) from 0.7 to 1.4 times
// it: each coset's posterior is the prior restricted to it. They start
// the master at about the best modulo mechanism, whose posteriors have
// many atoms where Δ is a few σ_X (large D), which pricing one column at
// a time reaches slowly.
func (cg *colGen) seedCosets() {
	h := cg.g.step
	best := cg.m.moduloDeltaAt(cg.d) / h
	seen := map[int]bool{}
	for f := 0.7; f <= 1.41; f += 0.05 {
		mm := int(math.Round(best * f))
		if mm < 2 || mm >= len(cg.g.xs) || seen[mm] {
			continue
		}
		seen[mm] = true
		for r := range mm {
			var idx []int
			var w []float64
			for j := r; j < len(cg.g.xs); j += mm {
				idx, w = append(idx, j), append(w, cg.g.prior[j])
			}
			if len(idx) > 1 {
				idx, w = sortIdx(idx, normalized(w))
				cg.add(idx, w)
			}
		}
	}
}

// addTranslates adds the posterior's translates by every shift that keeps
// its atoms on the grid, each reweighted as the prior moves
// (μ′_k ∝ μ_k p(x_k + shift)/p(x_k)): a deterministic mechanism's
// posterior is the prior on a preimage, and the master needs a whole family
// of such preimages to split the prior.
func (cg *colGen) addTranslates(c column) int {
	added := 0
	n := len(cg.g.xs)
	lo, hi := c.idx[0], c.idx[len(c.idx)-1]
	for sh := -lo; hi+sh < n; sh++ {
		if sh == 0 {
			continue
		}
		idx, w := make([]int, len(c.idx)), make([]float64, len(c.idx))
		for k, j := range c.idx {
			idx[k] = j + sh
			w[k] = c.w[k] * cg.g.prior[j+sh] / cg.g.prior[j]
		}
		if i, ww := sortIdx(idx, normalized(w)); len(i) > 1 && cg.add(i, ww) {
			added++
		}
	}
	return added
}

// evalColumn evaluates a posterior's losses with the scratch e.
func (cg *colGen) evalColumn(e *postEval, idx []int, w []float64) column {
	xs := pick(cg.g.xs, idx)
	c := column{idx: idx, w: w, loss: make([]float64, len(cg.g.s))}
	for o, s := range cg.g.s {
		c.loss[o] = e.mmse(xs, w, s, nil, nil)
	}
	return c
}

// key identifies a posterior (weights to 12 digits).
func key(idx []int, w []float64) string {
	var b strings.Builder
	for k, j := range idx {
		b.WriteString(strconv.Itoa(j))
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(w[k], 'g', 12, 64))
		b.WriteByte(' ')
	}
	return b.String()
}

// add evaluates and adds a posterior unless the master has it.
func (cg *colGen) add(idx []int, w []float64) bool {
	return !cg.seen[key(idx, w)] && cg.addColumn(cg.evalColumn(&cg.e, idx, w))
}

// addColumn adds an evaluated posterior unless the master has it.
func (cg *colGen) addColumn(c column) bool {
	k := key(c.idx, c.w)
	if cg.seen[k] {
		return false
	}
	cg.seen[k] = true
	cg.cols = append(cg.cols, c)
	return true
}

// rc is the reduced cost of a column.
func (cg *colGen) rc(du lpDuals, c column) float64 {
	v := -du.lam * c.loss[0]
	for i, w := range du.w {
		v += w * c.loss[i+1]
	}
	for k, j := range c.idx {
		v -= c.w[k] * du.g[j]
	}
	return v
}

// masterResult is one master solve.
type masterResult struct {
	value float64
	tau   []float64
	du    lpDuals
}

// master solves the LP over the current columns, adding the new ones to
// the LP kept from the last iteration (HiGHS restarts from its basis). A
// failure is retried once on a model rebuilt from scratch, solved by the
// dual simplex without presolve; a second failure, or a solution off its
// rows by more than 1e-7, is an error wrapping ErrOptimumLP.
func (cg *colGen) master(ctx context.Context) (masterResult, error) {
	res, err := cg.solveLP(ctx, false)
	if err != nil && ctx.Err() == nil {
		res, err = cg.solveLP(ctx, true)
	}
	if err != nil {
		if ctx.Err() != nil {
			return masterResult{}, ctx.Err()
		}
		return masterResult{}, fmt.Errorf("%w: D = %g, %d columns: %w", ErrOptimumLP, cg.d, len(cg.cols), err)
	}
	n, k, nc := len(cg.g.xs), len(cg.g.s)-1, len(cg.cols)
	if len(res.X) != nc+1 || len(res.RowDual) != n+k+1 {
		return masterResult{}, fmt.Errorf("%w: D = %g: %d values and %d duals for %d columns and %d rows", ErrOptimumLP, cg.d, len(res.X), len(res.RowDual), nc+1, n+k+1)
	}
	tau := res.X[1:]
	if err := cg.checkPrimal(tau); err != nil {
		return masterResult{}, err
	}
	du := lpDuals{w: make([]float64, k), g: slices.Clone(res.RowDual[:n])}
	sum := 0.0
	for i := range du.w {
		du.w[i] = math.Max(0, -res.RowDual[n+i]/cg.scale[i+1])
		sum += du.w[i]
	}
	for i := range du.w {
		if sum > 0 {
			du.w[i] /= sum
		} else {
			du.w[i] = 1 / float64(k)
		}
	}
	du.lam = math.Max(0, res.RowDual[n+k]/cg.scale[0])
	return masterResult{value: res.Objective, tau: tau, du: du}, nil
}

// solveLP adds the new columns to the kept LP (or builds it) and solves;
// fresh rebuilds it with the dual simplex and no presolve.
func (cg *colGen) solveLP(ctx context.Context, fresh bool) (highsx.Result, error) {
	if fresh || cg.lp == nil {
		o := highsx.Defaults()
		if fresh {
			o.Extra = map[string]any{"presolve": "off", "simplex_strategy": 1}
		}
		lp, err := highsx.NewLP(cg.lpModel(), o)
		if err != nil {
			cg.lp = nil
			return highsx.Result{}, err
		}
		cg.lp, cg.inLP = lp, len(cg.cols)
	} else if cg.inLP < len(cg.cols) {
		add := make([]highsx.Col, 0, len(cg.cols)-cg.inLP)
		for _, c := range cg.cols[cg.inLP:] {
			idx, val := cg.entries(c)
			add = append(add, highsx.Col{Upper: math.Inf(1), Index: idx, Value: val})
		}
		if err := cg.lp.AddCols(add); err != nil {
			cg.lp = nil
			return highsx.Result{}, err
		}
		cg.inLP = len(cg.cols)
	}
	res, err := cg.lp.Solve(ctx)
	if err != nil {
		cg.lp = nil
	}
	return res, err
}

// The master LP's rows: the prior rows 0..n−1, adversary i's row n+i−1
// (Σ τ m_i/V_i − t/V_i ≥ 0) and the reconstructor's row n+K
// (Σ τ m_Y/D ≤ 1); column 0 is t, column 1 + c is posterior c. Every loss
// row is divided by its scale so that its entries are of order 1, and a
// loss below lpMinEntry of its scale is 0 in the LP (a reconstructor loss
// below 2e-6·D: the LP's L_R errs by less than that, checkPrimal allows
// it, and the mechanism's losses are computed afresh on the continuum).
// Weights below lpMinEntry never enter (sortIdx, pricing), so every entry
// lies above highsx's scaling threshold and HiGHS solves the model as
// built.

// lpMinEntry is the smallest nonzero entry of the master LP.
const lpMinEntry = 2e-6

// minWeight is the smallest atom weight a column may have (lpMinEntry):
// pricing bounds every posterior all the same.
const minWeight = lpMinEntry

// lpModel is the master LP over the current columns.
func (cg *colGen) lpModel() *highsx.Problem {
	n, k := len(cg.g.xs), len(cg.g.s)-1
	cg.scale = make([]float64, k+1)
	cg.scale[0] = cg.d
	for i, v := range cg.m.vAdv {
		cg.scale[i+1] = v
		if v == 0 {
			cg.scale[i+1] = 1
		}
	}
	mod := highsx.NewProblem(len(cg.cols) + 1)
	mod.Maximize = true
	mod.Cost[0] = 1
	mod.Lower[0] = math.Inf(-1)
	rows := make([][]int, n+k+1)
	vals := make([][]float64, n+k+1)
	for ci, c := range cg.cols {
		idx, val := cg.entries(c)
		for e, r := range idx {
			rows[r] = append(rows[r], ci+1)
			vals[r] = append(vals[r], val[e])
		}
	}
	for j := range n {
		mod.AddRow(cg.g.prior[j], cg.g.prior[j], rows[j], vals[j])
	}
	for i := 1; i <= k; i++ {
		r := n + i - 1
		mod.AddRow(0, math.Inf(1), append(rows[r], 0), append(vals[r], -1/cg.scale[i]))
	}
	mod.AddRow(math.Inf(-1), 1, rows[n+k], vals[n+k])
	return mod
}

// entries returns a column's rows and coefficients in the master.
func (cg *colGen) entries(c column) ([]int, []float64) {
	n, k := len(cg.g.xs), len(cg.g.s)-1
	idx := append([]int(nil), c.idx...)
	val := append([]float64(nil), c.w...)
	for o := 0; o <= k; o++ {
		v := c.loss[o] / cg.scale[o]
		if v < lpMinEntry {
			continue
		}
		r := n + k
		if o > 0 {
			r = n + o - 1
		}
		idx, val = append(idx, r), append(val, v)
	}
	return idx, val
}

// primalAbsTol is the absolute tolerance of a prior row: HiGHS's primal
// feasibility tolerance (1e-9) with a margin. Rows far in the tails have
// masses of that order; the kernel built from τ renormalizes its rows, so
// such an error never makes the mechanism invalid.
const primalAbsTol = 1e-8

// checkPrimal verifies that τ splits the prior (within 1e-7 relative and
// primalAbsTol) and meets D: a solution off its rows is not a mechanism.
func (cg *colGen) checkPrimal(tau []float64) error {
	got := make([]float64, len(cg.g.xs))
	rec := 0.0
	for ci, c := range cg.cols {
		if tau[ci] < 0 {
			if tau[ci] < -1e-9 {
				return fmt.Errorf("%w: D = %g: column %d has weight %g", ErrOptimumLP, cg.d, ci, tau[ci])
			}
			tau[ci] = 0
		}
		for a, j := range c.idx {
			got[j] += tau[ci] * c.w[a]
		}
		rec += tau[ci] * c.loss[0]
	}
	for j, p := range cg.g.prior {
		if math.Abs(got[j]-p) > 1e-7*p+primalAbsTol {
			return fmt.Errorf("%w: D = %g: prior row %d is %g, want %g", ErrOptimumLP, cg.d, j, got[j], p)
		}
	}
	if rec > cg.d*(1+lpMinEntry+1e-7) {
		return fmt.Errorf("%w: D = %g: the reconstructor's loss is %g", ErrOptimumLP, cg.d, rec)
	}
	return nil
}

// sortIdx orders a posterior's atoms by grid index, merging repeats and
// dropping atoms of weight below minWeight (the rest renormalized).
func sortIdx(idx []int, w []float64) ([]int, []float64) {
	type aw struct {
		j int
		w float64
	}
	all := make([]aw, 0, len(idx))
	for k, j := range idx {
		all = append(all, aw{j, w[k]})
	}
	sort.Slice(all, func(a, b int) bool { return all[a].j < all[b].j })
	var oi []int
	var ow []float64
	for _, a := range all {
		if n := len(oi); n > 0 && oi[n-1] == a.j {
			ow[n-1] += a.w
		} else if a.w >= minWeight {
			oi, ow = append(oi, a.j), append(ow, a.w)
		}
	}
	return oi, normalized(ow)
}
