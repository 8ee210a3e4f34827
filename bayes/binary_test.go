package bayes

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
)

// mapError is Appendix B's L(s0, s1) for side information through a BSC with
// crossover q, written out term by term: an independent computation.
func mapError(p, q, s0, s1 float64) float64 {
	return math.Min((1-p)*s0*(1-q), p*(1-s1)*q) +
		math.Min((1-p)*s0*q, p*(1-s1)*(1-q)) +
		math.Min((1-p)*(1-s0)*(1-q), p*s1*q) +
		math.Min((1-p)*(1-s0)*q, p*s1*(1-q))
}

// Hand-built privatizers whose (s0, s1) are known: the network ignores r, so
// P(F=1 | X=x) is its output at x; the certificate must recover s0, s1 and
// the MAP losses of Appendix B.
func TestCertifyBinaryKnownPrivatizers(t *testing.T) {
	m := mip.Binary{P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.3}}
	for _, s := range []mip.Privatizer{{S0: 0.9, S1: 0.8}, {S0: 0.5, S1: 0.5}, {S0: 0.99, S1: 0.03}, {S0: 0.2, S1: 0.7}} {
		net := learntest.ConstantNet(s.S0, s.S1)
		mlp, err := learn.MLPOf(&net)
		if err != nil {
			t.Fatal(err)
		}
		k, err := fromMLP(mlp)
		if err != nil {
			t.Fatal(err)
		}
		c, err := CertifyBinary(m, k, BinaryQuad{})
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(c.S0, s.S0, 1e-12) || !scalar.EqualWithinAbs(c.S1, s.S1, 1e-12) {
			t.Errorf("%+v: certified (s0, s1) = (%.15g, %.15g)", s, c.S0, c.S1)
		}
		if want := mapError(m.P, m.QY, s.S0, s.S1); !scalar.EqualWithinAbs(c.Recon, want, 1e-12) {
			t.Errorf("%+v: recon loss %g, Appendix B gives %g", s, c.Recon, want)
		}
		for i, q := range m.QZ {
			if want := mapError(m.P, q, s.S0, s.S1); !scalar.EqualWithinAbs(c.Adv[i], want, 1e-12) {
				t.Errorf("%+v: adversary %d loss %g, Appendix B gives %g", s, i+1, c.Adv[i], want)
			}
		}
		if c.MinAdv != math.Min(c.Adv[0], c.Adv[1]) {
			t.Errorf("%+v: min adv %g of %v", s, c.MinAdv, c.Adv)
		}
	}
}

// A probit privatizer k(x, r) = Φ(a_x + b_x r) uses its noise input; its
// released mechanism is E_R[Φ(a + bR)] = Φ(a/√(1 + b²)) in closed form.
func TestCertifyBinaryProbit(t *testing.T) {
	m := mip.PaperBinary()
	Phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	for _, ab := range [][4]float64{{-1, 2, 0.5, 1}, {0.3, 0.1, -2, 4}, {-3, 0.5, 3, 0.5}} {
		a0, b0, a1, b1 := ab[0], ab[1], ab[2], ab[3]
		k := Privatizer{K: func(x, r float64) float64 {
			if x == 0 {
				return Phi(a0 + b0*r)
			}
			return Phi(a1 + b1*r)
		}}
		c, err := CertifyBinary(m, k, BinaryQuad{})
		if err != nil {
			t.Fatal(err)
		}
		s0, s1 := 1-Phi(a0/math.Sqrt(1+b0*b0)), Phi(a1/math.Sqrt(1+b1*b1))
		if !scalar.EqualWithinAbs(c.S0, s0, 1e-12) || !scalar.EqualWithinAbs(c.S1, s1, 1e-12) {
			t.Errorf("%v: (s0, s1) = (%.15g, %.15g), want (%.15g, %.15g)", ab, c.S0, c.S1, s0, s1)
		}
		if c.Change > 1e-12 {
			t.Errorf("%v: refinement change %g for a smooth integrand", ab, c.Change)
		}
	}
}

// A random sigmoid network with kinks in r: E_R[k(x, R)] against an
// independent brute-force Gauss–Legendre integration with 40,000 nodes.
func TestCertifyBinaryNetworkMatchesBruteForce(t *testing.T) {
	m := mip.PaperBinary()
	for seed := range uint64(3) {
		mlp := randomNet(seed)
		mlp.Out = network.Sigmoid
		k, err := fromMLP(mlp)
		if err != nil {
			t.Fatal(err)
		}
		c, err := CertifyBinary(m, k, BinaryQuad{})
		if err != nil {
			t.Fatal(err)
		}
		brute := func(x float64) float64 {
			f := func(r float64) float64 { return k.K(x, r) * math.Exp(-r*r/2) / math.Sqrt(2*math.Pi) }
			return quad.Fixed(f, -12, 12, 40000, quad.Legendre{}, 0)
		}
		if s0, s1 := 1-brute(0), brute(1); !scalar.EqualWithinAbs(c.S0, s0, 1e-9) || !scalar.EqualWithinAbs(c.S1, s1, 1e-9) {
			t.Errorf("seed %d: (s0, s1) = (%.12g, %.12g), brute force (%.12g, %.12g)", seed, c.S0, c.S1, s0, s1)
		}
		if c.Change > 1e-10 {
			t.Errorf("seed %d: refinement change %g: panels split at the kinks should converge fast", seed, c.Change)
		}
		// Every loss is at most the side-information-only error (F can only help).
		if c.Recon > m.DMax()+1e-15 || c.Adv[0] > m.AdvSaturation()[0]+1e-15 {
			t.Errorf("seed %d: losses %g, %v above the side-only errors", seed, c.Recon, c.Adv)
		}
	}
}

func TestCertifyBinaryRejects(t *testing.T) {
	m := mip.PaperBinary()
	notProb := Privatizer{K: func(x, r float64) float64 { return 1.5 }}
	if _, err := CertifyBinary(m, notProb, BinaryQuad{}); err == nil {
		t.Error("an output of 1.5: no error")
	}
	if _, err := CertifyBinary(m, Privatizer{}, BinaryQuad{}); err == nil {
		t.Error("no K: no error")
	}
	if _, err := CertifyBinary(mip.Binary{P: 2, QY: 0.1, QZ: []float64{0.2}}, notProb, BinaryQuad{}); err == nil {
		t.Error("p = 2: no error")
	}
	for _, q := range []BinaryQuad{{Levels: 9}, {Nodes: 2000}, {RCut: 1}, {Panel: -1}} {
		if _, err := CertifyBinary(m, linear(0, 0, 0.5), q); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
}
