package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// Red-team attacks through mmds certify on the paper's Gaussian model: each
// network (testdata/redteam, written by bayes.TestRedTeamWriteFixtures) has
// a true Bayes loss far from what the certificate states, in the direction
// that makes a leaky or over-distorting privatizer pass. None may pass: exit
// 1 (fail) or 3 (cannot certify) are the sound answers.
func TestRedTeamCertifyNeverPasses(t *testing.T) {
	dir := t.TempDir()
	model := writeTestFile(t, dir, "gauss.json", verifytestGaussModel)
	for _, tc := range []struct {
		file, d, why string
	}{
		// A 66-level quantizer of X (levels 5e-7 apart around 1e6): true
		// adversary losses ≈ 0.0207; certified as releasing nothing (9.22).
		{"stair-atoms.json", "5.76", "near-equal atoms merged"},
		// F = X below 4, F = 4 + 1e-17·R above: true distortion 1.685;
		// certified 1.2e-11.
		{"collapsed-face.json", "0.005", "collapsed face dropped"},
		// F = φ(X + R), φ strictly increasing: true distortion 0.852;
		// certified 0.0034 ("beats the best known mechanism").
		{"comb.json", "0.005", "Kronrod comb"},
	} {
		priv := filepath.Join("testdata", "redteam", tc.file)
		code, out, errs := runCLI(t, "certify", "--model", model, "--privatizer", priv, "--d", tc.d, "--format", "json")
		if code == 3 {
			continue
		}
		var doc certifyDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: exit %d: %v; stderr %q", tc.file, code, err, errs)
		}
		if code == 0 || doc.Pass {
			p := doc.Points[0]
			t.Errorf("%s (%s) at D = %s: exit %d, certified recon %.4g, min adv %.4g, verdict %q",
				tc.file, tc.why, tc.d, code, p.Certified.Recon, p.Certified.MinAdv, p.Verdict)
		}
	}
}
