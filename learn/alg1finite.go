package learn

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
)

// Algorithm 1 on a finite X (Section V-B with |X| = n): the privatizer is an
// MLP on (one-hot x, r) with m output logits, and the release is
// F ~ Categorical(softmax(k(x, r))), the one-bit release of the binary
// model with m outcomes. The reconstructor and every adversary are MLPs on
// (one-hot f, one-hot side value) with n outputs through a softmax, an
// estimate q of the posterior of X, trained on the soft loss (with 0-1
// losses 1 − q_x, Section V-B's x(1 − x̂) + (1 − x)x̂ for n = 2) or, with
// EstLossLog, the log loss −log q_x. An observer's loss L[x][a] is the
// model's (Config.Law; nil: 0-1), read through its Bayes decision under q
// (finiteLoss). The privatizer's step is the binary model's
// PrivGradExpect one: every observer's loss is the exact expectation over
// F given (x, r), Σ_f P(f | x, r) ℓ(f), so eq. (priv_loss)'s adversarial
// term has a gradient (a sampled categorical F has none); ℓ is the soft
// loss, or with EstLossLog the loss of the Bayes decision. Observers see
// discrete inputs only, so each is evaluated once per step on its table of
// (f, v) cells.

// finiteTrainer is one trial of Algorithm 1 on a finite X.
type finiteTrainer struct {
	cfg      *Config
	d        float64
	n, m     int // |X|, labels
	tr, te   *symbolSplit
	trR, teR []float64 // the privatizer's noise column per row
	priv     *denseNet
	obs      []*denseNet   // reconstructor, adversaries
	losses   []*finiteLoss // per observer: its loss, nil for 0-1
	nv       []int         // per observer: side alphabet size
	opt      []*Optimizer
	samplers []*sampler
	draw     *rand.Rand // training draws of F
	eval     *rand.Rand // evaluation draws of F
	hist     History
	snaps    bandSnaps
	// scratch
	g              []float64
	gradPriv       []float64
	gradObs        [][]float64
	tables         [][]float64 // per observer: q[(f*nv+v)*n+x]
	tablesH        [][]float64 // per observer: hidden activations per cell
	soft, hard     [][]float64 // per observer: cellLoss per cell and target, [(f*nv+v)*n+x]
	byRow          [][]float64 // per observer: the privatizer step's loss (soft or hard) by row, [(x*nv+v)*m+f]
	fresh          []bool      // tables[i] are observer i's outputs under its current parameters
	batchP         []float64   // the privatizer step's P(· | x, r) per minibatch row
	batchH         []float64   // and its hidden activations
	batchDZ        []float64   // and its gradient in the logits
	dTable         []float64   // obsStep's gradient in each cell's logits
	counts         []float64   // obsStep's rows per cell and target x, [(f*nv+v)*n+x]
	obsLoss        []float64   // the privatizer step's per-observer losses, reused
	teRows         []int32     // 0, 1, …: the test split's rows, evaluated a minibatch at a time
	evSoft, evHard []float64   // evaluate's per-observer losses, reused
	rowB, rowC     []int       // forwardRows's offsets per row or cell
	rowR, ones     []float64   // and its r per row; ones for the cells
}

func newFiniteTrainer(data *Data, c *Config, d float64, seed uint64) (*finiteTrainer, error) {
	tr, te, n, err := symbols(data)
	if err != nil {
		return nil, err
	}
	t := &finiteTrainer{cfg: c, d: d, n: n, m: c.Outputs, tr: tr, te: te}
	if t.m == 0 {
		t.m = n
	}
	t.trR, t.teR = noise(data.Train), noise(data.Test)
	k := data.NumAdversaries()
	if t.losses, err = finiteLosses(c.Law, k, n); err != nil {
		return nil, err
	}
	init := rand.New(rand.NewPCG(seed, streamInit))
	t.priv = newDenseNet(n+1, c.Hidden, t.m, init)
	for i := range 1 + k {
		nv := max(tr.nv[i], te.nv[i])
		t.nv = append(t.nv, nv)
		t.obs = append(t.obs, newDenseNet(t.m+nv, c.Hidden, n, init))
	}
	lp, lr, la := c.learningRates(d)
	t.opt = append(t.opt, NewOptimizer(c.Optimizer, lp, len(t.priv.params)))
	for i, o := range t.obs {
		rate := la
		if i == 0 {
			rate = lr
		}
		t.opt = append(t.opt, NewOptimizer(c.Optimizer, rate, len(o.params)))
	}
	for role := range 2 + k {
		t.samplers = append(t.samplers, newSampler(data.Train.N, rand.New(rand.NewPCG(seed, streamSample+uint64(role)))))
	}
	t.draw = rand.New(rand.NewPCG(seed, streamBernoulli))
	t.eval = rand.New(rand.NewPCG(seed, streamEval))
	t.g = make([]float64, t.m)
	t.gradPriv = make([]float64, len(t.priv.params))
	for i, o := range t.obs {
		t.gradObs = append(t.gradObs, make([]float64, len(o.params)))
		t.tables = append(t.tables, make([]float64, t.m*t.nv[i]*n))
		t.tablesH = append(t.tablesH, make([]float64, t.m*t.nv[i]*o.hp))
		t.soft = append(t.soft, make([]float64, t.m*t.nv[i]*n))
		t.hard = append(t.hard, make([]float64, t.m*t.nv[i]*n))
		t.byRow = append(t.byRow, make([]float64, t.m*t.nv[i]*n))
	}
	t.fresh = make([]bool, len(t.obs))
	hp := t.priv.hp
	t.batchP, t.batchH = make([]float64, c.BatchSize*t.m), make([]float64, c.BatchSize*hp)
	rows := max(c.BatchSize, t.m*slices.Max(t.nv))
	t.rowB, t.rowC, t.rowR, t.ones = make([]int, rows), make([]int, rows), make([]float64, rows), make([]float64, rows)
	for k := range t.ones {
		t.ones[k] = 1
	}
	t.dTable, t.counts = make([]float64, t.m*slices.Max(t.nv)*n), make([]float64, t.m*slices.Max(t.nv)*n)
	t.batchDZ = make([]float64, c.BatchSize*t.m)
	t.obsLoss = make([]float64, len(t.obs))
	t.teRows = make([]int32, len(te.x))
	for r := range t.teRows {
		t.teRows[r] = int32(r)
	}
	t.evSoft, t.evHard = make([]float64, len(t.obs)), make([]float64, len(t.obs))
	t.hist = newHistory(k, true, c.Epochs)
	return t, nil
}

func noise(s *Split) []float64 {
	r := make([]float64, s.N)
	for k := range r {
		r[k] = s.Priv[2*k+1]
	}
	return r
}

// Run implements trialRun: Epochs epochs of BatchesPerEpoch iterations,
// each evaluated on the test split (Section V's selection).
func (t *finiteTrainer) Run(stop func() error) error {
	return epochs(t.cfg.Epochs, stop, func(int) {
		for range t.cfg.BatchesPerEpoch {
			t.privStep()
			for i := range t.obs {
				t.obsStep(i)
			}
		}
		t.evaluate()
		t.keep()
	})
}

// History implements trialRun.
func (t *finiteTrainer) History() *History { return &t.hist }

// privacy computes P(· | x, r) = softmax(k(one-hot x, r)) for the rows
// xs[k], rs[rows[k]] into p[k*m:k*m+m] and their hidden activations into
// h[k*hp:…] (hp: the privatizer's padded width), every row through one
// forwardRows and one softmaxRows.
func (t *finiteTrainer) privacy(xs []int, rs []float64, rows []int32, p, h []float64) {
	hp := t.priv.hp
	bo, co, rr := t.rowB[:len(rows)], t.rowC[:len(rows)], t.rowR[:len(rows)]
	for k, r := range rows {
		bo[k], co[k], rr[k] = xs[r]*hp, t.n*hp, rs[r]
	}
	t.priv.forwardRows(bo, co, rr, h, p)
	softmaxRows(p[:len(rows)*t.m], t.m)
}

// tabulate evaluates observer i on every cell (f, v), q = softmax of its
// outputs, and the losses cellLoss gives there for every target x into
// t.soft[i] and t.hard[i]. Observer i's parameters change only in its own
// step, so the tables stay valid until then (fresh).
func (t *finiteTrainer) tabulate(i int) {
	if t.fresh[i] {
		return
	}
	o, n, nv, hp := t.obs[i], t.n, t.nv[i], t.obs[i].hp
	cells := t.m * nv
	bo, co := t.rowB[:cells], t.rowC[:cells]
	for f := range t.m {
		for v := range nv {
			bo[f*nv+v], co[f*nv+v] = f*hp, (t.m+v)*hp
		}
	}
	o.forwardRows(bo, co, t.ones[:cells], t.tablesH[i], t.tables[i])
	softmaxRows(t.tables[i], n)
	for c := range cells {
		t.losses[i].cell(t.tables[i][c*n:c*n+n], t.soft[i][c*n:c*n+n], t.hard[i][c*n:c*n+n])
	}
	cell := t.soft[i]
	if t.cfg.EstLoss == EstLossLog {
		cell = t.hard[i]
	}
	for c := range cells {
		f, v := c/nv, c%nv
		for x, l := range cell[c*n : c*n+n] {
			t.byRow[i][(x*nv+v)*t.m+f] = l
		}
	}
	t.fresh[i] = true
}

// privStep is Algorithm 1, lines 6–15, with the expectation over F: the
// observers are frozen; L_priv = −min_i L_adv,i + ρ/2 |L_recon − D|.
func (t *finiteTrainer) privStep() {
	idx := t.samplers[0].next(t.cfg.BatchSize)
	for i := range t.obs {
		t.tabulate(i)
	}
	loss := t.expectedLosses(idx)
	fn := float64(t.cfg.BatchSize)
	adv := 1
	for i := 2; i < len(loss); i++ {
		if loss[i] < loss[adv] {
			adv = i
		}
	}
	diff := loss[0]/fn - t.d
	cRecon := t.cfg.penaltySlope(diff)
	m := t.m
	inv := 1 / fn
	for k, r := range idx {
		x, p := t.tr.x[r], t.batchP[k*m:k*m+m]
		l0 := t.rowLosses(0, x, r)
		// the row's ℓ(f) − its expectation, times P(f | x, r)/fn: dz
		var pg float64
		for f := range p {
			g := float64(cRecon * l0[f])
			if len(t.obs) > 1 {
				g -= t.rowLosses(adv, x, r)[f]
			}
			t.g[f] = g
			pg += float64(p[f] * g)
		}
		dz := t.batchDZ[k*m : k*m+m]
		for f, pf := range p {
			dz[f] = float64(pf*(t.g[f]-pg)) * inv
		}
	}
	// privacy's offsets and noise of the rows are still in rowB, rowC, rowR
	t.priv.backwardRows(t.rowB[:len(idx)], t.rowC[:len(idx)], t.rowR[:len(idx)], t.batchH, t.batchDZ, t.gradPriv)
	t.opt[0].Step(t.priv.params, t.gradPriv)
	t.priv.refresh()
}

// rowLosses returns observer i's losses ℓ(f) for f = 0, 1, … of training
// row r (target x): the privatizer step's, from byRow.
func (t *finiteTrainer) rowLosses(i, x int, r int32) []float64 {
	c := (x*t.nv[i] + t.tr.v[i][r]) * t.m
	return t.byRow[i][c : c+t.m]
}

// expectedLosses returns the observers' losses summed over the minibatch
// idx, each row's the exact expectation Σ_f P(f | x, r) ℓ_i(f) (rowLosses),
// and keeps each row's release and hidden activations (batchP, batchH) for
// the privatizer's gradient.
func (t *finiteTrainer) expectedLosses(idx []int32) []float64 {
	m := t.m
	loss := t.obsLoss
	clear(loss)
	t.privacy(t.tr.x, t.trR, idx, t.batchP, t.batchH)
	for k, r := range idx {
		x, p := t.tr.x[r], t.batchP[k*m:k*m+m]
		for i := range t.obs {
			l := t.rowLosses(i, x, r)[:len(p)]
			for f, pf := range p {
				loss[i] += pf * l[f]
			}
		}
	}
	return loss
}

// drawCategorical draws F ~ Categorical(p) with rng: the first f with u <
// p_0 + … + p_f (the last if none), u ~ U[0, 1). With p ≥ 0 the sums
// never decrease, so F is the number of them before the last that are at
// most u, counted without a branch (an unpredictable exit cost more than
// the loop).
func drawCategorical(p []float64, rng *rand.Rand) int {
	u, c, f := rng.Float64(), 0.0, 0
	for _, v := range p[:len(p)-1] {
		c += v
		inc := 0
		if c <= u {
			inc = 1
		}
		f += inc
	}
	return f
}

// obsStep is Algorithm 1, lines 16–30, for observer i (0: the
// reconstructor): the privatizer is frozen, F is drawn for each row, and
// the observer descends on its loss of (f, v). Its outputs are a table of
// cells, so the minibatch's gradient in a cell's logits is the sum over
// the rows that fell there, which depends on the rows only through how
// many of each target x they hold: with N_x of them and N in all, (N q_k −
// N_k)/fn for the log loss, q_k (Σ_x N_x q_x − N_k)/fn for the soft 0-1
// loss 1 − q_x, and q_k Σ_x N_x (L[x][b(k)] − ℓ(q, x))/fn for a model's
// loss (finiteLoss.softGrad). A cell no row fell in has no gradient.
func (t *finiteTrainer) obsStep(i int) {
	mb := t.cfg.BatchSize
	n, nv := t.n, t.nv[i]
	t.tabulate(i)
	cells := t.m * nv
	cnt := t.counts[:cells*n]
	clear(cnt)
	fn := float64(mb)
	idx := t.samplers[1+i].next(mb)
	t.privacy(t.tr.x, t.trR, idx, t.batchP, t.batchH)
	for k, r := range idx {
		c := drawCategorical(t.batchP[k*t.m:k*t.m+t.m], t.draw)*nv + t.tr.v[i][r]
		cnt[c*n+t.tr.x[r]]++
	}
	d := t.dTable[:cells*n]
	hp := t.obs[i].hp
	bo, co := t.rowB[:cells], t.rowC[:cells]
	for c := range cells {
		bo[c], co[c] = c/nv*hp, (t.m+c%nv)*hp
		nx, q, dc := cnt[c*n:c*n+n], t.tables[i][c*n:c*n+n], d[c*n:c*n+n]
		var all float64
		for _, v := range nx {
			all += v
		}
		if all == 0 {
			clear(dc)
			continue
		}
		t.cellGrad(i, q, nx, all, t.soft[i][c*n:c*n+n], dc)
		for k := range dc {
			dc[k] /= fn
		}
	}
	g := t.gradObs[i]
	t.obs[i].backwardRows(bo, co, t.ones[:cells], t.tablesH[i], d, g)
	t.opt[1+i].Step(t.obs[i].params, g)
	t.obs[i].refresh()
	t.fresh[i] = false
}

// cellGrad writes into d the sum over a cell's rows of observer i's loss
// gradient in the cell's logits (obsStep), times fn: q is the cell's
// estimate, nx[x] its rows of target x (all of them in all), soft[x] its
// soft loss ℓ(q, x).
func (t *finiteTrainer) cellGrad(i int, q, nx []float64, all float64, soft, d []float64) {
	switch rule := t.losses[i]; {
	case t.cfg.EstLoss == EstLossLog:
		// −log q_x: q_k − 1[k = x] a row
		for k, qk := range q {
			d[k] = float64(all*qk) - nx[k]
		}
	case rule == nil:
		// 1 − q_x: −q_x(1[k = x] − q_k) a row
		var s float64
		for x, v := range nx {
			s += float64(v * q[x])
		}
		for k, qk := range q {
			d[k] = qk * (s - nx[k])
		}
	default:
		// Σ_k q_k L[x][b(k)]: q_k (L[x][b(k)] − ℓ(q, x)) a row
		clear(d)
		for x, v := range nx {
			if v != 0 {
				rule.softGrad(q, x, soft[x], d, v)
			}
		}
	}
}

// evaluate records the test-split losses with F drawn from the evaluation
// stream: each observer's soft loss and its Bayes decision's loss
// (finiteLoss.cell; with 0-1 losses the soft 0-1 loss and the MAP
// decision's 0-1 error).
func (t *finiteTrainer) evaluate() {
	for i := range t.obs {
		t.tabulate(i)
	}
	soft, hard := t.evSoft, t.evHard
	clear(soft)
	clear(hard)
	rows := t.teRows
	for lo := 0; lo < len(rows); lo += t.cfg.BatchSize {
		chunk := rows[lo:min(lo+t.cfg.BatchSize, len(rows))]
		t.privacy(t.te.x, t.teR, chunk, t.batchP, t.batchH)
		for k, r := range chunk {
			x := t.te.x[r]
			f := drawCategorical(t.batchP[k*t.m:k*t.m+t.m], t.eval)
			for i := range t.obs {
				c := (f*t.nv[i]+t.te.v[i][r])*t.n + x
				soft[i] += t.soft[i][c]
				hard[i] += t.hard[i][c]
			}
		}
	}
	nt := float64(len(t.te.x))
	for i := range soft {
		soft[i] /= nt
		hard[i] /= nt
	}
	t.hist.add(soft[0], soft[1:], hard[0], hard[1:])
}

// keep snapshots the networks as Trainer.keep does.
func (t *finiteTrainer) keep() { t.snaps.keep(t.cfg, t.d, &t.hist, t.params) }

// Snapshots implements trialRun.
func (t *finiteTrainer) Snapshots() []Snapshot { return t.snaps.snapshots(t.networksOf) }

// Final implements trialRun: the networks after the last epoch.
func (t *finiteTrainer) Final() Snapshot {
	return Snapshot{Epoch: t.hist.Len() - 1, Networks: t.networksOf(t.params())}
}

// params returns the networks' parameters: privatizer, reconstructor,
// adversaries.
func (t *finiteTrainer) params() [][]float64 {
	params := [][]float64{t.priv.params}
	for _, o := range t.obs {
		params = append(params, o.params)
	}
	return params
}

func (t *finiteTrainer) networksOf(params [][]float64) []network.Network {
	nets := []network.Network{t.priv.network(params[0], "privatizer", append(oneHotNames("x", t.n), "r"))}
	for i, o := range t.obs {
		role, side := "reconstructor", "y"
		if i > 0 {
			role, side = fmt.Sprintf("adversary_%d", i), fmt.Sprintf("z%d", i)
		}
		nets = append(nets, o.network(params[1+i], role, append(oneHotNames("f", t.m), oneHotNames(side, t.nv[i])...)))
	}
	return nets
}

// oneHotNames names the columns of a one-hot encoding: base=0, base=1, ….
func oneHotNames(base string, n int) []string {
	out := make([]string, n)
	for k := range out {
		out[k] = fmt.Sprintf("%s=%d", base, k)
	}
	return out
}

// validateFiniteAlg1 checks the settings of Algorithm 1 on a finite model:
// the release's alphabet, the losses (other models' are 0-1), and the
// expectation over F (a sampled categorical
// F gives the privatizer no adversarial gradient at all).
func (c *Config) validateFiniteAlg1() []error {
	if c.Method != MethodAlg1 || !c.Model.CategoricalRelease() {
		var errs []error
		if c.Outputs != 0 {
			errs = append(errs, fmt.Errorf("learn: Config.Outputs = %d: the release's alphabet is Algorithm 1's on a finite model only", c.Outputs))
		}
		if c.Method == MethodAlg1 && c.Law != nil && !zeroOneLaw(c.Law) {
			errs = append(errs, fmt.Errorf("learn: Config.Law has a loss other than 0-1: Algorithm 1 on the %s model trains 0-1 estimators (Section V)", c.Model))
		}
		return errs
	}
	var errs []error
	if c.Outputs != 0 && (c.Outputs < 2 || c.Outputs > MaxLabels) {
		errs = append(errs, fmt.Errorf("learn: Config.Outputs = %d: the release needs between 2 and %d labels (0: |X|)", c.Outputs, MaxLabels))
	}
	if c.PrivGrad != PrivGradExpect {
		errs = append(errs, fmt.Errorf("learn: Config.PrivGrad = %q: Algorithm 1 on a finite model takes the expectation over F (%q)", c.PrivGrad, PrivGradExpect))
	}
	return errs
}

// finiteLoss is an observer's loss L[x][a] (x ∈ {0..n−1}, a ∈ {0..|A|−1})
// as Algorithm 1 on a finite X uses it. The observer's network estimates
// the posterior q of X in each cell (f, side value), and
//
//   - it decides a*(q) = argmin_a Σ_x q_x L[x][a] (the first minimum), the
//     Bayes decision under q, which is the decision certification assumes
//     of the exact posterior; its loss for target x is L[x][a*(q)], the
//     privatizer's objective with the log-loss estimators (EstLossLog) and
//     the hard losses recorded beside;
//   - its soft loss, what it trains on with EstLossSoft and the
//     privatizer's objective then, is the expected loss of the soft
//     decision that draws X̂ ~ q and acts as if X = X̂:
//     ℓ(q, x) = Σ_k q_k L[x][b(k)], b(k) = argmin_a L[k][a] (the first
//     minimum), linear in q, with gradient q_k (L[x][b(k)] − ℓ) in the
//     logits.
//
// With L the 0-1 loss on {0..n−1}, a*(q) is the MAP decision and ℓ(q, x) =
// 1 − q_x, Section V-B's losses; the trainer then keeps a nil *finiteLoss
// and computes them as it always has, bit for bit. The log loss trains q
// toward the posterior whatever L is (a proper scoring rule), so only the
// decisions see L there. The soft loss reaches only the actions b(k); an
// action that is best for no certain X (a hedge) is taken by a*(q) alone.
type finiteLoss struct {
	n, na int
	l     []float64 // l[x*na+a] = L[x][a]
	cost  []float64 // cost[x*n+k] = L[x][b(k)]
	risk  []float64 // scratch, na
}

// finiteLosses returns the observers' losses of law (nil: every observer
// 0-1), one per observer, nil where the loss is 0-1, for a dataset whose X
// takes n values and with k adversaries.
func finiteLosses(law *mip.Finite, k, n int) ([]*finiteLoss, error) {
	out := make([]*finiteLoss, 1+k)
	if law == nil {
		return out, nil
	}
	if err := checkLaw(law, k); err != nil {
		return nil, err
	}
	if len(law.Prior) < n {
		return nil, fmt.Errorf("%w: the data's X takes %d values, the law's prior has %d", ErrLaw, n, len(law.Prior))
	}
	for i, o := range law.Observers() {
		if o.ZeroOne() {
			continue
		}
		na := len(o.Loss[0])
		r := &finiteLoss{n: n, na: na, l: make([]float64, n*na), cost: make([]float64, n*n), risk: make([]float64, na)}
		for x := range n {
			copy(r.l[x*na:x*na+na], o.Loss[x])
		}
		for k := range n {
			b := argmin(r.l[k*na : k*na+na])
			for x := range n {
				r.cost[x*n+k] = r.l[x*na+b]
			}
		}
		out[i] = r
	}
	return out, nil
}

// zeroOneLaw reports whether every observer of the law has the 0-1 loss.
func zeroOneLaw(l *mip.Finite) bool {
	return !slices.ContainsFunc(l.Observers(), func(o mip.Observer) bool { return !o.ZeroOne() })
}

func argmin(v []float64) int {
	a := 0
	for k, x := range v {
		if x < v[a] {
			a = k
		}
	}
	return a
}

// cell writes the losses of the estimate q in one cell for every target x:
// soft[x] = ℓ(q, x) and hard[x] = L[x][a*(q)]. A nil r is the 0-1 loss.
func (r *finiteLoss) cell(q, soft, hard []float64) {
	if r == nil {
		a := 0
		for k, v := range q {
			if v > q[a] {
				a = k
			}
		}
		for x, qx := range q {
			soft[x] = 1 - qx
			hard[x] = 1
			if x == a {
				hard[x] = 0
			}
		}
		return
	}
	n, na := r.n, r.na
	clear(r.risk)
	for x, qx := range q {
		for a, l := range r.l[x*na : x*na+na] {
			r.risk[a] += qx * l
		}
	}
	a := argmin(r.risk)
	for x := range n {
		hard[x] = r.l[x*na+a]
		var s float64
		for k, c := range r.cost[x*n : x*n+n] {
			s += q[k] * c
		}
		soft[x] = s
	}
}

// softGrad adds w times the gradient of ℓ(q, x) in the logits, w·q_k
// (L[x][b(k)] − ℓ), into d; loss is ℓ(q, x).
func (r *finiteLoss) softGrad(q []float64, x int, loss float64, d []float64, w float64) {
	for k, c := range r.cost[x*r.n : x*r.n+r.n] {
		d[k] += w * float64(q[k]*(c-loss))
	}
}
