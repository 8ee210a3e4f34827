package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// rampJSON is F = X + noise·R wherever X has mass plus a ramp of slope 1e9
// beyond x = 30 (prior mass ~1e-11): its adversaries' Bayes losses are
// 1/(1/v + 1/noise²) ≈ noise², so it must never pass at D = 5.76.
func rampJSON(noise string) string {
	return `{"inputs":["x","r"],"layers":[{"weight":[[1,0],[-1,0],[1,0],[0,1],[0,-1]],"bias":[0,0,-30,0,0],"activation":"relu"},` +
		`{"weight":[[1,-1,1e9,` + noise + `,-` + noise + `]],"bias":[0],"activation":"identity"}]}`
}

// The ramp attack through mmds certify on the paper's Gaussian model: fail
// (exit 1) with a tiny certified adversary loss, or cannot certify (exit
// 3), never pass; the zero-noise variant answers cleanly as well.
func TestCertifyGaussRampNeverPasses(t *testing.T) {
	dir := t.TempDir()
	model := writeTestFile(t, dir, "gauss.json", verifytestGaussModel)
	for _, noise := range []string{"0.01", "0"} {
		priv := writeTestFile(t, dir, "ramp"+noise+".json", rampJSON(noise))
		code, out, errs := runCLI(t, "certify", "--model", model, "--privatizer", priv, "--d", "5.76", "--format", "json")
		if code != 1 && code != 3 {
			t.Fatalf("noise %s: exit %d, want 1 (fail) or 3 (cannot certify); stderr %q\n%s", noise, code, errs, out)
		}
		var doc certifyDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("noise %s: %v", noise, err)
		}
		p := doc.Points[0]
		if p.Pass || doc.Pass || (code == 1 && p.Certified.MinAdv > 2e-4) {
			t.Errorf("noise %s: exit %d, certified min adv %g, verdict %q", noise, code, p.Certified.MinAdv, p.Verdict)
		}
	}
}

// The same network as a trained privatizer of a results directory at an
// interior D: mmds verify never passes it.
func TestVerifyGaussRampNeverPasses(t *testing.T) {
	dir := t.TempDir()
	net := learn.Network{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []learn.Layer{
		{In: 2, Out: 5, Activation: "relu", Weights: []learn.Floats{{1, 0}, {-1, 0}, {1, 0}, {0, 1}, {0, -1}}, Bias: learn.Floats{0, 0, -30, 0, 0}},
		{In: 5, Out: 1, Activation: "identity", Weights: []learn.Floats{{1, -1, 1e9, 0.01, -0.01}}, Bias: learn.Floats{0}},
	}}
	verifytest.Synthetic(t, dir, model.Gauss, 0.1, []verifytest.Point{{D: 2, Priv: &net, Recon: 2, Adv: []float64{9, 9}}})
	code, out, errs := runCLI(t, "verify", dir)
	if code != 1 && code != 3 {
		t.Fatalf("exit %d, want 1 or 3; stderr %q\n%s", code, errs, out)
	}
	if strings.Contains(out, "PASS") && !strings.Contains(out, "FAIL") {
		t.Errorf("the ramp passes:\n%s", out)
	}
}
