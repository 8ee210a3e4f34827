package learn

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// Trainer runs Algorithm 1 for one trial: one threshold D, one seed. It owns
// its networks, optimizers, random streams and every buffer, so a steady-state
// minibatch iteration allocates nothing. A Trainer is not safe for concurrent
// use; trials run on separate Trainers.
type Trainer struct {
	cfg   *Config
	data  *Data
	D     float64
	Seed  uint64
	Priv  *MLP   // privatizer k: (x, r) → f (Gaussian) or p̂ (binary)
	Recon *MLP   // reconstructor g: (f, y…) → x̂
	Adv   []*MLP // adversaries h_i: (f, z_i…) → x̃_i
	obs   []*MLP // the observers: Recon, then Adv

	opt      []*Optimizer // privatizer, reconstructor, adversaries
	samplers []*sampler   // one per role, same order
	bern     *rand.Rand   // training draws of f ~ Bernoulli(p̂)
	eval     *rand.Rand   // evaluation draws of f ~ Bernoulli(p̂)
	hist     History
	snaps    bandSnaps
	b        buffers
}

// snap is a copy of every network's parameters after one epoch.
type snap struct {
	epoch  int
	params [][]float64 // privatizer, reconstructor, adversaries
}

// Snapshot is the networks after one epoch, in JSON form, or the labels
// method's channel on a finite X.
type Snapshot struct {
	Epoch    int               `json:"epoch"`
	Networks []network.Network `json:"networks"`
	Channel  [][]float64       `json:"channel,omitempty"`
	// Kernel is the labels method's privatizer on a continuous X.
	Kernel *privatizer.Kernel `json:"kernel,omitempty"`
}

// buffers are a Trainer's preallocated minibatch buffers, M rows each.
type buffers struct {
	idx      []int32
	x        []float64 // targets
	u        []float64 // uniforms for f ~ Bernoulli(p̂): f = 1 iff u < p̂
	privIn   []float64 // M×2
	privH    []float64
	privOut  []float64 // f (Gaussian) or p̂ (binary)
	privGrad []float64
	dF       []float64 // dL_priv/df (or dL_priv/dp̂)
	dTmp     []float64
	v        []float64    // Hidden: InputGradCol scratch
	obs      []obsBuffers // per observer: reconstructor, adversaries
	loss     []float64    // per observer
	hard     []float64    // per observer
	l1, l0   []float64    // per-row losses with f = 1 and f = 0 (PrivGradExpect)
	ones     []float64    // M ones
}

// obsBuffers are an observer's minibatch buffers: its input, M×(1+its side
// columns) with column 0 f, hidden activations and outputs, dL/d(output)
// and its parameter gradient.
type obsBuffers struct{ in, h, out, d, grad []float64 }

// NewTrainer returns a trainer for threshold d with networks initialized from
// the trial seed's init stream (NewMLP, in the order privatizer,
// reconstructor, adversaries). cfg must have been validated by Sweep or be a
// Preset with D and DMax set; NewTrainer fills the same defaults.
func NewTrainer(data *Data, cfg Config, d float64, seed uint64) (*Trainer, error) {
	if len(cfg.D) == 0 {
		cfg.D = []float64{d}
	}
	cfg.TrainSize, cfg.TestSize = data.Train.N, data.Test.N
	c, err := cfg.resolve(data.Train.N + data.Test.N)
	if err != nil {
		return nil, err
	}
	t := &Trainer{cfg: &c, data: data, D: d, Seed: seed}
	out := network.Identity
	if c.binaryRelease() {
		out = network.Sigmoid
	}
	init := rand.New(rand.NewPCG(seed, streamInit))
	tr := data.Train
	t.Priv = NewMLP(2, c.Hidden, out, init)
	t.Recon = NewMLP(1+tr.NY, c.Hidden, out, init)
	for i := range tr.Adv {
		t.Adv = append(t.Adv, NewMLP(1+tr.NZ[i], c.Hidden, out, init))
	}
	t.obs = append([]*MLP{t.Recon}, t.Adv...)
	lp, lr, la := c.learningRates(d)
	t.opt = append(t.opt, NewOptimizer(c.Optimizer, lp, len(t.Priv.Params)), NewOptimizer(c.Optimizer, lr, len(t.Recon.Params)))
	for _, a := range t.Adv {
		t.opt = append(t.opt, NewOptimizer(c.Optimizer, la, len(a.Params)))
	}
	for role := range 2 + len(t.Adv) {
		t.samplers = append(t.samplers, newSampler(tr.N, rand.New(rand.NewPCG(seed, streamSample+uint64(role)))))
	}
	t.bern = rand.New(rand.NewPCG(seed, streamBernoulli))
	t.eval = rand.New(rand.NewPCG(seed, streamEval))
	t.alloc()
	t.hist = newHistory(len(t.Adv), c.binaryRelease(), c.Epochs)
	return t, nil
}

func (t *Trainer) alloc() {
	m, h := t.cfg.BatchSize, t.cfg.Hidden
	b := &t.b
	b.x, b.u, b.privOut, b.dF, b.dTmp = make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	b.privIn, b.privH, b.privGrad = make([]float64, 2*m), make([]float64, m*h), make([]float64, len(t.Priv.Params))
	b.v = make([]float64, h)
	for _, o := range t.obs {
		b.obs = append(b.obs, obsBuffers{in: make([]float64, m*o.In), h: make([]float64, m*h),
			out: make([]float64, m), d: make([]float64, m), grad: make([]float64, len(o.Params))})
	}
	b.loss, b.hard = make([]float64, len(t.obs)), make([]float64, len(t.obs))
	b.idx = make([]int32, m)
	if t.cfg.PrivGrad == PrivGradExpect {
		b.l1, b.l0, b.ones = make([]float64, m), make([]float64, m), make([]float64, m)
		for k := range b.ones {
			b.ones[k] = 1
		}
	}
}

// History returns the per-epoch test-split evaluations so far. The slices
// are the trainer's own; copy them to keep them past the next Epoch.
func (t *Trainer) History() *History { return &t.hist }

// Run trains for cfg.Epochs epochs, evaluating on the test split after each
// (Algorithm 1, lines 4–33, with an evaluation per epoch for Section V's
// selection). It stops early with stop's error when stop returns one (a
// context's Err, for example).
func (t *Trainer) Run(stop func() error) error {
	return epochs(t.cfg.Epochs, stop, func(int) {
		t.Epoch()
		t.Evaluate()
		t.keep()
	})
}

// epochs calls epoch(e) for e = 0, 1, …, n−1, first calling stop (when not
// nil) and returning its error when it has one.
func epochs(n int, stop func() error, epoch func(e int)) error {
	for e := range n {
		if stop != nil {
			if err := stop(); err != nil {
				return err
			}
		}
		epoch(e)
	}
	return nil
}

// cosineRate is the labels methods' rate at step s of total: lr decayed by
// a cosine to 1% of itself, so that the last epochs settle.
func cosineRate(lr float64, s int, total float64) float64 {
	return lr * (0.01 + 0.99*0.5*(1+math.Cos(math.Pi*float64(s)/total)))
}

// keep snapshots the networks when the epoch just evaluated has L_recon in
// the selection band (bandSnaps.keep).
func (t *Trainer) keep() { t.snaps.keep(t.cfg, t.D, &t.hist, t.params) }

// Snapshots returns the networks at the last Protocol.K epochs whose L_recon
// was in [D − τ, D], in epoch order.
func (t *Trainer) Snapshots() []Snapshot { return t.snaps.snapshots(t.networksOf) }

// params returns the networks' parameters: privatizer, reconstructor,
// adversaries.
func (t *Trainer) params() [][]float64 {
	params := [][]float64{t.Priv.Params, t.Recon.Params}
	for _, a := range t.Adv {
		params = append(params, a.Params)
	}
	return params
}

// bandSnaps is a copy of every network's parameters at the last
// Protocol.K epochs whose L_recon was in the selection band [D − τ, D], in
// epoch order: the candidates PickEpoch chooses from, so the finalized
// point's networks are those of its own epoch.
type bandSnaps []snap

// keep adds a copy of the parameters (params returns them) when the epoch
// h evaluated last is in the band of threshold d, reusing the oldest
// snapshot's buffers once K are kept. Outside the band it allocates
// nothing.
func (b *bandSnaps) keep(c *Config, d float64, h *History, params func() [][]float64) {
	e := h.Len() - 1
	k, tau := c.Protocol.K, c.Protocol.Tau
	if r := h.selected(c.Protocol).Recon[e]; !(r >= d-tau && r <= d) || k < 1 {
		return
	}
	ps := params()
	s := *b
	if len(s) < k {
		s = append(s, snap{params: make([][]float64, len(ps))})
	} else {
		oldest := s[0]
		copy(s, s[1:])
		s[k-1] = oldest
	}
	last := &s[len(s)-1]
	last.epoch = e
	for i, p := range ps {
		last.params[i] = append(last.params[i][:0], p...)
	}
	*b = s
}

// snapshots returns the kept epochs with their networks as networksOf
// makes them from the parameters.
func (b bandSnaps) snapshots(networksOf func([][]float64) []network.Network) []Snapshot {
	out := make([]Snapshot, len(b))
	for k, s := range b {
		out[k] = Snapshot{Epoch: s.epoch, Networks: networksOf(s.params)}
	}
	return out
}

// Epoch runs BatchesPerEpoch iterations of Algorithm 1's loop body: per
// iteration the privatizer step, the reconstructor step and each adversary's
// step, each on its own minibatch. With the defaults an epoch is one pass of
// every role's sampler over the training split (50 minibatches of 200 for
// 10,000 rows).
func (t *Trainer) Epoch() {
	for range t.cfg.BatchesPerEpoch {
		t.Iteration()
	}
}

// Iteration runs one pass of Algorithm 1's loop body (lines 5–32).
func (t *Trainer) Iteration() {
	t.privStep()
	for j := range t.obs {
		t.obsStep(j)
	}
}

// gather copies the rows idx of the training split into the minibatch
// buffers, feature-major with n = len(idx) rows: x, the privatizer's (x, r),
// and the side columns (rows 1.. of observer j's input, of every
// observer's for j < 0).
func (t *Trainer) gather(s *Split, idx []int32, j int) {
	b := &t.b
	n := len(idx)
	x, pa, pb := b.x[:n], b.privIn[:n], b.privIn[n:2*n]
	for k, r := range idx {
		x[k] = s.X[r]
		pa[k], pb[k] = s.Priv[2*r], s.Priv[2*r+1]
	}
	for i := range t.obs {
		if j < 0 || j == i {
			side, w := s.side(i)
			gatherSide(b.obs[i].in, side, w, idx)
		}
	}
}

// gatherSide fills rows 1..w of the feature-major (1+w)×n input dst from the
// rows idx of src (w columns each, row-major), n = len(idx).
func gatherSide(dst, src []float64, w int, idx []int32) {
	n := len(idx)
	for c := 0; c < w; c++ {
		d := dst[(c+1)*n : (c+2)*n]
		for k, r := range idx {
			d[k] = src[int(r)*w+c]
		}
	}
}

// setF writes f into input 0 (the first n entries) of a feature-major input.
func setF(in []float64, f []float64) { copy(in[:len(f)], f) }

// drawF turns the privatizer's outputs p̂ into f ~ Bernoulli(p̂) using the
// uniforms u: f = 1 iff u < p̂.
func drawF(f, p, u []float64) {
	for k := range f {
		f[k] = 0
		if u[k] < p[k] {
			f[k] = 1
		}
	}
}

func fillUniform(u []float64, rng *rand.Rand) {
	for k := range u {
		u[k] = rng.Float64()
	}
}

// privStep is Algorithm 1, lines 6–15: the reconstructor and adversaries are
// frozen, the gradient of L_priv flows through them into f and on into θ_k.
func (t *Trainer) privStep() {
	m := t.cfg.BatchSize
	idx := t.samplers[0].next(m)
	t.gather(t.data.Train, idx, -1)
	if t.cfg.binaryRelease() {
		fillUniform(t.b.u[:m], t.bern)
	}
	t.privLoss(m, true, false)
	t.opt[0].Step(t.Priv.Params, t.b.privGrad)
}

// privLoss evaluates L_priv = −min_i L_adv,i + ρ/2 ((L_recon − D)⁺ +
// (D − L_recon)⁺) (eq. (priv_loss), line 14) on the n gathered rows and,
// when grad, writes dL_priv/dθ_k into privGrad.
//
// Gaussian: f = k(x, r) goes to every network. Only the adversary attaining
// the minimum receives gradient (ties: the lowest index), as in autograd.
//
// Binary (Section V-B): the reconstructor receives p̂ = k(x, r) in place of f
// so that gradients flow, the adversaries receive f ~ Bernoulli(p̂). A sampled
// f has zero derivative in θ_k, so the adversarial term contributes no
// gradient: the privatizer step only moves L_recon toward D (the paper's
// "practical compromise"). The adversaries' forward passes are then skipped
// unless the loss value is wanted (wantLoss).
//
// At L_recon = D the penalty's derivative is taken as 0, as autograd's
// derivative of ReLU at 0.
func (t *Trainer) privLoss(n int, grad, wantLoss bool) float64 {
	if t.cfg.PrivGrad == PrivGradExpect {
		return t.privLossExpect(n, grad)
	}
	b := &t.b
	binary := t.cfg.binaryRelease()
	t.Priv.Forward(b.privIn, n, b.privH, b.privOut)
	p := b.privOut[:n]
	lRecon := t.observe(0, p)
	adv := -1
	lAdv := 0.0
	if !binary || wantLoss {
		f := p
		if binary {
			f = b.dTmp[:n]
			drawF(f, p, b.u[:n])
		}
		for i := range t.Adv {
			if l := t.observe(1+i, f); adv < 0 || l < lAdv {
				adv, lAdv = i, l
			}
		}
	}
	diff := lRecon - t.D
	loss := -lAdv + t.cfg.Rho/2*(max(diff, 0)+max(-diff, 0))
	if !grad {
		return loss
	}
	cRecon := t.cfg.penaltySlope(diff) // dL_priv/dL_recon
	dF := b.dF[:n]
	clear(dF)
	if r := &b.obs[0]; cRecon != 0 {
		floats.Scale(cRecon, r.d[:n])
		t.Recon.InputGradCol(0, r.h, r.out, r.d, n, b.v, dF)
	}
	if a := &b.obs[1+adv]; !binary {
		floats.Scale(-1, a.d[:n])
		t.Adv[adv].InputGradCol(0, a.h, a.out, a.d, n, b.v, b.dTmp)
		floats.Add(dF, b.dTmp[:n])
	}
	t.Priv.Backward(b.privIn, b.privH, b.privOut, dF, n, b.privGrad, nil)
	return loss
}

// observe runs observer j on the gathered rows with f (len(f) of them) in
// its input column 0 and returns its loss (lossGrad), its derivative left
// in the observer's d.
func (t *Trainer) observe(j int, f []float64) float64 {
	o, n := &t.b.obs[j], len(f)
	setF(o.in, f)
	t.obs[j].Forward(o.in, n, o.h, o.out)
	return t.lossGrad(t.b.x[:n], o.out[:n], o.d[:n])
}

// privLossExpect is privLoss for the binary model with PrivGrad =
// PrivGradExpect: the release F ∈ {0, 1} is marginalized exactly, so every
// observer's loss is L = (1/n) Σ_k p̂_k ℓ_k(1) + (1 − p̂_k) ℓ_k(0), with ℓ_k(f)
// the loss of its estimate from (f, side information) on row k (expectLoss),
// and dL/dp̂_k = (ℓ_k(1) − ℓ_k(0))/n. Unlike Section V-B's compromise the
// adversarial term of eq. (priv_loss) then has a gradient, the one of the
// objective itself.
func (t *Trainer) privLossExpect(n int, grad bool) float64 {
	b := &t.b
	t.Priv.Forward(b.privIn, n, b.privH, b.privOut)
	p := b.privOut[:n]
	dF := b.dF[:n]
	clear(dF)
	lRecon := t.expectLoss(0, p)
	diff := lRecon - t.D
	cRecon := t.cfg.penaltySlope(diff)
	floats.AddScaled(dF, cRecon, b.obs[0].d[:n])
	adv, lAdv := -1, 0.0
	for i := range t.Adv {
		if l := t.expectLoss(1+i, p); adv < 0 || l < lAdv {
			adv, lAdv = i, l
			copy(b.dTmp[:n], b.obs[1+i].d[:n])
		}
	}
	loss := -lAdv + t.cfg.Rho/2*(max(diff, 0)+max(-diff, 0))
	if !grad {
		return loss
	}
	floats.AddScaled(dF, -1, b.dTmp[:n])
	t.Priv.Backward(b.privIn, b.privH, b.privOut, dF, n, b.privGrad, nil)
	return loss
}

// expectLoss returns the expected loss of observer j over F ~ Bernoulli(p)
// on the len(p) gathered rows (its input column 0 is f) and writes dL/dp̂
// into its d. The per-row loss is the soft 0-1 loss of the estimate, or
// with EstLoss = EstLossLog the 0-1 error of its MAP decision (the
// estimate is then a posterior).
func (t *Trainer) expectLoss(j int, p []float64) float64 {
	b, m, n := &t.b, t.obs[j], len(p)
	in, h, out, d := b.obs[j].in, b.obs[j].h, b.obs[j].out, b.obs[j].d
	x := b.x[:n]
	for f, l := range [][]float64{b.l0[:n], b.l1[:n]} {
		if f == 0 {
			clear(in[:n])
		} else {
			setF(in, b.ones[:n])
		}
		m.Forward(in, n, h, out)
		for k, xv := range x {
			e := out[k]
			if t.cfg.EstLoss == EstLossLog {
				// The estimate is a posterior: its MAP decision's error.
				l[k] = 0
				if (e > 0.5) != (xv == 1) {
					l[k] = 1
				}
			} else {
				l[k] = xv*(1-e) + (1-xv)*e
			}
		}
	}
	var s float64
	fn := float64(n)
	for k := range x {
		s += p[k]*b.l1[k] + (1-p[k])*b.l0[k]
		d[k] = (b.l1[k] - b.l0[k]) / fn
	}
	return s / fn
}

// lossGrad returns the minibatch loss of the estimates est of the targets x
// and writes its derivative with respect to each estimate into d:
//
//	Gaussian: L = (1/n) Σ (est − x)²,                 dL/dest = 2(est − x)/n
//	Binary:   L = (1/n) Σ x(1 − est) + (1 − x) est,   dL/dest = (1 − 2x)/n
//
// the binary form being the differentiable 0-1 loss of Section V-B.
func (t *Trainer) lossGrad(x, est, d []float64) float64 {
	n := float64(len(x))
	est, d = est[:len(x)], d[:len(x)]
	var s float64
	if t.cfg.binaryRelease() {
		for k, xv := range x {
			e := est[k]
			s += xv*(1-e) + (1-xv)*e
			d[k] = (1 - 2*xv) / n
		}
		return s / n
	}
	for k, xv := range x {
		e := est[k] - xv
		s += e * e
		d[k] = 2 * e / n
	}
	return s / n
}

// estLossGrad is the loss the reconstructor and the adversaries descend on:
// lossGrad's, or with EstLoss = EstLossLog (binary model) the log loss
//
//	L = −(1/n) Σ x log q + (1 − x) log(1 − q),   dL/dq = (q − x) / (q(1 − q) n),
//
// a proper scoring rule, so the estimate q tends to the posterior P(X = 1 |
// inputs) and its MAP decision to the Bayes rule.
func (t *Trainer) estLossGrad(x, est, d []float64) float64 {
	if t.cfg.EstLoss != EstLossLog {
		return t.lossGrad(x, est, d)
	}
	n := float64(len(x))
	est, d = est[:len(x)], d[:len(x)]
	var s float64
	for k, xv := range x {
		q := min(max(est[k], 1e-12), 1-1e-12)
		s -= xv*math.Log(q) + (1-xv)*math.Log(1-q)
		d[k] = (q - xv) / (q * (1 - q) * n)
	}
	return s / n
}

// privatize runs the frozen privatizer on the n gathered rows and leaves f in
// b.dTmp: k(x, r) itself (Gaussian) or a draw from Bernoulli(k(x, r))
// (binary) using rng.
func (t *Trainer) privatize(n int, rng *rand.Rand) []float64 {
	b := &t.b
	t.Priv.Forward(b.privIn, n, b.privH, b.privOut)
	f := b.dTmp[:n]
	if t.cfg.binaryRelease() {
		fillUniform(b.u[:n], rng)
		drawF(f, b.privOut[:n], b.u[:n])
	} else {
		copy(f, b.privOut[:n])
	}
	return f
}

// obsStep is Algorithm 1's step of observer j, lines 16–21 for the
// reconstructor (j = 0) and 23–30 for adversary j: the privatizer is
// frozen, the observer takes (f, its side information) and descends on its
// loss.
func (t *Trainer) obsStep(j int) {
	m, o, b := t.cfg.BatchSize, t.obs[j], &t.b.obs[j]
	t.gather(t.data.Train, t.samplers[1+j].next(m), j)
	setF(b.in, t.privatize(m, t.bern))
	o.Forward(b.in, m, b.h, b.out)
	t.estLossGrad(t.b.x[:m], b.out[:m], b.d[:m])
	o.Backward(b.in, b.h, b.out, b.d, m, b.grad, nil)
	t.opt[1+j].Step(o.Params, b.grad)
}

// Evaluate computes the losses on the whole test split, in chunks of M rows,
// with the networks as they are used in training: f = k(x, r) (Gaussian) or
// f ~ Bernoulli(k(x, r)) drawn from the evaluation stream (binary) goes to
// the reconstructor and every adversary, and appends them to History. For the
// binary model it also records the hard-decision 0-1 errors (estimate
// thresholded at 1/2); selection uses the soft losses (Section V-B's form).
func (t *Trainer) Evaluate() {
	s := t.data.Test
	m := t.cfg.BatchSize
	b := &t.b
	binary := t.cfg.binaryRelease()
	loss, hard := b.loss, b.hard
	clear(loss)
	clear(hard)
	for lo := 0; lo < s.N; lo += m {
		n := min(m, s.N-lo)
		t.gather(s, b.idxRange(lo, n), -1)
		f := t.privatize(n, t.eval)
		for j := range t.obs {
			loss[j] += float64(n) * t.observe(j, f)
			if binary {
				hard[j] += hardErrors(b.x[:n], b.obs[j].out[:n])
			}
		}
	}
	// The reconstructor's means are sums/nt, the adversaries' sums·(1/nt).
	nt := float64(s.N)
	floats.Scale(1/nt, loss[1:])
	floats.Scale(1/nt, hard[1:])
	t.hist.add(loss[0]/nt, loss[1:], hard[0]/nt, hard[1:])
}

// idxRange returns the indices lo, …, lo+n−1 in the trainer's index buffer.
func (b *buffers) idxRange(lo, n int) []int32 {
	if cap(b.idx) < n {
		b.idx = make([]int32, n)
	}
	idx := b.idx[:n]
	for k := range idx {
		idx[k] = int32(lo + k)
	}
	return idx
}

// hardErrors counts the rows where the estimate thresholded at 1/2 differs
// from x.
func hardErrors(x, est []float64) float64 {
	var e float64
	for k, xv := range x {
		d := 0.0
		if est[k] > 0.5 {
			d = 1
		}
		if d != xv {
			e++
		}
	}
	return e
}
