package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/privatizer"
)

// tinyLabels is a labels-method run small enough for unit tests: 2
// thresholds, 8 epochs, 2 restarts per D.
func tinyLabels(model, dir string, extra ...string) []string {
	args := []string{"train", model, "--method", "labels", "--preset", "quick", "--samples", "1200",
		"--epochs", "8", "--accept", "2", "--max-attempts", "2", "--labels", "6", "--out", dir}
	return append(args, extra...)
}

// TestTrainLabelsVerifies trains the labels method on the binary paper
// model and on a finite model, checks that results.json names the method
// and holds a channel per point, and that mmds verify certifies the
// channels (exit 0 or 1, never a crash or a refusal of the directory), and
// that each channel, exported, certifies as verify certified it.
func TestTrainLabelsVerifies(t *testing.T) {
	cases := []struct{ model, config, sweep string }{
		{"binary", "", "0.05:0.2:2"},
		{"finite", "../../examples/finite-random-n6-k2.json", "0.06:0.17:2"},
	}
	for _, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r")
			args := tinyLabels(c.model, dir, "--sweep", c.sweep)
			if c.config != "" {
				args = append(args, "--config", c.config)
			}
			if code, _, errs := runCLI(t, args...); code != 0 {
				t.Fatalf("train: exit %d: %s", code, errs)
			}
			r := readResults(t, dir)
			if r.Config.Method != learn.MethodLabels || r.Config.Labels == nil || r.Config.Labels.M != 6 {
				t.Fatalf("results.json config: method %v, labels %+v", r.Config.Method, r.Config.Labels)
			}
			for _, p := range r.Points {
				if p.Finalized && (len(p.Channel) == 0 || len(p.Channel[0]) != 6 || len(p.Networks) != 0) {
					t.Errorf("D = %g: channel %v, %d networks; want a 6-label channel and no networks", p.D, p.Channel, len(p.Networks))
				}
			}
			code, out, errs := runCLI(t, "verify", "--reference", "best", dir)
			if code != 0 && code != 1 {
				t.Fatalf("verify: exit %d: %s", code, errs)
			}
			if !strings.Contains(out, "certified min adv") {
				t.Errorf("verify printed no certificate:\n%s", out)
			}
			checkLabelsExport(t, dir, privatizer.FormatChannelJSON)
		})
	}
}

// TestTrainLabelsBadInput: the method's flags are checked before any work.
// --method labels --preset paper is accepted (Section V's grid of 30
// thresholds with the labels method's own budget), so it is not here.
func TestTrainLabelsBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"train", "binary", "--method", "labels", "--labels", "1"}, "--labels 1: must be in [2, 1024]"},
		{[]string{"train", "binary", "--method", "labels", "--labels", "5000"}, "--labels 5000: must be in [2, 1024]"},
		{[]string{"train", "binary", "--method", "sgd"}, `--method "sgd": must be alg1 or labels`},
		{[]string{"train", "binary", "--labels", "8"}, "--labels applies to --method labels only"},
		{[]string{"train", "binary", "--observers", "data"}, "--observers applies to --method labels only"},
		{[]string{"train", "binary", "--method", "labels", "--observers", "oracle"}, `--observers "oracle": must be law or data`},
		{[]string{"train", "gauss", "--method", "labels", "--observers", "data"}, `--observers "data": on the gauss model the labels method's observers are the law's exact MMSE estimators`},
		{[]string{"train", "finite", "--config", "../../examples/finite-random-n6-k2.json", "--labels", "1"}, "--labels 1: must be in [2, 1024]"},
		{[]string{"train", "finite", "--config", "../../examples/finite-random-n6-k2.json", "--labels", "5000"}, "--labels 5000: must be in [2, 1024]"},
		{[]string{"train", "finite", "--method", "labels"}, "needs a --config file"},
	}
	for _, c := range cases {
		args := append(c.args, "--out", filepath.Join(dir, "out"))
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, errs, c.want)
		}
	}
}
