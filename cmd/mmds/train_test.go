package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/rundir"
)

// tinyTrain is a training run small enough for unit tests: 1,200 samples,
// 3 epochs, 2 thresholds, 1 accepted trial per D.
func tinyTrain(model, dir string, extra ...string) []string {
	args := []string{"train", model, "--preset", "quick", "--samples", "1200", "--epochs", "3",
		"--accept", "1", "--max-attempts", "2", "--out", dir}
	if model == "gauss" {
		args = append(args, "--sweep", "2:5:2")
	} else {
		args = append(args, "--sweep", "0.05:0.1:2")
	}
	return append(args, extra...)
}

func readResults(t *testing.T, dir string) *learn.Results {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rundir.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var r learn.Results
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	return &r
}

// TestTrainWritesCompleteDirectory runs both models end to end and checks
// every file the results directory promises: results.json with one point
// per threshold, a trial file per consumed trial with a full history, and a
// model.json that rebuilds the model the samples came from.
func TestTrainWritesCompleteDirectory(t *testing.T) {
	for _, model := range []string{"gauss", "binary"} {
		t.Run(model, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errs := runCLI(t, tinyTrain(model, dir)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(out, "mmds verify "+dir) {
				t.Errorf("summary does not say how to certify:\n%s", out)
			}
			r := readResults(t, dir)
			if r.Model.String() != model || len(r.Points) != 2 || r.Config.Epochs != 3 {
				t.Fatalf("results.json: model %q, %d points, %d epochs", r.Model, len(r.Points), r.Config.Epochs)
			}
			for _, p := range r.Points {
				if p.Attempted < 1 || len(p.Trials) != p.Attempted {
					t.Errorf("D = %g: %d attempted, %d trial summaries", p.D, p.Attempted, len(p.Trials))
				}
				for _, tr := range p.Trials {
					b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tr.File)))
					if err != nil {
						t.Fatal(err)
					}
					var rec learn.TrialRecord
					if err := json.Unmarshal(b, &rec); err != nil {
						t.Fatal(err)
					}
					if rec.History.Len() != 3 || rec.Seed != tr.Seed {
						t.Errorf("%s: %d epochs of history, seed %d (summary %d)", tr.File, rec.History.Len(), rec.Seed, tr.Seed)
					}
				}
				if p.Finalized && len(p.Networks) != 2+len(p.Losses.Adv) {
					t.Errorf("D = %g: finalized with %d networks", p.D, len(p.Networks))
				}
			}
			f, err := os.Open(filepath.Join(dir, rundir.ModelFile))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if model == "gauss" {
				c, err := gauss.ParseConfig(f)
				if err != nil {
					t.Fatal(err)
				}
				m, err := gauss.New(c)
				if err != nil || m.VarRecon() != gauss.Paper().VarRecon() || r.Config.DMax != m.VarRecon() {
					t.Errorf("model.json rebuilds V_Y = %v (err %v), want %v = d_max %v", m.VarRecon(), err, gauss.Paper().VarRecon(), r.Config.DMax)
				}
			} else {
				m, err := mip.ParseBinaryConfig(f)
				want := mip.PaperBinary()
				if err != nil || m.P != want.P || m.QY != want.QY || len(m.QZ) != 1 || m.QZ[0] != want.QZ[0] {
					t.Errorf("model.json gives %+v (err %v), want the paper's %+v", m, err, want)
				}
			}
		})
	}
}

// TestTrainDeterministicAcrossWorkers checks the determinism contract at the
// CLI: the same seed gives the same results.json with 1 and 2 workers (the
// wall-clock seconds aside), and a re-run resumes without training.
func TestTrainDeterministicAcrossWorkers(t *testing.T) {
	var points [2][]byte
	for i, workers := range []string{"1", "2"} {
		dir := t.TempDir()
		if code, _, errs := runCLI(t, tinyTrain("binary", dir, "--workers", workers, "--seed", "7")...); code != 0 {
			t.Fatalf("workers %s: exit %d: %s", workers, code, errs)
		}
		r := readResults(t, dir)
		for k := range r.Points {
			for j := range r.Points[k].Trials {
				r.Points[k].Trials[j].Seconds = 0
			}
		}
		var err error
		if points[i], err = json.Marshal(r.Points); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			code, out, errs := runCLI(t, tinyTrain("binary", dir, "--workers", workers, "--seed", "7", "--format", "json")...)
			if code != 0 {
				t.Fatalf("resume: exit %d: %s", code, errs)
			}
			var doc struct{ Trained, Loaded int }
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Trained != 0 || doc.Loaded == 0 {
				t.Errorf("resume trained %d and loaded %d trials, want 0 and all", doc.Trained, doc.Loaded)
			}
		}
	}
	if !bytes.Equal(points[0], points[1]) {
		t.Error("results differ between 1 and 2 workers")
	}
}

func TestTrainBadInput(t *testing.T) {
	dir := t.TempDir()
	binCfg := filepath.Join(dir, "binary.json")
	if err := os.WriteFile(binCfg, []byte(`{"p": 0.5, "q_y": 0.1, "q_z": [0.3]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory trained on another model must not be mixed with this one.
	other := filepath.Join(dir, "other")
	if code, _, errs := runCLI(t, tinyTrain("binary", other, "--config", binCfg)...); code != 0 {
		t.Fatalf("setup: %s", errs)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"train"}, "give the model to train, gauss, binary or finite"},
		{[]string{"train", "tree"}, `model "tree": want gauss, binary or finite`},
		{[]string{"train", "gauss", "--preset", "fast"}, `--preset "fast": must be "paper" or "quick"`},
		{[]string{"train", "gauss", "--epochs", "0"}, "--epochs 0: must be in [1, 1000000]"},
		{[]string{"train", "gauss", "--accept", "-1"}, "--accept -1"},
		{[]string{"train", "gauss", "--accept", "5", "--max-attempts", "3"}, "--max-attempts 3: must be ≥ --accept 5"},
		{[]string{"train", "gauss", "--samples", "10"}, "--samples 10: must be in"},
		{[]string{"train", "gauss", "--workers", "0"}, "--workers 0: must be in [1, 1024]"},
		{[]string{"train", "gauss", "--d", "-1"}, "--d -1: must be a finite number ≥ 0"},
		{[]string{"train", "gauss", "--d", "1", "--sweep", "1:2:2"}, "mutually exclusive"},
		{[]string{"train", "gauss", "--format", "xml"}, "xml"},
		{[]string{"train", "binary", "--config", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"train", "binary", "--config", "../../examples/gauss-coalition.json"}, `unknown field "names"`},
		{tinyTrain("binary", other), "describes a different model"},
		{[]string{"train", "binary", "--d", "0.3"}, "threshold D = 0.3 exceeds the model's D_max = 0.2"},
		{[]string{"train", "gauss", "--tau", "0"}, "--tau 0: must be a finite number > 0"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, errs, c.want)
		}
	}
}

// Without a terminal, progress is plain lines on stderr (one per finished
// threshold at least); --quiet silences it.
func TestTrainProgressLines(t *testing.T) {
	code, _, errs := runCLI(t, tinyTrain("binary", t.TempDir())...)
	if code != 0 || !strings.Contains(errs, "mmds train: D 1/2 = 0.05 done") || !strings.Contains(errs, "mmds train: D 2/2 = 0.1 done") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, tinyTrain("binary", t.TempDir(), "--quiet")...)
	if code != 0 || errs != "" {
		t.Errorf("--quiet: exit %d, stderr %q", code, errs)
	}
}

// A Gaussian labels configuration whose cells are narrower than a kernel
// allows (learn.MinCellWidth), which used to reach gauss's grid and panic,
// is refused by learn.Sweep before any work and exits 2 (bad input) in one
// line naming the field, the value and the smallest width.
func TestSweepErrorConfigIsBadInput(t *testing.T) {
	m, err := model.Paper(model.Gauss)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := learn.PresetFor(learn.PresetQuick, model.Gauss, learn.MethodLabels, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := learn.NewTraining(m, cfg, learn.TrainRequest{Preset: learn.PresetQuick, D: []float64{4}, Seed: 1, Samples: 1200})
	if err != nil {
		t.Fatal(err)
	}
	tr.Config.Labels.CellWidth, tr.Config.Labels.Fine = 1e-4, nil
	tr.Config.Dir = filepath.Join(t.TempDir(), "out")
	ctx := context.Background()
	_, err = learn.Sweep(ctx, tr.Data, tr.Config)
	var ue usageError
	if err = sweepError(ctx, tr.Config.Dir, err); !errors.As(err, &ue) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "Config.Labels.CellWidth = 0.0001: must be finite and ≥ 2⁻¹⁰ = 0.0009765625 σ_X") {
		t.Errorf("cells 1e-4 σ_X wide: %v; want one line of bad input naming CellWidth, 0.0001 and 2⁻¹⁰", err)
	}
}

// --preset is one flag of mmds train and mmds train data: a wrong name,
// even a long one with control characters pasted from elsewhere, gets the
// same one line from both, quoted as a short escaped excerpt.
func TestPresetMessageOneForBoth(t *testing.T) {
	long := "fast\x1b[2J" + strings.Repeat("x", 200)
	for _, p := range []string{"fast", long} {
		code, _, errs := runCLI(t, "train", "gauss", "--preset", p)
		dcode, _, derrs := runCLI(t, "train", "data", "--csv", "../../examples/data/discrete.csv", "--private", "x", "--preset", p)
		want := "mmds: --preset " + safefile.Excerpt(p) + `: must be "paper" or "quick"` + "\n"
		if code != 2 || dcode != 2 || errs != want || derrs != want {
			t.Errorf("--preset %q: train exit %d %q, train data exit %d %q; want exit 2 and %q from both", p, code, errs, dcode, derrs, want)
		}
	}
}

// Every value that reaches a generated Slurm script or Kubernetes manifest
// — the working folder, the --slurm folder, --out, --config, the image —
// is refused with exit 2 and one line when it holds a character the script
// or manifest cannot carry (a newline with a command after it, a Unicode
// line separator, a backslash in Slurm's log pattern), before anything is
// written. A --config path is not such a value for --k8s: the model
// travels in the manifests, not its path.
func TestClusterScriptsRefuseUnsafeText(t *testing.T) {
	root := t.TempDir()
	weird := filepath.Join(root, "cfg\ntouch pwned")
	if err := os.Mkdir(weird, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := copyFile(t, "../../examples/gauss-coalition.json", filepath.Join(weird, "model.json"))
	quick := []string{"train", "gauss", "--preset", "quick"}
	in := func(name string) string { return filepath.Join(root, name) }
	for _, c := range []struct {
		name string
		cwd  string // "" for root
		args []string
		want string
	}{
		{"--slurm folder with a newline and a command", "", []string{"--out", in("res"), "--slurm", in("jobs\ntouch pwned")}, "--slurm"},
		{"working folder with a newline and a command", weird, []string{"--out", in("res"), "--slurm", in("jobs")}, "the working folder"},
		{"--out with a newline", "", []string{"--out", in("res\nid"), "--slurm", in("jobs")}, "U+000A"},
		{"--out with a carriage return", "", []string{"--out", in("res\rid"), "--slurm", in("jobs")}, "U+000D"},
		{"--config named with a newline", "", []string{"--config", cfg, "--out", in("res"), "--slurm", in("jobs")}, "U+000A"},
		{"--slurm folder with a backslash", "", []string{"--out", in("res"), "--slurm", in(`jo\bs`)}, "backslash"},
		{"--out with U+2028 for Kubernetes", "", []string{"--out", in("res\u2028x"), "--k8s", in("k8s"), "--k8s-image", "reg.example/mmds:1"}, "U+2028"},
		{"--k8s-image with a newline", "", []string{"--out", in("res"), "--k8s", in("k8s"), "--k8s-image", "reg.example/mmds:1\n- evil"}, "--k8s-image"},
		{"--k8s-image with U+2028", "", []string{"--out", in("res"), "--k8s", in("k8s"), "--k8s-image", "reg.example/mmds:1\u2028x"}, "U+2028"},
		{"--k8s-claim with a newline", "", []string{"--out", in("res"), "--k8s", in("k8s"), "--k8s-image", "x", "--k8s-claim", "a\nb"}, "--k8s-claim"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(root)
			if c.cwd != "" {
				t.Chdir(c.cwd)
			}
			before := snapshot(t, root)
			code, out, errs := runCLI(t, append(quick, c.args...)...)
			if code != exitUsage || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line naming %q", code, out, errs, c.want)
			}
			if after := snapshot(t, root); !reflect.DeepEqual(before, after) {
				t.Errorf("files changed: before %v, after %v", before, after)
			}
		})
	}
	// The model, not its path, goes to the pods.
	t.Chdir(root)
	code, _, errs := runCLI(t, append(quick, "--config", cfg, "--out", in("res"), "--k8s", in("k8s"), "--k8s-image", "reg.example/mmds:1")...)
	cm, err := os.ReadFile(filepath.Join(in("k8s"), "config-map.yaml"))
	if code != 0 || err != nil || !strings.Contains(string(cm), `"names":["X","Y","Z1","Z2"]`) {
		t.Errorf("--k8s with that --config: exit %d, %s; config-map.yaml %v:\n%s", code, errs, err, cm)
	}
}
