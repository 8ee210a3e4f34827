package learn

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/model/kind"
)

// TestPrivLossGradient checks the privatizer step's gradient — L_priv back-
// propagated through the frozen reconstructor and adversaries into f and on
// into θ_k — against central finite differences of L_priv itself, for the
// Gaussian model (one and two side columns), and for the binary model, where
// the reconstructor sees p̂ and the adversary a fixed draw of f (its term is
// then constant in θ_k, so the finite difference also confirms that the
// analytic gradient rightly omits it).
func TestPrivLossGradient(t *testing.T) {
	cases := []struct {
		name string
		ds   *Dataset
		cfg  func() Config
		d    float64
	}{
		{"gauss", paperGauss(2400, 1), func() Config { return smallConfig(t, kind.Gauss, []float64{1}, 5.76) }, 1},
		{"gauss-above-D", paperGauss(2400, 1), func() Config { return smallConfig(t, kind.Gauss, []float64{100}, 200) }, 100},
		{"gauss-vector-y", coalition(paperGauss(2400, 2)), func() Config { return smallConfig(t, kind.Gauss, []float64{1}, 5.76) }, 1},
		{"binary", paperBinary(2400, 3), func() Config { return paperGrad(smallConfig(t, kind.Binary, []float64{0.05}, 0.2)) }, 0.05},
		{"binary-below-D", paperBinary(2400, 3), func() Config { return paperGrad(smallConfig(t, kind.Binary, []float64{0.9}, 1)) }, 0.9},
		// The exact expectation over F (the quick preset's), with the
		// log-loss estimators' MAP errors and with soft 0-1 losses.
		{"binary-expect", paperBinary(2400, 3), func() Config { return smallConfig(t, kind.Binary, []float64{0.05}, 0.2) }, 0.05},
		{"binary-expect-above-D", paperBinary(2400, 3), func() Config { return smallConfig(t, kind.Binary, []float64{0.001}, 0.2) }, 0.001},
		{"binary-expect-soft", paperBinary(2400, 3), func() Config {
			c := smallConfig(t, kind.Binary, []float64{0.05}, 0.2)
			c.EstLoss = EstLossSoft
			return c
		}, 0.05},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg()
			c.BatchSize = 50
			tr := mustTrainer(t, mustData(t, tc.ds, c), c, tc.d, 11)
			// Train a little so the networks are not at their initial state.
			tr.Epoch()
			n := c.BatchSize
			tr.gather(tr.data.Train, tr.samplers[0].next(n), -1)
			fillUniform(tr.b.u[:n], tr.bern)
			tr.privLoss(n, true, true)
			grad := slices.Clone(tr.b.privGrad)
			if maxAbs(grad) == 0 {
				t.Fatal("zero gradient")
			}
			const eps = 1e-6
			p := tr.Priv.Params
			gs := maxAbs(grad)
			for k := range p {
				p0 := p[k]
				p[k] = p0 + eps
				lp := refPrivLoss(tr, n)
				p[k] = p0 - eps
				lm := refPrivLoss(tr, n)
				p[k] = p0
				checkClose(t, fmt.Sprintf("dL_priv/dθ_k[%d]", k), grad[k], (lp-lm)/(2*eps), gs, 1e-5)
			}
		})
	}
}

// refPrivLoss computes L_priv on the trainer's gathered minibatch of n rows
// independently of privLoss: row by row with Predict, straight from eq.
// (priv_loss) and the losses of Section V.
func refPrivLoss(tr *Trainer, n int) float64 {
	if tr.cfg.PrivGrad == PrivGradExpect {
		return refPrivLossExpect(tr, n)
	}
	b := &tr.b
	binary := tr.cfg.Model == kind.Binary
	loss := func(x, e float64) float64 {
		if binary {
			return x*(1-e) + (1-x)*e
		}
		return (e - x) * (e - x)
	}
	var lRecon float64
	lAdv := make([]float64, len(tr.Adv))
	for r := range n {
		x := b.x[r]
		p := tr.Priv.Predict([]float64{b.privIn[r], b.privIn[n+r]})
		in := row(b.obs[0].in, tr.Recon.In, n, r)
		in[0] = p // binary: the reconstructor sees p̂
		lRecon += loss(x, tr.Recon.Predict(in)) / float64(n)
		f := p
		if binary && b.u[r] < p {
			f = 1
		} else if binary {
			f = 0
		}
		for i, a := range tr.Adv {
			in := row(b.obs[1+i].in, a.In, n, r)
			in[0] = f
			lAdv[i] += loss(x, a.Predict(in)) / float64(n)
		}
	}
	return -slices.Min(lAdv) + tr.cfg.Rho/2*(max(lRecon-tr.D, 0)+max(tr.D-lRecon, 0))
}

// refPrivLossExpect is refPrivLoss for PrivGrad = PrivGradExpect: every
// observer's loss is the expectation over F ~ Bernoulli(p̂) of its loss with
// f = 1 and f = 0, a 0-1 loss of the estimate's MAP decision (EstLossLog)
// or the soft 0-1 loss.
func refPrivLossExpect(tr *Trainer, n int) float64 {
	b := &tr.b
	loss := func(x, e float64) float64 {
		if tr.cfg.EstLoss == EstLossLog {
			if (e > 0.5) == (x == 1) {
				return 0
			}
			return 1
		}
		return x*(1-e) + (1-x)*e
	}
	expect := func(m *MLP, in []float64, x, p float64) float64 {
		in[0] = 1
		l1 := loss(x, m.Predict(in))
		in[0] = 0
		return p*l1 + (1-p)*loss(x, m.Predict(in))
	}
	var lRecon float64
	lAdv := make([]float64, len(tr.Adv))
	for r := range n {
		x := b.x[r]
		p := tr.Priv.Predict([]float64{b.privIn[r], b.privIn[n+r]})
		lRecon += expect(tr.Recon, row(b.obs[0].in, tr.Recon.In, n, r), x, p) / float64(n)
		for i, a := range tr.Adv {
			lAdv[i] += expect(a, row(b.obs[1+i].in, a.In, n, r), x, p) / float64(n)
		}
	}
	return -slices.Min(lAdv) + tr.cfg.Rho/2*(max(lRecon-tr.D, 0)+max(tr.D-lRecon, 0))
}

// paperGrad returns c with Section V-B's practical compromise for the
// binary privatizer's gradient and its soft 0-1 estimators.
func paperGrad(c Config) Config {
	c.PrivGrad, c.EstLoss, c.Rho = PrivGradSampled, EstLossSoft, 1
	return c
}

// TestEstLossGradient checks the log loss's derivative against central
// finite differences, and that its minimizer over a constant estimate is the
// empirical frequency of X = 1 (the posterior).
func TestEstLossGradient(t *testing.T) {
	c := smallConfig(t, kind.Binary, []float64{0.05}, 0.2)
	tr := mustTrainer(t, mustData(t, paperBinary(2400, 3), c), c, 0.05, 11)
	x := []float64{1, 0, 1, 1, 0}
	est := []float64{0.9, 0.2, 0.4, 0.7, 0.55}
	d := make([]float64, len(x))
	tr.estLossGrad(x, est, d)
	const eps = 1e-7
	for k := range est {
		e0 := est[k]
		est[k] = e0 + eps
		lp := tr.estLossGrad(x, est, make([]float64, len(x)))
		est[k] = e0 - eps
		lm := tr.estLossGrad(x, est, make([]float64, len(x)))
		est[k] = e0
		checkClose(t, fmt.Sprintf("dL/dq[%d]", k), d[k], (lp-lm)/(2*eps), 1, 1e-6)
	}
	// A constant estimate q: L(q) is minimal at q = mean(x) = 0.6.
	best, bestQ := math.Inf(1), 0.0
	for q := 0.01; q < 1; q += 0.01 {
		c := []float64{q, q, q, q, q}
		if l := tr.estLossGrad(x, c, d); l < best {
			best, bestQ = l, q
		}
	}
	if math.Abs(bestQ-0.6) > 0.005 {
		t.Errorf("log loss minimized at q = %g, want the frequency 0.6", bestQ)
	}
}

// coalition turns the Gaussian dataset into the coalition setting of Section
// II: the reconstructor sees y = (z1, z2).
func coalition(ds *Dataset) *Dataset {
	ds.Y = [][]float64{ds.Z[0][0], ds.Z[1][0]}
	return ds
}

// TestReconstructorAlone trains only the reconstructor, with the privatizer
// fixed at f ≡ 0, on X, Y jointly Gaussian with σ_X² = 16, σ_Y² = 1,
// ρ = 0.8: the best MSE is Var[X|Y] = 16(1 − 0.64) = 5.76, which the test
// split's MSE must reach within 5%.
func TestReconstructorAlone(t *testing.T) {
	const n, test = 10000, 20000
	rng := rand.New(rand.NewPCG(42, 43))
	cov := [][]float64{{16, 0.8 * 4}, {0.8 * 4, 1}}
	c := gaussCols(n+test, []float64{4, 3}, cov, rng)
	ds := &Dataset{X: c[0], Y: [][]float64{c[1]}, Z: [][][]float64{{c[1]}}}
	cfg, err := Preset(PresetPaper, kind.Gauss)
	if err != nil {
		t.Fatal(err)
	}
	cfg.D, cfg.DMax, cfg.TrainSize, cfg.TestSize = []float64{1}, 5.76, n, test
	tr := mustTrainer(t, mustData(t, ds, cfg), cfg, 1, 5)
	clear(tr.Priv.Params) // f = k(x, r) ≡ 0: no information about x
	for range 60 * tr.cfg.BatchesPerEpoch {
		tr.obsStep(0)
	}
	tr.Evaluate()
	got := tr.History().Recon[0]
	t.Logf("MSE %g", got)
	if math.Abs(got-5.76)/5.76 > 0.05 {
		t.Errorf("reconstructor MSE %g, want 5.76 within 5%%", got)
	}
}

// TestIterationAllocs asserts a steady-state Algorithm 1 iteration and an
// epoch's evaluation allocate nothing.
func TestIterationAllocs(t *testing.T) {
	for _, model := range []kind.Kind{kind.Gauss, kind.Binary} {
		ds, dmax := paperGauss(2400, 1), 5.76
		if model == kind.Binary {
			ds, dmax = paperBinary(2400, 1), 0.2
		}
		c := smallConfig(t, model, []float64{0.1}, dmax)
		tr := mustTrainer(t, mustData(t, ds, c), c, 0.1, 3)
		tr.Iteration()
		if a := testing.AllocsPerRun(20, tr.Iteration); a != 0 {
			t.Errorf("%s: %v allocations per minibatch iteration, want 0", model, a)
		}
		if a := testing.AllocsPerRun(3, tr.Evaluate); a != 0 {
			t.Errorf("%s: %v allocations per evaluation, want 0", model, a)
		}
		// Snapshots: none outside the band, none once K are held.
		for range c.Protocol.K {
			tr.keep()
		}
		if a := testing.AllocsPerRun(3, tr.keep); a != 0 {
			t.Errorf("%s: %v allocations per snapshot, want 0", model, a)
		}
	}
}

// TestSamplerPasses checks that each role's sampler visits every training
// row once per pass and that roles draw different minibatches.
func TestSamplerPasses(t *testing.T) {
	s := newSampler(1000, rand.New(rand.NewPCG(1, 1)))
	seen := make([]int, 1000)
	for range 5 {
		for _, r := range s.next(200) {
			seen[r]++
		}
	}
	for r, k := range seen {
		if k != 1 {
			t.Fatalf("row %d drawn %d times in one pass", r, k)
		}
	}
	// A pass that does not divide evenly drops the remainder (at most M−1 rows).
	s = newSampler(1050, rand.New(rand.NewPCG(1, 2)))
	a := slices.Clone(s.next(200))
	for range 4 {
		s.next(200)
	}
	b := s.next(200) // the 51 remaining rows do not make a minibatch: reshuffle
	if s.pos != 200 || slices.Equal(a, b) {
		t.Errorf("expected a reshuffle after 5 minibatches of 1050 rows")
	}
}

func TestTrialSeed(t *testing.T) {
	seen := map[uint64]bool{}
	for d := range 30 {
		for tr := range 200 {
			s := TrialSeed(1, d, tr)
			if seen[s] {
				t.Fatalf("TrialSeed(1, %d, %d) repeats a seed", d, tr)
			}
			seen[s] = true
		}
	}
	if TrialSeed(1, 0, 0) == TrialSeed(2, 0, 0) {
		t.Error("master seed ignored")
	}
	// SplitMix64's first output from state 0 (Vigna's reference: seed 0).
	if got := splitmix64(0); got != 0xe220a8397b1dcdaf {
		t.Errorf("splitmix64(0) = %#x, want 0xe220a8397b1dcdaf", got)
	}
}

// TestTrainerLearnsGauss runs a few short epochs of Algorithm 1 and checks the
// privatizer drives L_recon toward D from far above it.
func TestTrainerLearnsGauss(t *testing.T) {
	c := smallConfig(t, kind.Gauss, []float64{3}, 5.76)
	c.Epochs, c.BatchesPerEpoch = 40, 10
	tr := mustTrainer(t, mustData(t, paperGauss(2400, 9), c), c, 3, 1)
	if err := tr.Run(nil); err != nil {
		t.Fatal(err)
	}
	h := tr.History()
	first, last := h.Recon[0], h.Recon[h.Len()-1]
	if !(math.Abs(last-3) < math.Abs(first-3)) || math.Abs(last-3) > 1.5 {
		t.Errorf("L_recon went from %g to %g; want it near D = 3", first, last)
	}
}

// row copies row r of the feature-major w×n batch in.
func row(in []float64, w, n, r int) []float64 {
	x := make([]float64, w)
	for i := range x {
		x[i] = in[i*n+r]
	}
	return x
}

// TestTrainingFingerprint trains the paper's setup for three epochs twice
// from the same seed and requires the same bits; it logs a fingerprint of
// every parameter so that scripts/check-kernels.sh can compare the assembly
// build with the portable one (-tags purego), and of sweeps of the labels
// method and of Algorithm 1 on a finite model.
func TestTrainingFingerprint(t *testing.T) {
	for _, model := range []kind.Kind{kind.Gauss, kind.Binary} {
		var prints [2]uint64
		for k := range prints {
			tr := benchTrainer(t, model)
			for range 3 {
				tr.Epoch()
				tr.Evaluate()
			}
			h := uint64(14695981039346656037) // FNV-1a over the parameters' bits
			for _, m := range append([]*MLP{tr.Priv, tr.Recon}, tr.Adv...) {
				for _, p := range m.Params {
					h = (h ^ math.Float64bits(p)) * 1099511628211
				}
			}
			prints[k] = h
		}
		if prints[0] != prints[1] {
			t.Errorf("%v: two runs from one seed differ: %x vs %x", model, prints[0], prints[1])
		}
		t.Logf("fingerprint %v %016x", model, prints[0])
	}
	// The labels method on a finite model, with a codebook wider than
	// bayesRisk's vector kernels (16 labels) and a tail: its points'
	// channels, losses and histories.
	for _, obs := range []ObserverKind{ObserversLaw, ObserversData} {
		ds, cfg := tinyFinite(t)
		cfg.Labels.M, cfg.Labels.Observers, cfg.Workers = 19, obs, 1
		t.Logf("fingerprint labels-%v %016x", obs, sweepFingerprint(t, ds, cfg))
	}
	// Algorithm 1 on a finite model: denseNet's kernels
	// (learn/dense_amd64.s) with an odd number of labels and hidden units
	// past the last block of four.
	{
		ds, cfg := tinyFiniteAlg1(t, 5)
		cfg.Hidden, cfg.Workers = 13, 1
		t.Logf("fingerprint alg1-finite %016x", sweepFingerprint(t, ds, cfg))
	}
	// The labels method on the paper's Gaussian model at its first
	// threshold: the cell kernels' losses through gauss's products
	// (gauss/gemm_amd64.s in the assembly build, gonum's DGEMM in the
	// portable one).
	gm, err := model.Paper(model.Gauss)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := PresetFor(PresetQuick, model.Gauss, MethodLabels, DefaultLabels)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTraining(gm, cfg, TrainRequest{Preset: PresetQuick, Seed: 1, Samples: 600})
	if err != nil {
		t.Fatal(err)
	}
	tr.Config.D, tr.Config.Workers = tr.Config.D[:1], 1
	t.Logf("fingerprint labels-gauss %016x", sweepFingerprint(t, tr.Data, tr.Config))
}

// sweepFingerprint trains ds with cfg and returns FNV-1a of its points'
// JSON, the trials' timings zeroed.
func sweepFingerprint(t *testing.T, ds *Dataset, cfg Config) uint64 {
	t.Helper()
	res, err := Sweep(context.Background(), ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Points {
		for k := range res.Points[i].Trials {
			res.Points[i].Trials[k].Seconds = 0
		}
	}
	b, err := json.Marshal(res.Points)
	if err != nil {
		t.Fatal(err)
	}
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}
