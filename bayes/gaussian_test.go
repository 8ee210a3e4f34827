package bayes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/network"
)

// An exactly linear privatizer F = aX + bR + c has the closed-form losses of
// Appendix A (gauss.LinearLosses, Schur complements of the joint covariance,
// 1/(1/v + a²/b²)). Every certified interval must contain them to 1e-9
// relative and be narrow; the linear fit must recover (a, b, c) with no
// residual.
func TestCertifyGaussLinearMatchesClosedForm(t *testing.T) {
	m := gauss.Paper()
	for _, d := range []float64{0.05, 0.5, 2.88, 5.5} {
		opt, err := m.Optimum(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []gauss.Linear{{A: opt.A, B: opt.B, C: 0.3}, {A: -2 * opt.A, B: 2 * opt.B, C: -5}} {
			exact, err := m.LinearLosses(p)
			if err != nil {
				t.Fatal(err)
			}
			c, err := CertifyGauss(context.Background(), m, linear(p.A, p.B, p.C), GaussQuad{})
			if err != nil {
				t.Fatal(err)
			}
			want := append([]float64{exact.Recon}, exact.Adv...)
			for i, b := range c.Bounds {
				if !(b.Lo <= want[i]*(1+1e-9) && b.Hi >= want[i]*(1-1e-9)) {
					t.Errorf("D = %g, %+v: loss %d in [%.12g, %.12g], closed form %.12g outside", d, p, i, b.Lo, b.Hi, want[i])
				}
				if b.Hi-b.Lo > 1e-3*want[i] {
					t.Errorf("D = %g, %+v: loss %d in [%.12g, %.12g]: wider than 1e-3 relative", d, p, i, b.Lo, b.Hi)
				}
			}
			if c.Recon != c.Bounds[0].Hi || c.Adv[0] != c.Bounds[1].Lo {
				t.Errorf("D = %g: certified losses %v are not the sound ends of %+v", d, c.Losses, c.Bounds)
			}
			if c.Change > testQuadTol {
				t.Errorf("D = %g: refinement change %.2g > %g", d, c.Change, testQuadTol)
			}
			f := c.Fit
			if !scalar.EqualWithinAbsOrRel(f.A, p.A, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(f.B, p.B, 1e-9, 1e-9) ||
				!scalar.EqualWithinAbsOrRel(f.C, p.C, 1e-8, 1e-9) || f.Nonlinearity > 1e-9 {
				t.Errorf("D = %g: fit %+v, want a = %g, b = %g, c = %g and no residual", d, f, p.A, p.B, p.C)
			}
			if !scalar.EqualWithinRel(f.Recon, exact.Recon, 1e-9) {
				t.Errorf("D = %g: fit recon loss %g, want %g", d, f.Recon, exact.Recon)
			}
		}
	}
}

// The same linear privatizer through a ReLU network (FromMLP, with kinks at
// r = 0) gives the same certificate as the analytic function.
func TestCertifyGaussReLUNetworkEqualsLinear(t *testing.T) {
	m := gauss.Paper()
	a, b, c := 0.7, 1.3, -0.4
	net := learntest.LinearNet(a, b, c)
	mlp, err := learn.MLPOf(&net)
	if err != nil {
		t.Fatal(err)
	}
	k, err := fromMLP(mlp)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{-3, 0, 2.5} {
		for _, r := range []float64{-1, 0, 0.25} {
			if got, want := k.K(x, r), a*x+b*r+c; !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
				t.Fatalf("k(%g, %g) = %g, want %g", x, r, got, want)
			}
		}
	}
	got, err := CertifyGauss(context.Background(), m, k, GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := CertifyGauss(context.Background(), m, linear(a, b, c), GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(got.Recon, want.Recon, 1e-6) || !scalar.EqualWithinRel(got.MinAdv, want.MinAdv, 1e-6) {
		t.Errorf("network certificate %g, %g; analytic %g, %g", got.Recon, got.MinAdv, want.Recon, want.MinAdv)
	}
}

// quantizerMMSE is E[Var(X | 1{X > c}, M)] for X | M ~ N(M, v) and
// M ~ N(mu, vx − v), from the truncated-normal variances, integrated over M
// by Gauss–Legendre on ±12 standard deviations: an independent computation.
func quantizerMMSE(mu, vx, v, c float64) float64 {
	s, sm := math.Sqrt(v), math.Sqrt(vx-v)
	f := func(m float64) float64 {
		a := (c - m) / s
		phiA := math.Exp(-a*a/2) / math.Sqrt(2*math.Pi)
		pAbove := 0.5 * math.Erfc(a/math.Sqrt2)
		pBelow := 1 - pAbove
		var e float64
		if pAbove > 1e-300 {
			l := phiA / pAbove
			e += pAbove * v * (1 + a*l - l*l)
		}
		if pBelow > 1e-300 {
			l := phiA / pBelow
			e += pBelow * v * (1 - a*l - l*l)
		}
		u := (m - mu) / sm
		return e * math.Exp(-u*u/2) / (sm * math.Sqrt(2*math.Pi))
	}
	return quad.Fixed(f, mu-12*sm, mu+12*sm, 2000, quad.Legendre{}, 0)
}

// A quantizer F = sign(X − c), a privatizer whose Bayes estimator is known
// (a truncated normal mean), against the closed form: two faces where F is
// constant, the atoms of F.
func TestCertifyGaussQuantizer(t *testing.T) {
	m := gauss.Paper()
	mu, vx := m.Mean()[0], m.VarX()
	for _, c := range []float64{4, 6.5} {
		k := Privatizer{K: func(x, _ float64) float64 {
			if x > c {
				return 1
			}
			return -1
		}, PiecewiseLinear: true, Faces: func(b network.Box, _ int) ([]network.Face, error) {
			return []network.Face{
				{X: []float64{b.X0, c, c, b.X0}, R: []float64{b.R0, b.R0, b.R1, b.R1}, C0: -1},
				{X: []float64{c, b.X1, b.X1, c}, R: []float64{b.R0, b.R0, b.R1, b.R1}, C0: 1},
			}, nil
		}}
		cert, err := CertifyGauss(context.Background(), m, k, GaussQuad{})
		if err != nil {
			t.Fatal(err)
		}
		want := append([]float64{quantizerMMSE(mu, vx, m.VarRecon(), c)}, nil...)
		for _, v := range m.VarAdv() {
			want = append(want, quantizerMMSE(mu, vx, v, c))
		}
		for i, b := range cert.Bounds {
			if !(b.Lo <= want[i]*(1+1e-9) && b.Hi >= want[i]*(1-1e-9)) {
				t.Errorf("c = %g, party %d: certified [%.10g, %.10g], truncated-normal closed form %.10g outside", c, i, b.Lo, b.Hi, want[i])
			}
		}
	}
}

// A deliberately non-linear privatizer F = g(X) + σR with a piecewise-linear
// g (a hand-built ReLU network), against a large-sample Monte Carlo whose
// estimator is the exact posterior mean E[X | F, M], computed per sample by
// Gauss–Legendre quadrature over x from the known density p(f | x) =
// φ((f − g(x))/σ)/σ: an independent computation (no profiles, no bins).
func TestCertifyGaussNonlinearMatchesMonteCarlo(t *testing.T) {
	m := gauss.Paper()
	const sigma = 0.8
	g := func(x float64) float64 { return 1.5*relu(x-4) - 0.6*relu(2-x) + 2*relu(x-9) }
	// The same function as a network: relu(r + 100) = r + 100 in the box.
	layers := []AffineLayer{
		{W: [][]float64{{1, 0}, {-1, 0}, {1, 0}, {0, 1}}, B: []float64{-4, 2, -9, 100}, ReLU: true},
		{W: [][]float64{{1.5, -0.6, 2, sigma}}, B: []float64{-100 * sigma}},
	}
	k := Privatizer{K: func(x, r float64) float64 { return g(x) + sigma*r },
		Kinks: func(float64, []float64) []float64 { return nil }, PiecewiseLinear: true, Faces: LayerFaces(layers, true)}
	cert, err := CertifyGauss(context.Background(), m, k, GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	if cert.Fit.Nonlinearity < 0.02 {
		t.Fatalf("nonlinearity %g: the test privatizer should be clearly non-linear", cert.Fit.Nonlinearity)
	}
	mu, vx := m.Mean()[0], m.VarX()
	vs := append([]float64{m.VarRecon()}, m.VarAdv()...)
	const n = 50000
	gx, gw := make([]float64, 400), make([]float64, 400)
	quad.Legendre{}.FixedLocations(gx, gw, -8, 8)
	for i, v := range vs {
		rng := rand.New(rand.NewPCG(11, uint64(i)))
		s, sm := math.Sqrt(v), math.Sqrt(vx-v)
		var sum, sum2 float64
		for range n {
			mm := mu + sm*rng.NormFloat64()
			x := mm + s*rng.NormFloat64()
			f := g(x) + sigma*rng.NormFloat64()
			// E[X | f, m] with prior N(m, v) and likelihood φ((f − g(x))/σ).
			var num, den float64
			for j, u := range gx {
				xx := mm + s*u
				e := (f - g(xx)) / sigma
				w := gw[j] * math.Exp(-u*u/2-e*e/2)
				num += w * xx
				den += w
			}
			d := x - num/den
			sum += d * d
			sum2 += d * d * d * d
		}
		mean := sum / n
		se := math.Sqrt((sum2/n - mean*mean) / n)
		if b := cert.Bounds[i]; b.Lo > mean+4*se || b.Hi < mean-4*se {
			t.Errorf("party %d: certified [%.5g, %.5g], Monte Carlo %.5g ± %.2g (4 SE)", i, b.Lo, b.Hi, mean, se)
		}
	}
}

func relu(v float64) float64 { return max(v, 0) }

// Property: for any privatizer, every Bayes loss lies between 0 and the
// side-information-only loss Var[X | side] (F can only help, Section III-A's
// law of total variance), and the linear fit's losses obey the same bounds.
func TestCertifyGaussBounds(t *testing.T) {
	m := gauss.Paper()
	upper := append([]float64{m.VarRecon()}, m.VarAdv()...)
	for seed := range uint64(4) {
		k, err := fromMLP(randomNet(seed))
		if err != nil {
			t.Fatal(err)
		}
		c, err := CertifyGauss(context.Background(), m, k, GaussQuad{})
		if err != nil {
			t.Fatal(err)
		}
		got := append([]float64{c.Recon}, c.Adv...)
		fit := append([]float64{c.Fit.Recon}, c.Fit.Adv...)
		for i := range got {
			if !(got[i] >= 0 && got[i] <= upper[i]*(1+1e-9)) || !(fit[i] >= 0 && fit[i] <= upper[i]*(1+1e-9)) {
				t.Errorf("seed %d, party %d: certified %g, fit %g outside [0, %g]", seed, i, got[i], fit[i], upper[i])
			}
		}
		if c.MinAdv != min(c.Adv[0], c.Adv[1]) {
			t.Errorf("seed %d: min adv %g is not the smaller of %v", seed, c.MinAdv, c.Adv)
		}
		if !(c.Fit.Nonlinearity >= 0 && c.Fit.Nonlinearity <= 1) {
			t.Errorf("seed %d: nonlinearity %g outside [0, 1]", seed, c.Fit.Nonlinearity)
		}
	}
}

// A privatizer that ignores X leaves every party its side information only,
// within the quadratures' budget: Target/8 of the loss (observerLoss).
func TestCertifyGaussIndependentPrivatizer(t *testing.T) {
	m := gauss.Paper()
	c, err := CertifyGauss(context.Background(), m, linear(0, 2, 1), GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]float64{m.VarRecon()}, m.VarAdv()...)
	for i, b := range c.Bounds {
		t.Logf("party %d: %+v", i, b)
		if !(b.Lo <= want[i]*(1+1e-12) && b.Hi >= want[i]*(1-1e-12)) || b.Hi-b.Lo > 0.005/8*want[i] {
			t.Errorf("party %d: [%.12g, %.12g], want a narrow interval around Var[X | side] = %.12g", i, b.Lo, b.Hi, want[i])
		}
	}
}

func TestGaussQuadValidation(t *testing.T) {
	m := gauss.Paper()
	for _, q := range []GaussQuad{{BoxSD: 2}, {BoxSD: math.NaN()}, {RMax: 3}, {RMax: 41}, {Target: -1}, {Target: 2}, {MaxFaces: -1}, {MaxWork: math.Inf(1)}, {MaxStore: 10}} {
		if _, err := CertifyGauss(context.Background(), m, linear(1, 1, 0), q); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
	if _, err := CertifyGauss(context.Background(), m, Privatizer{}, GaussQuad{}); err == nil {
		t.Error("a privatizer without K: no error")
	}
	nan := Privatizer{K: func(x, r float64) float64 { return math.NaN() }, PiecewiseLinear: true,
		Faces: func(b network.Box, _ int) ([]network.Face, error) { return boxFace(b, math.NaN(), 1, 1), nil }}
	if _, err := CertifyGauss(context.Background(), m, nan, GaussQuad{}); err == nil {
		t.Error("a privatizer returning NaN: no error")
	}
	holes := linear(1, 1, 0)
	holes.Faces = func(b network.Box, _ int) ([]network.Face, error) {
		f := boxFace(b, 0, 1, 1)
		f[0].X[1] = (b.X0 + b.X1) / 2 // half the box uncovered
		f[0].X[2] = f[0].X[1]
		return f, nil
	}
	if _, err := CertifyGauss(context.Background(), m, holes, GaussQuad{}); err == nil {
		t.Error("faces that do not cover the box: no error")
	}
}

// A network whose linear regions exceed the cap, and one too costly to
// integrate, are ErrCannotCertify before the work: no quadrature panel is
// integrated (counted in the context's progress.Steps, so that the check
// does not depend on how fast the machine is).
func TestCertifyGaussCaps(t *testing.T) {
	m := gauss.Paper()
	k, err := fromMLP(randomNet(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []GaussQuad{{MaxFaces: 100}, {MaxWork: 1e5}, {MaxStore: 2000}} {
		var panels progress.Steps
		_, err := CertifyGauss(progress.WithSteps(t.Context(), &panels), m, k, q)
		if !errors.Is(err, ErrCannotCertify) {
			t.Errorf("%+v: error %v, want ErrCannotCertify", q, err)
		}
		if q.MaxFaces != 0 && !errors.Is(err, network.ErrTooComplex) {
			t.Errorf("%+v: error %v does not wrap network.ErrTooComplex", q, err)
		}
		if n := panels.Load(); n != 0 {
			t.Errorf("%+v: refused after %d panels", q, n)
		}
	}
	// Not piecewise affine: no faces.
	if _, err := CertifyGauss(context.Background(), m, Privatizer{K: func(x, r float64) float64 { return math.Tanh(x + r) }}, GaussQuad{}); !errors.Is(err, ErrCannotCertify) {
		t.Errorf("tanh privatizer: error %v, want ErrCannotCertify", err)
	}
	// Side information so precise (σ_M/√v = 707) that the M rule needs
	// 22,628 steps, more than MaxStore/4 allows: refused before any panel,
	// not certified by a rule cut to the cap (which passed the sawtooth of
	// TestCertifyGaussAliasingSawtooth with a loss 3.6 times the true one).
	var panels progress.Steps
	_, err = CertifyGauss(progress.WithSteps(t.Context(), &panels), sawModel(t, 2e-6), layersPrivatizer(sawLayers(11, -8, 16, 1, 0.005)), GaussQuad{MaxStore: 4096})
	if !errors.Is(err, ErrCannotCertify) || !strings.Contains(err.Error(), "M rule needs more than 1024 steps") || panels.Load() != 0 {
		t.Errorf("precise side information, MaxStore 4096: error %v after %d panels, want ErrCannotCertify naming the M rule before any panel", err, panels.Load())
	}
}

// sawModel is X = Y + N(0, v) with an independent adversary Z, Var X = 1 + v:
// the reconstructor's M = E[X | Y] has σ_M = 1 against √v.
func sawModel(t *testing.T, v float64) *gauss.Model {
	m, err := gauss.New(gauss.Config{Names: []string{"X", "Y", "Z"}, Cov: [][]float64{{1 + v, 1, 0}, {1, 1, 0}, {0, 0, 1}},
		Private: "X", Reconstructor: []string{"Y"}, Adversaries: [][]string{{"Z"}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sawLayers is F = amp·T^n((x − x0)/L) + b·R with T the tent map, a ReLU
// network of n hidden layers: a sawtooth of period L/2^(n−1) in x.
func sawLayers(n int, x0, L, amp, b float64) []AffineLayer {
	layers := []AffineLayer{{W: [][]float64{{1 / L, 0}, {1 / L, 0}, {0, 1}}, B: []float64{-x0 / L, -x0/L - 0.5, 100}, ReLU: true}}
	for range n - 1 {
		layers = append(layers, AffineLayer{W: [][]float64{{2, -4, 0}, {2, -4, 0}, {0, 0, 1}}, B: []float64{0, -0.5, 0}, ReLU: true})
	}
	return append(layers, AffineLayer{W: [][]float64{{2 * amp, -4 * amp, b}}, B: []float64{-100 * b}})
}

// sawLossGivenM is E[Var(X | F, M = m)] by brute-force quadrature over x
// (4,000 midpoints over m ± 8√v) and f (steps of b/8).
func sawLossGivenM(g func(x, r float64) float64, m, v, b float64) float64 {
	sv := math.Sqrt(v)
	const nx = 4000
	dx := 16 * sv / nx
	xs, gs, ps := make([]float64, nx), make([]float64, nx), make([]float64, nx)
	fmin, fmax := math.Inf(1), math.Inf(-1)
	for i := range nx {
		x := m - 8*sv + (float64(i)+0.5)*dx
		xs[i], gs[i] = x-m, g(x, 0)
		ps[i] = math.Exp(-(x-m)*(x-m)/(2*v)) * dx / math.Sqrt(2*math.Pi*v)
		fmin, fmax = min(fmin, gs[i]), max(fmax, gs[i])
	}
	df := b / 8
	var h float64
	for f := fmin - 9*b; f <= fmax+9*b; f += df {
		var a0, a1, a2 float64
		for i := range nx {
			e := (f - gs[i]) / b
			if e*e > 100 {
				continue
			}
			w := ps[i] * math.Exp(-e*e/2) / (b * math.Sqrt(2*math.Pi))
			a0 += w
			a1 += w * xs[i]
			a2 += w * xs[i] * xs[i]
		}
		if a0 > 0 {
			h += (a2 - a1*a1/a0) * df
		}
	}
	return h
}

// A sawtooth privatizer of period 1/64 in x against side information with
// √v = 0.0014 and σ_M = 1: the loss given M = m repeats with period 1/64,
// which a trapezoid rule of step 1/64 over M samples at one phase only, so
// that T_h and T_2h agree whatever the error. The M rule steps within √v
// (22,628 steps) and the certified reconstructor interval holds the loss
// by brute force (the loss given M averaged over 64 phases of the period:
// M's density is flat over it), at two phases of the sawtooth against the
// nodes; before, the rule was cut to 1024 steps and certified 2.0e-6 and
// 9e-9 against the true 5.56e-7.
func TestCertifyGaussAliasingSawtooth(t *testing.T) {
	if !slow {
		t.Skip("two certificates of 12,000 M nodes and a brute-force reference, about 3.5 s of CPU: -tags slow")
	}
	const v, b = 2e-6, 0.005
	m := sawModel(t, v)
	for _, phase := range []float64{0, 1.0 / 256} {
		k := layersPrivatizer(sawLayers(11, -8+phase, 16, 1, b))
		cert, err := CertifyGauss(t.Context(), m, k, GaussQuad{})
		if err != nil {
			t.Fatalf("phase %g: %v", phase, err)
		}
		var truth float64
		for p := range 64 {
			truth += sawLossGivenM(k.K, (float64(p)+0.5)/64/64, v, b) / 64
		}
		if lb := cert.Bounds[0]; truth < lb.Lo || truth > lb.Hi {
			t.Errorf("phase %g: certified [%.6g, %.6g] (%d M nodes) misses the brute force %.6g", phase, lb.Lo, lb.Hi, lb.MNodes, truth)
		}
	}
}

// deadZoneLayers is a 2→6 ReLU network whose units are dead over most of
// the plane: F is constant (an atom) on large regions and steep elsewhere.
func deadZoneLayers() []AffineLayer {
	return []AffineLayer{
		{W: [][]float64{{3, 0.01}, {-3, 0.02}, {1, 1}, {2, -0.05}, {0.5, 4}, {-1, -3}}, B: []float64{-20, -5, -10, -14, -30, -25}, ReLU: true},
		{W: [][]float64{{5, -2, 1, 30, 0.7, 2}}, B: []float64{1}},
	}
}

// Property: on random Gaussian models and random 1–3-layer ReLU networks,
// and on a dead-zone network (F constant on large regions, steep
// elsewhere), every certificate (or a clean refusal) holds the Monte Carlo
// loss of its own reconstructor estimator within 4 SE (an upper-bound
// check: that loss is at least the Bayes loss and at most Hi), and the
// adversaries' lower ends lie below the same Monte Carlo losses of the
// in-box posterior mean (a Bayes loss lower bound must lie below any
// estimator's loss). The dead-zone network ends with a clean answer; its
// work is bounded by the integrand-evaluation cap, counted, not timed.
func TestCertifyGaussEstimatorMonteCarlo(t *testing.T) {
	type mcCase struct {
		name    string
		m       *gauss.Model
		layers  []AffineLayer
		samples int
		seed    uint64
	}
	deadZoneSamples := 20000
	if !slow {
		deadZoneSamples = 5000 // the Monte Carlo check is the costly part
	}
	cases := []mcCase{{"dead zone", gauss.Paper(), deadZoneLayers(), deadZoneSamples, 3}}
	n := 20
	if testing.Short() {
		n = 6
	}
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 77))
		m, err := randomModel(rng)
		if err != nil {
			t.Fatal(err)
		}
		layers := randomLayers(rng, 1+int(seed%3), math.Sqrt(m.VarX()))
		cases = append(cases, mcCase{fmt.Sprintf("seed %d", seed), m, layers, 4000, seed})
	}
	refused := 0
	for _, c := range cases {
		start := time.Now()
		cert, err := CertifyGauss(context.Background(), c.m, layersPrivatizer(c.layers), GaussQuad{})
		if errors.Is(err, ErrCannotCertify) {
			refused++
			t.Logf("%s: %v", c.name, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v: %d faces (%d constant), bounds %+v", c.name, time.Since(start), cert.Faces, cert.Atoms, cert.Bounds)
		checkEstimatorMC(t, c.name, c.m, c.layers, cert, c.samples, c.seed)
	}
	if refused > len(cases)/4 {
		t.Errorf("%d of %d networks refused", refused, len(cases))
	}
}

// randomModel is a jointly Gaussian model with X, Y and two adversaries'
// variables, with a random mean, variances and correlations (a random
// factor model, so the correlation matrix is positive definite).
func randomModel(rng *rand.Rand) (*gauss.Model, error) {
	const n = 4
	load := make([][]float64, n)
	for i := range load {
		load[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	cov := make([][]float64, n)
	for i := range cov {
		cov[i] = make([]float64, n)
		for j := range cov[i] {
			cov[i][j] = load[i][0]*load[j][0] + load[i][1]*load[j][1]
			if i == j {
				cov[i][j] += 0.05 + rng.Float64()
			}
		}
	}
	corr := make([][]float64, n)
	for i := range corr {
		corr[i] = make([]float64, n)
		for j := range corr[i] {
			corr[i][j] = cov[i][j] / math.Sqrt(cov[i][i]*cov[j][j])
		}
		corr[i][i] = 1
	}
	return gauss.New(gauss.Config{Names: []string{"X", "Y", "Z1", "Z2"},
		Mean: []float64{rng.NormFloat64() * 3, 0, 1, 2}, Var: []float64{0.5 + 10*rng.Float64(), 1, 2, 3}, Corr: corr,
		Private: "X", Reconstructor: []string{"Y"}, Adversaries: [][]string{{"Z1"}, {"Z2"}}})
}

// randomLayers is a ReLU network 2 → w → … → 1 with depth hidden layers of
// random widths 2–8 and Gaussian weights (a random scale of the noise
// input, so some networks are nearly deterministic).
func randomLayers(rng *rand.Rand, depth int, sx float64) []AffineLayer {
	in := 2
	var ls []AffineLayer
	rs := math.Pow(10, -2+2*rng.Float64())
	for d := 0; d <= depth; d++ {
		out := 2 + rng.IntN(7)
		if d == depth {
			out = 1
		}
		l := AffineLayer{ReLU: d < depth}
		for range out {
			row := make([]float64, in)
			for i := range row {
				row[i] = rng.NormFloat64()
				if d == 0 && i == 0 {
					row[i] /= sx
				}
				if d == 0 && i == 1 {
					row[i] *= rs
				}
			}
			l.W = append(l.W, row)
			l.B = append(l.B, rng.NormFloat64())
		}
		ls = append(ls, l)
		in = out
	}
	return ls
}

// checkEstimatorMC draws (M, X, R) for every observer and compares the mean
// squared error of the in-box posterior mean E[X | F, M, B] (the
// certificate's estimator, μ outside) with the certified interval: it must
// not exceed Hi by more than 4 SE, and Lo must not exceed it by more than 4
// SE.
func checkEstimatorMC(t *testing.T, name string, m *gauss.Model, layers []AffineLayer, c *GaussAnalysis, n int, seed uint64) {
	t.Helper()
	mu, vx := m.Mean()[m.PrivateIndex()], m.VarX()
	s := &gaussSetup{q: GaussQuad{}.withDefaults(), mu: mu, vx: vx, sx: math.Sqrt(vx), a: (c.Box.X1 - c.Box.X0) / 2, box: c.Box}
	faces, err := LayerFaces(layers, true)(c.Box, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.addFaces(faces); err != nil {
		t.Fatal(err)
	}
	k := layersK(layers)
	rng := rand.New(rand.NewPCG(seed, 5))
	for i, v := range append([]float64{m.VarRecon()}, m.VarAdv()...) {
		if v <= 0 {
			continue
		}
		sm := math.Sqrt(max(vx-v, 0))
		var sum, sum2 float64
		for range n {
			mm := mu + sm*rng.NormFloat64()
			x := mm + math.Sqrt(v)*rng.NormFloat64()
			f := k(x, rng.NormFloat64())
			d := x - s.posteriorMean(v, mm, f)
			sum += d * d
			sum2 += d * d * d * d
		}
		mean := sum / float64(n)
		se := math.Sqrt(max(sum2/float64(n)-mean*mean, 0) / float64(n))
		b := c.Bounds[i]
		t.Logf("%s, loss %d: certified [%.6g, %.6g], estimator's Monte Carlo MSE %.6g ± %.2g", name, i, b.Lo, b.Hi, mean, se)
		if mean > b.Hi+4*se || b.Lo > mean+4*se {
			t.Errorf("%s, loss %d: certified [%.6g, %.6g], estimator's Monte Carlo MSE %.6g ± %.2g (4 SE)", name, i, b.Lo, b.Hi, mean, se)
		}
	}
}

// posteriorMean is the certificate's reconstructor estimator
// E[X | J = f, M = m, B], J the garbling (discrete values merged by
// cluster): the level set's w-moments over the faces (or the cluster's,
// when f is one of its values).
func (s *gaussSetup) posteriorMean(v, m, f float64) float64 {
	group := -1
	for _, d := range s.disc {
		if d.lo <= f && f <= d.hi {
			group = d.hiGroup
			break
		}
	}
	if group >= 0 {
		// A discrete value: the mean of N(m, v) over the cluster's faces,
		// by the rectangle rule at steps of √v/50 (the dead-zone case's
		// Monte Carlo MSEs are within 1e-3 of those at √v/200, 2 % of
		// their standard errors).
		var m0, m1 float64
		sv := math.Sqrt(v)
		for _, fc := range s.disc {
			if fc.hiGroup != group {
				continue
			}
			for x := m - 10*sv; x <= m+10*sv; x += sv / 50 {
				lo, hi := polyRange(fc.x, fc.r, x)
				if lo < hi {
					j0, _, _ := truncMoments(lo, hi)
					w := math.Exp(-(x-m)*(x-m)/(2*v)) * j0
					m0 += w
					m1 += w * (x - m)
				}
			}
		}
		if m0 > 0 {
			return m + m1/m0
		}
		return s.mu
	}
	nodes := []mNode{{m: m, wk: 1, wg: 1}}
	ev := newPanelEval(nodes, len(s.cont), uniformCut(len(nodes), kCutMax))
	p := fPanel{a: f, b: f}
	for j := range s.cont {
		if s.cont[j].flo <= f && s.cont[j].fhi >= f {
			p.faces = append(p.faces, int32(j))
		}
	}
	// One evaluation at f: a zero-width panel evaluates every node at f;
	// A and B are left in the scratch.
	ev.eval(s, v, nodes, &p)
	if ev.A[0] > 0 {
		return m + ev.shift[0] + ev.B[0]/ev.A[0]
	}
	return s.mu
}

// mSteps is the smallest even step count whose coarser rule (twice the
// step) steps at most √v and c·σ_M, where c makes the coarser rule's error
// on M's density alone, 2e^{−2π²/c²} by Poisson summation, tau/64; a
// count above the cap is refused, never cut to it (a cut rule cannot see a
// loss given M = m that aliases at its spacing: the sawtooth rows of
// TestCertifyGaussCaps).
func TestMSteps(t *testing.T) {
	const capSteps = 1 << 21
	for _, c := range []struct {
		sm, v, tau float64
		refused    bool
	}{
		{3.2, 5.76, 0.005 / 8, false}, {0.447, 15.8064, 0.005 / 8, false}, {2.6, 9.24, 0.005 / 8, false},
		{3.2, 5.76, 1.0 / 8, false}, {3.2, 5.76, 1e-9, false}, {1, 1, 0.005 / 8, false}, {0.01, 100, 0.005 / 8, false},
		{4, 1e-6, 0.005 / 8, false}, // σ_M/√v = 4000: 256,000 steps, past the former cap of 1024
		{1, 2e-6, 0.005 / 8, false}, // σ_M/√v = 707: 22,628 steps
		{1, 1e-12, 0.005 / 8, true}, // 3.2e7 steps
		{1, 0, 0.005 / 8, true},
	} {
		n, ok := mSteps(c.sm, c.v, c.tau, capSteps)
		if ok == c.refused {
			t.Errorf("σ_M %g, v %g: %d steps, ok %v; want refused %v", c.sm, c.v, n, ok, c.refused)
			continue
		}
		if !ok {
			continue
		}
		cs := mStepScaleRef(c.tau)
		within := func(n int) bool {
			coarse := 4 * mSpan / float64(n) // in σ_M
			return coarse*c.sm <= math.Sqrt(c.v) && coarse <= cs
		}
		if n%2 != 0 || !within(n) || (n >= 4 && within(n-2)) {
			t.Errorf("σ_M %g, v %g, tau %g: %d steps (coarse step %g σ_M, limits √v/σ_M = %g and c = %g)",
				c.sm, c.v, c.tau, n, 4*mSpan/float64(n), math.Sqrt(c.v)/c.sm, cs)
		}
		if e := 2 * math.Exp(-2*math.Pi*math.Pi/(cs*cs)); !scalar.EqualWithinRel(e, c.tau/64, 1e-12) {
			t.Errorf("tau %g: the density's error at c = %g is %g, want tau/64 = %g", c.tau, cs, e, c.tau/64)
		}
	}
}

// mStepScaleRef solves 2e^{−2π²/c²} = tau/64 for c.
func mStepScaleRef(tau float64) float64 {
	return math.Sqrt(2 * math.Pi * math.Pi / math.Log(128/tau))
}

// The skip radii spend the skip budget in equal weighted shares: skipBound
// is within it (and reaches it where no radius is clamped), and a node of
// less weight never has a larger radius.
func TestKCutsFor(t *testing.T) {
	m := gauss.Paper()
	s := testSetup(t, m, linear(1, 1, 0))
	for _, v := range append([]float64{m.VarRecon()}, m.VarAdv()...) {
		sm := math.Sqrt(s.vx - v)
		steps, _ := mSteps(sm, v, s.q.Target/8, s.maxMSteps())
		nodes, _, _ := mNodesTrapezoid(s.mu, sm, steps, 4.5)
		for _, budget := range []float64{1e-3, 1e-6, 1e-12, 1e-40} {
			k := s.kCutsFor(nodes, budget)
			clamped := false
			for n := range nodes {
				clamped = clamped || k.k[n] == kCutMin || k.k[n] == kCutMax
				if k.k[n] < kCutMin || k.k[n] > kCutMax || k.k[n] > k.max {
					t.Errorf("v %g, budget %g: node %d has kCut %g outside [%d, %d] or above the max %g", v, budget, n, k.k[n], kCutMin, kCutMax, k.max)
				}
				for n2 := range nodes {
					if nodes[n2].wk < nodes[n].wk && k.k[n2] > k.k[n] {
						t.Errorf("v %g, budget %g: node %d (weight %g) has kCut %g above node %d's %g (weight %g)", v, budget, n2, nodes[n2].wk, k.k[n2], n, k.k[n], nodes[n].wk)
					}
				}
			}
			b := s.skipBound(nodes, k)
			if !clamped && !scalar.EqualWithinRel(b, budget, 1e-9) || clamped && k.max < kCutMax && b > budget*(1+1e-9) {
				t.Errorf("v %g, budget %g: skipBound %g (clamped %v, max kCut %g)", v, budget, b, clamped, k.max)
			}
		}
	}
}
