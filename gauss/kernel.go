package gauss

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/loss"
)

// Stochastic kernels on a cell grid (docs/gauss.md, "Stochastic kernels").
//
// Cells c_0 = (−∞, b_0), c_j = [b_{j−1}, b_j), c_n = [b_{n−1}, ∞) and a
// kernel P(F = l | X ∈ c_j) = K_jl. For an observer with X | W ~ N(m, v),
// with q_j(m) = P(X ∈ c_j | m) and r_j(m) = E[(X − m)1{X ∈ c_j} | m],
//
//	ℓ(m) = v − Σ_l (Σ_j K_jl r_j)² / Σ_j K_jl q_j,
//
// and the loss is E[ℓ(m(W))], m(W) ~ N(μ_X, σ_X² − v), by Gauss–Hermite
// quadrature. The tails are cells, so no mass is lost; the quadrature error
// is estimated by a second, larger rule (KernelResult.QuadErr).

// Kernel is a stochastic privatizer on a cell grid.
type Kernel struct {
	Edges []float64 `json:"edges"` // b_0 < … < b_{n−1}
	// Prob[j][l] = P(F = l | X ∈ c_j), len(Edges)+1 rows summing to 1; its
	// JSON is dense or compact (jsonconf.Matrix: per row the nonzero entries).
	Prob jsonconf.Matrix `json:"prob"`
}

// MaxKernelCells bounds a kernel's edge count (its cells are one more).
const MaxKernelCells = 1 << 14

// The caps on a kernel's labels and table, which bound the work and memory
// of KernelLosses (quadrature nodes × cells × labels per observer) on a
// kernel from a file, independently of the file's size cap. The largest
// kernels mmds trains stay below them by a margin: the labels method's
// codebook (at most 1024 labels) on at most MaxKernelCells + 1 cells, about
// 2^24 entries, and its fine grid's periodic labelling (one label per cell
// of a period: learn.FineCells bounds the period by MaxKernelLabels) on at
// most 4098 cells.
const (
	MaxKernelLabels  = 1 << 12 // labels per cell
	MaxKernelEntries = 1 << 25 // cells × labels
)

// kernelNodes is the Gauss–Hermite order of the optimization.
const kernelNodes = 128

// KernelCertNodes is the Gauss–Hermite order of KernelLosses, the kernel
// certificate.
const KernelCertNodes = 256

// kernelObs holds one observer's precomputed q_j and r_j at the quadrature
// nodes: they do not depend on the kernel.
type kernelObs struct {
	v    float64
	w    []float64  // quadrature weights (sum 1)
	q, r *mat.Dense // nodes × cells
}

// hermiteNodes returns the Gauss–Hermite rule of the given order, for the
// weight e^{−x²}.
func hermiteNodes(nodes int) (x, w []float64) {
	x, w = make([]float64, nodes), make([]float64, nodes)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	return x, w
}

// kernelObservers returns the observers (the reconstructor, then the
// adversaries) on the cells of edges at Gauss–Hermite order nodes.
func (m *Model) kernelObservers(edges []float64, nodes int) []kernelObs {
	hx, hw := hermiteNodes(nodes)
	var obs []kernelObs
	for _, v := range m.observers() {
		obs = append(obs, m.kernelObserverOn(edges, v, hx, hw))
	}
	return obs
}

// kernelObserverOn returns the observer of residual variance v on the
// cells of edges, its quadrature the Gauss–Hermite rule hx, hw
// (hermiteNodes) moved to the law of its estimate E[X | W], N(μ_X, Var X − v);
// it leaves hx and hw alone, so one rule serves every observer.
func (m *Model) kernelObserverOn(edges []float64, v float64, hx, hw []float64) kernelObs {
	mu, tau2 := m.mean[m.private], math.Max(m.VarX()-v, 0)
	x, w := make([]float64, len(hx)), make([]float64, len(hw))
	for i := range w {
		w[i] = hw[i] / math.Sqrt(math.Pi)
		x[i] = mu + math.Sqrt(2*tau2)*hx[i]
	}
	return kernelObserverAt(edges, v, x, w)
}

// kernelObserverAt returns the observer's q_j and r_j at the means c with
// quadrature weights w.
func kernelObserverAt(edges []float64, v float64, cs, w []float64) kernelObs {
	n := len(edges) + 1
	q, r := mat.NewDense(len(cs), n, nil), mat.NewDense(len(cs), n, nil)
	sd := math.Sqrt(v)
	for k, c := range cs {
		for j := 0; j < n; j++ {
			lo, hi := math.Inf(-1), math.Inf(1)
			if j > 0 {
				lo = (edges[j-1] - c) / sd
			}
			if j < len(edges) {
				hi = (edges[j] - c) / sd
			}
			q.Set(k, j, normalMass(lo, hi))
			r.Set(k, j, sd*(normalPDF(lo)-normalPDF(hi)))
		}
	}
	return kernelObs{v: v, w: w, q: q, r: r}
}

// normalMass returns Φ(hi) − Φ(lo) for lo < hi (either may be infinite,
// its tail mass then exactly 0), subtracting tails of one side only.
func normalMass(lo, hi float64) float64 {
	tail := func(x float64) float64 { return 0.5 * math.Erfc(math.Abs(x)/math.Sqrt2) }
	return cellMass(lo, hi, tail(lo), tail(hi))
}

// normalPDF returns φ(x), 0 at ±∞.
func normalPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }

// kernelScratch holds the matrices of one kernelLoss call, reused across
// calls on one goroutine so that a training step allocates nothing.
type kernelScratch struct {
	a, b, g1, g2, t mat.Dense
	nz              []kernelEntry
}

// kernelEntry is a nonzero K_jl.
type kernelEntry struct {
	j, l int
	v    float64
}

// A kernel of at least sparseMinEntries entries with at most one in
// sparseShare nonzero takes the sparse product in kernelLoss's forward
// pass: nodes × nonzeros multiply-adds instead of nodes × cells × labels.
// A pruned label kernel on a fine grid (docs/learn.md) has about one
// nonzero per row. Smaller kernels keep the dense product and its rounding.
const (
	sparseMinEntries = 1 << 14
	sparseShare      = 8
)

// sparseProducts sets A = q·K and B = r·K by the sparse product and
// reports true, or reports false, leaving A and B alone, where K is too
// small or too dense for it.
func (o kernelObs) sparseProducts(K, A, B *mat.Dense, sc *kernelScratch) bool {
	cells, labels := K.Dims()
	if cells*labels < sparseMinEntries {
		return false
	}
	nz := sc.nz[:0]
	for j := range cells {
		for l, v := range K.RawRowView(j) {
			if v != 0 {
				if (len(nz)+1)*sparseShare > cells*labels {
					return false
				}
				nz = append(nz, kernelEntry{j, l, v})
			}
		}
	}
	sc.nz = nz
	nodes, _ := o.q.Dims()
	for k := range nodes {
		qk, rk := o.q.RawRowView(k), o.r.RawRowView(k)
		ak, bk := A.RawRowView(k), B.RawRowView(k)
		clear(ak)
		clear(bk)
		for _, e := range nz {
			ak[e.l] += e.v * qk[e.j]
			bk[e.l] += e.v * rk[e.j]
		}
	}
	return true
}

// kernelLoss returns the observer's loss for the kernel matrix K (cells ×
// labels) and, if grad is non-nil, stores ∂loss/∂K_jl in it. sc may be nil.
func (o kernelObs) kernelLoss(K *mat.Dense, grad *mat.Dense, sc *kernelScratch) float64 {
	if sc == nil {
		sc = &kernelScratch{}
	}
	nodes, _ := o.q.Dims()
	_, labels := K.Dims()
	A, B := reuse(&sc.a, nodes, labels), reuse(&sc.b, nodes, labels)
	q, r, k := o.q.RawMatrix(), o.r.RawMatrix(), K.RawMatrix()
	cells := q.Cols
	if k.Rows != cells || grad != nil && (grad.RawMatrix().Rows != cells || grad.RawMatrix().Cols != labels) {
		panic(mat.ErrShape)
	}
	if grad != nil || !o.sparseProducts(K, A, B, sc) {
		// A = q·K and B = r·K, rounded as mat.Dense.Mul rounds them.
		mulInto(A.RawMatrix().Data, q.Data, k.Data, nodes, labels, cells, labels, q.Stride, 1, k.Stride)
		mulInto(B.RawMatrix().Data, r.Data, k.Data, nodes, labels, cells, labels, r.Stride, 1, k.Stride)
	}
	total := 0.0
	var g1, g2 []float64
	if grad != nil {
		g1, g2 = reuse(&sc.g1, nodes, labels).RawMatrix().Data, reuse(&sc.g2, nodes, labels).RawMatrix().Data
	}
	a, b := A.RawMatrix().Data, B.RawMatrix().Data
	for n := range nodes {
		s, w := 0.0, o.w[n]
		for l := n * labels; l < (n+1)*labels; l++ {
			a, b := a[l], b[l]
			if a <= 0 {
				if grad != nil {
					g1[l], g2[l] = 0, 0
				}
				continue
			}
			s += b * b / a
			if grad != nil {
				g1[l] = w * b * b / (a * a) // ∂(−b²/a)/∂a
				g2[l] = -2 * w * b / a      // ∂(−b²/a)/∂b
			}
		}
		total += w * (o.v - s)
	}
	if grad != nil {
		// grad = qᵀ·g1 + rᵀ·g2, the products rounded as mat.Dense.Mul
		// rounds them, then their sum.
		t := reuse(&sc.t, cells, labels).RawMatrix().Data
		gr := grad.RawMatrix()
		mulInto(gr.Data, q.Data, g1, cells, labels, nodes, gr.Stride, 1, q.Stride, labels)
		mulInto(t, r.Data, g2, cells, labels, nodes, labels, 1, r.Stride, labels)
		for j := range cells {
			gj := gr.Data[j*gr.Stride : j*gr.Stride+labels]
			for l, tl := range t[j*labels : (j+1)*labels] {
				gj[l] += tl
			}
		}
	}
	return total
}

// reuse returns d as an r × c matrix, reallocating only when the shape
// changes.
func reuse(d *mat.Dense, r, c int) *mat.Dense {
	if rr, cc := d.Dims(); rr != r || cc != c {
		if !d.IsEmpty() {
			d.Reset()
		}
		d.ReuseAs(r, c)
	}
	return d
}

// KernelLosses returns the exact losses of a kernel (Gauss–Hermite order
// KernelCertNodes) and the largest change against order kernelNodes, an
// estimate of the quadrature error.
func (m *Model) KernelLosses(k Kernel) (loss.Losses, float64, error) {
	if err := k.Validate(); err != nil {
		return loss.Losses{}, 0, err
	}
	K := k.dense() // once: a table at the caps is 256 MiB
	hi := m.lossesBy(m.kernelLossFuncOf(k.Edges, K, KernelCertNodes))
	lo := m.lossesBy(m.kernelLossFuncOf(k.Edges, K, kernelNodes))
	qe := math.Abs(hi.Recon - lo.Recon)
	for i := range hi.Adv {
		qe = math.Max(qe, math.Abs(hi.Adv[i]-lo.Adv[i]))
	}
	// Two Gauss–Hermite rules agree on a kernel that is informative only
	// around their nodes: ℓ varies on the scale √v, which their nodes do
	// not resolve where σ_X² − v ≫ v. The composite rule does, at any
	// kernel.
	check := m.kernelCheckFunc(k.Edges, K)
	got := append([]float64{hi.Recon}, hi.Adv...)
	for i, v := range m.observers() {
		c, err := check(v)
		if err != nil {
			return loss.Losses{}, 0, err
		}
		qe = math.Max(qe, math.Abs(got[i]-c)+v*math.Erfc(checkSpan/math.Sqrt2))
	}
	return hi, qe, nil
}

// ErrUnresolved reports an observer whose loss under a kernel cannot be
// computed with a bounded number of quadrature nodes: its Var[X|W] is too
// small against σ_X².
var ErrUnresolved = errors.New("gauss: the kernel's quadrature cannot resolve an observer")

// The check rule of KernelLosses: a composite trapezoid rule in m over
// μ_X ± checkSpan·τ, τ² = σ_X² − v, of step min(√v, τ)/checkStep, in
// chunks of checkChunk nodes, at most checkMaxNodes nodes.
const (
	checkSpan     = 9
	checkStep     = 4
	checkChunk    = 256
	checkMaxNodes = 1 << 12
)

// kernelCheckFunc returns v ↦ the kernel's loss for an observer with
// Var[X|W] = v by the composite trapezoid rule, which leaves out mass
// P(|Z| > checkSpan) of m, so at most v·P(|Z| > checkSpan) of the loss
// (ℓ ≤ v), or an error wrapping ErrUnresolved
// where it needs more than checkMaxNodes nodes. ℓ(m) is built from
// convolutions of the kernel with N(0, v), so a step of √v/checkStep
// leaves an aliasing error of order exp(−2π²·checkStep²).
func (m *Model) kernelCheckFunc(edges []float64, K *mat.Dense) func(float64) (float64, error) {
	return func(v float64) (float64, error) {
		if v == 0 {
			return 0, nil
		}
		mu, tau := m.mean[m.private], math.Sqrt(math.Max(m.VarX()-v, 0))
		if tau == 0 {
			return math.Min(kernelObserverAt(edges, v, []float64{mu}, []float64{1}).kernelLoss(K, nil, nil), v), nil
		}
		h := math.Min(math.Sqrt(v), tau) / checkStep
		half := int(math.Ceil(checkSpan * tau / h))
		if 2*half+1 > checkMaxNodes {
			return 0, fmt.Errorf("%w: Var[X|W] = %.3g against σ_X² − Var[X|W] = %.3g needs %d nodes, more than %d (σ_X²/Var[X|W] must be below about %.0f)",
				ErrUnresolved, v, tau*tau, 2*half+1, checkMaxNodes, 1+math.Pow(float64(checkMaxNodes)/(2*checkSpan*checkStep), 2))
		}
		cs, ws := make([]float64, 2*half+1), make([]float64, 2*half+1)
		for i := range cs {
			z := float64(i-half) * h / tau
			cs[i], ws[i] = mu+z*tau, math.Exp(-z*z/2)
		}
		normalized(ws)
		total := 0.0
		for lo := 0; lo < len(cs); lo += checkChunk {
			hi := min(lo+checkChunk, len(cs))
			o := kernelObserverAt(edges, v, cs[lo:hi], ws[lo:hi])
			total += o.kernelLoss(K, nil, nil)
		}
		return math.Min(total, v), nil
	}
}

// kernelLossFuncOf returns v ↦ the loss of the kernel table K (cells ×
// labels) on the cells of edges for an observer with Var[X|W] = v, by
// Gauss–Hermite quadrature of the given order.
func (m *Model) kernelLossFuncOf(edges []float64, K *mat.Dense, nodes int) func(float64) float64 {
	hx, hw := hermiteNodes(nodes)
	return func(v float64) float64 {
		if v == 0 {
			return 0
		}
		return math.Min(m.kernelObserverOn(edges, v, hx, hw).kernelLoss(K, nil, nil), v)
	}
}

// dense returns k's table as one matrix (a copy).
func (k Kernel) dense() *mat.Dense {
	K := mat.NewDense(len(k.Prob), len(k.Prob[0]), nil)
	for j, row := range k.Prob {
		K.SetRow(j, row)
	}
	return K
}

// Validate reports whether k is a kernel: rows = edges + 1, increasing
// edges, each row a probability vector, within MaxKernelCells,
// MaxKernelLabels and MaxKernelEntries. KernelLosses checks the same.
func (k Kernel) Validate() error {
	if len(k.Edges) > MaxKernelCells {
		return fmt.Errorf("gauss: kernel has %d edges: at most %d", len(k.Edges), MaxKernelCells)
	}
	if len(k.Prob) != len(k.Edges)+1 || len(k.Prob[0]) == 0 {
		return fmt.Errorf("gauss: kernel has %d edges and %d rows: want rows = edges + 1 ≥ 1", len(k.Edges), len(k.Prob))
	}
	// The first row's length is every row's (checked below), so the caps
	// hold before any row is read.
	n, m := len(k.Prob), len(k.Prob[0])
	if m > MaxKernelLabels {
		return fmt.Errorf("gauss: kernel has %d labels: at most %d", m, MaxKernelLabels)
	}
	if n*m > MaxKernelEntries {
		return fmt.Errorf("gauss: kernel has %d cells × %d labels = %d entries: at most %d", n, m, n*m, MaxKernelEntries)
	}
	for j := 1; j < len(k.Edges); j++ {
		if !(k.Edges[j] > k.Edges[j-1]) {
			return fmt.Errorf("gauss: kernel edges[%d] = %g not above edges[%d] = %g", j, k.Edges[j], j-1, k.Edges[j-1])
		}
	}
	for j, row := range k.Prob {
		s := 0.0
		for _, p := range row {
			if !(p >= 0) {
				return fmt.Errorf("gauss: kernel row %d has a negative or NaN probability", j)
			}
			s += p
		}
		if math.Abs(s-1) > 1e-9 || len(row) != len(k.Prob[0]) {
			return fmt.Errorf("gauss: kernel row %d sums to %g with %d labels: want 1 and %d labels", j, s, len(row), len(k.Prob[0]))
		}
	}
	return nil
}

// KernelResult is an optimized kernel with its losses and a feasible
// mechanism built from it.
type KernelResult struct {
	Kernel  Kernel
	Losses  loss.Losses // the kernel's own losses (L_R may exceed D)
	QuadErr float64     // estimated quadrature error of the losses
	// Achievable is the kernel if L_R ≤ D, else its time-sharing with F = X
	// (erasure λ = 1) with weight D/L_R on the kernel, so that L_R = D.
	Achievable Achievable
}

// OptimizeKernel searches a stochastic kernel for threshold 0 < D < V_Y:
// cells of width cell over μ_X ± 8σ_X, labels initialised from X mod Δ with
// the best single Δ at D (cell j gets label j mod round(Δ/cell)), then the
// softmax logits of every row are optimized by L-BFGS (gonum/optimize) for
// the smallest adversary loss minus a quadratic penalty on L_R − D. The
// result's losses are then recomputed (KernelLosses); a result with L_R > D
// is not feasible and is reported as such by the caller. Slow: seconds.
// Cells narrower than MinCellWidth(8)·σ_X, or a start of more labels or
// entries than a kernel may have, give an error wrapping ErrCellGrid.
func (m *Model) OptimizeKernel(ctx context.Context, d, cell float64, iters int) (KernelResult, error) {
	vy := m.vRecon
	if !(d > 0 && d < vy) || !(cell > 0) {
		return KernelResult{}, fmt.Errorf("gauss: kernel search at D = %g, cell %g: need 0 < D < V_Y = %g and cell > 0", d, cell, vy)
	}
	ks, x0, err := m.newKernelSearch(d, cell)
	if err != nil {
		return KernelResult{}, err
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 { return ks.objective(x, nil) },
		Grad: func(g, x []float64) { ks.objective(x, g) },
		Status: func() (optimize.Status, error) {
			if ctx.Err() != nil {
				return optimize.Failure, ctx.Err()
			}
			return optimize.NotTerminated, nil
		},
	}
	res, err := optimize.Minimize(p, x0, &optimize.Settings{MajorIterations: iters}, &optimize.LBFGS{})
	if err != nil && res == nil {
		return KernelResult{}, err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return KernelResult{}, err
	}
	ks.softmax(res.X)
	k := Kernel{Edges: ks.edges, Prob: make([][]float64, ks.rows)}
	for j := range ks.rows {
		k.Prob[j] = mat.Row(nil, j, ks.K)
	}
	l, qe, err := m.KernelLosses(k)
	if err != nil {
		return KernelResult{}, err
	}
	mech := Mechanism{Family: FamilyKernel, Delta: cell, Labels: ks.labels, Kernel: &k}
	a := m.feasible(Achievable{Losses: l, Mechanism: mech}, d)
	return KernelResult{Kernel: k, Losses: l, QuadErr: qe, Achievable: a}, nil
}

// feasible is a if its L_R ≤ d, else its time-sharing with F = X (loss 0)
// with weight w on a so that L_R = w·a.Recon ≤ d.
func (m *Model) feasible(a Achievable, d float64) Achievable {
	if a.Recon <= d {
		return a
	}
	w := d / a.Recon
	for w*a.Recon > d {
		w = math.Nextafter(w, 0)
	}
	return mix(a, Achievable{Losses: loss.New(0, make([]float64, m.K())), Mechanism: Erasure(1)}, w, 1-w)
}

// kernelSearch is the objective of OptimizeKernel over the softmax logits
// of a rows × labels kernel: the smallest adversary loss, negated, plus a
// quadratic penalty on L_R − D, in units of V_Y.
type kernelSearch struct {
	d, vy        float64
	edges        []float64
	rows, labels int
	obs          []kernelObs // the reconstructor's, then each adversary's
	K, gR, gA    *mat.Dense  // the kernel and the two losses' gradients
}

// kernelPenalty is the weight of the squared excess (L_R − D)⁺/V_Y.
const kernelPenalty = 1e4

// newKernelSearch lays cells of width cell over μ_X ± 8σ_X and returns
// the search with its start: labels from X mod Δ with the best single Δ
// at D (cell j gets label j mod round(Δ/cell)). The error wraps
// ErrCellGrid for cells too narrow for MaxKernelCells edges.
func (m *Model) newKernelSearch(d, cell float64) (*kernelSearch, []float64, error) {
	edges, err := m.GridEdges(cell, 8)
	if err != nil {
		return nil, nil, err
	}
	vy := m.vRecon
	labels := max(2, int(math.Round(m.moduloDeltaAt(d)/cell)))
	mu, sx := m.mean[m.private], math.Sqrt(m.VarX())
	rows := len(edges) + 1
	if labels > MaxKernelLabels || rows*labels > MaxKernelEntries {
		// KernelLosses would refuse the result, after the search.
		return nil, nil, fmt.Errorf("%w: cell width %g at D = %g: %d cells × %d labels, over the caps of %d labels and %d entries",
			ErrCellGrid, cell, d, rows, labels, MaxKernelLabels, MaxKernelEntries)
	}
	obs := m.kernelObservers(edges, kernelNodes)
	x0 := make([]float64, rows*labels)
	origin := math.Floor((mu - 8*sx) / cell) // align labels with the lattice: j ↦ ⌊b/cell⌋ mod labels
	for j := range rows {
		l := ((int(origin)+j-1)%labels + labels) % labels
		x0[j*labels+l] = 6
	}
	return &kernelSearch{d: d, vy: vy, edges: edges, rows: rows, labels: labels, obs: obs,
		K: mat.NewDense(rows, labels, nil), gR: mat.NewDense(rows, labels, nil), gA: mat.NewDense(rows, labels, nil)}, x0, nil
}

// moduloDeltaAt is the lattice step Δ of X mod Δ with L_R = D (bisection
// on a log scale): the warm start of the kernel search.
func (m *Model) moduloDeltaAt(d float64) float64 {
	lo, hi := 1e-3, 1e3*math.Sqrt(m.VarX())
	for range 80 {
		mid := math.Sqrt(lo * hi)
		if ModuloLoss(m.vRecon, mid) <= d {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// softmax sets K to the row-wise softmax of the logits x.
func (s *kernelSearch) softmax(x []float64) {
	for j := range s.rows {
		row, k := x[j*s.labels:(j+1)*s.labels], s.K.RawRowView(j)
		mx := slices.Max(row)
		for l, v := range row {
			k[l] = math.Exp(v - mx)
		}
		normalized(k)
	}
}

// objective is the search's value at x and, when grad is not nil, its
// gradient: that of the smallest adversary loss only.
func (s *kernelSearch) objective(x []float64, grad []float64) float64 {
	s.softmax(x)
	var gr, ga *mat.Dense
	if grad != nil {
		gr, ga = s.gR, s.gA
	}
	lr := s.obs[0].kernelLoss(s.K, gr, nil)
	best, bi := math.Inf(1), 0
	for i := 1; i < len(s.obs); i++ {
		if l := s.obs[i].kernelLoss(s.K, nil, nil); l < best {
			best, bi = l, i
		}
	}
	ex := math.Max(lr-s.d, 0) / s.vy
	f := -best/s.vy + kernelPenalty*ex*ex
	if grad != nil {
		s.obs[bi].kernelLoss(s.K, ga, nil)
		s.chain(grad, gr, ga, ex)
	}
	return f
}

// chain writes ∂f/∂x: ∂f/∂K, then through the row softmax,
// ∂K_jl/∂x_jm = K_jl(δ_lm − K_jm).
func (s *kernelSearch) chain(grad []float64, gr, ga *mat.Dense, ex float64) {
	gk := make([]float64, s.labels)
	for j := range s.rows {
		dot := 0.0
		for l := range s.labels {
			gk[l] = -ga.At(j, l)/s.vy + 2*kernelPenalty*ex*gr.At(j, l)/s.vy
			dot += gk[l] * s.K.At(j, l)
		}
		for l := range s.labels {
			grad[j*s.labels+l] = s.K.At(j, l) * (gk[l] - dot)
		}
	}
}

// KernelSearch holds the settings of the optional kernel search.
type KernelSearch struct {
	Cell  float64 // cell width
	Iters int     // L-BFGS major iterations
}

// DefaultKernelSearch returns 0.2-wide cells (the width at which the
// searched kernels were first seen to beat every binning family) and 300
// L-BFGS iterations: about 10 s per threshold on the paper's model.
func DefaultKernelSearch() KernelSearch { return KernelSearch{Cell: 0.2, Iters: 300} }

// ImproveBracket runs the kernel search at b's threshold (when
// 0 < D < V_Y) and replaces b.Achievable by the kernel's feasible mechanism
// when that is better. It reports whether it did.
func (m *Model) ImproveBracket(ctx context.Context, b *Bracket, s KernelSearch) (bool, error) {
	if !(b.D > 0 && b.D < m.vRecon) {
		return false, nil
	}
	r, err := m.OptimizeKernel(ctx, b.D, s.Cell, s.Iters)
	if err != nil {
		return false, err
	}
	return b.offer(r.Achievable)
}
