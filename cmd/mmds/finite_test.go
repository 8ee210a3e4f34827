package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/mip"
)

type finiteJSONDoc struct {
	Model struct {
		N    int     `json:"n"`
		K    int     `json:"k"`
		DMax float64 `json:"d_max"`
	} `json:"model"`
	Points []struct {
		D          *float64    `json:"D"`
		Gamma      *float64    `json:"gamma"`
		ReconLoss  *float64    `json:"recon_loss"`
		AdvLoss    []float64   `json:"adv_loss"`
		MinAdvLoss *float64    `json:"min_adv_loss"`
		Outputs    int         `json:"outputs"`
		Mechanism  [][]float64 `json:"mechanism"`
		Method     string      `json:"method"`
		LowerBound bool        `json:"lower_bound"`
		Status     string      `json:"status"`
	} `json:"points"`
}

// TestFiniteJSONContract recomputes every point's losses from the printed
// mechanism with the model read independently from the same file.
func TestFiniteJSONContract(t *testing.T) {
	for _, tc := range []struct {
		alphabet string
		method   string
	}{{"global", "global LP"}, {"2", "MIP m=2"}} {
		cfg := filepath.Join("..", "..", "examples", "finite-ternary.json")
		code, out, errs := runCLI(t, "finite", "--config", cfg, "--alphabet", tc.alphabet, "--sweep", "0.1:0.2:3", "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var doc finiteJSONDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m, err := mip.ParseFiniteConfig(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		if doc.Model.N != 3 || doc.Model.K != 2 || len(doc.Points) != 3 {
			t.Fatalf("model %+v, %d points", doc.Model, len(doc.Points))
		}
		for _, p := range doc.Points {
			if p.D == nil || p.Gamma == nil || p.ReconLoss == nil || p.MinAdvLoss == nil || p.Status != "Optimal" || p.Method != tc.method || p.LowerBound {
				t.Fatalf("point lacks a contract field: %+v", p)
			}
			mech := mip.Mechanism(p.Mechanism)
			if err := m.ValidateMechanism(mech); err != nil || mech.Outputs() != p.Outputs {
				t.Fatalf("mechanism %v: %v", p.Mechanism, err)
			}
			if r := m.ReconLoss(mech); !scalar.EqualWithinAbs(r, *p.ReconLoss, 1e-12) || r > *p.D+1e-8 {
				t.Errorf("D=%g: recon_loss %g, recomputed %g", *p.D, *p.ReconLoss, r)
			}
			for i, a := range m.AdvLosses(mech) {
				if !scalar.EqualWithinAbs(a, p.AdvLoss[i], 1e-12) {
					t.Errorf("D=%g: adv_loss[%d] %g, recomputed %g", *p.D, i, p.AdvLoss[i], a)
				}
			}
			if !scalar.EqualWithinAbs(*p.MinAdvLoss, *p.Gamma, 1e-7) {
				t.Errorf("D=%g: min_adv_loss %g, gamma %g", *p.D, *p.MinAdvLoss, *p.Gamma)
			}
		}
	}
}

func TestFiniteDefaultIsPaperAndTable(t *testing.T) {
	code, out, errs := runCLI(t, "finite", "--d", "0.1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"n = 2, K = 1", "0.2200", "global LP", "Optimal mechanism at D = 0.1", "f=2"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestBinaryGlobal(t *testing.T) {
	code, out, errs := runCLI(t, "binary", "--global", "--sweep", "0.05:0.15:3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Points []struct {
			D          float64     `json:"D"`
			MinAdvLoss float64     `json:"min_adv_loss"`
			Global     *float64    `json:"global_min_adv_loss"`
			Mechanism  [][]float64 `json:"mechanism"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	m := mip.PaperBinary().Finite()
	for _, p := range doc.Points {
		// On [0, D_max] the global optimum is 2.2·D (the erasure
		// mechanism; see TestPaperGlobalHandValues in package mip).
		if p.Global == nil || !scalar.EqualWithinAbs(*p.Global, 2.2*p.D, 1e-9) || *p.Global < p.MinAdvLoss {
			t.Errorf("D=%g: global %v, Proposition 2 %g", p.D, p.Global, p.MinAdvLoss)
		}
		if a := m.AdvLosses(p.Mechanism)[0]; !scalar.EqualWithinAbs(a, *p.Global, 1e-9) {
			t.Errorf("D=%g: mechanism's loss %g ≠ %g", p.D, a, *p.Global)
		}
	}
	code, out, _ = runCLI(t, "binary", "--global", "--d", "0.1")
	if code != 0 || !strings.Contains(out, "2.200×") || !strings.Contains(out, "Optimal mechanism") {
		t.Errorf("table: exit %d\n%s", code, out)
	}
}

func TestFiniteBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeTestFile(t, dir, name, body) }
	rowSum := write("rows.json", `{"prior": [0.5, 0.5], "reconstructor": {"channel": [[0.8, 0.2], [0.3, 0.8]]}, "adversaries": [{"channel": [[1], [1]]}]}`)
	neg := write("neg.json", `{"prior": [0.5, 0.5], "reconstructor": {"channel": [[1, 0], [0, 1]]}, "adversaries": [{"channel": [[1.1, -0.1], [0, 1]]}]}`)
	size := write("size.json", `{"prior": [0.2, 0.3, 0.5], "reconstructor": {"channel": [[1], [1]]}, "adversaries": [{"channel": [[1], [1], [1]]}]}`)
	loss := write("loss.json", `{"prior": [0.5, 0.5], "reconstructor": {"channel": [[1], [1]], "loss": [[0.5, 1], [1, 0.5]]}, "adversaries": [{"channel": [[1], [1]]}]}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", rowSum}, "reconstructor.channel row 1 sums to 1.1"},
		{[]string{"--config", neg}, "adversaries[0].channel row 0, entry 0 = 1.1"},
		{[]string{"--config", size}, "reconstructor.channel has 2 rows: want one row per value of X (n = 3"},
		{[]string{"--config", filepath.Join(dir, "nope.json")}, "--config"},
		{[]string{"--config", loss, "--d", "0.1"}, "D = 0.1: infeasible, below D_min = 0.5"},
		{[]string{"--alphabet", "0"}, "--alphabet \"0\": must be global or an integer m in [1, 64]"},
		{[]string{"--alphabet", "many"}, "--alphabet \"many\""},
		{[]string{"--d", "NaN"}, "--d NaN"},
		{[]string{"--max-subsets", "0"}, "--max-subsets 0"},
		{[]string{"--time-limit", "-1s"}, "--time-limit -1s"},
		{[]string{"--format", "xml"}, "--format \"xml\""},
		{[]string{"--write-model", filepath.Join(dir, "m.txt")}, "must end in .mps or .lp"},
	} {
		code, out, errs := runCLI(t, append([]string{"finite"}, tc.args...)...)
		if code != exitUsage || out != "" {
			t.Errorf("%v: exit %d (stdout %q), want %d", tc.args, code, out, exitUsage)
		}
		if !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: stderr %q, want one line containing %q", tc.args, errs, tc.want)
		}
	}
}

func TestFiniteWriteModel(t *testing.T) {
	dir := t.TempDir()
	for _, alpha := range []string{"global", "3"} {
		path := filepath.Join(dir, alpha+".lp")
		code, _, errs := runCLI(t, "finite", "--alphabet", alpha, "--d", "0.1", "--write-model", path, "--format", "csv")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), "max") {
			t.Errorf("%s: %v %.60q", path, err, data)
		}
	}
}

func TestFiniteInfeasibleAlphabetIsFailure(t *testing.T) {
	code, _, errs := runCLI(t, "finite", "--config", filepath.Join("..", "..", "examples", "finite-ternary.json"), "--alphabet", "2", "--d", "0.05")
	if code != exitFailure || !strings.Contains(errs, "no privatizer with m = 2 outputs") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
