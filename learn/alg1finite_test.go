package learn

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model/kind"
	"github.com/mmds-project/mmds/network"
)

// tinyFiniteAlg1 is tinyFinite's data with Algorithm 1's quick preset,
// shortened, and a release of m labels.
func tinyFiniteAlg1(t *testing.T, m int) (*Dataset, Config) {
	t.Helper()
	ds, lc := tinyFinite(t)
	cfg, err := PresetFor(PresetQuick, kind.Finite, MethodAlg1, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Outputs, cfg.Hidden, cfg.BatchSize = m, 8, 50
	cfg.Epochs = 4
	cfg.Protocol = Protocol{K: 2, Accept: 2, MaxAttempts: 3, Select: SelectHard, Tau: 0.2}
	cfg.DMax, cfg.D, cfg.Seed = lc.DMax, lc.D, lc.Seed
	return ds, cfg
}

// TestFiniteAlg1DeterministicAcrossWorkers: an Algorithm 1 sweep on a
// finite model gives the same points, networks and histories with 1 and 2
// workers.
func TestFiniteAlg1DeterministicAcrossWorkers(t *testing.T) {
	var got [2][]byte
	for w := range 2 {
		ds, cfg := tinyFiniteAlg1(t, 4)
		cfg.Workers = w + 1
		res, err := Sweep(context.Background(), ds, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Points {
			for k := range res.Points[i].Trials {
				res.Points[i].Trials[k].Seconds = 0
			}
		}
		if got[w], err = json.Marshal(res.Points); err != nil {
			t.Fatal(err)
		}
	}
	if string(got[0]) != string(got[1]) {
		t.Error("results differ between 1 and 2 workers")
	}
}

// TestFinitePrivatizerRecordMonteCarlo: the privatizer record of the
// trainer, read back as a network.Network (DResult.Privatizer), releases the
// law the trainer's own forward pass computes: network's certified channel
// row E_R[softmax(k(x, R))] matches a Monte Carlo estimate through
// forwardRows within 4.5 standard errors per entry, and its stated ℓ1
// error is small.
func TestFinitePrivatizerRecordMonteCarlo(t *testing.T) {
	const n, m, draws = 3, 4, 200000
	rng := rand.New(rand.NewPCG(11, 12))
	d := newDenseNet(n+1, 16, m, rng)
	for k := range d.params {
		d.params[k] *= 3 // sharper softmax, more kinks inside the range
	}
	d.refresh()
	nw, err := (&DResult{Networks: []network.Network{d.network(d.params, "privatizer", append(oneHotNames("x", n), "r"))}}).Privatizer()
	if err != nil {
		t.Fatal(err)
	}
	h, q := make([]float64, d.hp), make([]float64, m)
	for x := range n {
		row, err := nw.ExpectRow(context.Background(), float64(x), network.DefaultTol)
		if err != nil {
			t.Fatal(err)
		}
		if row.Bound > network.DefaultTol {
			t.Errorf("stated ℓ1 error %g, want ≤ %g", row.Bound, network.DefaultTol)
		}
		sum, sq := make([]float64, m), make([]float64, m)
		for range draws {
			// one row: one-hot column x of the first n inputs, r in column n
			d.forwardRows([]int{x * d.hp}, []int{n * d.hp}, []float64{rng.NormFloat64()}, h, q)
			network.SoftmaxInPlace(q)
			for f, v := range q {
				sum[f] += v
				sq[f] += v * v
			}
		}
		for f := range m {
			mean := sum[f] / draws
			se := math.Sqrt(max(sq[f]/draws-mean*mean, 0) / draws)
			if math.Abs(row.P[f]-mean) > 4.5*se+1e-9 {
				t.Errorf("P(%d | %d) = %.6f, Monte Carlo %.6f ± %.2g", f, x, row.P[f], mean, se)
			}
		}
	}
}

// TestFinitePrivatizerRecordRejects: records that are not a valid network
// are errors wrapping network.ErrInput, not panics.
func TestFinitePrivatizerRecordRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := newDenseNet(4, 5, 3, rng)
	good := d.network(d.params, "privatizer", append(oneHotNames("x", 3), "r"))
	nan := d.network(append([]float64(nil), d.params...), "privatizer", good.Inputs)
	nan.Layers[1].B[0] = math.NaN()
	noSoftmax := d.network(d.params, "privatizer", good.Inputs)
	noSoftmax.Layers[1].Act = network.Identity
	short := d.network(d.params, "privatizer", good.Inputs)
	short.Layers[0].W[2] = short.Layers[0].W[2][:1]
	for name, nw := range map[string]network.Network{"NaN bias": nan, "identity output": noSoftmax, "short row": short} {
		if _, err := (&DResult{Networks: []network.Network{nw}}).Privatizer(); !errors.Is(err, network.ErrInput) {
			t.Errorf("%s: %v, want network.ErrInput", name, err)
		}
	}
	if nw, err := (&DResult{Networks: []network.Network{good}}).Privatizer(); err != nil || !nw.Categorical() || nw.XValues() != 3 {
		t.Errorf("the trainer's record: %v, %v", nw, err)
	}
}

// TestFiniteAlg1Validate: a sampled release and an alphabet out of range
// are refused; Outputs on another model is refused.
func TestFiniteAlg1Validate(t *testing.T) {
	ds, cfg := tinyFiniteAlg1(t, 1)
	if _, err := Sweep(context.Background(), ds, cfg); err == nil {
		t.Error("Outputs = 1 accepted")
	}
	ds, cfg = tinyFiniteAlg1(t, 3)
	cfg.PrivGrad = PrivGradSampled
	if _, err := Sweep(context.Background(), ds, cfg); err == nil {
		t.Error("a sampled categorical release accepted")
	}
}

// TestFiniteLossCell: an observer's losses from its estimate q. The 0-1
// loss (nil) gives 1 − q_x and the MAP decision's 0-1 error; an explicit
// 0-1 matrix is read as nil, and as a matrix gives the same losses within
// rounding; a general L (|A| ≠ |X|) gives L[x][a*(q)] with a*(q) the
// argmin of the posterior risks found by brute force, the soft loss
// Σ_k q_k L[x][b(k)], and its gradient in the logits matches central finite
// differences (1e-7 relative).
func TestFiniteLossCell(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 3
	zo := [][]float64{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}
	law := func(l [][]float64) *mip.Finite {
		o := mip.Observer{Channel: [][]float64{{1}, {1}, {1}}, Loss: l}
		return &mip.Finite{Prior: []float64{0.2, 0.3, 0.5}, Recon: o, Adv: []mip.Observer{o}}
	}
	if ls, err := finiteLosses(law(zo), 1, n); err != nil || ls[0] != nil || ls[1] != nil {
		t.Fatalf("an explicit 0-1 loss: %v, %v; want nil rules", ls, err)
	}
	general := [][]float64{{0, 1, 0.4, 0.3}, {2, 0, 0.7, 0.9}, {1, 1.5, 0, 0.2}}
	lsZO, lsG := mustLosses(t, law(zo), n), mustLosses(t, law(general), n)
	asMatrix := &finiteLoss{n: n, na: n, l: []float64{0, 1, 1, 1, 0, 1, 1, 1, 0}, cost: []float64{0, 1, 1, 1, 0, 1, 1, 1, 0}, risk: make([]float64, n)}
	if lsZO[0] != nil {
		t.Fatal("0-1 rule is not nil")
	}
	z, q := make([]float64, n), make([]float64, n)
	soft, hard, soft2, hard2 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for range 200 {
		for k := range z {
			z[k] = 3 * rng.NormFloat64()
		}
		copy(q, z)
		network.SoftmaxInPlace(q)
		lsZO[0].cell(q, soft, hard)
		asMatrix.cell(q, soft2, hard2)
		for x := range n {
			if soft[x] != 1-q[x] || math.Abs(soft2[x]-soft[x]) > 1e-15 || hard2[x] != hard[x] {
				t.Fatalf("0-1 at q = %v, x = %d: soft %v (matrix %v), hard %v (matrix %v)", q, x, soft[x], soft2[x], hard[x], hard2[x])
			}
		}
		r := lsG[0]
		r.cell(q, soft, hard)
		best, bestRisk := 0, math.Inf(1)
		for a := range 4 {
			var risk float64
			for x := range n {
				risk += q[x] * general[x][a]
			}
			if risk < bestRisk {
				best, bestRisk = a, risk
			}
		}
		for x := range n {
			if hard[x] != general[x][best] {
				t.Fatalf("q = %v, x = %d: hard %v, want L[x][%d] = %v", q, x, hard[x], best, general[x][best])
			}
			// b(0) = 0, b(1) = 1, b(2) = 2: each row's smallest entry.
			want := q[0]*general[x][0] + q[1]*general[x][1] + q[2]*general[x][2]
			if math.Abs(soft[x]-want) > 1e-15 {
				t.Fatalf("q = %v, x = %d: soft %v, want %v", q, x, soft[x], want)
			}
			d := make([]float64, n)
			r.softGrad(q, x, soft[x], d, 1)
			for k := range n {
				const h = 1e-6
				f := func(dz float64) float64 {
					zz := append([]float64(nil), z...)
					zz[k] += dz
					network.SoftmaxInPlace(zz)
					s, hd := make([]float64, n), make([]float64, n)
					r.cell(zz, s, hd)
					return s[x]
				}
				fd := (f(h) - f(-h)) / (2 * h)
				if math.Abs(d[k]-fd) > 1e-7*max(1, math.Abs(fd)) {
					t.Fatalf("q = %v, x = %d: gradient[%d] = %v, finite differences %v", q, x, k, d[k], fd)
				}
			}
		}
	}
}

func mustLosses(t *testing.T, law *mip.Finite, n int) []*finiteLoss {
	t.Helper()
	ls, err := finiteLosses(law, law.K(), n)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestFiniteAlg1Losses: Algorithm 1 on a finite model reads the observers'
// losses from Config.Law. A law whose losses are all 0-1 (nil or explicit)
// leaves the fingerprint and every trained bit as without a law; another
// loss changes both; a loss other than 0-1 on the binary model, and a law
// that does not fit the data, are refused.
func TestFiniteAlg1Losses(t *testing.T) {
	ds, base := tinyFiniteAlg1(t, 3)
	_, lc := tinyFinite(t)
	zo := *lc.Law
	zo.Adv = append([]mip.Observer(nil), zo.Adv...)
	zo.Adv[0].Loss = [][]float64{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}
	other := zo
	other.Adv = append([]mip.Observer(nil), zo.Adv...)
	other.Adv[0].Loss = [][]float64{{0, 1}, {1, 0}, {1, 0}}
	run := func(law *mip.Finite) (string, string) {
		cfg := base
		cfg.Law, cfg.Workers = law, 1
		c, err := cfg.resolve(len(ds.X))
		if err != nil {
			t.Fatal(err)
		}
		data, err := NewData(ds, c.TrainSize, c.TestSize, c.Seed)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := newTrial(data, &c, c.D[1], TrialSeed(c.Seed, 1, 0))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Run(nil); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal([]any{tr.History(), tr.Final().Networks})
		if err != nil {
			t.Fatal(err)
		}
		return c.fingerprint(data.hash), string(b)
	}
	fp0, bits0 := run(nil)
	for name, law := range map[string]*mip.Finite{"nil losses": lc.Law, "explicit 0-1": &zo} {
		if fp, bits := run(law); fp != fp0 || bits != bits0 {
			t.Errorf("%s: fingerprint %s (without a law %s), same bits: %v", name, fp, fp0, bits == bits0)
		}
	}
	if fp, bits := run(&other); fp == fp0 || bits == bits0 {
		t.Errorf("another loss: fingerprint %s (0-1 %s), same bits: %v", fp, fp0, bits == bits0)
	}

	bin, err := Preset(PresetQuick, kind.Binary)
	if err != nil {
		t.Fatal(err)
	}
	bin.D, bin.DMax, bin.Seed, bin.Law = []float64{0.1}, 0.2, 1, &other
	if _, err := bin.resolve(600); !errors.Is(err, ErrConfig) {
		t.Errorf("a loss other than 0-1 on the binary model: %v, want ErrConfig", err)
	}
	cfg := base
	short := other
	short.Adv = nil
	cfg.Law = &short
	if _, err := Sweep(context.Background(), ds, cfg); !errors.Is(err, ErrLaw) {
		t.Errorf("a law with one observer for two: %v, want ErrLaw", err)
	}
}

// TestFiniteAlg1StepsAllocate: an iteration of Algorithm 1 on a finite
// model (the privatizer's step and every observer's) allocates nothing,
// with 0-1 losses and with another loss.
func TestFiniteAlg1StepsAllocate(t *testing.T) {
	ds, cfg := tinyFiniteAlg1(t, 4)
	_, lc := tinyFinite(t)
	other := *lc.Law
	other.Adv = append([]mip.Observer(nil), other.Adv...)
	other.Adv[0].Loss = [][]float64{{0, 1}, {1, 0}, {1, 0}}
	for _, law := range []*mip.Finite{nil, &other} {
		for _, est := range []EstLoss{EstLossSoft, EstLossLog} {
			cfg.Law, cfg.EstLoss = law, est
			c, err := cfg.resolve(len(ds.X))
			if err != nil {
				t.Fatal(err)
			}
			data, err := NewData(ds, c.TrainSize, c.TestSize, c.Seed)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := newFiniteTrainer(data, &c, c.D[0], 1)
			if err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(5, func() {
				tr.privStep()
				for i := range tr.obs {
					tr.obsStep(i)
				}
			}); a != 0 {
				t.Errorf("law %v, %v: %v allocations per iteration", law != nil, est, a)
			}
			// Snapshots: none outside the band, none once K are held.
			tr.evaluate()
			for range c.Protocol.K {
				tr.keep()
			}
			if a := testing.AllocsPerRun(3, tr.keep); a != 0 {
				t.Errorf("law %v, %v: %v allocations per snapshot", law != nil, est, a)
			}
		}
	}
}
