package mip

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/loss"
)

// Column generation for the global optimum (docs/finite.md, "Column
// generation"). A privatizer is a conic combination of columns c ∈ R^n_+
// with Σ_f c_f = 1; every observer's risk Σ_f ρ(c_f) is a sum of concave,
// positively homogeneous functions of the columns. The master LP over the
// columns v_j found so far (normalized to the simplex) is
//
//	max γ  s.t.  Σ_j λ_j v_j = 1 (duals π),  Σ_j λ_j ρ_i(v_j) ≥ γ (μ_i),
//	             Σ_j λ_j ρ_R(v_j) ≤ D (ν),  λ ≥ 0,
//
// and for any μ ≥ 0 with Σ μ_i = 1, ν ≥ 0 and any π, every privatizer with
// columns c_f satisfies
//
//	min_i R_i ≤ Σ_i μ_i R_i − ν (R_R − D) = Σ_x π_x + ν D + Σ_f rc(c_f),
//	rc(c) = Σ_i μ_i ρ_i(c) − ν ρ_R(c) − ⟨π, c⟩,
//
// and Σ_f rc(c_f) ≤ n · max_{c ∈ simplex} rc(c) (the columns' entries sum
// to n). So upper = Σ π + ν D + n · max(0, r̄) bounds the global optimum
// whenever r̄ ≥ max rc over the simplex, whatever the multipliers' accuracy
// (the Lagrangian bound); the master value is a lower bound attained by
// the master's privatizer. Pricing maximizes rc: for a fixed reconstructor
// decision rule δ (one estimate per side value y), ρ_R(c) ≤ Σ_y ⟨k_yδ_y, c⟩
// with equality where δ is Bayes-optimal, so max rc = max_δ LP_δ with
//
//	LP_δ = max Σ_i μ_i Σ_z t_iz − ⟨π + ν Σ_y k_yδ_y, c⟩
//	       s.t. t_iz ≤ ⟨k_iza, c⟩ ∀a,  Σ_x c_x = 1,  c ≥ 0,
//
// one LP per rule sharing all rows (the adversaries' exact epigraphs).

// ProvenGap is the bracket width, relative to max(1, |upper|), below which a
// result is called optimal (status "optimal"): the LPs' own tolerances are
// 1e-9.
const ProvenGap = 1e-8

// ColGenOptions tune SolveColGen.
type ColGenOptions struct {
	// TimeLimit bounds the whole solve (0: none). When it is reached the
	// best privatizer found is returned with its bracket.
	TimeLimit time.Duration
	// GapTol stops once upper − lower ≤ GapTol·max(1, |upper|) (0: 1e-8,
	// which the result calls proven). A larger target lets the exact
	// pricing prune every node within half of it, which is what makes large
	// models certifiable to a few percent.
	GapTol float64
	// MaxIterations bounds the master iterations (0: 10,000).
	MaxIterations int
	// NoExactPricing disables the exact pricing (the bracket then rests on
	// the relaxation bound): for tests and benchmarks of the heuristics.
	NoExactPricing bool
	// Columns are extra starting columns (each ≥ 0, not all 0; normalized
	// here), e.g. the final columns of a neighbouring threshold of a sweep.
	Columns [][]float64
	// Seed seeds the heuristic pricing's random starts.
	Seed uint64
	// Iteration, when set, is called after each master iteration with its
	// bracket (progress reports).
	Iteration func(ColGenIteration)
	// Solver are the HiGHS options of every LP.
	Solver SolverOptions
}

// DualBound proves an upper bound on the global optimum at D: with the
// multipliers (Π, Mu, Nu) and MaxReducedCost ≥ max over the simplex of
// rc(c) = Σ_i Mu_i ρ_i(c) − Nu ρ_R(c) − ⟨Π, c⟩, no privatizer's smallest
// adversary risk exceeds Upper = Σ Π + Nu·D + n·max(0, MaxReducedCost).
// Mu ≥ 0 sums to 1 and Nu ≥ 0, so the bound holds whatever their accuracy;
// only MaxReducedCost needs proof (Proof says how it was obtained).
type DualBound struct {
	D float64 `json:"D"`
	Duals
	MaxReducedCost float64 `json:"max_reduced_cost"`
	Upper          float64 `json:"upper"`
	Proof          Proof   `json:"proof"`
}

// ReducedCost is rc(c) for the bound's multipliers.
func (c DualBound) ReducedCost(m Finite, col []float64) float64 {
	rs := m.risks()
	return c.reducedCost(rs[0], rs[1:], col)
}

// reducedCost is rc(c) for the multipliers, with the reconstructor's risk rr
// and adversary i's ra[i].
func (du Duals) reducedCost(rr risk, ra []risk, c []float64) float64 {
	v := -du.Nu*rr.at(c) - dot(du.Pi, c)
	for i, r := range ra {
		v += du.Mu[i] * r.at(c)
	}
	return v
}

// Bound recomputes Σ Π + Nu·D + n·max(0, MaxReducedCost) from the
// multipliers (Mu normalized to sum 1, negative parts dropped).
func (c DualBound) Bound() float64 {
	return sumOf(c.Pi) + c.Nu*c.D + float64(len(c.Pi))*math.Max(0, c.MaxReducedCost)
}

// ColGenIteration is one master iteration's bracket.
type ColGenIteration struct {
	Iteration int           `json:"iteration"`
	Lower     float64       `json:"lower"`
	Upper     float64       `json:"upper"`
	Columns   int           `json:"columns"`
	Pricing   Pricing       `json:"pricing"`
	Elapsed   time.Duration `json:"elapsed_ns"`
}

// ColGenResult is SolveColGen's answer: the best privatizer found, with its
// bracket [Gamma, Upper] on the global optimum.
// Upper, DualBound and Iterations are set; Status is StatusOptimal or
// StatusGap.
type ColGenResult struct {
	FiniteOptimum
	Proven  bool  // Upper − Gamma ≤ ProvenGap·max(1, |Upper|): Gamma is the global optimum
	Columns int   // columns in the final master
	Rules   int64 // decision rules (leaves) the exact pricing solved
	LPs     int64 // pricing LPs solved (heuristic and exact)
	// Pool is every column of the final master (on the simplex): good
	// starting columns for a neighbouring threshold.
	Pool [][]float64
}

// Sentinel errors of the finite solvers.
var (
	// ErrInfeasible: no privatizer meets the distortion threshold.
	ErrInfeasible = errors.New("mip: infeasible")
	// ErrInterrupted: the caller's context ended (Ctrl-C); nothing usable.
	ErrInterrupted = errors.New("mip: interrupted")
)

// colGen is one column generation run's state.
type colGen struct {
	m     Finite
	d     float64
	o     ColGenOptions
	rs    []risk // the observers' risks (Finite.risks)
	rr    risk   // rs[0]
	ra    []risk // rs[1:]
	g     Global // the master's columns, as rays
	seen  map[string]bool
	price *pricingLP // LP_δ, costs changed per rule
	rng   *rand.Rand
	// zeroOne marks a 0-1 reconstructor loss, whose realizable decision
	// rules are found by shortest paths (see rules).
	zeroOne bool
	rules   int64
}

// SolveColGen finds the global optimum at threshold d by column
// generation, within o.TimeLimit. It returns the best privatizer found and a
// certified bracket; the error is nil whenever a privatizer is returned
// (also when the time limit stopped the search: see Proven). It wraps
// ErrInfeasible for d < D_min and ErrInterrupted when ctx ends.
func (m Finite) SolveColGen(ctx context.Context, d float64, o ColGenOptions) (ColGenResult, error) {
	if err := m.Validate(); err != nil {
		return ColGenResult{}, err
	}
	if err := m.checkFiniteD(d); err != nil {
		return ColGenResult{}, fmt.Errorf("%w: %w", ErrInfeasible, err)
	}
	if o.GapTol <= 0 {
		o.GapTol = ProvenGap
	}
	if o.MaxIterations <= 0 {
		o.MaxIterations = 10_000
	}
	start := time.Now()
	work := ctx
	if o.TimeLimit > 0 {
		var cancel context.CancelFunc
		work, cancel = context.WithTimeout(ctx, o.TimeLimit)
		defer cancel()
	}
	cg, err := m.newColGen(d, o)
	if err != nil {
		return ColGenResult{}, err
	}
	res, err := cg.run(work, start)
	if ctx.Err() != nil {
		return res, fmt.Errorf("column generation at D = %g: %w: %w", d, ErrInterrupted, ctx.Err())
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return res, fmt.Errorf("column generation at D = %g: %w", d, err)
	}
	if res.Mechanism == nil {
		return res, fmt.Errorf("column generation at D = %g: the time limit ended the first master LP: %w", d, highsx.ErrTimeLimit)
	}
	return res, nil
}

func (m Finite) newColGen(d float64, o ColGenOptions) (*colGen, error) {
	n := m.N()
	rs := m.risks()
	cg := &colGen{m: m, d: d, o: o, rs: rs, rr: rs[0], ra: rs[1:], seen: map[string]bool{},
		rng: rand.New(rand.NewPCG(o.Seed, 0x636f6c67656e)), g: Global{model: m, adv: make([][]float64, m.K())}}
	cg.zeroOne = m.Recon.ZeroOne()
	// Start: F = X (the unit columns; reconstructor loss D_min, so the
	// master is feasible for every valid D) and F independent of X.
	for x := 0; x < n; x++ {
		e := make([]float64, n)
		e[x] = 1
		cg.add(e)
	}
	u := ones(n)
	normalize(u)
	cg.add(u)
	for _, c := range o.Columns {
		if len(c) != n {
			return nil, fmt.Errorf("starting column of length %d: want n = %d", len(c), n)
		}
		c = slices.Clone(c)
		for x, v := range c {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("starting column %v: entry %d = %v must be a finite number ≥ 0", c, x, v)
			}
		}
		if sumOf(c) == 0 {
			return nil, fmt.Errorf("starting column %v is zero", c)
		}
		normalize(c)
		cg.add(c)
	}
	// Pricing re-solves one LP with new costs thousands of times: the
	// previous basis stays primal feasible, so primal simplex from it
	// without presolve (which would discard it) is the fast path.
	so := o.Solver
	so.Extra = map[string]any{"presolve": "off", "simplex_strategy": 4}
	maps.Copy(so.Extra, o.Solver.Extra)
	var adv [][][][]float64
	for _, r := range cg.ra {
		adv = append(adv, r.k)
	}
	var err error
	if cg.price, err = newPricingLP(n, adv, so); err != nil {
		return nil, err
	}
	return cg, nil
}

// add appends column c (on the simplex) unless it is already there.
func (cg *colGen) add(c []float64) bool {
	k := key(c)
	if cg.seen[k] {
		return false
	}
	cg.seen[k] = true
	cg.g.addRay(c, cg.rs)
	return true
}

// pricingLP is LP_δ, and a global witness's pricing LP: columns c_0..c_{n−1},
// then one t_iz per adversary i and side value z, with the rows Σ_x c_x = 1
// and t_iz ≤ ⟨k_iza, c⟩ for every estimate a of adv[i][z]; the objective
// Σ_i μ_i Σ_z t_iz − ⟨g, c⟩ is set per solve (price).
type pricingLP struct {
	*highsx.LP
	n, nt  int
	adv    [][][][]float64 // adv[i][z][a] = k_iza
	solves int64           // LPs solved (or attempted)
}

func newPricingLP(n int, adv [][][][]float64, o SolverOptions) (*pricingLP, error) {
	p := &pricingLP{n: n, adv: adv}
	for _, ka := range adv {
		p.nt += len(ka)
	}
	mod := highsx.NewProblem(n + p.nt)
	mod.Maximize = true
	row := newRowBuilder(mod)
	es := make([]entry, n)
	for x := range es {
		es[x] = entry{x, 1}
	}
	row.add(1, 1, es...)
	col := n
	for _, ka := range adv {
		for _, ks := range ka {
			mod.Lower[col] = math.Inf(-1)
			for _, k := range ks {
				es := []entry{{col, 1}}
				for x, v := range k {
					es = append(es, entry{x, -v})
				}
				row.add(math.Inf(-1), 0, es...)
			}
			col++
		}
	}
	lp, err := highsx.NewLP(mod, o)
	p.LP = lp
	return p, err
}

// price solves the LP for the adversary weights mu and the linear cost g.
func (p *pricingLP) price(ctx context.Context, mu, g []float64) (highsx.Result, error) {
	costs := make([]float64, p.n+p.nt)
	for x := range g {
		costs[x] = -g[x]
	}
	j := p.n
	for i, ka := range p.adv {
		for range ka {
			costs[j] = mu[i]
			j++
		}
	}
	if err := p.SetCosts(costs); err != nil {
		return highsx.Result{}, err
	}
	p.solves++
	res, err := p.Solve(ctx)
	if err != nil {
		return res, fmt.Errorf("pricing LP: %w", err)
	}
	return res, nil
}

// master solves the master LP over the current columns: its value, λ and
// the sanitized duals.
func (cg *colGen) master(ctx context.Context) (float64, []float64, Duals, error) {
	mod := cg.g.lpModel(cg.d)
	res, err := mod.Solve(ctx, cg.o.Solver)
	if err != nil {
		return 0, nil, Duals{}, fmt.Errorf("master LP: %w", err)
	}
	return res.Objective, res.X[:len(cg.g.rays)], dualsOf(cg.m.N(), cg.m.K(), res.RowDual), nil
}

// ruleAt is a Bayes-optimal reconstructor decision rule at c: for each side
// value y the index (into rr.k[y]) of an estimate minimizing ⟨k_ya, c⟩.
func (cg *colGen) ruleAt(c []float64, rule []int) {
	for y, ks := range cg.rr.k {
		best, arg := math.Inf(1), 0
		for a, k := range ks {
			if v := dot(k, c); v < best {
				best, arg = v, a
			}
		}
		rule[y] = arg
	}
}

// solveRule solves LP_δ for the linear cost g = π + ν Σ_y k_yδ_y (already
// summed): its value and maximizer c, normalized to the simplex.
func (cg *colGen) solveRule(ctx context.Context, du Duals, g []float64) (float64, []float64, error) {
	res, err := cg.price.price(ctx, du.Mu, g)
	if err != nil {
		return 0, nil, err
	}
	n := cg.m.N()
	c := make([]float64, n)
	for x := range c {
		c[x] = math.Max(0, res.X[x])
		if c[x] < 1e-13 {
			c[x] = 0
		}
	}
	normalize(c)
	return res.Objective, c, nil
}

// ruleCost is π + ν Σ_d k_{y_d, rule[d]} for a rule of the side values
// y_d = order[d] (y_d = d when order is nil).
func (cg *colGen) ruleCost(du Duals, rule, order []int) []float64 {
	g := slices.Clone(du.Pi)
	for d, a := range rule {
		y := d
		if order != nil {
			y = order[d]
		}
		for x, v := range cg.rr.k[y][a] {
			g[x] += du.Nu * v
		}
	}
	return g
}

// heuristic prices by ascent on decision rules: from a start c, fix the
// rule that is Bayes-optimal at c, solve LP_δ, and repeat from its
// maximizer while the rule changes (rc never decreases: LP_δ at the new
// point is ≥ its value at c, which is rc(c), and rc ≥ LP_δ everywhere).
// It returns the improving columns found, best first.
func (cg *colGen) heuristic(ctx context.Context, du Duals, lam []float64, tol float64) ([][]float64, error) {
	n := cg.m.N()
	var starts [][]float64
	for j, l := range lam {
		if l > 1e-12 {
			starts = append(starts, cg.g.rays[j])
		}
	}
	for x := 0; x < n; x++ {
		e := make([]float64, n)
		e[x] = 1
		starts = append(starts, e)
	}
	for range 4 {
		c := make([]float64, n)
		for x := range c {
			c[x] = cg.rng.ExpFloat64()
		}
		normalize(c)
		starts = append(starts, c)
	}
	type cand struct {
		c  []float64
		rc float64
	}
	var found []cand
	have := map[string]bool{}
	rule := make([]int, len(cg.rr.k))
	prev := make([]int, len(cg.rr.k))
	for _, c := range starts {
		cg.ruleAt(c, rule)
		for step := 0; step < 20; step++ {
			// A small LP can finish before HiGHS polls its interrupt
			// callback: check the deadline between solves too.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			_, next, err := cg.solveRule(ctx, du, cg.ruleCost(du, rule, nil))
			if err != nil {
				return nil, err
			}
			c = next
			copy(prev, rule)
			cg.ruleAt(c, rule)
			if slices.Equal(prev, rule) {
				break
			}
		}
		if v := du.reducedCost(cg.rr, cg.ra, c); v > tol && !have[key(c)] && !cg.seen[key(c)] {
			have[key(c)] = true
			found = append(found, cand{c, v})
		}
	}
	slices.SortFunc(found, func(a, b cand) int { return -cmp.Compare(a.rc, b.rc) })
	out := make([][]float64, len(found))
	for i, f := range found {
		out[i] = f.c
	}
	return out, nil
}

// exact maximizes rc over the simplex by branch and bound over the
// reconstructor's decision rule, one side value per level (the likeliest
// side values first, whose terms weigh most). A node fixes δ_y for the
// first depth side values; its bound is LP_δ with the terms of the others
// dropped (−ν ρ_y ≤ 0), exact at the leaves. Nodes whose
// bound is ≤ the incumbent (at least tol) are pruned; for a 0-1 loss, rules
// no column realizes are never generated (see realizer). It first dives
// (depth-first) and returns as soon as it holds columns with rc > tol;
// otherwise it searches best-first to the end. It returns an upper bound on
// max rc — the maximum itself, or tol when nothing exceeds it, once the
// search completes; the largest open bound when it returns early or ctx
// ends it (then with ctx's error) — and the best columns found.
func (cg *colGen) exact(ctx context.Context, du Duals, tol float64) (float64, [][]float64, error) {
	rs := cg.newRuleSearch(du, tol)
	root, _, err := cg.solveRule(ctx, du, du.Pi)
	if err != nil {
		return math.Inf(1), nil, err
	}
	// Dive first (depth-first, best child first) within a budget of LPs:
	// columns with positive reduced cost are what the master needs, and any
	// one will do, so a dive that reaches one returns at once, with the
	// open nodes' largest bound as the bound. Then best-first, which
	// proves the maximum with the tightest anytime bound.
	h := &nodeHeap{nodes: []node{{bound: root}}, dive: true}
	budget := cg.price.solves + int64(20*len(rs.order)*maxEstimates(cg.rr))
	open := func(nd node) float64 { return math.Max(rs.best, math.Max(nd.bound, h.maxBound())) }
	for h.Len() > 0 {
		nd := heap.Pop(h).(node)
		if nd.bound <= rs.best {
			if h.dive {
				continue // the others may still exceed best
			}
			break
		}
		if err := ctx.Err(); err != nil {
			return open(nd), rs.cols, err
		}
		if h.dive && (len(rs.cols) > 0 || cg.price.solves > budget) {
			if len(rs.cols) > 0 {
				slices.Reverse(rs.cols)
				return open(nd), rs.cols, nil
			}
			h.dive = false
			heap.Init(h)
			heap.Push(h, nd)
			continue
		}
		if err := rs.expand(ctx, nd, h); err != nil {
			return open(nd), rs.cols, err
		}
	}
	slices.Reverse(rs.cols) // best (last found) first
	return rs.best, rs.cols, nil
}

// ruleSearch is the state of exact's branch and bound over the
// reconstructor's decision rules: a node fixes the estimate of the first
// side values in order; a leaf fixes them all and prices one column.
type ruleSearch struct {
	cg    *colGen
	du    Duals
	order []int     // side values, likeliest first
	real  *realizer // the 0-1 loss's realizability check (nil otherwise)
	rule  []int     // scratch: the rule being extended
	best  float64   // the largest reduced cost found (at least the tolerance)
	cols  [][]float64
}

func (cg *colGen) newRuleSearch(du Duals, tol float64) *ruleSearch {
	ny := len(cg.rr.k)
	rs := &ruleSearch{cg: cg, du: du, order: make([]int, ny), rule: make([]int, ny), best: tol}
	mass := make([]float64, ny)
	for y, ks := range cg.rr.k {
		rs.order[y] = y
		for _, k := range ks {
			for _, v := range k {
				mass[y] = math.Max(mass[y], v)
			}
		}
	}
	slices.SortStableFunc(rs.order, func(a, b int) int { return -cmp.Compare(mass[a], mass[b]) })
	if cg.zeroOne {
		rs.real = newRealizer(cg.m.Prior, cg.m.Recon, cg.rr)
	}
	return rs
}

// expand prices every child of nd (the next side value's realizable
// estimates): a leaf above best becomes a column, an inner node above best
// goes on h.
func (rs *ruleSearch) expand(ctx context.Context, nd node, h *nodeHeap) error {
	if rs.real != nil {
		rs.real.reset()
		for d, a := range nd.prefix {
			rs.real.assign(rs.order[d], a)
		}
	}
	cg := rs.cg
	depth := len(nd.prefix)
	copy(rs.rule, nd.prefix)
	y := rs.order[depth]
	for a := range cg.rr.k[y] {
		if rs.real != nil {
			mark := rs.real.save()
			ok := rs.real.assign(y, a)
			rs.real.restore(mark)
			if !ok {
				continue
			}
		}
		rs.rule[depth] = a
		v, c, err := cg.solveRule(ctx, rs.du, cg.ruleCost(rs.du, rs.rule[:depth+1], rs.order))
		if errors.Is(err, highsx.ErrInfeasible) {
			continue // no column makes this partial rule optimal
		}
		if err != nil {
			return err
		}
		if v <= rs.best {
			continue
		}
		if depth+1 == len(rs.order) {
			cg.rules++
			rs.best = v
			rs.cols = append(rs.cols, c)
			continue
		}
		heap.Push(h, node{prefix: slices.Clone(rs.rule[:depth+1]), bound: v})
	}
	return nil
}

// maxEstimates is the most candidate estimates of any side value.
func maxEstimates(r risk) int {
	m := 1
	for _, ks := range r.k {
		m = max(m, len(ks))
	}
	return m
}

// node is a partial decision rule and its bound.
type node struct {
	prefix []int
	bound  float64
}

// nodeHeap orders open nodes: deepest first while diving (then by bound),
// else by bound alone (best-first).
type nodeHeap struct {
	nodes []node
	dive  bool
}

func (h *nodeHeap) Len() int { return len(h.nodes) }
func (h *nodeHeap) Less(i, j int) bool {
	a, b := h.nodes[i], h.nodes[j]
	if h.dive && len(a.prefix) != len(b.prefix) {
		return len(a.prefix) > len(b.prefix)
	}
	return a.bound > b.bound
}
func (h *nodeHeap) Swap(i, j int) { h.nodes[i], h.nodes[j] = h.nodes[j], h.nodes[i] }
func (h *nodeHeap) Push(x any)    { h.nodes = append(h.nodes, x.(node)) }
func (h *nodeHeap) Pop() any {
	x := h.nodes[len(h.nodes)-1]
	h.nodes = h.nodes[:len(h.nodes)-1]
	return x
}

// maxBound is the largest bound of an open node (−∞ when none).
func (h *nodeHeap) maxBound() float64 {
	m := math.Inf(-1)
	for _, nd := range h.nodes {
		m = math.Max(m, nd.bound)
	}
	return m
}

// run is the column generation loop.
func (cg *colGen) run(ctx context.Context, start time.Time) (ColGenResult, error) {
	sat := loss.Min(cg.m.AdvSaturation())
	st := &colGenRun{cg: cg, start: start, lower: math.Inf(-1),
		best: DualBound{D: cg.d, Proof: ProofSaturation, Upper: sat}}
	st.res.Upper = sat
	for it := 0; it < cg.o.MaxIterations; it++ {
		done, err := st.iterate(ctx, it)
		if err != nil {
			return st.finish(), err
		}
		if done {
			break
		}
	}
	return st.finish(), nil
}

// colGenRun is the state of run between master iterations: the result so
// far, the best certificate, the master's last value and weights.
type colGenRun struct {
	cg    *colGen
	start time.Time
	res   ColGenResult
	best  DualBound
	lower float64   // the master's last value (−Inf before the first)
	lam   []float64 // the master's last column weights
}

// iterate runs master iteration it: the master LP, pricing (heuristic,
// then exact when the heuristic finds nothing), the bound, the new
// columns. It reports whether the bracket closed or no column was added.
func (st *colGenRun) iterate(ctx context.Context, it int) (bool, error) {
	cg := st.cg
	z, l, du, err := cg.master(ctx)
	if err != nil {
		return false, err
	}
	st.lower, st.lam = z, l
	// Columns must improve by more than tol, so that n·tol, the
	// bound's share of a proof, stays ≤ 1e-9·max(1, |z|).
	n := cg.m.N()
	tol := 1e-9 * math.Max(1, math.Abs(z)) / float64(n)
	pricing := PricingHeuristic
	newCols, err := cg.heuristic(ctx, du, st.lam, tol)
	if err != nil {
		return false, err
	}
	cert := DualBound{D: cg.d, Duals: du}
	bound := math.NaN()
	// The relaxation bounds max rc from above by dropping −ν ρ_R ≤ 0: LP_δ
	// with g = π.
	if r, _, err := cg.solveRule(ctx, du, du.Pi); err == nil {
		cert.MaxReducedCost, cert.Proof = r, ProofRelaxation
		bound = cert.Bound()
	} else if ctx.Err() != nil {
		return false, err
	}
	if len(newCols) == 0 && !cg.o.NoExactPricing {
		pricing = PricingExact
		// The exact search may prune every node whose bound is within
		// half the gap target: completing then certifies the target.
		prune := math.Max(tol, 0.5*cg.o.GapTol*math.Max(1, math.Abs(z))/float64(n))
		r, cols, err := cg.exact(ctx, du, prune)
		if err != nil {
			// The open nodes' largest bound still bounds max rc.
			if !math.IsInf(r, 1) {
				cert.MaxReducedCost, cert.Proof = r, ProofDecisionRulesStopped
				st.improve(cert, cert.Bound())
			}
			st.res.record(it, st.lower, cg, pricing, st.start)
			return false, err
		}
		cert.MaxReducedCost, cert.Proof = r, ProofDecisionRules
		bound = cert.Bound()
		newCols = cols
	}
	if !math.IsNaN(bound) {
		st.improve(cert, bound)
	}
	st.res.record(it, st.lower, cg, pricing, st.start)
	added := 0
	for _, c := range newCols {
		if cg.add(c) {
			added++
		}
	}
	return st.res.Upper-st.lower <= cg.o.GapTol*math.Max(1, math.Abs(st.res.Upper)) || added == 0, nil
}

// improve makes cert, with its bound b, the best certificate when b is
// below the upper bound so far.
func (st *colGenRun) improve(cert DualBound, b float64) {
	if b < st.res.Upper {
		cert.Upper = b
		st.res.Upper, st.best = b, cert
	}
}

// finish fills the result: the master's mechanism and losses, the counts,
// the status (optimal once the bracket is within ProvenGap) and the best
// certificate.
func (st *colGenRun) finish() ColGenResult {
	cg, res := st.cg, st.res
	res.Gamma = st.lower
	if st.lam != nil {
		res.Mechanism = cg.g.mechanism(st.lam)
		res.fill(cg.m)
	}
	res.D = cg.d
	res.Method = AlgorithmColGen
	res.Columns = len(cg.g.rays)
	res.Rules = cg.rules
	res.LPs = cg.price.solves
	res.Pool = cg.g.rays
	res.SolveTime = time.Since(st.start)
	res.Proven = res.Upper-st.lower <= ProvenGap*math.Max(1, math.Abs(res.Upper))
	best := st.best
	res.DualBound = &best
	if res.Proven {
		res.Status = StatusOptimal
	} else {
		res.Status = StatusGap
		res.LowerBound = true
	}
	return res
}

func (r *ColGenResult) record(it int, lower float64, cg *colGen, pricing Pricing, start time.Time) {
	r.Iterations = append(r.Iterations, ColGenIteration{Iteration: it, Lower: lower, Upper: r.Upper,
		Columns: len(cg.g.rays), Pricing: pricing, Elapsed: time.Since(start)})
	if cg.o.Iteration != nil {
		cg.o.Iteration(r.Iterations[len(r.Iterations)-1])
	}
}
