package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/rundir"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// Attack: a certificate whose minimum adversarial loss (loss.Min makes it
// NaN when any adversary's is, "so that a broken loss can never look like
// privacy"), optimum or gap tolerance is NaN has a NaN gap, and "gap >
// AdvTol" is false for NaN: the point passed with no number behind it. A
// gap that is not at most its tolerance fails.
func TestVerdictNaNGapFails(t *testing.T) {
	ok := Assessment{D: 0.1, Recon: 0.1, MinAdv: 0.3, Optimum: 0.3, BandLo: 0.09, BandHi: 0.11, AdvTol: 0.01, QuadTol: 1e-3}
	if pass, v := Verdict(ok); !pass {
		t.Fatalf("the honest point: %s", v)
	}
	nan := math.NaN()
	for _, c := range []struct {
		name string
		edit func(*Assessment)
	}{
		{"min adv NaN", func(a *Assessment) { a.MinAdv = nan }},
		{"optimum NaN", func(a *Assessment) { a.Optimum = nan }},
		{"tolerance NaN", func(a *Assessment) { a.AdvTol = nan }},
	} {
		a := ok
		c.edit(&a)
		pass, v := Verdict(a)
		if pass || !strings.Contains(v, "gap NaN") && !strings.Contains(v, "> NaN") {
			t.Errorf("%s: pass %v, %q: want a fail that names the gap", c.name, pass, v)
		}
	}
}

// Attack: a data run's results.json says which model its privatizer was
// trained on, and verify took its word. On a binary X, Algorithm 1's
// held-out losses are the hard errors results.json records; relabelling a
// run on an X of three values as "binary" made verify report whatever
// results.json records instead of the losses of the channel the
// categorical network releases. The run's model and method must be the
// ones mmds train data picks for its data (data.Prepared.ChoosePlan).
func TestDataRunModelMustFitX(t *testing.T) {
	raw := dataCSV() // x takes 3 values
	for _, c := range []struct {
		name   string
		model  model.Kind
		method learn.TrainMethod
		want   string
	}{
		{"binary on 3 values", model.Binary, learn.MethodAlg1, `"model" = binary with the alg1 method, but the data train finite`},
		{"labels as binary", model.Binary, learn.MethodLabels, `"model" = binary with the labels method, but the data train finite`},
	} {
		dir := writeDataRunAs(t, raw, c.model, c.method)
		_, err := OpenDir(context.Background(), DirRequest{Dir: dir})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInput with %q", c.name, err, c.want)
		}
	}
	// The run mmds train data writes still opens.
	dir := writeDataRunAs(t, raw, model.Finite, learn.MethodAlg1)
	if _, err := OpenDir(context.Background(), DirRequest{Dir: dir}); err != nil {
		t.Errorf("finite, alg1: %v", err)
	}
}

// writeDataRunAs writes a data run on raw (copied into the directory as
// d.csv) whose results.json says model k and method m, with one finalized
// point whose recorded losses claim a distortion of 0.
func writeDataRunAs(t *testing.T, raw []byte, k model.Kind, m learn.TrainMethod) string {
	t.Helper()
	dir := writeDataRun(t, "d.csv", raw)
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := learn.ReadResults(context.Background(), rundir.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	res.Model, res.Config.Model, res.Config.Method = k, k, m
	zero := 0.0
	p := learn.DResult{DIndex: 0, D: 0.1, Finalized: true, Losses: &loss.Losses{Recon: 0, Adv: []float64{0.5}, MinAdv: 0.5},
		ReconHard: &zero, AdvHard: learn.Floats{0.5}, Networks: make([]learn.Network, 3), Channel: [][]float64{{1}, {1}, {1}}}
	if m == learn.MethodAlg1 {
		p.Channel = nil
	}
	res.Points = []learn.DResult{p}
	verifytest.WriteResults(t, dir, res)
	return dir
}

// Attack: the verdict of a file that cannot be certified drops the file's
// name so that --check, which reads the file by another name, reproduces
// it; it dropped every " NAME:" in the reason. A file named after the
// reason ("gauss: the kernel's quadrature cannot resolve an observer")
// erased the reason from its own verdict, and on the kernel's message the
// sentinel itself was doubled ("cannot certify: cannot certify:: …"). The
// name is dropped once, where the model placed it, and the reason stays.
func TestCannotCertifyVerdictDropsNameOnce(t *testing.T) {
	reason := "the kernel's quadrature cannot resolve an observer"
	for _, c := range []struct {
		name, file string
		err        error
		want       string
	}{
		{"kernel", "k.json", fmt.Errorf("%w: %s: %w", bayes.ErrCannotCertify, "k.json", gauss.ErrUnresolved),
			"cannot certify: gauss: " + reason},
		{"kernel named after its reason", "gauss: " + reason, fmt.Errorf("%w: %s: %w", bayes.ErrCannotCertify, "gauss: "+reason, gauss.ErrUnresolved),
			"cannot certify: gauss: " + reason},
		{"kernel named after the sentinel", "certify", fmt.Errorf("%w: %s: %w", bayes.ErrCannotCertify, "certify", gauss.ErrUnresolved),
			"cannot certify: gauss: " + reason},
		{"network", "n.onnx", fmt.Errorf("%w: float32 network %s: E_R[k(0, R)]: the bound", network.ErrPrecision, "n.onnx"),
			"cannot certify: rounding error bound above tolerance: float32 network: E_R[k(0, R)]: the bound"},
		{"network named after its reason", "E_R[k(0, R)]", fmt.Errorf("%w: float32 network %s: E_R[k(0, R)]: the bound", network.ErrPrecision, "E_R[k(0, R)]"),
			"cannot certify: rounding error bound above tolerance: float32 network: E_R[k(0, R)]: the bound"},
	} {
		var p Point
		cannotCertify(&p, c.err, c.file)
		if p.Verdict != c.want || p.Status != StatusCannotCertify || p.Pass {
			t.Errorf("%s: %q (%v, pass %v), want %q", c.name, p.Verdict, p.Status, p.Pass, c.want)
		}
	}
}
