package learn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/model/kind"
	"github.com/mmds-project/mmds/rundir"
)

// sweepConfig is a short sweep over two thresholds with a wide eligibility
// band, so trials get accepted within a few epochs.
func sweepConfig(t *testing.T, model kind.Kind) (*Dataset, Config) {
	t.Helper()
	if model == kind.Binary {
		c := smallConfig(t, kind.Binary, []float64{0.3, 0.45}, 0.5)
		c.Epochs, c.BatchesPerEpoch = 15, 10
		c.Protocol = Protocol{K: 3, Tau: 0.15, Accept: 2, MaxAttempts: 4}
		return paperBinary(2400, 5), c
	}
	c := smallConfig(t, kind.Gauss, []float64{3, 5.76}, 5.76)
	c.Epochs, c.BatchesPerEpoch = 10, 10
	c.Protocol = Protocol{K: 3, Tau: 2, Accept: 2, MaxAttempts: 4}
	return paperGauss(2400, 5), c
}

// canonical is a Results' JSON with the wall-clock times zeroed.
func canonical(t *testing.T, r *Results) []byte {
	t.Helper()
	for i := range r.Points {
		for k := range r.Points[i].Trials {
			r.Points[i].Trials[k].Seconds = 0
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSweepWorkersBitIdentical runs the same seeded sweep with 1 and 2
// workers and compares everything but wall-clock times, including every
// per-epoch history and the finalized networks.
func TestSweepWorkersBitIdentical(t *testing.T) {
	for _, model := range []kind.Kind{kind.Gauss, kind.Binary} {
		t.Run(model.String(), func(t *testing.T) {
			ds, c := sweepConfig(t, model)
			var outs [][]byte
			var dirs []string
			for _, w := range []int{1, 2} {
				c.Workers, c.Dir = w, t.TempDir()
				r, err := Sweep(context.Background(), ds, c)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Points[0].Finalized {
					t.Fatalf("workers=%d: nothing finalized at D[0]; the test wants a finalized point", w)
				}
				outs, dirs = append(outs, canonical(t, r)), append(dirs, c.Dir)
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Fatalf("results differ between 1 and 2 workers:\n%s\n%s", outs[0], outs[1])
			}
			// The consumed trials' histories on disk agree too.
			var r Results
			readJSON(t, filepath.Join(dirs[0], rundir.ResultsFile), &r)
			for _, p := range r.Points {
				for _, tr := range p.Trials {
					var a, b TrialRecord
					readJSON(t, filepath.Join(dirs[0], tr.File), &a)
					readJSON(t, filepath.Join(dirs[1], tr.File), &b)
					a.Seconds, b.Seconds = 0, 0
					ja, _ := json.Marshal(a)
					jb, _ := json.Marshal(b)
					if !bytes.Equal(ja, jb) {
						t.Errorf("%s differs between 1 and 2 workers", tr.File)
					}
				}
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestSweepResume runs a sweep into a directory, then again over it: the
// second run trains nothing and returns the same results. A run with a
// different training configuration over the same directory is refused.
func TestSweepResume(t *testing.T) {
	ds, c := sweepConfig(t, kind.Gauss)
	c.Dir = t.TempDir()
	var events []Progress
	c.Progress = func(p Progress) { events = append(events, p) }
	first, err := Sweep(context.Background(), ds, c)
	if err != nil {
		t.Fatal(err)
	}
	consumed := 0
	for _, p := range first.Points {
		consumed += p.Attempted
	}
	if first.Trained != consumed || first.Loaded != 0 {
		t.Fatalf("first run: trained %d, loaded %d; want %d, 0", first.Trained, first.Loaded, consumed)
	}
	if len(events) != consumed || !events[len(events)-1].Done || events[0].Loaded {
		t.Errorf("progress events: %+v", events)
	}

	events = nil
	second, err := Sweep(context.Background(), ds, c)
	if err != nil {
		t.Fatal(err)
	}
	if second.Trained != 0 || second.Loaded != consumed {
		t.Errorf("resume: trained %d, loaded %d; want 0, %d", second.Trained, second.Loaded, consumed)
	}
	for _, e := range events {
		if !e.Loaded {
			t.Errorf("resume: event %+v not loaded", e)
		}
	}
	// Seconds are those of the run that trained each trial, so even they match.
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second)
	if !bytes.Equal(a, b) {
		t.Error("resumed results differ")
	}

	// A partial directory: drop one trial file; only that trial is retrained.
	if err := os.Remove(filepath.Join(c.Dir, rundir.TrialFile(1, 0))); err != nil {
		t.Fatal(err)
	}
	third, err := Sweep(context.Background(), ds, c)
	if err != nil {
		t.Fatal(err)
	}
	if third.Trained != 1 || third.Loaded != consumed-1 {
		t.Errorf("partial resume: trained %d, loaded %d; want 1, %d", third.Trained, third.Loaded, consumed-1)
	}

	checkFinalizedNetworks(t, ds, c, first)

	c.Rho = 999
	if _, err := Sweep(context.Background(), ds, c); err == nil || !strings.Contains(err.Error(), "different training configuration") {
		t.Errorf("changed ρ over the same directory: err = %v", err)
	}
}

// TestSweepResultsFile checks results.json's contract.
func TestSweepResultsFile(t *testing.T) {
	ds, c := sweepConfig(t, kind.Binary)
	c.Dir = t.TempDir()
	if _, err := Sweep(context.Background(), ds, c); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Model  string
		Config map[string]any
		Points []map[string]json.RawMessage
	}
	readJSON(t, filepath.Join(c.Dir, rundir.ResultsFile), &raw)
	if raw.Model != "binary" || raw.Config["rho"] != c.Rho || raw.Config["priv_grad"] != c.PrivGrad.String() || len(raw.Points) != 2 {
		t.Fatalf("model %q, config %v, %d points", raw.Model, raw.Config, len(raw.Points))
	}
	for _, key := range []string{"D", "recon_loss", "adv_loss", "min_adv_loss", "attempted", "accepted", "cap_hit", "trials", "networks", "recon_hard", "adv_hard"} {
		if _, ok := raw.Points[0][key]; !ok {
			t.Errorf("points[0] lacks %q", key)
		}
	}
	var r Results
	readJSON(t, filepath.Join(c.Dir, rundir.ResultsFile), &r)
	p := r.Points[0]
	if len(p.Networks) != 3 || p.Networks[0].Role != "privatizer" || p.Networks[2].Role != "adversary_1" {
		t.Fatalf("networks: %+v", p.Networks)
	}
	if l := p.Losses; l.MinAdv != l.Adv[0] || l.Recon > p.D || l.Recon < p.D-c.Protocol.Tau {
		t.Errorf("point %+v", p)
	}
	for _, n := range p.Networks {
		if _, err := MLPOf(&n); err != nil {
			t.Error(err)
		}
	}
	var rec TrialRecord
	readJSON(t, filepath.Join(c.Dir, p.Trials[0].File), &rec)
	if rec.History.Len() != c.Epochs || rec.Seed != TrialSeed(c.Seed, 0, 0) || rec.Seed != p.Trials[0].Seed {
		t.Errorf("trial record: %d epochs, seed %d", rec.History.Len(), rec.Seed)
	}
}

func TestSweepCancel(t *testing.T) {
	ds, c := sweepConfig(t, kind.Gauss)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Sweep(ctx, ds, c); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled sweep: err = %v, want context.Canceled", err)
	}
}

func TestConfigErrors(t *testing.T) {
	ds := paperGauss(600, 1)
	for _, tc := range []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"no D", func(c *Config) { c.D = nil }, "Config.D"},
		{"decreasing D", func(c *Config) { c.D = []float64{2, 1} }, "Config.D[1]"},
		{"DMax", func(c *Config) { c.DMax = 0 }, "Config.DMax"},
		{"epochs", func(c *Config) { c.Epochs = 0 }, "Config.Epochs"},
		{"rho", func(c *Config) { c.Rho = -1 }, "Config.Rho"},
		{"optimizer", func(c *Config) { c.Optimizer = Method(7) }, "Config.Optimizer"},
		{"split", func(c *Config) { c.TrainSize, c.TestSize = 500, 200 }, "Config.TrainSize"},
		{"batch", func(c *Config) { c.BatchSize = 1000 }, "Config.BatchSize"},
		{"gamma", func(c *Config) { c.LRGamma = -3 }, "Config.LRGamma"},
		{"accept", func(c *Config) { c.Protocol.Accept = 0 }, "Protocol.Accept"},
		{"cap", func(c *Config) { c.Protocol.MaxAttempts = 1; c.Protocol.Accept = 2 }, "Protocol.MaxAttempts"},
		{"tau", func(c *Config) { c.D = []float64{6}; c.DMax = 5.76 }, "Protocol.Tau"},
		{"model", func(c *Config) { c.Model = kind.Kind(9) }, "Config.Model"},
	} {
		c, err := Preset(PresetQuick, kind.Gauss)
		if err != nil {
			t.Fatal(err)
		}
		c.D, c.DMax, c.TrainSize, c.TestSize = []float64{1, 2}, 5.76, 400, 200
		tc.edit(&c)
		_, err = Sweep(context.Background(), ds, c)
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: err = %v, want one naming %s", tc.name, err, tc.field)
		}
	}
	if _, err := Preset(PresetName(9), kind.Gauss); !errors.Is(err, ErrPreset) {
		t.Errorf("no preset: %v, want ErrPreset", err)
	}
	bad := paperGauss(600, 1)
	bad.Y[0] = bad.Y[0][:10]
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "Y[0]") {
		t.Errorf("short Y column: %v", err)
	}
}

// checkFinalizedNetworks rebuilds each finalized point's networks from
// results.json and recomputes the point's test-split losses row by row: the
// stored networks must be those of the selected epoch (Gaussian model, so
// f = k(x, r) is deterministic).
func checkFinalizedNetworks(t *testing.T, ds *Dataset, c Config, res *Results) {
	t.Helper()
	rc, err := c.resolve(len(ds.X))
	if err != nil {
		t.Fatal(err)
	}
	data, err := NewData(ds, rc.TrainSize, rc.TestSize, rc.Seed)
	if err != nil {
		t.Fatal(err)
	}
	s := data.Test
	checked := 0
	for _, p := range res.Points {
		if !p.Finalized {
			continue
		}
		if p.NetworksEpoch != p.Epoch || len(p.Networks) != 4 {
			t.Fatalf("D[%d]: networks of epoch %d, point at epoch %d", p.DIndex, p.NetworksEpoch, p.Epoch)
		}
		var nets []*MLP
		for _, n := range p.Networks {
			m, err := MLPOf(&n)
			if err != nil {
				t.Fatal(err)
			}
			nets = append(nets, m)
		}
		var recon float64
		adv := make([]float64, 2)
		for r := range s.N {
			x := s.X[r]
			f := nets[0].Predict(s.Priv[2*r : 2*r+2])
			e := nets[1].Predict([]float64{f, s.Recon[r]}) - x
			recon += e * e / float64(s.N)
			for i := range adv {
				e := nets[2+i].Predict([]float64{f, s.Adv[i][r]}) - x
				adv[i] += e * e / float64(s.N)
			}
		}
		l := p.Losses
		if math.Abs(recon-l.Recon) > 1e-9*recon || math.Abs(adv[0]-l.Adv[0]) > 1e-9*adv[0] || math.Abs(adv[1]-l.Adv[1]) > 1e-9*adv[1] {
			t.Errorf("D[%d]: stored networks give recon %g, adv %v; the point says %g, %v", p.DIndex, recon, adv, l.Recon, l.Adv)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no finalized point to check")
	}
}

// TestSweepCountsDoNotDependOnScheduling: with any number of workers (so
// with speculative trials finished or cancelled as the scheduler has it),
// a fresh run reports the trials the protocol consumed as trained, and a
// resumed one the same number as loaded.
func TestSweepCountsDoNotDependOnScheduling(t *testing.T) {
	for _, workers := range []int{1, 2, 4, 8} {
		for _, model := range []kind.Kind{kind.Gauss, kind.Binary} {
			ds, c := sweepConfig(t, model)
			c.Dir, c.Workers = t.TempDir(), workers
			first, err := Sweep(context.Background(), ds, c)
			if err != nil {
				t.Fatal(err)
			}
			consumed := 0
			for _, p := range first.Points {
				consumed += p.Attempted
			}
			again, err := Sweep(context.Background(), ds, c)
			if err != nil {
				t.Fatal(err)
			}
			if first.Trained != consumed || first.Loaded != 0 || again.Trained != 0 || again.Loaded != consumed {
				t.Errorf("%v, %d workers: trained %d, loaded %d, then %d, %d; want %d, 0, then 0, %d",
					model, workers, first.Trained, first.Loaded, again.Trained, again.Loaded, consumed, consumed)
			}
		}
	}
}
