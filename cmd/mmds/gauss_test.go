package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// gaussDoc is the JSON contract of mmds gauss, decoded independently of the
// types that produce it.
type gaussDoc struct {
	Model struct {
		VarXGivenRecon *float64  `json:"var_x_given_recon"`
		VarXGivenAdv   []float64 `json:"var_x_given_adv"`
	} `json:"model"`
	Points []struct {
		D           *float64  `json:"D"`
		DEff        *float64  `json:"D_eff"`
		SNR         *float64  `json:"snr"`
		SNRInfinite bool      `json:"snr_infinite"`
		ReconLoss   *float64  `json:"recon_loss"`
		AdvLoss     []float64 `json:"adv_loss"`
		MinAdvLoss  *float64  `json:"min_adv_loss"`
	} `json:"points"`
	MonteCarlo *struct {
		Seed    uint64 `json:"seed"`
		Train   int    `json:"train"`
		Test    int    `json:"test"`
		Results []struct {
			Recon struct {
				MSE float64 `json:"mse"`
				Lo  float64 `json:"ci_low"`
				Hi  float64 `json:"ci_high"`
			} `json:"recon"`
		} `json:"results"`
	} `json:"monte_carlo"`
}

func decodeGauss(t *testing.T, s string) gaussDoc {
	t.Helper()
	var d gaussDoc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
	if d.Model.VarXGivenRecon == nil || d.Model.VarXGivenAdv == nil {
		t.Fatalf("model lacks var_x_given_recon / var_x_given_adv: %s", s)
	}
	for i, p := range d.Points {
		if p.D == nil || p.DEff == nil || p.ReconLoss == nil || p.AdvLoss == nil || p.MinAdvLoss == nil || (p.SNR == nil) != p.SNRInfinite {
			t.Fatalf("point %d misses contract fields: %+v", i, p)
		}
	}
	return d
}

func TestGaussDefaultTable(t *testing.T) {
	code, out, errs := runCLI(t, "gauss")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"V_Y = Var[X | Y] = 5.76", "Var[X | Z1] = 15.8064", "Var[X | Z2] = 9.24",
		"Var[X | Z1, Z2]", "positive definite", "cross-check 5(a)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestGaussJSONContract(t *testing.T) {
	code, out, errs := runCLI(t, "gauss", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := decodeGauss(t, out)
	vy := 16 * (1 - 0.8*0.8)
	if len(d.Points) != 30 || *d.Points[0].D != 0.005 || !scalar.EqualWithinAbsOrRel(*d.Points[29].D, vy, 1e-12, 1e-12) {
		t.Fatalf("want the paper's 30 thresholds 0.005..5.76, got %d points", len(d.Points))
	}
	last := d.Points[29]
	want := []float64{16 * (1 - 0.11*0.11), 16 * (1 - 0.65*0.65)}
	for i := range want {
		if !scalar.EqualWithinAbsOrRel(last.AdvLoss[i], want[i], 1e-12, 1e-12) {
			t.Errorf("adv %d at D = V_Y: %g, want %g", i+1, last.AdvLoss[i], want[i])
		}
	}
	if d.MonteCarlo != nil {
		t.Error("monte_carlo present without --monte-carlo")
	}
}

func TestGaussInfiniteSNRInJSON(t *testing.T) {
	code, out, errs := runCLI(t, "gauss", "--d", "0", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := decodeGauss(t, out)
	if len(d.Points) != 1 || !d.Points[0].SNRInfinite || d.Points[0].SNR != nil || *d.Points[0].ReconLoss != 0 {
		t.Fatalf("D = 0 must give snr null, snr_infinite true, loss 0: %s", out)
	}
}

func TestGaussCoalitionExample(t *testing.T) {
	code, out, errs := runCLI(t, "gauss", "--config", filepath.Join("..", "..", "examples", "gauss-coalition.json"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := decodeGauss(t, out)
	// Var[X|Z1,Z2] = σ_X²(1 − R²), R² = (r1² + r2² − 2 r1 r2 r12)/(1 − r12²).
	r1, r2, r12 := 0.11, 0.65, 0.19
	want := 16 * (1 - (r1*r1+r2*r2-2*r1*r2*r12)/(1-r12*r12))
	if !scalar.EqualWithinAbsOrRel(*d.Model.VarXGivenRecon, want, 1e-12, 1e-12) {
		t.Errorf("V_Y = %g, want Var[X|Z1,Z2] = %g", *d.Model.VarXGivenRecon, want)
	}
	if code, out, _ := runCLI(t, "gauss", "--config", filepath.Join("..", "..", "examples", "gauss-coalition.json")); code != 0 || !strings.Contains(out, "reconstructor {Z1,Z2}") {
		t.Errorf("coalition table: exit %d\n%s", code, out)
	}
}

func TestGaussMonteCarloSeeded(t *testing.T) {
	args := []string{"gauss", "--sweep", "0.5:5:3", "--monte-carlo", "--format", "json"}
	c1, a, _ := runCLI(t, append(args, "--seed", "7")...)
	c2, b, _ := runCLI(t, append(args, "--seed", "7")...)
	c3, c, _ := runCLI(t, append(args, "--seed", "8")...)
	if c1 != 0 || c2 != 0 || c3 != 0 {
		t.Fatalf("exit statuses %d %d %d", c1, c2, c3)
	}
	if a != b {
		t.Error("same --seed, different output")
	}
	if a == c {
		t.Error("different --seed, same output")
	}
	d := decodeGauss(t, a)
	if d.MonteCarlo == nil || d.MonteCarlo.Train != 10000 || d.MonteCarlo.Test != 2000 || len(d.MonteCarlo.Results) != 3 {
		t.Fatalf("monte_carlo block: %+v", d.MonteCarlo)
	}
	for i, r := range d.MonteCarlo.Results {
		// A loose sanity band (exact coverage is tested in package gauss).
		if exact := *d.Points[i].ReconLoss; math.Abs(r.Recon.MSE-exact) > 0.2*exact {
			t.Errorf("point %d: Monte Carlo %g far from exact %g", i, r.Recon.MSE, exact)
		}
	}
	if code, out, _ := runCLI(t, "gauss", "--d", "1", "--monte-carlo", "--samples", "600", "--format", "csv"); code != 0 || !strings.Contains(out, "mc_recon_ci_low") {
		t.Errorf("csv with Monte Carlo: exit %d\n%s", code, out)
	}
}

func TestGaussOutFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.json")
	code, out, errs := runCLI(t, "gauss", "--d", "1", "--format", "json", "--output", path)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	decodeGauss(t, string(b))
}

func TestGaussBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeTestFile(t, dir, name, body) }
	nonPSD := write("nonpsd.json", `{"names":["X","Y","Z"],"var":[1,1,1],
	  "corr":[[1,0.9,0.9],[0.9,1,-0.9],[0.9,-0.9,1]],"private":"X","reconstructor":["Y"],"adversaries":[["Z"]]}`)
	rho := write("rho.json", `{"names":["X","Y"],"var":[1,1],"corr":[[1,1.5],[1.5,1]],"private":"X","reconstructor":["Y"],"adversaries":[[]]}`)
	negVar := write("neg.json", `{"names":["X","Y"],"var":[1,-1],"corr":[[1,0],[0,1]],"private":"X","reconstructor":["Y"],"adversaries":[[]]}`)
	unknown := write("unknown.json", `{"names":["X","Y"],"var":[1,1],"corr":[[1,0],[0,1]],"private":"X","reconstructor":["W"],"adversaries":[[]]}`)
	field := write("field.json", `{"names":["X"],"vars":[1]}`)
	malformed := write("bad.json", `{"names":["X",`)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"non-PSD", []string{"--config", nonPSD}, []string{"not positive semidefinite", "smallest eigenvalue", nonPSD}},
		{"|rho| > 1", []string{"--config", rho}, []string{"corr[0][1]", "(X,Y)", "1.5", "[-1, 1]"}},
		{"negative variance", []string{"--config", negVar}, []string{"var[1]", "(Y)", "-1", "> 0"}},
		{"unknown name", []string{"--config", unknown}, []string{"reconstructor[0]", `"W"`, "unknown"}},
		{"unknown field", []string{"--config", field}, []string{`"vars"`}},
		{"malformed", []string{"--config", malformed}, []string{"malformed JSON"}},
		{"missing file", []string{"--config", filepath.Join(dir, "nope.json")}, []string{"--config", "nope.json"}},
		{"d and sweep", []string{"--d", "1", "--sweep", "0:1:3"}, []string{"mutually exclusive"}},
		{"negative d", []string{"--d", "-1"}, []string{"--d", "≥ 0"}},
		{"NaN d", []string{"--d", "NaN"}, []string{"--d"}},
		{"bad sweep", []string{"--sweep", "1:0:3"}, []string{"--sweep"}},
		{"bad format", []string{"--format", "xml"}, []string{"--format"}},
		{"few samples", []string{"--monte-carlo", "--samples", "5"}, []string{"--samples 5"}},
		{"seed without MC", []string{"--seed", "3"}, []string{"--seed needs --monte-carlo"}},
		{"extra argument", []string{"extra"}, []string{"no arguments"}},
		{"unknown flag", []string{"--dd", "1"}, []string{"dd"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outFile := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "_"))
			args := append(append([]string{"gauss"}, c.args...), "--output", outFile)
			code, out, errs := runCLI(t, args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, errs)
			}
			if out != "" {
				t.Errorf("stdout must be empty on bad input, got %q", out)
			}
			if _, err := os.Stat(outFile); !os.IsNotExist(err) {
				t.Errorf("--out file written on bad input")
			}
			if n := strings.Count(strings.TrimSpace(errs), "\n"); n != 0 {
				t.Errorf("want one line of error, got %q", errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

// TestGaussAchievableContract decodes the "achievable" and "upper_bound"
// keys of mmds gauss --format json independently of the producing types.
func TestGaussAchievableContract(t *testing.T) {
	type mech struct {
		Family string   `json:"family"`
		Delta  *float64 `json:"delta"`
		Weight *float64 `json:"weight"`
		Parts  []mech   `json:"parts"`
	}
	var doc struct {
		Points []struct {
			D          float64  `json:"D"`
			MinAdvLoss float64  `json:"min_adv_loss"`
			UpperBound *float64 `json:"upper_bound"`
			Achievable *struct {
				ReconLoss  *float64  `json:"recon_loss"`
				AdvLoss    []float64 `json:"adv_loss"`
				MinAdvLoss *float64  `json:"min_adv_loss"`
				Mechanism  *mech     `json:"mechanism"`
			} `json:"achievable"`
		} `json:"points"`
	}
	families := map[string]bool{"modulo": true, "nested": true, "quantizer": true, "erasure": true, "linear": true, "mixture": true}
	for _, d := range []string{"0.5", "3", "7"} {
		code, out, errOut := runCLI(t, "gauss", "--d", d, "--format", "json")
		if code != 0 {
			t.Fatalf("--d %s: exit %d: %s", d, code, errOut)
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Points) != 1 {
			t.Fatalf("--d %s: bad JSON (%v): %s", d, err, out)
		}
		p := doc.Points[0]
		a := p.Achievable
		if a == nil || a.ReconLoss == nil || a.MinAdvLoss == nil || len(a.AdvLoss) != 2 || a.Mechanism == nil || p.UpperBound == nil {
			t.Fatalf("--d %s: achievable/upper_bound missing: %s", d, out)
		}
		if !families[a.Mechanism.Family] {
			t.Errorf("--d %s: family %q not in the contract", d, a.Mechanism.Family)
		}
		if *a.ReconLoss > p.D*(1+1e-12) || *a.MinAdvLoss < p.MinAdvLoss || *a.MinAdvLoss > *p.UpperBound*(1+1e-9) {
			t.Errorf("--d %s: achievable (%g, %g) outside [Proposition 1 %g, upper bound %g] or over D", d, *a.ReconLoss, *a.MinAdvLoss, p.MinAdvLoss, *p.UpperBound)
		}
		all := append([]mech{*a.Mechanism}, a.Mechanism.Parts...)
		for _, m := range all {
			if m.Family == "modulo" && (m.Delta == nil || !(*m.Delta > 0)) {
				t.Errorf("--d %s: modulo without a positive delta: %s", d, out)
			}
		}
		if a.Mechanism.Family == "mixture" {
			sum := 0.0
			for _, q := range a.Mechanism.Parts {
				if q.Weight == nil {
					t.Fatalf("--d %s: mixture part without weight", d)
				}
				sum += *q.Weight
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("--d %s: mixture weights sum to %g", d, sum)
			}
		}
	}
}

func TestGaussPlotEnvelope(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.svg")
	if code, _, errOut := runCLI(t, "gauss", "--sweep", "0:5.76:4", "--plot", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "best achievable") || !strings.Contains(string(b), "modulo") {
		t.Errorf("plot lacks the envelope or the modulo curve (err %v)", err)
	}
}

// TestGaussOptimum runs mmds gauss --optimum at D = 0.5 in JSON and CSV:
// the JSON holds the search's settings and, per point, its estimate; the
// best achievable is the search's certified mechanism (better than X mod
// Δ there), within the proven upper bound; the CSV's optimum columns are
// JSON's numbers (capped by the upper bound).
func TestGaussOptimum(t *testing.T) {
	var doc struct {
		Search *struct {
			Step float64 `json:"step"`
			Span float64 `json:"span"`
		} `json:"optimum_search"`
		Points []struct {
			UpperBound float64 `json:"upper_bound"`
			Achievable struct {
				ReconLoss  float64 `json:"recon_loss"`
				MinAdvLoss float64 `json:"min_adv_loss"`
			} `json:"achievable"`
			Optimum *struct {
				GridValue    float64 `json:"grid_value"`
				Estimate     float64 `json:"estimate"`
				TwoAtomBound float64 `json:"two_atom_bound"`
				Points       int     `json:"grid_points"`
				Mechanism    string  `json:"mechanism"`
				Losses       struct {
					MinAdvLoss float64 `json:"min_adv_loss"`
					ReconLoss  float64 `json:"recon_loss"`
				} `json:"mechanism_losses"`
			} `json:"optimum"`
		} `json:"points"`
	}
	code, out, errOut := runCLI(t, "gauss", "--d", "0.5", "--optimum", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Points) != 1 || doc.Search == nil || doc.Points[0].Optimum == nil {
		t.Fatalf("bad JSON (%v): %.2000s", err, out)
	}
	p, o := doc.Points[0], doc.Points[0].Optimum
	const modulo = 3.06209 // X mod Δ, the best achievable at D = 0.5 without --optimum
	if p.Achievable.MinAdvLoss <= modulo || p.Achievable.ReconLoss > 0.5 || p.Achievable.MinAdvLoss > p.UpperBound {
		t.Errorf("best achievable %g (L_R %g): want above X mod Δ's %g, L_R ≤ 0.5, below the upper bound %g", p.Achievable.MinAdvLoss, p.Achievable.ReconLoss, modulo, p.UpperBound)
	}
	if o.Points != 121 || o.Estimate < o.GridValue || o.Losses.MinAdvLoss > p.Achievable.MinAdvLoss || o.Mechanism == "" {
		t.Errorf("optimum %+v inconsistent with the achievable %+v", *o, p.Achievable)
	}
	if w := (math.Min(o.Estimate, p.UpperBound) - p.Achievable.MinAdvLoss) / o.Estimate; w < 0 || w > 0.1 {
		t.Errorf("numerical bracket [%g, %g] is %.3g wide: want within 10%%", p.Achievable.MinAdvLoss, o.Estimate, w)
	}
	code, csv, errOut := runCLI(t, "gauss", "--d", "0.5", "--optimum", "--format", "csv")
	if code != 0 {
		t.Fatalf("csv: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	want := map[string]float64{"optimum_grid_value": o.GridValue, "optimum_estimate": math.Min(o.Estimate, p.UpperBound),
		"optimum_two_atom_bound": o.TwoAtomBound, "optimum_mechanism_min_adv": o.Losses.MinAdvLoss}
	for k, name := range head {
		if v, ok := want[name]; ok {
			if js := strconv.FormatFloat(v, 'g', -1, 64); row[k] != js {
				t.Errorf("CSV %s = %s, JSON %s", name, row[k], js)
			}
			delete(want, name)
		}
	}
	if len(want) > 0 {
		t.Errorf("CSV lacks %v", want)
	}
}
