package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// rampJSON is F = X + noise·R wherever X has mass plus a ramp of slope 1e9
// beyond x = 30 (prior mass ~1e-11): its adversaries' Bayes losses are
// 1/(1/v + 1/noise²) ≈ noise², so it must never pass at D = 5.76.
func rampJSON(noise string) string {
	return `{"inputs":["x","r"],"layers":[{"weight":[[1,0],[-1,0],[1,0],[0,1],[0,-1]],"bias":[0,0,-30,0,0],"activation":"relu"},` +
		`{"weight":[[1,-1,1e9,` + noise + `,-` + noise + `]],"bias":[0],"activation":"identity"}]}`
}

// Attacks through mmds certify on the paper's Gaussian model: each network
// has a true Bayes loss far from what a careless certificate states, in the
// direction that makes a leaky or over-distorting privatizer pass. Fail
// (exit 1) or cannot certify (exit 3) are the sound answers, never pass;
// the ramp fails with a tiny certified adversary loss. The stair, the
// collapsed face and the comb are written by bayes.TestWriteAttackFixtures
// (testdata/attacks).
func TestCertifyGaussAttacksNeverPass(t *testing.T) {
	dir := t.TempDir()
	model := writeTestFile(t, dir, "gauss.json", verifytestGaussModel)
	for _, tc := range []struct {
		name, priv, d string
		maxMinAdv     float64 // on a fail (exit 1), the certified min adv is at most this (0: any)
	}{
		// F = X + noise·R wherever X has mass plus a ramp of slope 1e9
		// beyond x = 30; the zero-noise variant answers cleanly as well.
		{"ramp, noise 0.01", writeTestFile(t, dir, "ramp0.01.json", rampJSON("0.01")), "5.76", 2e-4},
		{"ramp, noise 0", writeTestFile(t, dir, "ramp0.json", rampJSON("0")), "5.76", 2e-4},
		// A 66-level quantizer of X (levels 5e-7 apart around 1e6): true
		// adversary losses ≈ 0.0207; certified as releasing nothing (9.22)
		// when near-equal atoms were merged.
		{"stair of near-equal atoms", filepath.Join("testdata", "attacks", "stair-atoms.json"), "5.76", 0},
		// F = X below 4, F = 4 + 1e-17·R above: true distortion 1.685;
		// certified 1.2e-11 when the collapsed face was dropped.
		{"collapsed face", filepath.Join("testdata", "attacks", "collapsed-face.json"), "0.005", 0},
		// F = φ(X + R), φ strictly increasing: true distortion 0.852;
		// certified 0.0034 ("beats the best known mechanism") by a Kronrod
		// rule the comb's teeth slipped between.
		{"comb", filepath.Join("testdata", "attacks", "comb.json"), "0.005", 0},
	} {
		code, out, errs := runCLI(t, "certify", "--model", model, "--privatizer", tc.priv, "--d", tc.d, "--format", "json")
		if code != 1 && code != 3 {
			t.Errorf("%s: exit %d, want 1 (fail) or 3 (cannot certify); stderr %q\n%s", tc.name, code, errs, out)
			continue
		}
		var doc certifyDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Errorf("%s: exit %d: %v; stderr %q", tc.name, code, err, errs)
			continue
		}
		p := doc.Points[0]
		if p.Pass || doc.Pass || (code == 1 && tc.maxMinAdv > 0 && p.Certified.MinAdv > tc.maxMinAdv) {
			t.Errorf("%s at D = %s: exit %d, certified recon %.4g, min adv %.4g, verdict %q",
				tc.name, tc.d, code, p.Certified.Recon, p.Certified.MinAdv, p.Verdict)
		}
	}
}

// The same network as a trained privatizer of a results directory at an
// interior D: mmds verify never passes it.
func TestVerifyGaussRampNeverPasses(t *testing.T) {
	dir := t.TempDir()
	net := network.Network{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []network.Layer{
		{Act: network.ReLU, W: [][]float64{{1, 0}, {-1, 0}, {1, 0}, {0, 1}, {0, -1}}, B: []float64{0, 0, -30, 0, 0}},
		{Act: network.Identity, W: [][]float64{{1, -1, 1e9, 0.01, -0.01}}, B: []float64{0}},
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
