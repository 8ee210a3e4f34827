package verify

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// longTests reports whether the long reference checks run (MMDS_LONG=1):
// the default suite runs a shorter reference with a correspondingly larger
// error of its own.
func longTests() bool { return os.Getenv("MMDS_LONG") == "1" }

// refSettings returns the reference's resolution and its own relative error,
// measured by doubling every node count (docs/verify.md): 64 nodes over M
// agree with 96 within 2e-9, 32 with 64 within 4e-5.
func refSettings() (refQuad, float64) {
	if longTests() {
		return refQuad{fNodes: 4, fStep: 0.5, mNodes: 64, rMax: 10}, 1e-7
	}
	return refQuad{fNodes: 4, fStep: 0.5, mNodes: 32, rMax: 10}, 1e-4
}

// loadPrivatizer reads a privatizer network (a results.json entry
// points[].networks[0] of a real mmds train run) from testdata.
func loadPrivatizer(t *testing.T, name string) (*learn.MLP, Privatizer) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var n learn.Network
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	mlp, err := n.MLP()
	if err != nil {
		t.Fatal(err)
	}
	k, err := FromMLP(mlp)
	if err != nil {
		t.Fatal(err)
	}
	return mlp, k
}

// The reference integrates over x exactly: on linear-Gaussian privatizers
// (through ReLU networks with kinks at x = 0 and r = 0) it must give the
// closed form of Appendix A, including at the paper sweep's smallest
// threshold, where F's noise is 20 times smaller than at D = 0.5.
func TestReferenceMatchesClosedForm(t *testing.T) {
	m := gauss.Paper()
	q, _ := refSettings()
	for _, d := range []float64{0.005, 0.5, m.VarRecon()} {
		opt, err := m.Optimum(d)
		if err != nil {
			t.Fatal(err)
		}
		p := gauss.Linear{A: opt.A, B: opt.B, C: 0.3}
		net := verifytest.LinearNet(p.A, p.B, p.C)
		mlp, err := net.MLP()
		if err != nil {
			t.Fatal(err)
		}
		exact, err := m.LinearLosses(p)
		if err != nil {
			t.Fatal(err)
		}
		got := refLosses(m, mlp, q)
		want := append([]float64{exact.Recon}, exact.Adv...)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-6*want[i] {
				t.Errorf("D = %g, party %d: reference %.10g, closed form %.10g", d, i, got[i], want[i])
			}
		}
	}
}

// A network with an atom: k = relu(x − 4) + 0.5·relu(r) is 0 on x < 4,
// r < 0, where F = 0 has probability ≈ 1/2·P(X < 4). The reference's atom
// term and the certificate's hats must agree within the certificate's
// stated error.
func TestReferenceAtomMatchesCertificate(t *testing.T) {
	m := gauss.Paper()
	net := learn.Network{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []learn.Layer{
		{In: 2, Out: 2, Activation: "relu", Weights: []learn.Floats{{1, 0}, {0, 1}}, Bias: learn.Floats{-4, 0}},
		{In: 2, Out: 1, Activation: "identity", Weights: []learn.Floats{{1, 0.5}}, Bias: learn.Floats{0}},
	}}
	mlp, err := net.MLP()
	if err != nil {
		t.Fatal(err)
	}
	k, err := FromMLP(mlp)
	if err != nil {
		t.Fatal(err)
	}
	q, refErr := refSettings()
	checkAgainstReference(t, "atom net", m, mlp, k, q, refErr)
}

// The certified losses of real trained privatizers, at the smallest (D =
// 0.005) and the largest (D = D_max = Var[X | Y] = 5.76) thresholds of the
// paper sweep (quick preset, seed 1: mmds train gauss --preset quick), lie
// within their stated error of the exact Bayes losses: reference ≤
// certified·(1 + ErrorTail) and certified − reference ≤ ErrorBound·certified,
// each up to the reference's own error.
func TestCertifyGaussMatchesReference(t *testing.T) {
	m := gauss.Paper()
	q, refErr := refSettings()
	for _, name := range []string{"gauss_privatizer_d0.005.json", "gauss_privatizer_d5.76.json"} {
		mlp, k := loadPrivatizer(t, name)
		cert := checkAgainstReference(t, name, m, mlp, k, q, refErr)
		if cert.ErrorBound > DefaultQuadTol {
			t.Errorf("%s: stated error %.2g above the verdicts' tolerance %g", name, cert.ErrorBound, DefaultQuadTol)
		}
	}
}

func checkAgainstReference(t *testing.T, name string, m *gauss.Model, mlp *learn.MLP, k Privatizer, q refQuad, refErr float64) *GaussCertificate {
	t.Helper()
	cert, err := CertifyGauss(m, k, GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	ref := refLosses(m, mlp, q)
	got := append([]float64{cert.ReconLoss}, cert.AdvLoss...)
	for i := range got {
		t.Logf("%s, party %d: certified %.8g, reference %.8g (%+.2e relative), stated error %.2e", name, i, got[i], ref[i], got[i]/ref[i]-1, cert.ErrorBound)
		if ref[i]*(1-refErr) > got[i]*(1+cert.ErrorTail) {
			t.Errorf("%s, party %d: certified %.8g below the exact %.8g by more than ErrorTail %.2g", name, i, got[i], ref[i], cert.ErrorTail)
		}
		if got[i]-ref[i]*(1+refErr) > cert.ErrorBound*got[i] {
			t.Errorf("%s, party %d: certified %.8g above the exact %.8g by %.2e relative, more than the stated %.2e", name, i, got[i], ref[i], got[i]/ref[i]-1, cert.ErrorBound)
		}
	}
	return cert
}
