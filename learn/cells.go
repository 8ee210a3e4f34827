package learn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/model/kind"
	"github.com/mmds-project/mmds/privatizer"
)

// CellLaw gives the labels method on a continuous X its exact observers
// (Config.Cells): the privatizer at a threshold lives on a grid of cells
// c_0 = (−∞, b_0), c_j = [b_{j−1}, b_j), c_n = [b_{n−1}, ∞), releases label
// l with probability K[j][l] when X ∈ c_j, and every observer's loss of
// such a kernel is exact (the Gaussian model's: package gauss's
// KernelGrid, gaussCells). Tests give it their own laws.
type CellLaw interface {
	// SigmaX returns σ_X, the unit of cell widths and spans.
	SigmaX() float64
	// Grid returns the grid of cells of width w·σ_X on μ_X ± span·σ_X,
	// the two tails beyond being one cell each.
	Grid(w, span float64) (CellGrid, error)
}

// CellGrid is one grid of a CellLaw.
type CellGrid interface {
	Edges() []float64 // b_0 < … < b_{n−1}; the grid has n + 1 cells
	Observers() int   // 1 + K: the reconstructor, then the adversaries
	// NewEvaluator returns an evaluator for one goroutine: the losses
	// training descends on (they may be computed less precisely).
	NewEvaluator() CellEvaluator
	// NewRecorder returns an evaluator for one goroutine computing the
	// losses as a certificate does: what the history records and the
	// selection protocol reads.
	NewRecorder() CellEvaluator
}

// CellEvaluator computes observer i's exact loss of a kernel p on its grid
// (p[j*labels+l] = K[j][l], rows summing to 1) and, when grad is not nil,
// stores ∂loss/∂p in it.
type CellEvaluator interface {
	Loss(i int, p []float64, labels int, grad []float64) float64
}

// cellTrainNodes is the Gauss–Hermite order of the losses training sees:
// 64, half the cost of gauss's default 128 with the same trained kernels
// on the paper's model (docs/learn.md); certification uses order 256.
const cellTrainNodes = 64

// gaussCells is the Gaussian model's CellLaw (Config.Cells): grids of
// cells of width w·σ_X on μ_X ± span·σ_X (gauss.Model.GridEdges) with
// every observer's exact MMSE loss of a kernel on them (gauss.KernelGrid).
type gaussCells struct{ m *gauss.Model }

// SigmaX implements CellLaw.
func (c gaussCells) SigmaX() float64 { return math.Sqrt(c.m.VarX()) }

// Grid implements CellLaw.
func (c gaussCells) Grid(w, span float64) (CellGrid, error) {
	sx := c.SigmaX()
	edges, err := c.m.GridEdges(w*sx, span)
	if err != nil {
		return nil, err
	}
	train, err := c.m.NewKernelGrid(edges, cellTrainNodes)
	if err != nil {
		return nil, err
	}
	cert, err := c.m.NewKernelGrid(edges, gauss.KernelCertNodes)
	if err != nil {
		return nil, err
	}
	return gaussGrid{train, cert}, nil
}

// gaussGrid trains at order cellTrainNodes and records at the
// certificate's order, so that the recorded losses are KernelLosses'.
type gaussGrid struct {
	*gauss.KernelGrid
	cert *gauss.KernelGrid
}

func (g gaussGrid) NewEvaluator() CellEvaluator { return g.KernelGrid.NewEvaluator() }
func (g gaussGrid) NewRecorder() CellEvaluator  { return g.cert.NewEvaluator() }

// cellTrainer trains one trial of the labels method on a continuous X: the
// privatizer is a table of logits θ (cells × M), the Gaussian analogue of
// the finite method's table per x, and descends on
//
//	J(θ) = (−softmin_β L_adv,i(K) + ρ (L_recon(K) − D′)⁺) / D_max,   K = softmax(θ/T) row-wise,
//
// the finite method's objective (labelTrainer) with every observer the
// exact MMSE estimator of X from (label, side information) and its loss
// the exact expectation over the labels (CellEvaluator): each step is a
// best response of the observers and a gradient step of the privatizer.
// T anneals from LabelConfig.Anneal to 1 over the first three quarters of
// the epochs. With LabelConfig.Reveal the kernel is time-shared with F = X
// at the smallest feasible λ = max(0, 1 − D/L_recon), which scales every
// loss by s = min(1, D/L_recon), and the objective is instead
//
//	J(θ) = −s(K)·softmin_β L_adv,i(K) / D_max,
//
// the certified value itself: above D it trades L_adv against L_recon at
// their ratio (the tangent from the origin, where F = X lies), below D it
// is the adversaries' loss alone. After each epoch the kernel at T = 1,
// pruned, is evaluated as the certificate evaluates it
// (CellGrid.NewRecorder), its λ set from that L_recon, and recorded. On a
// fine grid (LabelConfig.Fine, small D) there are no gradient steps: the
// privatizer is a periodic labelling whose period Run searches (fine.go).
type cellTrainer struct {
	cfg       *Config
	lc        *LabelConfig
	d, target float64
	n, m      int // cells, labels
	edges     []float64
	ev, rec   CellEvaluator // training; recording
	nobs      int
	gObs      []float64
	gRec      []float64
	logitTable
	tableRecord
	adv, w []float64
	temp   float64
	// share: train for time-sharing with F = X (Kernel.Reveal), the
	// objective's s = min(1, D′/L_recon); reveal: λ of the released kernel.
	share  bool
	reveal float64
	// search: on a fine grid, the search over periodic labellings that
	// replaces the gradient steps (fine.go); nil on the default grid.
	search *periodSearch
}

func newCellTrainer(c *Config, d float64, seed uint64) (*cellTrainer, error) {
	lc := c.Labels
	w, span, fine := lc.gridFor(d, c.Cells.SigmaX())
	g, err := c.Cells.Grid(w, span)
	if err != nil {
		return nil, err
	}
	t := &cellTrainer{cfg: c, lc: lc, d: d, m: lc.M, edges: g.Edges(), ev: g.NewEvaluator(), rec: g.NewRecorder(), nobs: g.Observers(), temp: 1}
	t.target = d - lc.Margin*c.Protocol.Tau
	t.n = len(t.edges) + 1
	t.share = lc.Reveal
	t.adv, t.w = make([]float64, t.nobs-1), make([]float64, t.nobs-1)
	t.hist = newHistory(t.nobs-1, false, c.Epochs)
	init := rand.New(rand.NewPCG(seed, streamInit))
	if fine {
		t.search = newPeriodSearch(lc.Fine, w, init)
		t.periodic(t.search.period)
		return t, nil
	}
	size := t.n * t.m
	t.logitTable = newLogitTable(size, lc.InitScale, c.LR, init)
	t.gObs, t.gRec = make([]float64, size), make([]float64, size)
	return t, nil
}

// softmax writes K = softmax(θ/T) row by row into p.
func (t *cellTrainer) softmax() { rowSoftmax(t.p, t.theta, t.m, t.temp) }

// advWeights sets t.w to the soft minimum's weights μ_i ∝
// exp(−(L_i − min_j L_j)/β), β = AdvTemp·D_max (the finite method's soft
// minimum over adversaries; β = 0: the hard minimum, lowest index on ties),
// normalized to sum 1.
func (t *cellTrainer) advWeights() {
	for i := range t.adv {
		t.adv[i] = t.ev.Loss(1+i, t.p, t.m, nil)
	}
	z := softminWeights(t.w, t.adv, t.lc.AdvTemp*t.cfg.DMax)
	for i := range t.w {
		t.w[i] /= z
	}
}

// step takes one Adam step on J at learning rate lr.
func (t *cellTrainer) step(lr float64) {
	t.softmax()
	scale := t.cfg.DMax
	clear(t.gP)
	t.advWeights()
	rec := t.ev.Loss(0, t.p, t.m, t.gRec)
	// Time-sharing with F = X at the smallest feasible λ scales every loss
	// by s = min(1, D/L_recon): J = −s·softmin L_adv/D_max, whose gradient
	// in L_recon > D is D·softmin/L_recon² along ∂L_recon. It aims at D, not
	// D′: the released λ is set from the certified L_recon (revealFor), so
	// no margin is needed, and D′ < 0 at D < 0.05τ.
	s, over := 1.0, rec > t.target
	if t.share {
		over = rec > t.d
		if over {
			s = t.d / rec
		}
	}
	var soft float64
	for i, w := range t.w {
		soft += w * t.adv[i]
		if w < 1e-6 {
			continue // a negligible share of the gradient: skip its cost
		}
		t.ev.Loss(1+i, t.p, t.m, t.gObs)
		floats.AddScaled(t.gP, -s*w/scale, t.gObs)
	}
	switch {
	case over && t.share:
		floats.AddScaled(t.gP, soft*s/rec/scale, t.gRec)
	case over:
		floats.AddScaled(t.gP, t.cfg.Rho/scale, t.gRec)
	}
	// ∂J/∂θ[j][l] = K[j][l](g[j][l] − Σ_l' K[j][l'] g[j][l'])/T.
	rowSoftmaxGrad(t.gTheta, t.p, t.gP, t.m, t.temp)
	t.opt.LR = lr
	t.opt.Step(t.theta, t.gTheta)
}

// release writes the kernel as released into p: the softmax at T = 1 with
// entries below Prune set to 0 and each row renormalized (as the finite
// method's prune: the recorded kernel is the one whose losses are exact).
func (t *cellTrainer) release() {
	if t.search != nil {
		t.periodic(t.search.period)
		return
	}
	saved := t.temp
	t.temp = 1
	t.softmax()
	t.temp = saved
	pruneRows(t.p, t.m, t.lc.Prune)
}

// Run implements trialRun: Epochs epochs of StepsPerEpoch steps, the rate
// decayed by a cosine to 1% (as the finite method), the exact losses
// recorded after each epoch; it stops early with stop's error.
func (t *cellTrainer) Run(stop func() error) error {
	if t.search != nil {
		return t.runSearch(stop)
	}
	total := float64(t.cfg.Epochs * t.lc.StepsPerEpoch)
	t0, anneal := max(t.lc.Anneal, 1), 0.75*float64(t.cfg.Epochs)
	s := 0
	return epochs(t.cfg.Epochs, stop, func(e int) {
		t.temp = 1
		if f := 1 - float64(e)/anneal; f > 0 {
			t.temp = 1 + (t0-1)*f*f
		}
		for range t.lc.StepsPerEpoch {
			t.step(cosineRate(t.cfg.LR, s, total))
			s++
		}
		t.evaluate()
	})
}

// evaluate records the exact losses of the released kernel and snapshots
// it when its distortion is in the selection band.
func (t *cellTrainer) evaluate() {
	t.release()
	rec := t.rec.Loss(0, t.p, t.m, nil)
	t.reveal = t.revealFor(rec)
	s := 1 - t.reveal
	for i := range t.adv {
		t.adv[i] = s * t.rec.Loss(1+i, t.p, t.m, nil)
	}
	rec *= s
	t.record(t.cfg, t.d, rec, t.adv, t.p, t.reveal)
}

// revealFor returns the released kernel's λ given its reconstructor loss
// rec: 0 when the kernel alone is feasible (rec ≤ D) or the trainer does
// not time-share, else the smallest λ with (1 − λ)·rec ≤ D in floating
// point, so that the certified distortion is D.
func (t *cellTrainer) revealFor(rec float64) float64 {
	if !t.share || !(rec > t.d) {
		return 0
	}
	lambda := 1 - t.d/rec
	for (1-lambda)*rec > t.d {
		lambda = math.Nextafter(lambda, 1)
	}
	return lambda
}

// Final implements trialRun: the released kernel after the last epoch.
func (t *cellTrainer) Final() Snapshot {
	t.release()
	var reveal float64
	if t.share {
		reveal = t.revealFor(t.rec.Loss(0, t.p, t.m, nil))
	}
	return Snapshot{Epoch: t.hist.Len() - 1, Kernel: t.kernelOf(t.p, reveal)}
}

// kernelOf returns the kernel p (cells × labels, row-major; the labels
// are the period's on a fine grid, so they are counted from len(p)).
func (t *cellTrainer) kernelOf(p []float64, reveal float64) *privatizer.Kernel {
	m := len(p) / t.n
	k := &privatizer.Kernel{Kernel: gauss.Kernel{Edges: append([]float64(nil), t.edges...), Prob: make([][]float64, t.n)}, Reveal: reveal}
	for x := range k.Prob {
		k.Prob[x] = append([]float64(nil), p[x*m:x*m+m]...)
	}
	return k
}

// Snapshots implements trialRun.
func (t *cellTrainer) Snapshots() []Snapshot {
	return t.snapshots(func(s labelSnap) Snapshot { return Snapshot{Epoch: s.epoch, Kernel: t.kernelOf(s.channel, s.reveal)} })
}

// DefaultCellLabels is the Gaussian model's default codebook size.
const DefaultCellLabels = 32

// DefaultCellWidth is the default cell width, in units of σ_X.
const DefaultCellWidth = 0.2

// cellSpan: the default grid covers μ_X ± cellSpan·σ_X, the tails beyond
// being one cell each; maxCellEdges bounds a kernel's edges
// (gauss.MaxKernelCells, which verify enforces; learn does not import
// gauss, a test checks they agree).
const (
	cellSpan     = 8
	maxCellEdges = 1 << 14
)

// MinCellWidth is the narrowest LabelConfig.CellWidth, in units of σ_X:
// the default grid has ⌈2·cellSpan/CellWidth⌉ edges, at most maxCellEdges
// = 2¹⁴, so CellWidth ≥ 16/2¹⁴ = 2⁻¹⁰. A power of two, it is exact, and
// the edge count gauss computes in floating point is at most 2¹⁴ there
// too. The fine grid (FineCells) has at most maxFineCells + 1 edges.
const MinCellWidth = 2.0 * cellSpan / maxCellEdges

// cellsPreset is labelsPreset's Gaussian branch.
func cellsPreset(name PresetName, labels int) (Config, error) {
	if labels == 0 {
		labels = DefaultCellLabels
	}
	lc := &LabelConfig{M: labels, Observers: ObserversLaw, StepsPerEpoch: 20, Margin: 0.05, InitScale: 2,
		AdvTemp: 0.002, Prune: 1e-4, Anneal: 1, CellWidth: DefaultCellWidth, Reveal: true, Fine: DefaultFineCells()}
	return labelsConfig(kind.Gauss, lc, name, labelsBudget{80, 4}, labelsBudget{200, 16})
}

// validateCells checks the labels method's settings on the Gaussian model.
func (c *Config) validateCells() []error {
	var errs []error
	if c.Labels.Observers != ObserversLaw {
		errs = append(errs, fmt.Errorf("learn: Config.Labels.Observers = %v: on the Gaussian model the observers are the exact MMSE estimators of the law (a continuous X has no empirical Bayes rule to plug in)", c.Labels.Observers))
	}
	if !(c.Labels.CellWidth >= MinCellWidth) || math.IsInf(c.Labels.CellWidth, 0) {
		errs = append(errs, fmt.Errorf("learn: Config.Labels.CellWidth = %g: must be finite and ≥ 2⁻¹⁰ = %g σ_X (narrower cells lay more than %d edges on μ_X ± %dσ_X)",
			c.Labels.CellWidth, MinCellWidth, maxCellEdges, cellSpan))
	}
	if c.Cells == nil {
		errs = append(errs, fmt.Errorf("learn: Config.Cells is nil: the labels method on the Gaussian model needs its grids of cells"))
	}
	if c.Labels.Fine != nil {
		errs = append(errs, c.Labels.Fine.validate()...)
	}
	return errs
}
