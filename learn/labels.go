package learn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/mmds-project/mmds/model/kind"
)

// LabelConfig configures the labels method (Config.Method = MethodLabels;
// docs/learn.md, "The labels method"). On a finite X the privatizer is a
// table of logits θ[x][l], one softmax over the M labels per value of x —
// the linear layer of a network on one-hot(x), with the randomness in the
// softmax — so its release is exactly the channel P(l | x) = softmax(θ[x])_l.
type LabelConfig struct {
	M int `json:"m"` // codebook size, ≥ 2
	// Observers is what the exact Bayes observers know: the model's law
	// (Config.Law) or the training split's empirical law.
	Observers ObserverKind `json:"observers"`
	// StepsPerEpoch is the number of gradient steps on the whole law
	// between two evaluations (an epoch of this method), ≥ 1.
	StepsPerEpoch int `json:"steps_per_epoch"`
	// Anneal is the initial temperature τ0 of the observers' soft
	// decisions, in units of the loss; it falls as τ0(1 − e/(¾E))² to 0 at
	// three quarters of the E epochs, after which the observers are exact.
	// 0 trains against exact observers throughout. On the Gaussian model
	// (whose MMSE observers are smooth) it is instead the initial
	// temperature T0 of the softmax K = softmax(θ/T), T falling as
	// 1 + (T0 − 1)(1 − e/(¾E))² to 1; T0 ≤ 1 does not anneal.
	Anneal float64 `json:"anneal"`
	// Margin sets the distortion the penalty aims at, D − Margin·τ, inside
	// the selection band [D − τ, D], 0 ≤ Margin < 1.
	Margin float64 `json:"margin"`
	// InitScale is the half-width of the logits' uniform initialization.
	InitScale float64 `json:"init_scale"`
	// AdvTemp is the temperature β of the soft minimum over adversaries,
	// in units of the loss; 0 is the hard minimum.
	AdvTemp float64 `json:"adv_temp"`
	// Prune: channel entries below it are set to 0 (each row
	// renormalized) in what is recorded and released, in [0, 1/M).
	Prune float64 `json:"prune"`
	// CellWidth is the width of the cells of a continuous X's grid, in
	// units of σ_X (Gaussian model only; 0 elsewhere).
	CellWidth float64 `json:"cell_width,omitempty"`
	// Reveal (Gaussian model only) time-shares the kernel with F = X:
	// training maximizes min(1, D/L_recon)·softmin L_adv, the adversaries'
	// losses after releasing X with the smallest probability λ that makes
	// the kernel feasible, and each released kernel carries that λ
	// (Kernel.Reveal; 0 where the kernel alone meets D). Without it the
	// kernel must meet D alone (the penalty ρ(L_recon − D′)⁺), which a
	// grid of cells cannot do below about its width²/12.
	Reveal bool `json:"reveal,omitempty"`
	// Fine (Gaussian model only) sets the grid at thresholds below the
	// default grid's floor (CellWidth·σ_X)²/12; nil keeps the default grid.
	Fine *FineCells `json:"fine,omitempty"`
}

// DefaultLabels is the default codebook size: 32, more labels than the
// optimal mechanism of any model mmds ships needs outputs, so that the
// codebook never limits the optimum.
const DefaultLabels = 32

// DefaultLabelConfig returns the labels method's defaults with m labels.
func DefaultLabelConfig(m int) *LabelConfig {
	return &LabelConfig{M: m, Observers: ObserversLaw, StepsPerEpoch: 40, Anneal: 0.3, Margin: 0.05, InitScale: 2,
		AdvTemp: 0.002, Prune: 1e-4}
}

func (l *LabelConfig) validate() []error {
	var errs problems
	bad := errs.add
	if l.M < 2 || l.M > MaxLabels {
		bad("Config.Labels.M = %d: the codebook needs between 2 and %d labels", l.M, MaxLabels)
	}
	if l.Observers != ObserversLaw && l.Observers != ObserversData {
		bad("Config.Labels.Observers = %v: want law or data", l.Observers)
	}
	errs.positive("Config.Labels.StepsPerEpoch", l.StepsPerEpoch)
	errs.finite("Config.Labels.Anneal", l.Anneal, true)
	if !(l.Margin >= 0 && l.Margin < 1) {
		bad("Config.Labels.Margin = %g: must be in [0, 1)", l.Margin)
	}
	errs.finite("Config.Labels.AdvTemp", l.AdvTemp, true)
	if !(l.Prune >= 0) || l.M > 0 && l.Prune >= 1/float64(l.M) {
		bad("Config.Labels.Prune = %g: must be in [0, 1/M)", l.Prune)
	}
	errs.finite("Config.Labels.InitScale", l.InitScale, true)
	return errs
}

// MaxLabels bounds the codebook.
const MaxLabels = 1024

// labelTrainer trains one trial of the labels method on a finite X: the
// logits θ (n×M) descend on
//
//	J(θ) = −min_i R_adv,i(P) + ρ (R_recon(P) − D')⁺,   P = softmax(θ) row-wise,
//
// eq. (priv_loss) with every observer replaced by the exact Bayes observer
// of the label and its side value (bayesRisk; the best response to P, so
// each step is a best-response step of the observers followed by a
// gradient step of the privatizer), D' = D − Margin·τ, and the one-sided
// penalty ρ(·)⁺ an exact penalty for ρ above the trade-off curve's slope.
// Adam with a cosine-decayed rate runs StepsPerEpoch steps per epoch; after
// each epoch the exact risks are recorded (on the evaluation law: the
// model's, or the test split's empirical one).
type labelTrainer struct {
	cfg       *Config
	lc        *LabelConfig
	d, target float64
	n, m      int
	train     []*bayesRisk // reconstructor, adversaries: what training sees
	eval      []*bayesRisk // what the history records
	logitTable
	tableRecord
	advLoss []float64
	recLoss float64
	gObs    [][]float64 // per observer: ∂R/∂P
}

// labelPenalty is ρ of the labels method's exact penalty: above the
// steepest slope dR_adv/dD of the trade-off curves of the models mmds
// ships (about 5 for the paper's binary model).
const labelPenalty = 50

func newLabelTrainer(data *Data, c *Config, d float64, seed uint64) (*labelTrainer, error) {
	lc := c.Labels
	t := &labelTrainer{cfg: c, lc: lc, d: d, m: lc.M}
	t.target = d - lc.Margin*c.Protocol.Tau
	var err error
	if t.train, t.eval, t.n, err = finiteRisks(data, c); err != nil {
		return nil, err
	}
	n, m := t.n, t.m
	t.logitTable = newLogitTable(n*m, lc.InitScale, c.LR, rand.New(rand.NewPCG(seed, streamInit)))
	t.hist = newHistory(len(t.eval)-1, false, c.Epochs)
	t.advLoss = make([]float64, len(t.eval)-1)
	for range t.train {
		t.gObs = append(t.gObs, make([]float64, n*m))
	}
	return t, nil
}

// finiteRisks builds the observers' risks from the law (ObserversLaw) or
// from the training split (ObserversData), and the risks the history
// records: the law's, or the test split's empirical ones. n is |X|.
func finiteRisks(data *Data, c *Config) (train, eval []*bayesRisk, n int, err error) {
	k := data.NumAdversaries()
	if c.Labels.Observers == ObserversLaw {
		if c.Law == nil {
			return nil, nil, 0, fmt.Errorf("%w: the labels method with law observers needs Config.Law", ErrLaw)
		}
		if err := checkLaw(c.Law, k); err != nil {
			return nil, nil, 0, err
		}
		for _, o := range c.Law.Observers() {
			train = append(train, newBayesRisk(c.Law.Prior, o))
		}
		return train, train, len(c.Law.Prior), nil
	}
	tr, te, n, err := symbols(data)
	if err != nil {
		return nil, nil, 0, err
	}
	for i := range 1 + k {
		nv := max(tr.nv[i], te.nv[i])
		train = append(train, empiricalRisk(n, nv, tr.x, tr.v[i]))
		eval = append(eval, empiricalRisk(n, nv, te.x, te.v[i]))
	}
	return train, eval, n, nil
}

// symbolSplit is a split whose columns are read as symbols 0, 1, ….
type symbolSplit struct {
	x  []int
	v  [][]int // per observer
	nv []int   // per observer: 1 + the largest side value
}

// symbols reads both splits as symbols: X and every observer's single side
// column must hold integers in [0, MaxLabels).
func symbols(data *Data) (tr, te *symbolSplit, n int, err error) {
	read := func(s *Split, name string) (*symbolSplit, error) {
		out := &symbolSplit{x: make([]int, s.N)}
		for r, v := range s.X {
			if out.x[r], err = symbol(v, name+" X", r); err != nil {
				return nil, err
			}
			n = max(n, out.x[r]+1)
		}
		for i := range 1 + len(s.Adv) {
			vals, w := s.side(i)
			if w != 1 {
				return nil, fmt.Errorf("%w: observer %d has %d side columns: data observers need one symbol each", ErrLaw, i, w)
			}
			v := make([]int, s.N)
			nv := 0
			for r, f := range vals {
				if v[r], err = symbol(f, "", r); err != nil {
					// named once it fails (a Sprintf a row cost a tenth of a quick run's set-up)
					return nil, symbolError(f, fmt.Sprintf("%s side column of observer %d", name, i), r)
				}
				nv = max(nv, v[r]+1)
			}
			out.v, out.nv = append(out.v, v), append(out.nv, nv)
		}
		return out, nil
	}
	if tr, err = read(data.Train, "training split"); err != nil {
		return nil, nil, 0, err
	}
	if te, err = read(data.Test, "test split"); err != nil {
		return nil, nil, 0, err
	}
	if n < 2 {
		return nil, nil, 0, fmt.Errorf("%w: X takes a single value in the data: nothing to hide", ErrLaw)
	}
	return tr, te, n, nil
}

func symbol(v float64, what string, row int) (int, error) {
	if v != math.Trunc(v) || v < 0 || v >= MaxLabels {
		return 0, symbolError(v, what, row)
	}
	return int(v), nil
}

func symbolError(v float64, what string, row int) error {
	return fmt.Errorf("%w: %s, row %d = %g: want a symbol 0, 1, … below %d", ErrLaw, what, row, v, MaxLabels)
}

// softmax writes P = softmax(θ[x]) row by row.
func (t *labelTrainer) softmax() { rowSoftmax(t.p, t.theta, t.m, 1) }

// tau is the observers' temperature during epoch e.
func (t *labelTrainer) tau(e int) float64 {
	stop := 0.75 * float64(t.cfg.Epochs)
	if t.lc.Anneal == 0 || float64(e) >= stop {
		return 0
	}
	f := 1 - float64(e)/stop
	return t.lc.Anneal * f * f
}

// step takes one gradient step on J at temperature tau and learning rate lr.
// The adversaries enter through the weights μ_i ∝ exp(−(R_i − min_j R_j)/β)
// with β = AdvTemp (a soft minimum: near a tie every adversary that attains
// the minimum gets its share of the gradient, where the hard minimum would
// chatter between them; β = 0 is the hard minimum of eq. (priv_loss)).
func (t *labelTrainer) step(tau, lr float64) {
	t.softmax()
	k := len(t.train) - 1
	for i, r := range t.train {
		l := r.risk(t.p, t.m, tau)
		if i == 0 {
			t.recLoss = l
			continue
		}
		t.advLoss[i-1] = l
	}
	z := softminWeights(t.advLoss[:k], t.advLoss[:k], t.lc.AdvTemp)
	// An observer's gradient only where J has it: an adversary of weight
	// 0, or the reconstructor within its target, adds nothing.
	clear(t.gP)
	for i, w := range t.advLoss[:k] {
		if w > 0 {
			floats.AddScaled(t.gP, -w/z, t.observerGrad(1+i))
		}
	}
	if t.recLoss > t.target {
		floats.AddScaled(t.gP, labelPenalty, t.observerGrad(0))
	}
	// ∂J/∂θ[x][l] = P(l|x)(g[x][l] − Σ_l' P(l'|x) g[x][l']).
	rowSoftmaxGrad(t.gTheta, t.p, t.gP, t.m, 1)
	t.opt.LR = lr
	t.opt.Step(t.theta, t.gTheta)
}

// softminWeights writes into w the weights exp(−(l_i − min_j l_j)/β) of
// the soft minimum of the losses l (β = 0: the hard minimum, 1 at the
// first minimum and 0 elsewhere) and returns their sum; w may be l.
func softminWeights(w, l []float64, beta float64) float64 {
	lo := math.Inf(1)
	for _, v := range l {
		lo = min(lo, v)
	}
	var z float64
	for i, v := range l {
		w[i] = 0
		if beta > 0 {
			w[i] = math.Exp(-(v - lo) / beta)
		} else if v == lo && z == 0 {
			w[i] = 1
		}
		z += w[i]
	}
	return z
}

// observerGrad returns ∂R/∂P of training observer i at the channel of
// its last risk call.
func (t *labelTrainer) observerGrad(i int) []float64 {
	clear(t.gObs[i])
	t.train[i].gradient(t.gObs[i], 1)
	return t.gObs[i]
}

// prune sets the entries of each row of P below Prune to 0 and
// renormalizes: the softmax never reaches 0, but an optimal mechanism often
// has zeros (a label that never follows some x), and at D = D_min only a
// channel with exact zeros meets the constraint. The pruned channel is what
// the history records and what is released, so its losses are exact.
func (t *labelTrainer) prune() { pruneRows(t.p, t.m, t.lc.Prune) }

// Run trains for Epochs epochs of StepsPerEpoch steps, recording the exact
// risks after each; it stops early with stop's error.
func (t *labelTrainer) Run(stop func() error) error {
	total := float64(t.cfg.Epochs * t.lc.StepsPerEpoch)
	s := 0
	return epochs(t.cfg.Epochs, stop, func(e int) {
		tau := t.tau(e)
		for range t.lc.StepsPerEpoch {
			t.step(tau, cosineRate(t.cfg.LR, s, total))
			s++
		}
		t.evaluate()
	})
}

// evaluate records the exact risks of the current channel and snapshots it
// when its distortion is in the selection band.
func (t *labelTrainer) evaluate() {
	t.softmax()
	t.prune()
	rec := t.eval[0].risk(t.p, t.m, 0)
	for i := range t.advLoss {
		t.advLoss[i] = t.eval[1+i].risk(t.p, t.m, 0)
	}
	t.record(t.cfg, t.d, rec, t.advLoss, t.p, 0)
}

// Final implements trialRun: the channel after the last epoch.
func (t *labelTrainer) Final() Snapshot {
	t.softmax()
	t.prune()
	return Snapshot{Epoch: t.hist.Len() - 1, Channel: t.channelOf(t.p)}
}

// Snapshots implements trialRun.
func (t *labelTrainer) Snapshots() []Snapshot {
	return t.snapshots(func(s labelSnap) Snapshot { return Snapshot{Epoch: s.epoch, Channel: t.channelOf(s.channel)} })
}

// channelOf returns p (n×M, row-major) as rows P[x] = P(· | x).
func (t *labelTrainer) channelOf(p []float64) [][]float64 {
	out := make([][]float64, t.n)
	for x := range out {
		out[x] = append([]float64(nil), p[x*t.m:x*t.m+t.m]...)
	}
	return out
}

// labelsPreset is PresetFor's MethodLabels branch: a channel on a finite
// X, cells of x on a continuous one (cellsPreset).
func labelsPreset(name PresetName, model kind.Kind, labels int) (Config, error) {
	switch {
	case !model.Valid():
		return Config{}, fmt.Errorf("learn: model %q: must be %s", model, kind.Want(true))
	case !model.FiniteX():
		return cellsPreset(name, labels)
	}
	if labels == 0 {
		labels = DefaultLabels
	}
	return labelsConfig(model, DefaultLabelConfig(labels), name, labelsBudget{60, 8}, labelsBudget{150, 16})
}

// labelsBudget is a labels preset's budget: epochs per trial, and restarts
// per threshold, all trained and finalized on the best (FinalizeBest).
type labelsBudget struct{ epochs, restarts int }

// labelsConfig returns the labels method's configuration with settings lc
// on a model: Adam at rate 0.1 with the exact penalty labelPenalty, and
// the budget of the preset name (quick or paper).
func labelsConfig(model kind.Kind, lc *LabelConfig, name PresetName, quick, paper labelsBudget) (Config, error) {
	c := Config{Model: model, Method: MethodLabels, Labels: lc,
		Rho: labelPenalty, Optimizer: Adam, LR: 0.1, PrivLRMult: 1, ReconLRMult: 1, AdvLRMult: 1,
		Hidden: 1, BatchSize: 1}
	var b labelsBudget
	switch name {
	case PresetQuick:
		b = quick
	case PresetPaper:
		b = paper
	default:
		return Config{}, presetText.BadValue(name)
	}
	c.Epochs = b.epochs
	c.Protocol = Protocol{K: 1, Accept: b.restarts, MaxAttempts: b.restarts, Finalize: FinalizeBest}
	return c, nil
}

// validateMethod checks the method's settings against the model.
func (c *Config) validateMethod() []error {
	switch c.Method {
	case MethodAlg1:
		var errs []error
		if c.Labels != nil {
			errs = append(errs, fmt.Errorf("learn: Config.Labels is set, but the method is %v: the codebook belongs to the labels method", c.Method))
		}
		if !MethodAlg1.Trains(c.Model) {
			errs = append(errs, fmt.Errorf("learn: Config.Model %q: Algorithm 1 has no preset for it; use the labels method", c.Model))
		}
		return errs
	case MethodLabels:
		if c.Labels == nil {
			return []error{fmt.Errorf("learn: Config.Labels is nil: the labels method needs its settings (DefaultLabelConfig)")}
		}
		errs := c.Labels.validate()
		if !c.Model.FiniteX() { // cells of a continuous X
			return append(errs, c.validateCells()...)
		}
		if c.Labels.Reveal {
			errs = append(errs, fmt.Errorf("learn: Config.Labels.Reveal is set on the %s model: time-sharing with F = X is the Gaussian model's cell kernels'", c.Model))
		}
		if c.Labels.Fine != nil {
			errs = append(errs, fmt.Errorf("learn: Config.Labels.Fine is set on the %s model: fine grids of cells are the Gaussian model's", c.Model))
		}
		if c.Labels.Observers == ObserversLaw && c.Law == nil {
			errs = append(errs, fmt.Errorf("learn: Config.Law is nil: law observers need the model's law (or use data observers)"))
		}
		return errs
	}
	return []error{fmt.Errorf("%w: %v", ErrMethod, c.Method)}
}

// LossesNote says what the losses a sweep records are (the train table's
// footnote): Algorithm 1's are its trained estimators' on the test split;
// the labels method's are the exact Bayes losses of the released
// privatizer — under the model's law, which is what mmds verify certifies,
// or under the test split's empirical law for data observers.
func (c *Config) LossesNote() string {
	const at = "at the finalized trial's selected epoch"
	switch {
	case c.Method != MethodLabels || c.Labels == nil:
		return fmt.Sprintf("Losses of the trained estimators on the test split (%d samples) %s.", c.TestSize, at)
	case c.Labels.Observers == ObserversData:
		return fmt.Sprintf("Exact Bayes risks of the released channel under the test split's empirical law (%d samples) %s.", c.TestSize, at)
	case !c.Model.FiniteX():
		return fmt.Sprintf("Exact MMSE losses of the released cell kernel (Gauss–Hermite order 256, as mmds verify computes them; time-shared with F = X where the kernel alone exceeds D) %s; at small D the kernel is a periodic labelling on a fine grid (docs/learn.md).", at)
	}
	return fmt.Sprintf("Exact Bayes losses of the released channel under the model's law (the finite sums mmds verify certifies) %s.", at)
}
