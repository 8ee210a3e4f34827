package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		UpperBound *float64    `json:"upper_bound"`
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
		extra    []string
	}{{"global", "global LP", nil}, {"global", "column generation", []string{"--method", "colgen"}}, {"2", "MIP m=2", nil}} {
		cfg := filepath.Join("..", "..", "examples", "finite-ternary.json")
		args := append([]string{"finite", "--config", cfg, "--alphabet", tc.alphabet, "--sweep", "0.1:0.2:3", "--format", "json"}, tc.extra...)
		code, out, errs := runCLI(t, args...)
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
			if p.D == nil || p.Gamma == nil || p.ReconLoss == nil || p.MinAdvLoss == nil || p.UpperBound == nil ||
				p.Status != "optimal" || p.Method != tc.method || p.LowerBound {
				t.Fatalf("point lacks a contract field: %+v", p)
			}
			if !scalar.EqualWithinAbs(*p.UpperBound, *p.Gamma, 1e-8) {
				t.Errorf("D=%g: optimal, but upper_bound %g ≠ gamma %g", *p.D, *p.UpperBound, *p.Gamma)
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
	big := write("big.json", bigConfig(t, 64, 20)) // 20·64·64·65 > 5 million pricing nonzeros
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", rowSum}, "reconstructor.channel row 1 sums to 1.1"},
		{[]string{"--config", neg}, "adversaries[0].channel row 0, entry 0 = 1.1"},
		{[]string{"--config", size}, "reconstructor.channel has 2 rows: want one row per value of X (n = 3"},
		{[]string{"--config", filepath.Join(dir, "nope.json")}, "--config"},
		{[]string{"--method", "simplex"}, "--method \"simplex\": must be auto, rays or colgen"},
		{[]string{"--config", big}, "model too large: the pricing LP would have"},
		{[]string{"--method", "colgen", "--write-model", filepath.Join(dir, "m.lp")}, "there is no single model to write"},
		{[]string{"--alphabet", "0"}, "--alphabet \"0\": must be global or an integer m in [1, 64]"},
		{[]string{"--alphabet", "many"}, "--alphabet \"many\""},
		{[]string{"--d", "NaN"}, `--d "NaN": not a number`},
		{[]string{"--max-subsets", "0"}, "--max-subsets 0"},
		{[]string{"--time-limit", "-1s"}, "--time-limit -1s"},
		{[]string{"--gap", "1"}, "--gap 1: must be in [1e-08, 1)"},
		{[]string{"--gap", "NaN"}, `--gap "NaN": not a number`},
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

// TestFiniteInfeasibleRows: thresholds no privatizer (or no m-output
// privatizer) meets are rows with status "infeasible" and null numbers; the
// others are solved.
func TestFiniteInfeasibleRows(t *testing.T) {
	dir := t.TempDir()
	loss := writeTestFile(t, dir, "loss.json", `{"prior": [0.5, 0.5], "reconstructor": {"channel": [[1], [1]], "loss": [[0.5, 1], [1, 0.5]]}, "adversaries": [{"channel": [[1], [1]]}]}`)
	ternary := filepath.Join("..", "..", "examples", "finite-ternary.json")
	exit1 := filepath.Join("..", "..", "mip", "testdata", "finite-exit1.json")
	for _, tc := range []struct {
		args       []string
		infeasible []bool
	}{
		// D_min = 0.5 for this loss: 0.1 is below it for every method.
		{[]string{"--config", loss, "--sweep", "0.1:0.6:2"}, []bool{true, false}},
		{[]string{"--config", loss, "--method", "colgen", "--sweep", "0.1:0.6:2"}, []bool{true, false}},
		// Two outputs cannot reach D = 0.01 on the ternary model (F would
		// have to identify X among three values).
		{[]string{"--config", ternary, "--alphabet", "2", "--sweep", "0.01:0.2:3"}, []bool{true, false, false}},
		// A valid model whose equilibrated ray LP HiGHS solved to a point
		// missing a row by 3e-11 ended in exit 1: every threshold of its
		// default sweep, and the one reported, is solved.
		{[]string{"--config", exit1}, make([]bool, 11)},
		{[]string{"--config", exit1, "--d", "0.03520845158028938"}, []bool{false}},
	} {
		code, out, errs := runCLI(t, append([]string{"finite", "--format", "json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		var doc finiteJSONDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Points) != len(tc.infeasible) {
			t.Fatalf("%v: %d points", tc.args, len(doc.Points))
		}
		for i, p := range doc.Points {
			if tc.infeasible[i] != (p.Status == "infeasible") || tc.infeasible[i] != (p.MinAdvLoss == nil) || (!tc.infeasible[i] && p.Status != "optimal") {
				t.Errorf("%v: point %d: status %q, min_adv_loss %v", tc.args, i, p.Status, p.MinAdvLoss)
			}
		}
	}
}

// bigConfig is a random model with n values of X and k adversaries (0-1
// losses).
func bigConfig(t testing.TB, n, k int) string {
	t.Helper()
	m, err := mip.RandomFinite(rand.New(rand.NewPCG(1, uint64(n))), n, k)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m.Config())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFiniteInterrupt: a cancelled run (Ctrl-C) exits 130 and prints
// nothing; a time limit answers with the bracket.
func TestFiniteInterrupt(t *testing.T) {
	cfg := writeTestFile(t, t.TempDir(), "n10.json", bigConfig(t, 10, 2))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"finite", "--config", cfg, "--d", "0.05", "--time-limit", "10m"}, &out, &errb)
	if code != 130 || out.Len() != 0 || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 130, nothing, \"interrupted\"", code, out.String(), errb.String())
	}
	code, js, errs := runCLI(t, "finite", "--config", cfg, "--d", "0.05", "--time-limit", "1s", "--format", "json")
	if code != 0 {
		t.Fatalf("time limit: exit %d: %s", code, errs)
	}
	var doc finiteJSONDoc
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Points[0]
	if p.MinAdvLoss == nil || p.UpperBound == nil || *p.UpperBound < *p.MinAdvLoss-1e-9 || p.Method != "column generation" ||
		(p.Status != "optimal" && !strings.HasPrefix(p.Status, "gap ")) {
		t.Errorf("time limit: %+v", p)
	}
}

// --global --plot draws the global optimum beside Proposition 2.
func TestBinaryGlobalPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.svg")
	if code, _, errs := runCLI(t, "binary", "--global", "--sweep", "0.05:0.2:4", "--plot", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "global optimum") || !strings.Contains(string(b), "Proposition 2") {
		t.Errorf("figure lacks the global curve: %v", err)
	}
}
