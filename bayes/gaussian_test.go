package bayes

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/gauss"
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
			c, err := CertifyGauss(m, linear(p.A, p.B, p.C), GaussQuad{})
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
	mlp, err := net.MLP()
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
	got, err := CertifyGauss(m, k, GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := CertifyGauss(m, linear(a, b, c), GaussQuad{})
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
		cert, err := CertifyGauss(m, k, GaussQuad{})
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
	cert, err := CertifyGauss(m, k, GaussQuad{})
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
		c, err := CertifyGauss(m, k, GaussQuad{})
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

// A privatizer that ignores X leaves every party its side information only.
func TestCertifyGaussIndependentPrivatizer(t *testing.T) {
	m := gauss.Paper()
	c, err := CertifyGauss(m, linear(0, 2, 1), GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]float64{m.VarRecon()}, m.VarAdv()...)
	for i, b := range c.Bounds {
		t.Logf("party %d: %+v", i, b)
		if !(b.Lo <= want[i]*(1+1e-12) && b.Hi >= want[i]*(1-1e-12)) || b.Hi-b.Lo > 1e-4*want[i] {
			t.Errorf("party %d: [%.12g, %.12g], want a narrow interval around Var[X | side] = %.12g", i, b.Lo, b.Hi, want[i])
		}
	}
}

func TestGaussQuadValidation(t *testing.T) {
	m := gauss.Paper()
	for _, q := range []GaussQuad{{BoxSD: 2}, {BoxSD: math.NaN()}, {RMax: 3}, {RMax: 41}, {Target: -1}, {Target: 2}, {MaxFaces: -1}, {MaxWork: math.Inf(1)}, {MaxStore: 10}} {
		if _, err := CertifyGauss(m, linear(1, 1, 0), q); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
	if _, err := CertifyGauss(m, Privatizer{}, GaussQuad{}); err == nil {
		t.Error("a privatizer without K: no error")
	}
	nan := Privatizer{K: func(x, r float64) float64 { return math.NaN() }, PiecewiseLinear: true,
		Faces: func(b network.Box, _ int) ([]network.Face, error) { return boxFace(b, math.NaN(), 1, 1), nil }}
	if _, err := CertifyGauss(m, nan, GaussQuad{}); err == nil {
		t.Error("a privatizer returning NaN: no error")
	}
	holes := linear(1, 1, 0)
	holes.Faces = func(b network.Box, _ int) ([]network.Face, error) {
		f := boxFace(b, 0, 1, 1)
		f[0].X[1] = (b.X0 + b.X1) / 2 // half the box uncovered
		f[0].X[2] = f[0].X[1]
		return f, nil
	}
	if _, err := CertifyGauss(m, holes, GaussQuad{}); err == nil {
		t.Error("faces that do not cover the box: no error")
	}
}
