package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/rundir"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// syntheticDir writes a small valid Gaussian results directory and returns
// it with its results.
func syntheticDir(t *testing.T) (string, *learn.Results) {
	t.Helper()
	dir := t.TempDir()
	net := learntest.LinearNet(1, 1, 0)
	res := verifytest.Synthetic(t, dir, model.Gauss, 0.1, []verifytest.Point{{D: 1}, {D: 2, Priv: &net, Recon: 2, Adv: []float64{2, 2}}})
	return dir, res
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every defect of a results directory is bad input (ErrInput) whose message
// names the file and what is wrong.
func TestLoadRejects(t *testing.T) {
	cases := []struct {
		name    string
		breakIt func(t *testing.T, dir string, res *learn.Results)
		want    []string // substrings of the error
	}{
		{"missing results", func(t *testing.T, dir string, _ *learn.Results) {
			os.Remove(filepath.Join(dir, "results.json"))
		}, []string{"results.json", "does not exist"}},
		{"missing model", func(t *testing.T, dir string, _ *learn.Results) {
			os.Remove(filepath.Join(dir, "model.json"))
		}, []string{"model.json", "does not exist"}},
		{"corrupt results", func(t *testing.T, dir string, _ *learn.Results) {
			os.WriteFile(filepath.Join(dir, "results.json"), []byte(`{"model": "gauss", "points": [`), 0o644)
		}, []string{"results.json", "not a valid results file"}},
		{"trailing data", func(t *testing.T, dir string, _ *learn.Results) {
			b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
			os.WriteFile(filepath.Join(dir, "results.json"), append(b, []byte("{}")...), 0o644)
		}, []string{"results.json", "unexpected data"}},
		{"unknown model", func(t *testing.T, dir string, res *learn.Results) {
			verifytest.WriteResults(t, dir, res)
			b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
			os.WriteFile(filepath.Join(dir, "results.json"), bytes.ReplaceAll(b, []byte(`"model": "gauss"`), []byte(`"model": "poisson"`)), 0o644)
		}, []string{"results.json", `"poisson"`}},
		{"no model", func(t *testing.T, dir string, res *learn.Results) {
			verifytest.WriteResults(t, dir, res)
			b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
			os.WriteFile(filepath.Join(dir, "results.json"), bytes.Replace(b, []byte(`"model": "gauss",`), nil, 1), 0o644)
		}, []string{"results.json", `no "model"`}},
		{"binary model for gauss results", func(t *testing.T, dir string, _ *learn.Results) {
			os.WriteFile(filepath.Join(dir, "model.json"), []byte(verifytest.BinaryModelJSON), 0o644)
		}, []string{"model.json", `"gauss"`, "not a valid gauss model"}},
		{"another model file", func(t *testing.T, dir string, _ *learn.Results) {
			os.WriteFile(filepath.Join(dir, "model.json"), []byte(strings.Replace(verifytest.GaussModelJSON, `[["Z1"], ["Z2"]]`, `[["Z1"]]`, 1)), 0o644)
		}, []string{"model.json", "not the model this run was trained on"}},
		{"another model file, rebound", func(t *testing.T, dir string, res *learn.Results) {
			js := strings.Replace(verifytest.GaussModelJSON, `[["Z1"], ["Z2"]]`, `[["Z1"]]`, 1)
			os.WriteFile(filepath.Join(dir, "model.json"), []byte(js), 0o644)
			m, _ := model.ParseAs(model.Gauss, []byte(js))
			res.Config.ModelSHA256, _ = model.Hash(m)
			verifytest.WriteResults(t, dir, res)
		}, []string{"results.json", "points[1]", "adv_loss has 2 entries", "1 adversaries"}},
		{"tau edited", func(t *testing.T, dir string, res *learn.Results) {
			res.Config.Protocol.Tau = 1e6
			writeJSON(t, filepath.Join(dir, "results.json"), res)
		}, []string{"results.json", `"config" was changed after training`}},
		{"test size edited", func(t *testing.T, dir string, res *learn.Results) {
			res.Config.TestSize = 1
			writeJSON(t, filepath.Join(dir, "results.json"), res)
		}, []string{"results.json", `"config" was changed after training`}},
		{"model hash edited", func(t *testing.T, dir string, res *learn.Results) {
			res.Config.ModelSHA256 = strings.Repeat("0", 64)
			writeJSON(t, filepath.Join(dir, "results.json"), res)
		}, []string{"model.json", "not the model this run was trained on"}},
		{"weight edited", func(t *testing.T, dir string, res *learn.Results) {
			res.Points[1].Networks[0].Layers[1].W[0][0] *= 0.5
			writeJSON(t, filepath.Join(dir, "results.json"), res)
		}, []string{"results.json", "points[1] (D = 2) was changed after training"}},
		{"learned loss edited", func(t *testing.T, dir string, res *learn.Results) {
			res.Points[1].Losses.Recon = 1.5
			writeJSON(t, filepath.Join(dir, "results.json"), res)
		}, []string{"points[1] (D = 2) was changed after training"}},
		{"no binding", func(t *testing.T, dir string, res *learn.Results) {
			res.Binding = rundir.Binding{}
			writeJSON(t, filepath.Join(dir, "results.json"), res)
		}, []string{"results.json has no binding"}},
		{"privatizer with three inputs", func(t *testing.T, dir string, res *learn.Results) {
			l := &res.Points[1].Networks[0].Layers[0]
			for i := range l.W {
				l.W[i] = append(l.W[i], 0)
			}
			verifytest.WriteResults(t, dir, res)
		}, []string{"results.json", "points[1] (D = 2)", "networks[0] (privatizer) has 3 inputs", "2"}},
		{"ragged weights", func(t *testing.T, dir string, res *learn.Results) {
			// A record's declared in disagrees with its weight rows.
			verifytest.WriteResults(t, dir, res)
			path := filepath.Join(dir, "results.json")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			at := bytes.Index(b, []byte(`"d_index": 1`))
			at += bytes.Index(b[at:], []byte(`"role": "reconstructor"`))
			at += bytes.Index(b[at:], []byte(`"in": 2`))
			b = append(b[:at:at], append([]byte(`"in": 3`), b[at+len(`"in": 2`):]...)...)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"results.json", "reconstructor", "weight row 0"}},
		{"null weight", func(t *testing.T, dir string, res *learn.Results) {
			res.Points[1].Networks[0].Layers[0].W[0][0] = math.NaN() // written as null
			verifytest.WriteResults(t, dir, res)
		}, []string{"results.json", "networks[0] (privatizer)", "null"}},
		{"wrong role order", func(t *testing.T, dir string, res *learn.Results) {
			n := res.Points[1].Networks
			n[2], n[3] = n[3], n[2]
			verifytest.WriteResults(t, dir, res)
		}, []string{"networks[2] has role \"adversary_2\"", "adversary_1"}},
		{"sigmoid output in a gauss run", func(t *testing.T, dir string, res *learn.Results) {
			res.Points[1].Networks[1].Layers[1].Act = network.Sigmoid
			verifytest.WriteResults(t, dir, res)
		}, []string{"reconstructor", "sigmoid", "identity"}},
		{"missing networks", func(t *testing.T, dir string, res *learn.Results) {
			res.Points[1].Networks = nil
			verifytest.WriteResults(t, dir, res)
		}, []string{"points[1]", "has 0 networks, want 4"}},
		{"finalized without recon loss", func(t *testing.T, dir string, res *learn.Results) {
			res.Points[1].Losses.Recon = math.NaN() // written as null
			verifytest.WriteResults(t, dir, res)
		}, []string{"points[1]", "recon_loss"}},
		{"no thresholds", func(t *testing.T, dir string, res *learn.Results) {
			res.Points, res.Config.D = nil, nil
			verifytest.WriteResults(t, dir, res)
		}, []string{"config.d is empty"}},
		{"point at another threshold", func(t *testing.T, dir string, res *learn.Results) {
			res.Points[1].D = 2.5
			verifytest.WriteResults(t, dir, res)
		}, []string{"points[1]", "d_index 1 does not name its threshold"}},
		// A channel needs a finite X: the Gaussian model's labels
		// privatizer is a kernel on cells of x. Resealed, the directory is
		// inconsistent (bad input before any work), not a failed
		// computation.
		{"labels method with a channel on the Gaussian model", func(t *testing.T, dir string, res *learn.Results) {
			res.Config.Method = learn.MethodLabels
			res.Points[1].Networks = nil
			res.Points[1].Channel = [][]float64{{1}}
			verifytest.WriteResults(t, dir, res)
		}, []string{"needs its kernel"}},
	}
	for _, c := range cases {
		dir, res := syntheticDir(t)
		c.breakIt(t, dir, res)
		_, err := Load(context.Background(), dir)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v does not wrap ErrInput", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

func TestLoadValid(t *testing.T) {
	dir, res := syntheticDir(t)
	run, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Dir != dir || run.Model.Kind() != model.Gauss || len(run.Results.Points) != len(res.Points) || run.Model.Adversaries() != 2 {
		t.Errorf("loaded %+v", run)
	}
}

// FuzzLoad feeds arbitrary bytes as results.json and model.json: Parse must
// return a run or an ErrInput error, never panic, and every finalized point
// of a run it accepts must have a privatizer that rebuilds.
// parseRun decodes and checks results.json and model.json as Load does
// once it has read them (readDir, openRun).
func parseRun(results, modelBytes []byte) (*Run, error) {
	res, err := learn.DecodeResults(results, "results.json")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return openRun("", res, modelBytes, 0)
}

func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	net := learntest.LinearNet(1, 1, 0)
	verifytest.Synthetic(f, dir, model.Gauss, 0.1, []verifytest.Point{{D: 1}, {D: 2, Priv: &net, Recon: 2, Adv: []float64{2, 2}}})
	rb, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	bdir := f.TempDir()
	bnet := learntest.ConstantNet(0.9, 0.8)
	verifytest.Synthetic(f, bdir, model.Binary, 0.01, []verifytest.Point{{D: 0.1, Priv: &bnet, Recon: 0.1, Adv: []float64{0.3}}})
	bb, _ := os.ReadFile(filepath.Join(bdir, "results.json"))
	f.Add(rb, []byte(verifytest.GaussModelJSON))
	f.Add(bb, []byte(verifytest.BinaryModelJSON))
	f.Add(bb, []byte(verifytest.GaussModelJSON))
	f.Add([]byte(`{"model":"binary","config":{"test_size":1},"points":[{"D":0.1,"finalized":true,"recon_loss":0.1,"adv_loss":[0.2],"networks":[]}]}`), []byte(verifytest.BinaryModelJSON))
	f.Add([]byte(`null`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, results, model []byte) {
		run, err := parseRun(results, model)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error %v does not wrap ErrInput", err)
			}
			return
		}
		for i := range run.Results.Points {
			if p := &run.Results.Points[i]; p.Finalized {
				if _, err := learn.MLPOf(&p.Networks[0]); err != nil {
					t.Fatalf("accepted a point whose privatizer does not rebuild: %v", err)
				}
			}
		}
	})
}

// A labels channel that is not a channel of the model's X (rows off 1,
// negative or huge entries, ragged or missing rows), resealed, is refused
// by Load, before any point is certified, naming the point and the entry.
// A row off by 1e-17 is a channel (privatizer.RowSumTol).
func TestLoadLabelsChannel(t *testing.T) {
	cases := []struct {
		name    string
		channel [][]float64
		want    string // "" = loads
	}{
		{"row off by 1e-3", [][]float64{{0.5, 0.501}, {0, 1}}, "row 0 sums to"},
		{"row off by 1e-17", [][]float64{{0.5, 0.5 + 1e-17}, {0, 1}}, ""},
		{"negative entry", [][]float64{{-0.5, 1.5}, {0, 1}}, "entry [0][0] = -0.5"},
		{"1e308", [][]float64{{1e308, 0}, {0, 1}}, "row 0 sums to 1e+308"},
		{"ragged", [][]float64{{0.5, 0.5}, {1}}, "row 1 has 1 entries"},
		{"one row", [][]float64{{0.5, 0.5}}, "1 rows, but the model's X takes 2 values"},
		{"three rows", [][]float64{{1, 0}, {0, 1}, {1, 0}}, "3 rows"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		net := learntest.LinearNet(1, 1, 0)
		res := verifytest.Synthetic(t, dir, model.Binary, 0.1, []verifytest.Point{{D: 0.1, Priv: &net, Recon: 0.1, Adv: []float64{0.4}}})
		res.Config.Method = learn.MethodLabels
		res.Points[0].Networks = nil
		res.Points[0].Channel = c.channel
		verifytest.WriteResults(t, dir, res)
		_, err := Load(context.Background(), dir)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: Load: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "points[0]")):
			t.Errorf("%s: Load: %v; want ErrInput naming points[0] and %q", c.name, err, c.want)
		}
	}
}

// finitePaperBinary is the paper's binary model written as a finite model.
const finitePaperBinary = `{"prior": [0.46, 0.54], "reconstructor": {"channel": [[0.8, 0.2], [0.2, 0.8]]},
 "adversaries": [{"channel": [[0.56, 0.44], [0.44, 0.56]]}]}`

// results.json names its model twice, at the top ("model") and in the bound
// configuration ("config"."model"); the top is covered by no hash, so a
// directory could be certified as one kind of model while its bound
// configuration says it was trained on another. The two must agree.
func TestLoadKindsAgree(t *testing.T) {
	dir := t.TempDir()
	net := learntest.ConstantNet(0.9, 0.8)
	res := verifytest.Synthetic(t, dir, model.Binary, 0.01, []verifytest.Point{{D: 0.1, Priv: &net, Recon: 0.1, Adv: []float64{0.3}}})
	m, err := model.ParseAs(model.Finite, []byte(finitePaperBinary))
	if err != nil {
		t.Fatal(err)
	}
	h, err := model.Hash(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.ModelFile), []byte(finitePaperBinary), 0o644); err != nil {
		t.Fatal(err)
	}
	// A labels-method point (a channel), which either kind certifies.
	res.Config.Method = learn.MethodLabels
	res.Points[0].Networks, res.Points[0].NetworksEpoch = nil, -1
	res.Points[0].Channel = [][]float64{{0.9, 0.1}, {0.2, 0.8}}
	res.Model, res.Config.ModelSHA256 = model.Finite, h // config.model stays "binary"
	verifytest.WriteResults(t, dir, res)
	_, err = Load(context.Background(), dir)
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "config.model") {
		t.Errorf("results.json with \"model\" finite and config.model binary: %v, want ErrInput naming config.model", err)
	}
}
