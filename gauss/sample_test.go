package gauss

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat"
)

func TestSampleMoments(t *testing.T) {
	m := Paper()
	const n = 200000
	s := m.Sample(rand.New(rand.NewPCG(1, 2)), n)
	if len(s.Private()) != n {
		t.Fatalf("%d samples", len(s.Private()))
	}
	names := m.Names()
	cov := m.cov
	mean := m.Mean()
	for i, a := range names {
		ca := s.cols[i]
		// Standard error of a sample mean is σ/√n: allow 5 of them.
		if se := math.Sqrt(cov.At(i, i) / n); math.Abs(stat.Mean(ca, nil)-mean[i]) > 5*se {
			t.Errorf("mean of %s = %g, want %g ± %g", a, stat.Mean(ca, nil), mean[i], 5*se)
		}
		for j, b := range names[:i+1] {
			cb := s.cols[j]
			got := stat.Covariance(ca, cb, nil)
			// sd of a sample covariance ≤ σ_a σ_b √(2/n) for Gaussians.
			tol := 5 * math.Sqrt(cov.At(i, i)*cov.At(j, j)*2/n)
			if math.Abs(got-cov.At(i, j)) > tol {
				t.Errorf("cov(%s,%s) = %g, want %g ± %g", a, b, got, cov.At(i, j), tol)
			}
		}
	}
}

func TestSampleSingularAndAccessors(t *testing.T) {
	// W = −X exactly (ρ = −1) and Y with ρ = 0.5: a rank-2 covariance.
	m, err := New(Config{Names: []string{"X", "W", "Y"}, Mean: []float64{1, -1, 0}, Var: []float64{4, 4, 1},
		Corr:    [][]float64{{1, -1, 0.5}, {-1, 1, -0.5}, {0.5, -0.5, 1}},
		Private: "X", Reconstructor: []string{"Y", "W"}, Adversaries: [][]string{{"Y"}, {"W"}}})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Sample(rand.New(rand.NewPCG(7, 7)), 1000)
	x, w := s.Private(), s.Reconstructor()[1]
	for i := range x {
		if math.Abs(x[i]+w[i]) > 1e-12 {
			t.Fatalf("sample %d: X + W = %g, want 0", i, x[i]+w[i])
		}
	}
	y := s.cols[2]
	if !slices.Equal(s.Reconstructor()[0], y) || !slices.Equal(s.Adversary(0)[0], y) || !slices.Equal(s.Adversary(1)[0], w) {
		t.Error("accessors do not return the named columns")
	}
	if m.VarRecon() != 0 || m.VarAdv()[1] != 0 {
		t.Errorf("W determines X: V_Y = %g, V_2 = %g, want 0", m.VarRecon(), m.VarAdv()[1])
	}
}

func TestSampleDeterministic(t *testing.T) {
	a := Paper().Sample(rand.New(rand.NewPCG(4, 4)), 100)
	b := Paper().Sample(rand.New(rand.NewPCG(4, 4)), 100)
	c := Paper().Sample(rand.New(rand.NewPCG(4, 5)), 100)
	if !slices.Equal(a.Private(), b.Private()) || slices.Equal(a.Private(), c.Private()) {
		t.Error("samples must depend on the seed only")
	}
}

// TestMonteCarloCoversClosedForm is cross-check 5(b): the paper's protocol
// (12,000 samples, 10,000 train, 2,000 test) at every point of the paper's
// sweep and of the coalition setup. Each estimate must lie within 4 standard
// errors of the closed form, and the 95% intervals must cover it in at least
// 85% of cases (expected 95%; the binomial chance of < 85% of 90 is ~1e-4).
func TestMonteCarloCoversClosedForm(t *testing.T) {
	coal := PaperConfig()
	coal.Reconstructor = []string{"Z1", "Z2"}
	coal.Adversaries = [][]string{{"Z1"}, {"Z2"}}
	models := []*Model{Paper()}
	if m, err := New(coal); err == nil {
		models = append(models, m)
	} else {
		t.Fatal(err)
	}
	covered, total := 0, 0
	for mi, m := range models {
		pts, _ := sweepOptima(m, m.DefaultSweep().Values())
		for i, p := range pts {
			rng := rand.New(rand.NewPCG(uint64(mi), uint64(i)))
			mc, err := m.MonteCarlo(rng, p.Privatizer(), 10000, 2000)
			if err != nil {
				t.Fatal(err)
			}
			est := append([]Estimate{mc.Recon}, mc.Adv...)
			exact := append([]float64{p.Recon}, p.Adv...)
			for k := range est {
				total++
				if est[k].Lo <= exact[k] && exact[k] <= est[k].Hi {
					covered++
				}
				if d := math.Abs(est[k].MSE - exact[k]); d > monteCarloSigmaAllowance*est[k].StdErr+1e-9 {
					t.Errorf("model %d D = %g loss %d: MC %g ± %g, exact %g", mi, p.D, k, est[k].MSE, est[k].StdErr, exact[k])
				}
			}
		}
	}
	t.Logf("95%% intervals covered %d of %d", covered, total)
	if float64(covered) < 0.85*float64(total) {
		t.Errorf("95%% intervals covered the exact loss %d of %d times", covered, total)
	}
}

func TestMonteCarloDeterministicAndValidated(t *testing.T) {
	m := Paper()
	p, _ := m.Optimum(1)
	a, _ := m.MonteCarlo(rand.New(rand.NewPCG(1, 0)), p.Privatizer(), 500, 100)
	b, _ := m.MonteCarlo(rand.New(rand.NewPCG(1, 0)), p.Privatizer(), 500, 100)
	if a.Recon != b.Recon || !slices.Equal(a.Adv, b.Adv) {
		t.Error("same seed, different Monte Carlo results")
	}
	if _, err := m.MonteCarlo(rand.New(rand.NewPCG(1, 0)), p.Privatizer(), 5, 100); err == nil {
		t.Error("5 training samples must be rejected")
	}
	if _, err := m.MonteCarlo(rand.New(rand.NewPCG(1, 0)), Linear{A: math.NaN()}, 500, 100); err == nil {
		t.Error("NaN privatizer must be rejected")
	}
}

func TestPointJSON(t *testing.T) {
	m := Paper()
	for _, d := range []float64{0, 1, 10} {
		p, _ := m.Optimum(d)
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("D = %g: %v", d, err)
		}
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"D", "D_eff", "snr", "snr_infinite", "recon_loss", "adv_loss", "min_adv_loss"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("D = %g: JSON lacks %q: %s", d, k, b)
			}
		}
		if (raw["snr"] == nil) != (d == 0) || raw["snr_infinite"] != (d == 0) {
			t.Errorf("D = %g: snr %v, snr_infinite %v", d, raw["snr"], raw["snr_infinite"])
		}
		var back Prop1Optimum
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.SNR != p.SNR || !slices.Equal(back.Adv, p.Adv) || back.D != p.D {
			t.Errorf("round trip: %+v, want %+v", back, p)
		}
	}
}

func TestSummaryJSON(t *testing.T) {
	b, err := json.Marshal(Paper().Summary())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		VarXGivenRecon float64   `json:"var_x_given_recon"`
		VarXGivenAdv   []float64 `json:"var_x_given_adv"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbsOrRel(s.VarXGivenRecon, 16*(1-0.8*0.8), 1e-12, 1e-12) || len(s.VarXGivenAdv) != 2 {
		t.Errorf("summary: %s", b)
	}
}

func TestSplitSamples(t *testing.T) {
	for _, tc := range []struct{ n, train, test int }{
		{12000, 10000, 2000}, // the paper's split (Section V-A)
		{6, 5, 1},
		{5, 5, 0},
		{13, 11, 2},
	} {
		if train, test := SplitSamples(tc.n); train != tc.train || test != tc.test {
			t.Errorf("SplitSamples(%d) = %d, %d; want %d, %d", tc.n, train, test, tc.train, tc.test)
		}
	}
}
