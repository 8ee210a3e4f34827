package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/rundir"
	"github.com/mmds-project/mmds/verify"
)

// TestTrainLabelsGauss trains the labels method on the Gaussian paper
// model with 1 and 2 workers: results.json holds a cell kernel per
// finalized point, time-shared with F = X at D = 0.01 (below what the
// grid's cells reach alone), and is the same for both (wall-clock seconds
// aside);
// mmds verify certifies each kernel through gauss.KernelLosses with
// certified losses equal to the recorded training losses within the
// training quadrature's error; mmds export refuses the kernel by name.
func TestTrainLabelsGauss(t *testing.T) {
	base := t.TempDir()
	var points [2][]learn.DResult
	for w := range 2 {
		dir := filepath.Join(base, []string{"w1", "w2"}[w])
		args := tinyLabels("gauss", dir, "--sweep", "0.01:4:3", "--workers", []string{"1", "2"}[w])
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("train: exit %d: %s", code, errs)
		}
		r := readResults(t, dir)
		if r.Config.Labels == nil || r.Config.Labels.CellWidth != learn.DefaultCellWidth {
			t.Fatalf("results.json config.labels = %+v", r.Config.Labels)
		}
		for k := range r.Points {
			for j := range r.Points[k].Trials {
				r.Points[k].Trials[j].Seconds = 0
			}
		}
		points[w] = r.Points
	}
	a, _ := json.Marshal(points[0])
	b, _ := json.Marshal(points[1])
	if string(a) != string(b) {
		t.Fatal("results.json points differ between --workers 1 and --workers 2")
	}
	dir := filepath.Join(base, "w1")
	finalized := 0
	for _, p := range points[0] {
		if !p.Finalized {
			continue
		}
		finalized++
		if p.Kernel == nil || len(p.Kernel.Prob) != len(p.Kernel.Edges)+1 || len(p.Kernel.Prob[0]) != 6 || p.Channel != nil || len(p.Networks) != 0 {
			t.Fatalf("D = %g: want a 6-label kernel and no channel or networks", p.D)
		}
	}
	if finalized == 0 {
		t.Fatal("no threshold finalized")
	}
	if k := points[0][0].Kernel; !points[0][0].Finalized || k == nil || !(k.Reveal > 0 && k.Reveal < 1) {
		t.Fatalf("D = 0.01: finalized %v, kernel %v; want one time-shared with F = X, 0 < reveal < 1", points[0][0].Finalized, k != nil)
	}
	code, out, errs := runCLI(t, "verify", "--reference", "best", "--format", "json", dir)
	if code != 0 && code != 1 {
		t.Fatalf("verify: exit %d: %s", code, errs)
	}
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Points {
		if !p.Finalized {
			continue
		}
		if p.Status != verify.StatusCertified || p.Certified == nil || p.Change == nil {
			t.Fatalf("D = %g: status %v, verdict %q", p.D, p.Status, p.Verdict)
		}
		// Training records its losses at the certificate's Gauss–Hermite
		// order, so they agree to rounding, far inside the stated error.
		tol := 1e-12 + *p.Change
		rec, adv := p.Learned.Losses, p.Certified
		if d := math.Abs(rec.Recon-adv.Recon) / adv.MinAdv; d > tol {
			t.Errorf("D = %g: recon certified %.9g, trained %.9g (relative %.2g > %.2g)", p.D, adv.Recon, rec.Recon, d, tol)
		}
		for i := range adv.Adv {
			if d := math.Abs(rec.Adv[i]-adv.Adv[i]) / adv.MinAdv; d > tol {
				t.Errorf("D = %g: adversary %d certified %.9g, trained %.9g (relative %.2g > %.2g)", p.D, i+1, adv.Adv[i], rec.Adv[i], d, tol)
			}
		}
		if p.GapBest == nil {
			t.Errorf("D = %g: no gap to the best known mechanism", p.D)
		}
	}
	// A quadrature tolerance below the kernels' error estimate: cannot certify (exit 3).
	code, _, errs = runCLI(t, "verify", "--tol-quad", "1e-300", dir)
	if code != exitCannotCertify || !strings.Contains(errs, "cannot be certified") {
		t.Errorf("verify --tol-quad 1e-300: exit %d, stderr %q; want %d", code, errs, exitCannotCertify)
	}
	code, _, errs = runCLI(t, "export", "--d", "4", "-o", filepath.Join(base, "k.json"), dir)
	if code != exitUsage || !strings.Contains(errs, "cell kernel") {
		t.Errorf("export: exit %d, stderr %q; want exit 2 naming the cell kernel", code, errs)
	}
	checkRevealRefused(t, dir)
	// The kernel is sealed: an edited probability is refused.
	path := filepath.Join(dir, rundir.ResultsFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	k := doc["points"].([]any)[0].(map[string]any)["kernel"].(map[string]any)
	k["edges"].([]any)[0] = k["edges"].([]any)[0].(float64) - 1
	raw, _ = json.Marshal(doc)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "verify", dir); code != exitUsage {
		t.Errorf("verify of an edited kernel: exit %d, stderr %q; want 2", code, errs)
	}
}

// checkRevealRefused: verify refuses, with exit 2 naming the field before
// any work, a sealed kernel whose reveal weight λ is 1, −0.1 or NaN; the
// directory is left as it was.
func checkRevealRefused(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, rundir.ResultsFile)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(path, orig, 0o644)
	for _, lambda := range []float64{1, -0.1} {
		r := readResults(t, dir)
		r.Points[0].Kernel.Reveal = lambda
		if err := r.Seal(); err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI(t, "verify", dir)
		if code != exitUsage || !strings.Contains(errs, `"reveal"`) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("verify of a kernel with reveal %g: exit %d, stderr %q; want exit 2, one line naming \"reveal\"", lambda, code, errs)
		}
	}
	// NaN has no JSON spelling: the file no longer parses.
	raw := strings.Replace(string(orig), `"reveal":`, `"reveal": NaN, "x":`, 1)
	if err := os.WriteFile(path, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "verify", dir); code != exitUsage {
		t.Errorf("verify of a kernel with reveal NaN: exit %d, stderr %q; want 2", code, errs)
	}
}

// TestTrainLabelsGaussSmallD: on seed 1 the quick preset's first
// threshold, D = 0.005, below the w²/12 ≈ 0.053 a grid of cells reaches
// alone, finalizes a kernel time-shared with F = X, and mmds verify
// certifies it at distortion D.
func TestTrainLabelsGaussSmallD(t *testing.T) {
	if testing.Short() {
		t.Skip("a quick-preset threshold: about 4 s of CPU")
	}
	dir := filepath.Join(t.TempDir(), "g")
	if code, _, errs := runCLI(t, "train", "gauss", "--method", "labels", "--preset", "quick", "--seed", "1", "--d", "0.005", "--out", dir, "--quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	p := readResults(t, dir).Points[0]
	if !p.Finalized || p.Kernel == nil || !(p.Kernel.Reveal > 0.9 && p.Kernel.Reveal < 1) {
		t.Fatalf("D = 0.005: finalized %v, kernel %+v", p.Finalized, p.Kernel != nil)
	}
	code, out, errs := runCLI(t, "verify", "--format", "json", dir)
	if code != 0 {
		t.Fatalf("verify: exit %d: %s", code, errs)
	}
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	c := rep.Points[0].Certified
	if rep.Points[0].Status != verify.StatusCertified || c == nil || math.Abs(c.Recon-0.005) > 1e-9 || !(c.MinAdv > 0.005) {
		t.Fatalf("D = 0.005: status %v, certified %+v", rep.Points[0].Status, c)
	}
}
