package bayes

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/nettest"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/loss"
)

// longTests reports whether the long reference checks run (MMDS_LONG=1):
// the default suite runs a shorter reference with a correspondingly larger
// error of its own.
func longTests() bool { return os.Getenv("MMDS_LONG") == "1" }

// refSettings returns the reference's resolution and its own relative error,
// 10 times the largest measured by raising the node counts on the two
// fixtures (docs/verify.md): the long setting (4 nodes per f panel, 96
// over M) agrees with (6, 64) within 2e-9, the short one (2, 48) with the
// long one within 1.1e-6.
func refSettings() (refQuad, float64) {
	if longTests() {
		return refQuad{fNodes: 4, fStep: 0.5, mNodes: 96, rMax: 10}, 2e-8
	}
	return refQuad{fNodes: 2, fStep: 0.5, mNodes: 48, rMax: 10}, 1e-5
}

// loadPrivatizer reads a privatizer network (a results.json entry
// points[].networks[0] of a real mmds train run) from testdata.
func loadPrivatizer(t testing.TB, name string) (*learn.MLP, Privatizer) {
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
	k, err := fromMLP(mlp)
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
		net := nettest.LinearNet(p.A, p.B, p.C)
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
	k, err := fromMLP(mlp)
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
// each up to the reference's own error. The long run adds privatizers
// trained for 200 epochs (--epochs 200 --d 0.005, --d 5.76), whose noise
// varies 15-fold over x: the first needs the extra level.
func TestCertifyGaussMatchesReference(t *testing.T) {
	m := gauss.Paper()
	q, refErr := refSettings()
	names := []string{"gauss_privatizer_d0.005.json", "gauss_privatizer_d5.76.json"}
	if longTests() {
		names = append(names, "gauss_privatizer_d0.005_e200.json", "gauss_privatizer_d5.76_e200.json")
	}
	for _, name := range names {
		mlp, k := loadPrivatizer(t, name)
		cert := checkAgainstReference(t, name, m, mlp, k, q, refErr)
		if cert.ErrorBound > testQuadTol {
			t.Errorf("%s: stated error %.2g above the verdicts' tolerance %g", name, cert.ErrorBound, testQuadTol)
		}
	}
}

func checkAgainstReference(t *testing.T, name string, m *gauss.Model, mlp *learn.MLP, k Privatizer, q refQuad, refErr float64) *GaussCertificate {
	t.Helper()
	cert, err := CertifyGauss(m, k, GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	if cert.Change != cert.ErrorBound {
		t.Errorf("%s: change %g is not the stated error %g: verdicts would not read it", name, cert.Change, cert.ErrorBound)
	}
	ref := cachedReference(name, m, mlp, q)
	got := append([]float64{cert.Recon}, cert.Adv...)
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

// references caches the reference losses of the fixtures for the tests of
// this file (the reference is the slow part).
var references = struct {
	sync.Mutex
	m map[string][]float64
}{m: map[string][]float64{}}

func cachedReference(name string, m *gauss.Model, mlp *learn.MLP, q refQuad) []float64 {
	references.Lock()
	defer references.Unlock()
	if r, ok := references.m[name]; ok {
		return r
	}
	r := refLosses(m, mlp, q)
	references.m[name] = r
	return r
}

// The failure this file guards against: an x step sized from the noise
// alone (XPerBin 1/4, i.e. 4 bins per x step at the steepest slope, the
// grid of the certificate before XPerBin) aliases the hats where the trained
// privatizer's F | X has near-atoms, and the certified losses at D = 0.005
// fall below the exact ones by far more than ErrorTail.
func TestCertifyGaussCoarseXGridFallsBelow(t *testing.T) {
	m := gauss.Paper()
	q, refErr := refSettings()
	const name = "gauss_privatizer_d0.005.json"
	mlp, k := loadPrivatizer(t, name)
	cert, err := CertifyGauss(m, k, GaussQuad{XPerBin: 0.25, BinsPerNoise: 32})
	if err != nil {
		t.Fatal(err)
	}
	ref := cachedReference(name, m, mlp, q)
	short := 1 - cert.Recon/ref[0]
	t.Logf("XPerBin 1/4: certified %.8g, reference %.8g: %.2e below", cert.Recon, ref[0], short)
	if short < gaussErrorTail+refErr {
		t.Errorf("certified %.8g only %.2e below the reference %.8g: the coarse grid should alias the hats", cert.Recon, short, ref[0])
	}
}

// errorBound on geometric sequences L_l = L + c·ρ^l: the remainder
// c·ρ^{n−1} is at most the stated bound whenever ρ ≤ 0.9, and equals it
// for ρ ≥ 1/2 (exact extrapolation) up to rounding.
func TestErrorBoundGeometric(t *testing.T) {
	for _, tc := range []struct {
		rho, c float64
		levels int
	}{{0.25, 1e-3, 3}, {0.35, 2e-3, 3}, {0.5, 1e-3, 3}, {0.7, 1e-4, 4}, {0.9, 1e-4, 3}, {0.25, 1e-3, 2}, {0.5, -1e-3, 3}} {
		const exact = 2.0
		var lv []GaussLevel
		for l := range tc.levels {
			v := exact + tc.c*math.Pow(tc.rho, float64(l))
			lv = append(lv, GaussLevel{Losses: loss.New(v, []float64{2 * v})})
		}
		last := lv[len(lv)-1].Recon
		rem := math.Abs(last-exact) / last
		got := errorBound(lv, 1e-9)
		if got < rem*(1-1e-9) {
			t.Errorf("%+v: stated %.4g below the true remainder %.4g", tc, got, rem)
		}
		if tc.rho >= 0.5 && tc.levels >= 3 && math.Abs(got-rem) > 1e-9*rem {
			t.Errorf("%+v: stated %.6g, remainder %.6g: a geometric sequence extrapolates exactly", tc, got, rem)
		}
	}
	if got := errorBound([]GaussLevel{{Losses: loss.New(1, []float64{1})}}, 1e-9); got != 1 {
		t.Errorf("one level: stated %g, want 1 (no estimate)", got)
	}
}
