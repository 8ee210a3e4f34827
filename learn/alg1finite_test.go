package learn

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

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
// trainer, read as a network.Network (network.ParseRecord), releases the
// law the trainer's own forward pass computes: network's certified channel
// row E_R[softmax(k(x, R))] matches a Monte Carlo estimate through
// forwardSparse within 4.5 standard errors per entry, and its stated ℓ1
// error is small.
func TestFinitePrivatizerRecordMonteCarlo(t *testing.T) {
	const n, m, draws = 3, 4, 200000
	rng := rand.New(rand.NewPCG(11, 12))
	d := newDenseNet(n+1, 16, m, rng)
	for k := range d.params {
		d.params[k] *= 3 // sharper softmax, more kinks inside the range
	}
	nw, err := (&DResult{Networks: []Network{d.network(d.params, "privatizer", append(oneHotNames("x", n), "r"))}}).Privatizer()
	if err != nil {
		t.Fatal(err)
	}
	h, q := make([]float64, d.hidden), make([]float64, m)
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
			d.forwardSparse(x, n, rng.NormFloat64(), h, q)
			softmaxInPlace(q)
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
	nan.Layers[1].Bias[0] = math.NaN()
	noSoftmax := d.network(d.params, "privatizer", good.Inputs)
	noSoftmax.Layers[1].Activation = "identity"
	short := d.network(d.params, "privatizer", good.Inputs)
	short.Layers[0].Weights[2] = short.Layers[0].Weights[2][:1]
	for name, nw := range map[string]Network{"NaN bias": nan, "identity output": noSoftmax, "short row": short} {
		if _, err := (&DResult{Networks: []Network{nw}}).Privatizer(); !errors.Is(err, network.ErrInput) {
			t.Errorf("%s: %v, want network.ErrInput", name, err)
		}
	}
	if nw, err := (&DResult{Networks: []Network{good}}).Privatizer(); err != nil || !nw.Categorical() || nw.XValues() != 3 {
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
