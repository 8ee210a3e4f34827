package mip

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/mmds-project/mmds/loss"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmds-project/mmds/internal/highsx"
)

// ErrTooLarge marks a global problem whose ray enumeration exceeds the
// configured budget (GlobalOptions.MaxSubsets).
var ErrTooLarge = errors.New("mip: ray enumeration too large")

// DefaultMaxSubsets bounds the linear systems the ray enumeration solves.
// Each is a tiny dense solve; 5 million take a few seconds.
const DefaultMaxSubsets = 5_000_000

// GlobalOptions tune the global LP.
type GlobalOptions struct {
	// MaxSubsets bounds the number of (|S|−1)-subsets of hyperplanes the
	// enumeration may try, summed over supports S; 0 means DefaultMaxSubsets.
	MaxSubsets int64
	// Context, when set, stops the enumeration (checked every 4,096 linear
	// systems) with an error wrapping its Err().
	Context context.Context
}

// Global is the global optimum's LP, prepared once for a model and solved
// for any number of thresholds (see the package comment, "The global
// optimum"). It is immutable after PrepareGlobal and safe for concurrent use.
type Global struct {
	model Finite
	rays  [][]float64 // candidate columns, each on the simplex Σ_x v_x = 1
	recon []float64   // ρ_recon(v_j)
	adv   [][]float64 // adv[i][j] = ρ_adv,i(v_j)
	// Hyperplanes is the number of distinct hyperplanes of the common
	// refinement of all observers' decision regions.
	Hyperplanes int
	// Subsets is the number of linear systems the enumeration solved.
	Subsets int64
	// EnumTime is the time the enumeration took.
	EnumTime time.Duration
}

// Rays returns the candidate rays (normalized to the simplex).
func (g *Global) Rays() [][]float64 { return g.rays }

// Model returns the model g was prepared for.
func (g *Global) Model() Finite { return g.model }

// hyperplanes returns the distinct normals k_va − k_vb of every observer,
// side value v and pair of candidate estimates a ≠ b, scaled to max |entry| = 1
// with the first nonzero entry positive. Every observer's risk is linear on
// each cell of the arrangement they define.
func (m Finite) hyperplanes() [][]float64 {
	var out [][]float64
	seen := map[string]bool{}
	add := func(h []float64) {
		if normalizeSign(h) && !seen[key(h)] {
			seen[key(h)] = true
			out = append(out, h)
		}
	}
	for _, r := range m.risks() {
		for _, ks := range r.k {
			for a := range ks {
				for b := a + 1; b < len(ks); b++ {
					h := make([]float64, len(ks[a]))
					for x := range h {
						h[x] = ks[a][x] - ks[b][x]
					}
					add(h)
				}
			}
		}
	}
	return out
}

// normalizeSign scales h to max |entry| = 1 with its first nonzero entry
// positive; false for (numerically) zero h.
func normalizeSign(h []float64) bool {
	var mx float64
	first := 0.0
	for _, v := range h {
		if math.Abs(v) > mx {
			mx = math.Abs(v)
		}
	}
	if mx < 1e-300 {
		return false
	}
	for _, v := range h {
		if math.Abs(v) > 1e-12*mx {
			first = v
			break
		}
	}
	s := 1 / mx
	if first < 0 {
		s = -s
	}
	for i := range h {
		h[i] *= s
		if math.Abs(h[i]) < 1e-12 {
			h[i] = 0
		}
	}
	return true
}

// key quantizes a vector (entries of magnitude ≤ 1) to 1e-9 for
// deduplication.
func key(v []float64) string {
	return string(appendKey(make([]byte, 0, 8*len(v)), v))
}

// appendKey appends v's key to b.
func appendKey(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(int64(math.Round(x*1e9))))
	}
	return b
}

// PrepareGlobal enumerates the candidate rays of m and their risks.
//
// Every vertex of every cell of the arrangement (intersected with the
// simplex) is a point v ≥ 0, Σv = 1, with support S and |S|−1 linearly
// independent hyperplanes through it (restricted to the coordinates in S).
// The enumeration solves those |S| × |S| systems for every support S and
// every (|S|−1)-subset of the hyperplanes that do not vanish on S, and keeps
// the nonnegative solutions. It may keep points that are not cell vertices;
// any column on the simplex is a valid privatizer column, so extra rays cost
// LP columns, never exactness.
func (m Finite) PrepareGlobal(o GlobalOptions) (*Global, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	limit := o.MaxSubsets
	if limit <= 0 {
		limit = DefaultMaxSubsets
	}
	start := time.Now()
	hs := m.hyperplanes()
	g := &Global{model: m, Hyperplanes: len(hs)}
	// Count first, so an instance too large fails fast.
	sups, total, err := supports(m.N(), hs, limit)
	if err != nil {
		return nil, err
	}
	g.Subsets = total
	ctx := cmp.Or(o.Context, context.Background())
	rs := m.risks()
	rays, err := enumerateRays(ctx, m.N(), rs, sups)
	if err != nil {
		return nil, err
	}
	g.adv = make([][]float64, m.K())
	for _, v := range rays {
		g.addRay(v, rs)
	}
	g.EnumTime = time.Since(start)
	return g, nil
}

// supports lists every support S ⊆ {0..n−1} with its hyperplanes, and the
// number of linear systems the enumeration solves on them; more than limit
// is an error wrapping ErrTooLarge.
func supports(n int, hs [][]float64, limit int64) ([]support, int64, error) {
	var sups []support
	var total int64
	for mask := 1; mask < 1<<n; mask++ {
		var idx []int
		for x := 0; x < n; x++ {
			if mask>>x&1 == 1 {
				idx = append(idx, x)
			}
		}
		s := newSupport(idx, hs)
		c := binom(len(s.hs), len(s.idx)-1)
		if c < 0 || total+c > limit {
			return nil, 0, fmt.Errorf("%w: n = %d, %d hyperplanes: more than %d linear systems (raise the limit or use a fixed alphabet)", ErrTooLarge, n, len(hs), limit)
		}
		total += c
		sups = append(sups, s)
	}
	return sups, total, nil
}

// enumerateRays solves the systems of every support and returns the
// distinct rays kept (newEnumerator's order); ctx is checked per support and
// every 4096 systems.
func enumerateRays(ctx context.Context, n int, tiers []risk, sups []support) ([][]float64, error) {
	e := newEnumerator(n, tiers)
	var tried int64
	for _, s := range sups {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("ray enumeration: %w", err)
		}
		if len(s.idx) == 1 {
			// A unit point is a vertex of every cell it lies in.
			clear(e.v)
			e.v[s.idx[0]] = 1
			e.point(false)
			continue
		}
		stopped := false
		combinations(len(s.hs), len(s.idx)-1, func(sel []int) {
			if tried++; tried%4096 == 0 && ctx.Err() != nil {
				stopped = true
			}
			if !stopped {
				e.system(s, sel)
			}
		})
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ray enumeration: %w", err)
	}
	return e.rays, nil
}

// addRay appends ray v and its risks, with rs the observers' (Finite.risks).
func (g *Global) addRay(v []float64, rs []risk) {
	g.rays = append(g.rays, v)
	g.recon = append(g.recon, rs[0].at(v))
	for i, r := range rs[1:] {
		g.adv[i] = append(g.adv[i], r.at(v))
	}
}

// support is a support S of the enumeration with its hyperplanes.
type support struct {
	idx []int       // coordinates in S
	hs  [][]float64 // distinct restricted hyperplanes, max |entry| = 1
}

// newSupport restricts the hyperplanes hs to the coordinates idx and keeps
// the distinct nonzero ones (none when |S| = 1).
func newSupport(idx []int, hs [][]float64) support {
	s := support{idx: idx}
	if len(idx) < 2 {
		return s
	}
	seen := map[string]bool{}
	for _, h := range hs {
		r := make([]float64, len(idx))
		for j, x := range idx {
			r[j] = h[x]
		}
		if normalizeSign(r) && !seen[key(r)] {
			seen[key(r)] = true
			s.hs = append(s.hs, r)
		}
	}
	return s
}

// enumerator is the state of the ray enumeration and the scratch space of
// its hot loop: a linear system whose solution is singular, negative or a
// point already met allocates nothing (TestEnumerationDoesNotAllocate).
type enumerator struct {
	tiers []risk
	// seen holds every point met, vertex or not: many subsets meet at the
	// same point, and the vertex test is the costly part.
	seen map[string]bool
	rays [][]float64
	a    [][]float64 // augmented systems: n rows of n + 1 entries
	x    []float64   // a system's solution
	v    []float64   // the point, on the simplex of all n coordinates
	key  []byte      // v's key
	vt   vertexTest
}

func newEnumerator(n int, tiers []risk) *enumerator {
	e := &enumerator{
		tiers: tiers,
		seen:  map[string]bool{},
		a:     make([][]float64, n),
		x:     make([]float64, n),
		v:     make([]float64, n),
		vt:    newVertexTest(n, tiers),
	}
	for i := range e.a {
		e.a[i] = make([]float64, n+1)
	}
	return e
}

// system solves the |S| × |S| system of support s made of the hyperplanes
// s.hs[sel] (|S| − 1 of them) and Σ_{x∈S} v_x = 1, and records its solution
// if it is nonnegative.
func (e *enumerator) system(s support, sel []int) {
	k := len(s.idx)
	a := e.a[:k]
	for i, h := range sel {
		copy(a[i], s.hs[h])
		a[i][k] = 0
	}
	last := a[k-1]
	for j := range last[:k] {
		last[j] = 1
	}
	last[k] = 1
	x := e.x[:k]
	if !solveDense(a, x) {
		return
	}
	clear(e.v)
	for j, c := range s.idx {
		if x[j] < -1e-10 {
			return
		}
		e.v[c] = math.Max(0, x[j])
	}
	normalize(e.v)
	e.point(true)
}

// point records e.v if it is new, and keeps a copy as a ray unless test is
// set and it fails the vertex test.
func (e *enumerator) point(test bool) {
	e.key = appendKey(e.key[:0], e.v)
	if e.seen[string(e.key)] {
		return
	}
	e.seen[string(e.key)] = true
	if !test || e.vt.isVertex(e.v, e.tiers) {
		e.rays = append(e.rays, slices.Clone(e.v))
	}
}

func normalize(v []float64) {
	s := sumOf(v)
	for i := range v {
		v[i] /= s
	}
}

// binom is C(n, k), or −1 when it exceeds 1<<62.
func binom(n, k int) int64 {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	var c int64 = 1
	for i := 1; i <= k; i++ {
		// c·(n−k+i)/i is exact: C(n−k+i, i) is an integer.
		if c > (1<<62)/int64(n-k+i) {
			return -1
		}
		c = c * int64(n-k+i) / int64(i)
	}
	return c
}

// combinations calls fn with every k-subset of {0..n−1} in lexicographic
// order; fn must not keep sel.
func combinations(n, k int, fn func(sel []int)) {
	if k > n {
		return
	}
	sel := make([]int, k)
	for i := range sel {
		sel[i] = i
	}
	for {
		fn(sel)
		i := k - 1
		for i >= 0 && sel[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		sel[i]++
		for j := i + 1; j < k; j++ {
			sel[j] = sel[j-1] + 1
		}
	}
}

// singularTol is the one tolerance of the enumeration's linear algebra:
// solveDense and rank, Gaussian elimination with partial pivoting on rows
// scaled to max |entry| = 1, declare a matrix singular (rank-deficient)
// when a column has no pivot above singularTol times the largest |entry|.
// Such an m-row matrix A has σ_min(A)/σ_max(A) ≤ √m·singularTol: if c is
// the first such column, the vector z with z_c = 1 that cancels the pivot
// columns before c (and is 0 after c) has ‖z‖ ≥ 1 and ‖Az‖ ≤
// √m·singularTol·max |a_ij|, and σ_max(A) ≥ max |a_ij|. So a matrix
// whose reciprocal condition number exceeds √m·singularTol is never
// declared singular, which is the direction that matters: a singular
// verdict drops a candidate point (solveDense) or a vertex (rank), whereas
// a near-singular matrix that passes only adds a candidate or an LP column,
// and any column on the simplex is valid.
//
// The value is the resolution at which the enumeration identifies
// hyperplanes and points (key rounds to 1e-9): a pivot below it is below
// what the enumeration tells apart anyway. The verdicts do not hinge on it:
// over 300 models of the test family the pivots were either at least 1e-7
// or below 1e-13 (the rounding of exactly singular systems; docs/finite.md).
const singularTol = 1e-9

// solveDense solves the k × k system whose augmented matrix is a (k rows;
// entry k of each row is the right-hand side) into x, by Gaussian
// elimination with partial pivoting in place; false when a is singular by
// singularTol. The rows must be scaled to max |entry| = 1 (the
// enumeration's hyperplanes and Σ v = 1 are), so that singularTol is
// relative to the largest entry.
//
// Hand-written rather than gonum's mat.LU: it is the enumeration's inner
// loop, and BenchmarkSolveDense measures it 11–47× faster than mat.LU
// (Factorize, Cond, SolveVecTo on reused storage) and 2.3–4.7× faster than
// even lapack64.Getrf and Getrs on preallocated storage, for k = 2..8
// (docs/finite.md, "Linear algebra in the ray enumeration").
func solveDense(a [][]float64, x []float64) bool {
	k := len(a)
	for col := 0; col < k; col++ {
		p := col
		for r := col + 1; r < k; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if !(math.Abs(a[p][col]) > singularTol) {
			return false
		}
		a[col], a[p] = a[p], a[col]
		for r := col + 1; r < k; r++ {
			f := a[r][col] / a[col][col]
			if f == 0 {
				continue
			}
			for j := col; j <= k; j++ {
				a[r][j] -= f * a[col][j]
			}
		}
	}
	for r := k - 1; r >= 0; r-- {
		s := a[r][k]
		for j := r + 1; j < k; j++ {
			s -= a[r][j] * x[j]
		}
		x[r] = s / a[r][r]
	}
	return true
}

// FiniteOptimum is the optimum of a finite model at one threshold D.
type FiniteOptimum struct {
	D           float64
	Gamma       float64   // the solver's objective value γ*
	Mechanism   Mechanism // an optimal privatizer, P[x][f]
	loss.Losses           // recomputed exactly from Mechanism
	// Method says how the optimum was found.
	Method Algorithm
	// Alphabet is the number of outputs the formulation allowed (0 for the
	// global LP, which allows any number).
	Alphabet int
	// LowerBound is true when Gamma is only a lower bound on the optimum
	// (a bracket left open by a limit, StatusGap).
	LowerBound bool
	// Status is what the solve ended with; StatusGap's bracket is
	// [Gamma, Upper] (see Gap and StatusText).
	Status    Status
	MIPGap    float64
	Nodes     int64
	SolveTime time.Duration
	// Upper is a proven upper bound on the optimum (SolveFinite and
	// SolveColGen; NaN when unknown): the bracket is [Gamma, Upper].
	Upper float64
	// DualBound proves Upper (column generation only).
	DualBound *DualBound
	// Iterations is column generation's bracket per master iteration.
	Iterations []ColGenIteration
	// Fallback says why the method asked for did not answer at D when
	// another one (Method) did: SolveFinite's column generation after a
	// global LP that HiGHS left without a verified optimum. "" otherwise.
	Fallback string
}

// Proven reports whether o's solve proved optimality.
func (o FiniteOptimum) Proven() bool { return o.Status == StatusOptimal }

// lpModel is the global LP: columns λ_j (one per ray), then γ.
func (g *Global) lpModel(d float64) *highsx.Problem {
	nr := len(g.rays)
	n, k := g.model.N(), g.model.K()
	mod := highsx.NewProblem(nr + 1)
	mod.Maximize = true
	mod.Cost[nr] = 1
	mod.Lower[nr] = math.Inf(-1)
	row := newRowBuilder(mod)
	// perRay is the entries Σ_j val(j)·λ_j (with room for γ's).
	perRay := func(val func(j int) float64) []entry {
		es := make([]entry, 0, nr+1)
		for j := range g.rays {
			es = append(es, entry{j, val(j)})
		}
		return es
	}
	// Σ_j λ_j v_j(x) = 1 for every x: P(F=j|X=x) = λ_j v_j(x) is row-stochastic.
	for x := 0; x < n; x++ {
		row.add(1, 1, perRay(func(j int) float64 { return g.rays[j][x] })...)
	}
	// Σ_j λ_j ρ_adv,i(v_j) − γ ≥ 0.
	for i := 0; i < k; i++ {
		row.add(0, math.Inf(1), append(perRay(func(j int) float64 { return g.adv[i][j] }), entry{nr, -1})...)
	}
	// Σ_j λ_j ρ_recon(v_j) ≤ D.
	row.add(math.Inf(-1), d, perRay(func(j int) float64 { return g.recon[j] })...)
	return mod
}

// LPModel returns the global LP for threshold d.
func (g *Global) LPModel(d float64) (*highsx.Problem, error) {
	if err := g.model.checkFiniteD(d); err != nil {
		return nil, err
	}
	return g.lpModel(d), nil
}

// Solve solves the global LP at threshold d. The returned mechanism has at
// most n + K + 1 outputs (a basic solution; see reduceSupport), and its
// losses are recomputed exactly from it.
func (g *Global) Solve(d float64, o SolverOptions) (FiniteOptimum, error) {
	opt, _, err := g.SolveWithDuals(d, o)
	return opt, err
}

// SolveWithDuals is Solve that also returns the LP's row duals, from the
// same HiGHS run, in the row order of LPModel: the n row-sum rows, the K
// adversary rows, then the reconstructor's row (nil when HiGHS reports no
// dual-feasible solution). A certificate built from the duals and the
// mechanism then needs one solve, not two.
func (g *Global) SolveWithDuals(d float64, o SolverOptions) (FiniteOptimum, []float64, error) {
	mod, err := g.LPModel(d)
	if err != nil {
		return FiniteOptimum{}, nil, err
	}
	res, err := mod.Solve(context.Background(), o)
	if err != nil {
		return FiniteOptimum{}, nil, fmt.Errorf("global LP at D = %g: %w", d, err)
	}
	lam := res.X[:len(g.rays)]
	p := g.mechanism(lam)
	opt := FiniteOptimum{
		D: d, Gamma: res.Objective, Upper: res.Objective, Mechanism: p, Method: AlgorithmGlobalLP,
		Status: StatusOptimal, SolveTime: res.Time,
	}
	opt.fill(g.model)
	return opt, res.RowDual, nil
}

func (o *FiniteOptimum) fill(m Finite) {
	o.Losses = loss.New(m.ReconLoss(o.Mechanism), m.AdvLosses(o.Mechanism))
}

// mechanism turns LP weights into a privatizer: one output per ray with
// λ_j > 0, P(F=j|X=x) = λ_j v_j(x). The support is first reduced to at most
// n + K + 1 rays with every risk unchanged.
func (g *Global) mechanism(lam []float64) Mechanism {
	var sup []int
	var w []float64
	for j, l := range lam {
		if l > 1e-12 {
			sup = append(sup, j)
			w = append(w, l)
		}
	}
	sup, w = g.reduceSupport(sup, w)
	n := g.model.N()
	p := make(Mechanism, n)
	for x := range p {
		p[x] = make([]float64, len(sup))
		for f, j := range sup {
			p[x][f] = w[f] * g.rays[j][x]
		}
		// λ is feasible to HiGHS's tolerance: rescale each row to sum to 1
		// exactly, so the mechanism is a privatizer.
		normalize(p[x])
	}
	return p
}

// reduceSupport is Carathéodory's reduction: while the support has more
// rays than the n + K + 1 quantities that matter (the n row sums and every
// observer's risk), the columns (v_j, ρ_i(v_j), ρ_recon(v_j)) are linearly
// dependent; moving λ along a null vector keeps all of them fixed, and the
// largest step that keeps λ ≥ 0 zeroes one weight. HiGHS's simplex already
// returns a basic solution; this guarantees the bound for any solver path.
func (g *Global) reduceSupport(sup []int, w []float64) ([]int, []float64) {
	n, k := g.model.N(), g.model.K()
	rows := n + k + 1
	for len(sup) > rows {
		col := func(j int) []float64 {
			c := slices.Clone(g.rays[j])
			for i := 0; i < k; i++ {
				c = append(c, g.adv[i][j])
			}
			return append(c, g.recon[j])
		}
		a := make([][]float64, rows)
		for r := range a {
			a[r] = make([]float64, len(sup))
		}
		for c, j := range sup {
			for r, v := range col(j) {
				a[r][c] = v
			}
		}
		z := nullVector(a)
		// Step t > 0 along −z (or z) until a weight hits 0.
		t, hit := math.Inf(1), -1
		for pass := 0; pass < 2 && hit < 0; pass++ {
			if pass == 1 {
				for c := range z {
					z[c] = -z[c]
				}
			}
			for c := range z {
				if z[c] > 1e-14 {
					if s := w[c] / z[c]; s < t {
						t, hit = s, c
					}
				}
			}
		}
		if hit < 0 {
			break
		}
		var nsup []int
		var nw []float64
		for c := range sup {
			v := w[c] - t*z[c]
			if c != hit && v > 1e-14 {
				nsup = append(nsup, sup[c])
				nw = append(nw, v)
			}
		}
		sup, w = nsup, nw
	}
	return sup, w
}

// nullVector returns a unit z with A z = 0, for A with more columns than
// rows: with Aᵀ = QR (Q square and orthogonal, R upper trapezoidal), every
// row of A lies in the span of Q's first len(a) columns, so Q's last column
// is orthogonal to all of them whatever A's rank — no rank decision, so no
// tolerance. gonum's QR replaced a hand-written elimination here although
// BenchmarkNullVector measured that one 4–5.5× faster: this runs once per
// Carathéodory step, off the enumeration, a few microseconds next to the
// LP solve that precedes it (docs/finite.md, "Linear algebra in the ray
// enumeration").
func nullVector(a [][]float64) []float64 {
	rows, cols := len(a), len(a[0])
	at := mat.NewDense(cols, rows, nil)
	for r, row := range a {
		for c, v := range row {
			at.Set(c, r, v)
		}
	}
	var qr mat.QR
	qr.Factorize(at)
	var q mat.Dense
	qr.QTo(&q)
	return mat.Col(nil, cols-1, &q)
}

// Sweep solves the global LP at every threshold in ds, in order; it stops at
// the first error or when ctx is cancelled.
func (g *Global) Sweep(ctx context.Context, ds []float64, o SolverOptions) ([]FiniteOptimum, error) {
	opts, _, err := g.SweepWithin(ctx, ds, o, SweepOptions{})
	return opts, err
}

// SweepWithin is Sweep within sw's limits: it returns the points solved, a
// prefix of ds, and why it stopped before the others.
func (g *Global) SweepWithin(ctx context.Context, ds []float64, o SolverOptions, sw SweepOptions) ([]FiniteOptimum, Stop, error) {
	for _, d := range ds {
		if err := checkD(d); err != nil {
			return nil, StopNone, err
		}
	}
	curve := g.sweepOver(ds, sw, o) // the pieces of the LP's optimum (raysweep.go)
	return sweepEach(ctx, ds, sw, sw.budget(), func(_ int, d float64) (FiniteOptimum, error) {
		return curve(ctx, d, func() (FiniteOptimum, error) { return g.Solve(d, o) })
	})
}

// vertexTest is the scratch space of isVertex: room for every row it can
// build (the zero coordinates, Σ, and one tie per estimate beyond the first
// of each observer and side value).
type vertexTest struct {
	n    int
	buf  []float64
	rows [][]float64
	vals []float64
}

func newVertexTest(n int, obs []risk) vertexTest {
	rows, width := n+1, 0
	for _, r := range obs {
		for _, ks := range r.k {
			rows += max(0, len(ks)-1)
			width = max(width, len(ks))
		}
	}
	return vertexTest{n: n, buf: make([]float64, rows*n), rows: make([][]float64, 0, rows), vals: make([]float64, width)}
}

// row appends a row to t.rows and returns it (not cleared).
func (t *vertexTest) row() []float64 {
	i := len(t.rows)
	r := t.buf[i*t.n : (i+1)*t.n]
	t.rows = append(t.rows, r)
	return r
}

// isVertex reports whether v is a vertex of the common refinement: the
// equalities that hold at v and bound its face — ⟨k_va − k_vb, c⟩ = 0 for
// every observer, side value v and pair a, b of estimates that both attain
// the minimum at v, c_x = 0 where v_x = 0, and Σ c = 1 — have v as their
// only solution (rank n). A vertex of any cell passes: the constraints of
// the cell that are tight at v are among these equalities. Points where the
// solved hyperplanes cross outside the pieces that matter (a and b tied but
// not minimal) fail, which keeps the LP small.
func (t *vertexTest) isVertex(v []float64, obs []risk) bool {
	t.build(v, obs)
	return rank(t.rows, len(v)) == len(v)
}

// build sets t.rows to isVertex's equalities at v.
func (t *vertexTest) build(v []float64, obs []risk) {
	t.rows = t.rows[:0]
	for x := range v {
		if v[x] == 0 {
			e := t.row()
			clear(e)
			e[x] = 1
		}
	}
	sum := t.row()
	for x := range sum {
		sum[x] = 1
	}
	for _, r := range obs {
		for _, ks := range r.k {
			if len(ks) < 2 {
				continue
			}
			vals := t.vals[:len(ks)]
			lo := math.Inf(1)
			for a, k := range ks {
				vals[a] = dot(k, v)
				lo = math.Min(lo, vals[a])
			}
			first := -1
			for a := range ks {
				if vals[a] > lo+1e-12*(1+math.Abs(lo)) {
					continue
				}
				if first < 0 {
					first = a
					continue
				}
				h := t.row()
				for x := range h {
					h[x] = ks[a][x] - ks[first][x]
				}
			}
		}
	}
}

// rank is the numerical rank of the rows (each of length n), overwritten:
// each is scaled to max |entry| = 1, then Gaussian elimination with partial
// pivoting counts the pivots above singularTol (the largest |entry| being
// 1).
//
// Hand-written rather than gonum's mat.SVD: it runs once per distinct point
// the enumeration meets (41% of the systems at n = 4, 25% at n = 5), and
// BenchmarkRank measures it 11–46× faster than mat.SVD's singular values
// for n = 2..8 (docs/finite.md, "Linear algebra in the ray enumeration").
func rank(rows [][]float64, n int) int {
	a := rows[:0]
	for _, r := range rows {
		if normalizeSign(r) {
			a = append(a, r)
		}
	}
	rk := 0
	for c := 0; c < n && rk < len(a); c++ {
		p := rk
		for i := rk + 1; i < len(a); i++ {
			if math.Abs(a[i][c]) > math.Abs(a[p][c]) {
				p = i
			}
		}
		if !(math.Abs(a[p][c]) > singularTol) {
			continue
		}
		a[rk], a[p] = a[p], a[rk]
		for i := rk + 1; i < len(a); i++ {
			f := a[i][c] / a[rk][c]
			for j := c; j < n; j++ {
				a[i][j] -= f * a[rk][j]
			}
		}
		rk++
	}
	return rk
}

// columnCut is a valid inequality for every privatizer column c ≥ 0:
//
//	Σ_i μ_i ρ_adv,i(c) − ν ρ_recon(c) ≤ ⟨y, c⟩.
//
// φ = Σ_i μ_i ρ_adv,i − ν ρ_recon is linear on each cell of the common
// refinement, so φ ≤ ⟨y, ·⟩ on every ray implies it on every cell and hence
// on all c ≥ 0. Summed over the columns of a privatizer (Σ_f c_f = 1) it
// bounds Σ_i μ_i R_adv,i − ν R_recon by Σ_x y_x.
type columnCut struct {
	mu []float64
	nu float64
	y  []float64
}

// cutAt solves the global LP at d and returns its value and the column cut
// whose multipliers (μ, ν) are the LP's optimal duals of the adversary and
// reconstructor rows (taken in absolute value; any μ, ν ≥ 0 give a valid cut,
// and y is recomputed for them, so the cut is valid whatever the duals'
// accuracy).
func (g *Global) cutAt(d float64, o SolverOptions) (float64, columnCut, error) {
	opt, rd, err := g.SolveWithDuals(d, o)
	if err != nil {
		return 0, columnCut{}, err
	}
	n, k := g.model.N(), g.model.K()
	cut := columnCut{mu: make([]float64, k)}
	if len(rd) == n+k+1 {
		for i := range cut.mu {
			cut.mu[i] = math.Abs(rd[n+i])
		}
		cut.nu = math.Abs(rd[n+k])
	}
	// y: min Σ_x y_x  s.t.  ⟨y, v_j⟩ ≥ φ(v_j) for every ray.
	nr := len(g.rays)
	ym := highsx.NewProblem(n)
	for x := range n {
		ym.Cost[x], ym.Lower[x] = 1, math.Inf(-1)
	}
	row := newRowBuilder(ym)
	for j := 0; j < nr; j++ {
		phi := -cut.nu * g.recon[j]
		for i := range cut.mu {
			phi += cut.mu[i] * g.adv[i][j]
		}
		es := make([]entry, n)
		for x := range es {
			es[x] = entry{x, g.rays[j][x]}
		}
		row.add(phi, math.Inf(1), es...)
	}
	yr, err := ym.Solve(context.Background(), o)
	if err != nil {
		return 0, columnCut{}, fmt.Errorf("column cut at D = %g: %w", d, err)
	}
	cut.y = yr.X
	return opt.Gamma, cut, nil
}

// WriteLP writes the global LP at threshold d to path (.mps or .lp, chosen
// by HiGHS from the extension; not atomic, see WriteProp2Model).
func (g *Global) WriteLP(d float64, path string) error {
	mod, err := g.LPModel(d)
	if err != nil {
		return err
	}
	return mod.Write(path)
}
