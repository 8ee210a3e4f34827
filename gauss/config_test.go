package gauss

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

const paperConfigText = `{"names":["X","Y","Z1","Z2"], "mean":[4,3,4.5,5], "var":[16,0.9,12.25,2.25],
 "corr":[[1,0.8,0.11,0.65],[0.8,1,0.23,0.59],[0.11,0.23,1,0.19],[0.65,0.59,0.19,1]],
 "private":"X", "reconstructor":["Y"], "adversaries":[["Z1"],["Z2"]]}`

func TestIssueExampleConfigParses(t *testing.T) {
	c, err := ParseConfig(strings.NewReader(paperConfigText))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if !near(m.VarRecon(), Paper().VarRecon()) || m.K() != 2 {
		t.Errorf("issue example: V_Y %g, K %d", m.VarRecon(), m.K())
	}
}

// TestCovFormEquivalent: "cov" gives the same model as "var"+"corr" when it
// holds ρ_ij σ_i σ_j, computed here by hand.
func TestCovFormEquivalent(t *testing.T) {
	s := []float64{4, math.Sqrt(0.9), 3.5, 1.5}
	r := [][]float64{{1, rXY, rXZ1, rXZ2}, {rXY, 1, rYZ1, rYZ2}, {rXZ1, rYZ1, 1, rZ1Z2}, {rXZ2, rYZ2, rZ1Z2, 1}}
	cov := make([][]float64, 4)
	for i := range cov {
		cov[i] = make([]float64, 4)
		for j := range cov[i] {
			cov[i][j] = r[i][j] * s[i] * s[j]
		}
	}
	m, err := New(Config{Names: []string{"X", "Y", "Z1", "Z2"}, Cov: cov, Private: "X",
		Reconstructor: []string{"Y"}, Adversaries: [][]string{{"Z1"}, {"Z2"}}})
	if err != nil {
		t.Fatal(err)
	}
	p := Paper()
	got := append([]float64{m.VarRecon()}, m.VarAdv()...)
	want := append([]float64{p.VarRecon()}, p.VarAdv()...)
	for i := range got {
		if !scalar.EqualWithinAbsOrRel(got[i], want[i], 1e-12, 1e-12) {
			t.Errorf("variance %d: cov form %g, var+corr form %g", i, got[i], want[i])
		}
	}
}

func TestPaperCorrelationMatrixPositiveDefinite(t *testing.T) {
	if e := Paper().MinEigenvalue(); !(e > 0.1) {
		t.Errorf("smallest eigenvalue of the paper's correlation matrix = %g, want clearly > 0", e)
	}
}

func TestBadConfigs(t *testing.T) {
	cases := []struct {
		name, json string
		want       []string // substrings of the error
	}{
		{"malformed", `{"names": [`, []string{"malformed JSON"}},
		{"empty", ``, []string{"empty file"}},
		{"unknown field", `{"names":["X"],"variance":[1]}`, []string{`unknown field "variance"`, "allowed: names"}},
		{"trailing", paperConfigText + `{}`, []string{"after the JSON value"}},
		{"string for number", `{"names":["X"],"var":["one"]}`, []string{`"var`}},
		{"no names", `{"var":[1],"corr":[[1]]}`, []string{`"names"`}},
		{"duplicate name", strings.Replace(paperConfigText, `"Z2"]`, `"Z1"]`, 1), []string{"names[3]", `"Z1"`, "unique"}},
		{"mean size", strings.Replace(paperConfigText, `[4,3,4.5,5]`, `[4,3]`, 1), []string{`"mean"`, "2", "4"}},
		{"var size", strings.Replace(paperConfigText, `[16,0.9,12.25,2.25]`, `[16,0.9,12.25]`, 1), []string{`"var"`, "3"}},
		{"corr row size", strings.Replace(paperConfigText, `[0.8,1,0.23,0.59]`, `[0.8,1,0.23]`, 1), []string{"corr[1]", "(Y)", "3 entries"}},
		{"zero variance", strings.Replace(paperConfigText, `0.9,12.25`, `0,12.25`, 1), []string{"var[1]", "(Y)", "= 0", "> 0"}},
		{"negative variance", strings.Replace(paperConfigText, `12.25,2.25`, `-12.25,2.25`, 1), []string{"var[2]", "(Z1)", "-12.25", "> 0"}},
		{"rho > 1", strings.Replace(paperConfigText, `[1,0.8,0.11`, `[1,1.2,0.11`, 1), []string{"corr[0][1]", "(X,Y)", "1.2", "[-1, 1]"}},
		{"asymmetric corr", strings.Replace(paperConfigText, `[1,0.8,0.11`, `[1,0.7,0.11`, 1), []string{"not symmetric", "corr[1][0]"}},
		{"diag corr", strings.Replace(paperConfigText, `[0.8,1,0.23`, `[0.8,0.9,0.23`, 1), []string{"corr[1][1]", "must be 1"}},
		{"not PSD", `{"names":["X","Y","Z"],"var":[1,1,1],"corr":[[1,0.9,0.9],[0.9,1,-0.9],[0.9,-0.9,1]],"private":"X","reconstructor":["Y"],"adversaries":[["Z"]]}`,
			[]string{"not positive semidefinite", "smallest eigenvalue -0.8"}},
		{"cov not PSD", `{"names":["X","Y","Z"],"cov":[[1,0.9,0.9],[0.9,1,-0.9],[0.9,-0.9,1]],"private":"X","reconstructor":["Y"],"adversaries":[["Z"]]}`,
			[]string{"not positive semidefinite"}},
		{"cov > CS bound", `{"names":["X","Y"],"cov":[[1,3],[3,4]],"private":"X","reconstructor":["Y"],"adversaries":[[]]}`,
			[]string{"cov[1][0]", "(Y,X)", "correlation 1.5"}},
		{"cov and var", `{"names":["X"],"cov":[[1]],"var":[1],"private":"X","reconstructor":[],"adversaries":[[]]}`, []string{"not both"}},
		{"no moments", `{"names":["X"],"var":[1],"private":"X"}`, []string{"second moments"}},
		{"unknown private", strings.Replace(paperConfigText, `"private":"X"`, `"private":"W"`, 1), []string{"private", `"W"`, "unknown"}},
		{"unknown side", strings.Replace(paperConfigText, `[["Z1"],["Z2"]]`, `[["Z1"],["Z3"]]`, 1), []string{"adversaries[1][0]", `"Z3"`, "unknown"}},
		{"private as side", strings.Replace(paperConfigText, `"reconstructor":["Y"]`, `"reconstructor":["X"]`, 1), []string{"reconstructor[0]", "private"}},
		{"side twice", strings.Replace(paperConfigText, `"reconstructor":["Y"]`, `"reconstructor":["Y","Y"]`, 1), []string{"reconstructor[1]", "twice"}},
		{"no reconstructor", strings.Replace(paperConfigText, `"reconstructor":["Y"],`, ``, 1), []string{`"reconstructor" is missing`}},
		{"no adversaries", strings.Replace(paperConfigText, `, "adversaries":[["Z1"],["Z2"]]`, ``, 1), []string{`"adversaries"`, "K ≥ 1"}},
		{"huge number", strings.Replace(paperConfigText, `[4,3,4.5,5]`, `[4,3,4.5,1e400]`, 1), []string{`"mean`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig(strings.NewReader(c.json))
			if err == nil {
				_, err = New(cfg)
			}
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error %q does not wrap ErrConfig", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// FuzzParseConfig: parsing and validating arbitrary bytes never panics, and
// every accepted model has conditional variances in [0, Var[X]] and a finite,
// NaN-free optimum.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(paperConfigText))
	f.Add([]byte(`{"names":["X","Y"],"cov":[[1,1],[1,1]],"private":"X","reconstructor":["Y"],"adversaries":[[],["Y"]]}`))
	f.Add([]byte(`{"names":["X","Y","Z"],"var":[1,1,1],"corr":[[1,0.9,0.9],[0.9,1,-0.9],[0.9,-0.9,1]],"private":"X","reconstructor":["Y"],"adversaries":[["Z"]]}`))
	f.Add([]byte(`{"names":[""]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		m, err := New(c)
		if err != nil {
			return
		}
		vx := m.VarX()
		for _, v := range append([]float64{m.VarRecon()}, m.VarAdv()...) {
			if !(v >= 0 && v <= vx*(1+1e-9)) {
				t.Fatalf("conditional variance %g outside [0, %g]", v, vx)
			}
		}
		for _, d := range []float64{0, m.VarRecon() / 2, m.VarRecon()} {
			p, err := m.Optimum(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range append(p.Adv, p.Recon, p.DEff) {
				if math.IsNaN(v) || v < 0 {
					t.Fatalf("D = %g: loss %g", d, v)
				}
			}
		}
	})
}

// TestConfigRoundTrip checks that Model.Config, encoded as JSON and parsed
// again, builds a model with the same covariance and roles.
func TestConfigRoundTrip(t *testing.T) {
	covModel, err := New(Config{Names: []string{"X", "Y", "Z"}, Cov: [][]float64{{2, 1, 0.5}, {1, 3, 0}, {0.5, 0, 1}},
		Private: "X", Reconstructor: []string{"Y"}, Adversaries: [][]string{{"Z"}, {"Y", "Z"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Model{Paper(), covModel} {
		b, err := json.Marshal(m.Config())
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		m2, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(m.cov, m2.cov) || m.VarRecon() != m2.VarRecon() || m2.K() != m.K() {
			t.Fatalf("round trip changed the model: %s", b)
		}
		cfg := m.Config()
		cfg.Names[0] = "changed"
		if m.Config().Names[0] == "changed" {
			t.Fatal("Config returned shared storage")
		}
	}
}
