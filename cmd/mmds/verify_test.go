package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// passingGauss writes Gaussian results whose privatizers are Proposition 1's
// optimal ones at D = 2 and D = 4: every point passes.
func passingGauss(t *testing.T) string {
	t.Helper()
	m := gauss.Paper()
	var pts []verifytest.Point
	for _, d := range []float64{2, 4} {
		o, _ := m.Optimum(d)
		net := learntest.LinearNet(o.A, o.B, 1)
		pts = append(pts, verifytest.Point{D: d, Priv: &net, Recon: d, Adv: o.Adv})
	}
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, model.Gauss, 0.1, pts)
	return dir
}

// passingBinary writes binary results whose privatizer is Proposition 2's
// optimum at D = 0.1.
func passingBinary(t *testing.T) string {
	t.Helper()
	m := mip.PaperBinary()
	o, err := m.SolveProp2(0.1, mip.DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	c := func(s float64) float64 { return min(max(s, 1e-12), 1-1e-12) }
	net := learntest.ConstantNet(c(o.S.S0), c(o.S.S1))
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, model.Binary, 0.01, []verifytest.Point{{D: 0.1, Priv: &net, Recon: 0.1, Adv: []float64{o.MinAdv}}})
	return dir
}

func TestVerifyPassingExitsZero(t *testing.T) {
	for _, dir := range []string{passingGauss(t), passingBinary(t)} {
		code, out, errs := runCLI(t, "verify", dir)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q\n%s", dir, code, errs, out)
		}
		for _, want := range []string{"Certificate of " + dir, "certified recon", "optimum min adv", "gap", "PASS", "tolerances:"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: table lacks %q:\n%s", dir, want, out)
			}
		}
		if strings.Count(out, " pass ") == 0 {
			t.Errorf("%s: no passing row:\n%s", dir, out)
		}
	}
}

// The trained fixtures have a threshold that was not finalized: exit 1 and
// the verdict "not finalized", unless --report-only.
func TestVerifyTrainedFixture(t *testing.T) {
	dir := t.TempDir()
	verifytest.Gauss(t, dir)
	code, out, errs := runCLI(t, "verify", dir)
	if code != 1 || !strings.Contains(out, "not finalized") || !strings.Contains(errs, "certification of") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "verify", "--summary", "--report-only", "--quiet", dir)
	if code != 0 || errs != "" {
		t.Fatalf("--report-only: exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2+len(verifytest.GaussD) || !strings.Contains(lines[0], "FAIL") || !strings.Contains(lines[1], "Proposition 1") ||
		!strings.Contains(lines[2], "not finalized") || !strings.Contains(lines[3], " best ") {
		t.Errorf("summary:\n%s", out)
	}
}

// The JSON contract: a points array with D, learned, certified, optimum, gap
// and pass, consistent with each other.
func TestVerifyJSON(t *testing.T) {
	dir := passingGauss(t)
	code, out, errs := runCLI(t, "verify", "--format", "json", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Model  string `json:"model"`
		Pass   *bool  `json:"pass"`
		Points []struct {
			D         *float64 `json:"D"`
			Learned   *struct{ ReconLoss, MinAdvLoss *float64 }
			Certified *struct {
				ReconLoss  *float64  `json:"recon_loss"`
				AdvLoss    []float64 `json:"adv_loss"`
				MinAdvLoss *float64  `json:"min_adv_loss"`
			} `json:"certified"`
			Optimum *struct {
				D          *float64 `json:"D"`
				MinAdvLoss *float64 `json:"min_adv_loss"`
			} `json:"optimum"`
			Gap  *float64 `json:"gap"`
			Pass *bool    `json:"pass"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if doc.Model != "gauss" || doc.Pass == nil || !*doc.Pass || len(doc.Points) != 2 {
		t.Fatalf("doc %+v", doc)
	}
	m := gauss.Paper()
	for _, p := range doc.Points {
		if p.D == nil || p.Learned == nil || p.Certified == nil || p.Optimum == nil || p.Gap == nil || p.Pass == nil || p.Certified.ReconLoss == nil {
			t.Fatalf("point lacks a contract field: %+v", p)
		}
		// Independent: Proposition 1 at the certified distortion, and the gap.
		o, _ := m.Optimum(*p.Certified.ReconLoss)
		if !scalar.EqualWithinRel(*p.Optimum.MinAdvLoss, o.MinAdv, 1e-12) || *p.Optimum.D != *p.Certified.ReconLoss {
			t.Errorf("D = %g: optimum %g at %g, Proposition 1 gives %g", *p.D, *p.Optimum.MinAdvLoss, *p.Optimum.D, o.MinAdv)
		}
		if want := *p.Optimum.MinAdvLoss - *p.Certified.MinAdvLoss; *p.Gap != want || math.Abs(want) > 0.01 {
			t.Errorf("D = %g: gap %g, want %g ≈ 0", *p.D, *p.Gap, want)
		}
	}
}

func TestVerifyCSV(t *testing.T) {
	dir := passingBinary(t)
	code, out, errs := runCLI(t, "verify", "--format", "csv", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("CSV %v, %d records", err, len(recs))
	}
	h := recs[0]
	for _, col := range []string{"D", "learned_recon", "learned_recon_hard", "certified_recon", "certified_adv_1", "optimum_min_adv", "gap", "pass", "s0", "s1", "quad_change"} {
		if slices.Index(h, col) < 0 {
			t.Errorf("CSV header lacks %q: %v", col, h)
		}
	}
	if len(recs[1]) != len(h) || recs[1][slices.Index(h, "pass")] != "true" {
		t.Errorf("row %v", recs[1])
	}
}

// Bad input exits 2 and names the file and the problem; nothing is written
// to stdout.
func TestVerifyBadInput(t *testing.T) {
	good := passingGauss(t)
	corrupt := t.TempDir()
	os.WriteFile(filepath.Join(corrupt, "results.json"), []byte("{"), 0o644)
	os.WriteFile(filepath.Join(corrupt, "model.json"), []byte(verifytest.GaussModelJSON), 0o644)
	wrongModel := passingGauss(t)
	os.WriteFile(filepath.Join(wrongModel, "model.json"), []byte(verifytest.BinaryModelJSON), 0o644)
	finalize := withProtocol(t, passingGauss(t), "finalize", "worst")
	selectOn := withProtocol(t, passingGauss(t), "select", "soft\x1b[2J")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"verify"}, "accepts 1 arg"},
		{[]string{"verify", filepath.Join(good, "nope")}, `nope": does not exist: want a results folder of mmds train`},
		{[]string{"verify", corrupt}, "results.json: not a valid results file"},
		{[]string{"verify", wrongModel}, "model.json"},
		{[]string{"verify", "--format", "xml", good}, "--format"},
		{[]string{"verify", "--summary", "--format", "csv", good}, "give one of --summary and --format"},
		{[]string{"verify", "--tol-adv-se", "-1", good}, "--tol-adv-se -1"},
		{[]string{"verify", finalize}, `results.json: not a valid results file: field "config.protocol.finalize": unknown option value: finalize "worst": want "" or best`},
		{[]string{"verify", selectOn}, `field "config.protocol.select": unknown option value: select "soft\x1b[2J": want "" or hard`},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want exit 2 and %q)", c.args, code, out, errs, c.want)
		}
	}
}

// withProtocol sets config.protocol.key of dir's results.json to value
// and returns dir.
func withProtocol(t *testing.T, dir, key, value string) string {
	t.Helper()
	path := filepath.Join(dir, "results.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	res["config"].(map[string]any)["protocol"].(map[string]any)[key] = value
	if b, err = json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestVerifyOutFile(t *testing.T) {
	dir := passingGauss(t)
	path := filepath.Join(t.TempDir(), "cert.json")
	code, out, errs := runCLI(t, "verify", "--format", "json", "-o", path, dir)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || !json.Valid(b) {
		t.Fatalf("%s: %v", path, err)
	}
}

// --reference best grades Gaussian points against the best known mechanism,
// which Proposition 1's optimal privatizers trail by large factors; the
// default, the paper's reference, passes them.
func TestVerifyReference(t *testing.T) {
	dir := passingGauss(t)
	if code, _, errs := runCLI(t, "verify", dir, "--reference", "paper"); code != 0 {
		t.Fatalf("paper reference: exit %d, %s", code, errs)
	}
	code, out, _ := runCLI(t, "verify", dir, "--reference", "best", "--summary")
	if code != 1 || !strings.Contains(out, "verdicts against the best known mechanism") || strings.Count(out, "fail: gap") != 2 {
		t.Errorf("best reference: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "verify", dir, "--reference", "worst"); code != 2 {
		t.Errorf("--reference worst: exit %d, want 2", code)
	}
}
