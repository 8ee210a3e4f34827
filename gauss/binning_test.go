package gauss

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// bruteModuloG is g(s) from its definition, independently of moduloG: the
// posterior variance of U ~ N(0, s²) given t = U mod 1 by direct sums over
// the coset, integrated over t with gonum's Gauss–Legendre rule on [0, 1]
// split into pieces (the integrand is periodic but can be sharply peaked).
func bruteModuloG(s float64) float64 {
	post := func(t float64) float64 {
		var w0, w1, w2 float64
		for k := -60; k <= 60; k++ {
			u := t + float64(k)
			w := math.Exp(-u*u/(2*s*s)) / (s * math.Sqrt(2*math.Pi))
			w0 += w
			w1 += w * u
			w2 += w * u * u
		}
		if w0 == 0 {
			return 0
		}
		return w2 - w1*w1/w0 // = p(t)·Var(U | t)
	}
	const pieces = 200
	sum := 0.0
	for i := range pieces {
		a, b := float64(i)/pieces, float64(i+1)/pieces
		sum += quad.Fixed(post, a, b, 40, nil, 0)
	}
	return sum
}

func TestModuloLossIndependentQuadrature(t *testing.T) {
	for _, s := range []float64{0.15, 0.25, 0.35, 0.5, 0.8, 1.2, 2.5} {
		got, want := moduloG(s), bruteModuloG(s)
		if rel := math.Abs(got-want) / want; rel > 1e-9 {
			t.Errorf("g(%g) = %.15g, brute-force quadrature %.15g: relative error %.2g > 1e-9", s, got, want, rel)
		}
	}
}

// The two series (M1) and (M2) of docs/gauss.md are different
// representations; where both are well conditioned they must agree.
func TestModuloSeriesAgree(t *testing.T) {
	trap := func(f func(float64) float64) float64 {
		const n = 4096
		sum := 0.0
		for i := range n {
			sum += f(-0.5 + (float64(i)+0.5)/n)
		}
		return sum / n
	}
	for _, s := range []float64{0.2, 0.3, 0.35, 0.4, 0.6, 1} {
		m1 := trap(directIntegrand(s))
		m2 := s*s - math.Pow(s, 4)*trap(fourierIntegrand(s))
		if rel := math.Abs(m1-m2) / m1; rel > 1e-12 {
			t.Errorf("s = %g: (M1) %.15g, (M2) %.15g: relative difference %.2g", s, m1, m2, rel)
		}
	}
}

func TestModuloLimits(t *testing.T) {
	if got := ModuloLoss(4, math.Inf(1)); got != 0 {
		t.Errorf("Δ = ∞ (F = X): loss %v, want 0", got)
	}
	if got := ModuloLoss(4, 0.01); math.Abs(got-4) > 1e-12 {
		t.Errorf("Δ → 0 (F carries nothing): loss %v, want 4", got)
	}
	// Δ ≫ √v: only the two neighbouring coset points matter; loss ≈
	// Δ²·2Φ(−Δ/(2√v)) to leading order (a wrong neighbour costs Δ²).
	v, d := 1.0, 8.0
	lead := d * d * math.Erfc(d/2/math.Sqrt2)
	if got := ModuloLoss(v, d); !(got < lead && got > lead/4) {
		t.Errorf("ModuloLoss(1, 8) = %g, want within a factor 4 below Δ²·2Φ(−Δ/2) = %g", got, lead)
	}
}

// observerMean returns a function giving E[X | W] for the side set idx.
func observerMean(m *Model, idx []int) func(s *Samples, i int) float64 {
	beta := regress(m.cov, m.private, idx).beta
	return func(s *Samples, i int) float64 {
		x := m.mean[m.private]
		for j, k := range idx {
			x += beta[j] * (s.cols[k][i] - m.mean[k])
		}
		return x
	}
}

// posteriorMean is E[X | F, W] from first principles: X | W ~ N(mw, v)
// restricted to the set {x : label(x) = label(X)} given as a list of
// intervals; Monte Carlo uses it independently of cellGrid.
func posteriorMean(mw, v float64, intervals [][2]float64) float64 {
	sd := math.Sqrt(v)
	var a, b float64
	for _, iv := range intervals {
		lo, hi := (iv[0]-mw)/sd, (iv[1]-mw)/sd
		a += 0.5 * (math.Erf(hi/math.Sqrt2) - math.Erf(lo/math.Sqrt2))
		b += sd * (math.Exp(-lo*lo/2) - math.Exp(-hi*hi/2)) / math.Sqrt(2*math.Pi)
	}
	return mw + b/a
}

// mcLoss estimates each observer's loss of a deterministic mechanism by
// sampling (X, side variables) and scoring the exact posterior mean.
func mcLoss(m *Model, rng *rand.Rand, n int, est func(x, mw, v float64) float64) (means, ses []float64) {
	s := m.Sample(rng, n)
	sides := append([][]int{m.recon}, m.advs...)
	vs := append([]float64{m.vRecon}, m.vAdv...)
	for o, side := range sides {
		mean := observerMean(m, side)
		var sum, sum2 float64
		for i := range n {
			x := s.cols[m.private][i]
			e := x - est(x, mean(s, i), vs[o])
			sum += e * e
			sum2 += e * e * e * e
		}
		mu := sum / float64(n)
		means = append(means, mu)
		ses = append(ses, math.Sqrt((sum2/float64(n)-mu*mu)/float64(n)))
	}
	return means, ses
}

// cellEstimator returns the posterior mean for a cell mechanism with cells
// [origin + cδ, origin + (c+1)δ) labelled c mod k (k = 0: distinct).
func cellEstimator(origin, delta float64, k int) func(x, mw, v float64) float64 {
	return func(x, mw, v float64) float64 {
		c := int(math.Floor((x - origin) / delta))
		if k == 0 {
			lo := origin + float64(c)*delta
			return posteriorMean(mw, v, [][2]float64{{lo, lo + delta}})
		}
		var ivs [][2]float64
		reach := 12 * math.Sqrt(v)
		first := c - k*int(math.Ceil((x-mw+reach)/(float64(k)*delta))+1)
		for cc := first; origin+float64(cc)*delta < mw+reach; cc += k {
			lo := origin + float64(cc)*delta
			ivs = append(ivs, [2]float64{lo, lo + delta})
		}
		return posteriorMean(mw, v, ivs)
	}
}

// moduloEstimator returns E[X | X mod Δ, W] by summing over the coset.
func moduloEstimator(delta float64) func(x, mw, v float64) float64 {
	return func(x, mw, v float64) float64 {
		f := math.Mod(x, delta)
		k0 := math.Round((mw - f) / delta)
		var w0, w1 float64
		for k := k0 - 40; k <= k0+40; k++ {
			u := f + k*delta
			w := math.Exp(-(u - mw) * (u - mw) / (2 * v))
			w0 += w
			w1 += w * u
		}
		return w1 / w0
	}
}

// TestMechanismLossesMonteCarlo checks every binning family's exact losses
// against an independent Monte Carlo with the exact posterior: every
// observer's estimate within 5 standard errors.
func TestMechanismLossesMonteCarlo(t *testing.T) {
	m := Paper()
	mu := m.mean[m.private]
	cases := []struct {
		mech Mechanism
		est  func(x, mw, v float64) float64
		n    int
	}{
		{Modulo(12), moduloEstimator(12), 100000},
		{Modulo(5), moduloEstimator(5), 100000},
		{Nested(0.8, 6), cellEstimator(-0.4, 0.8, 6), 30000},
		{Nested(2, 3), cellEstimator(-1, 2, 3), 30000},
		{Quantizer(3, 0.7), cellEstimator(mu+0.7, 3, 0), 30000},
	}
	for ci, c := range cases {
		exact, err := m.Losses(c.mech)
		if err != nil {
			t.Fatal(err)
		}
		means, ses := mcLoss(m, rand.New(rand.NewPCG(7, uint64(ci))), c.n, c.est)
		want := append([]float64{exact.Recon}, exact.Adv...)
		for o := range want {
			if z := math.Abs(means[o]-want[o]) / ses[o]; z > 5 {
				t.Errorf("%v observer %d: exact %.6g, Monte Carlo %.6g ± %.2g: %.1f standard errors", c.mech, o, want[o], means[o], ses[o], z)
			}
		}
	}
}

// randomScalarModel draws a scalar model (X, Y, Z1, Z2) with a random positive
// definite correlation matrix and random variances.
func randomScalarModel(rng *rand.Rand) *Model {
	for {
		r := func() float64 { return 2*rng.Float64() - 1 }
		c := [][]float64{{1, r(), r(), r()}, {0, 1, r(), r()}, {0, 0, 1, r()}, {0, 0, 0, 1}}
		for i := range c {
			for j := range i {
				c[i][j] = c[j][i]
			}
		}
		cfg := Config{Names: []string{"X", "Y", "Z1", "Z2"}, Mean: []float64{r() * 5, 0, 0, 0},
			Var: []float64{0.5 + 20*rng.Float64(), 1, 2, 3}, Corr: c, Private: "X",
			Reconstructor: []string{"Y"}, Adversaries: [][]string{{"Z1"}, {"Z2"}}}
		m, err := New(cfg)
		if err == nil && m.minEig > 0.02 {
			return m
		}
	}
}

// TestFloorEveryFamily checks the I-MMSE bounds of docs/gauss.md
// ("Proposition 1 is the floor") for every family over random models and
// parameters: L_i ≥ L_Y/(1 + Q_i L_Y) when Q_i ≤ 0 and L_i ≤ L_Y/(1 + Q_i L_Y)
// when Q_i > 0.
func TestFloorEveryFamily(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var floors, ceilings int
	for trial := range 60 {
		m := randomScalarModel(rng)
		sd := math.Sqrt(m.VarX())
		d := sd * math.Exp(3*rng.Float64()-2)
		mechs := []Mechanism{Modulo(d), Modulo(3 * d), Nested(d/4, 2+rng.IntN(8)),
			Quantizer(d, rng.Float64()*d), Erasure(rng.Float64()), LinearSNR(rng.Float64() * 3)}
		for _, mech := range mechs {
			l, err := m.Losses(mech)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range m.Q() {
				h := l.Recon / (1 + q*l.Recon)
				tol := 1e-9*h + 1e-13*m.VarX()
				switch {
				case q <= 0 && l.Adv[i] < h-tol:
					t.Errorf("trial %d %v adversary %d (Q = %.4g ≤ 0): loss %.10g below the floor %.10g", trial, mech, i, q, l.Adv[i], h)
				case q > 0 && l.Adv[i] > h+tol:
					t.Errorf("trial %d %v adversary %d (Q = %.4g > 0): loss %.10g above the ceiling %.10g", trial, mech, i, q, l.Adv[i], h)
				}
				if q <= 0 {
					floors++
				} else {
					ceilings++
				}
			}
		}
	}
	if floors < 100 || ceilings < 100 {
		t.Errorf("random models exercised %d floor and %d ceiling cases; want ≥ 100 of each", floors, ceilings)
	}
}

func TestEnvelopeProperties(t *testing.T) {
	for _, m := range []*Model{Paper(), randomScalarModel(rand.New(rand.NewPCG(3, 4)))} {
		vy := m.VarRecon()
		prev := -1.0
		for i := range 41 {
			d := vy * float64(i) / 40
			a, err := m.BestAchievable(d)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := m.Optimum(d)
			era, _ := m.Losses(Erasure(1 - d/vy))
			// recomputing the reported mechanism from scratch gives the reported losses
			again, err := m.Losses(a.Mechanism)
			if err != nil {
				t.Fatalf("D = %g: reported mechanism %v does not evaluate: %v", d, a.Mechanism, err)
			}
			if math.Abs(again.MinAdv-a.MinAdv) > 1e-12*vy || math.Abs(again.Recon-a.Recon) > 1e-12*vy {
				t.Errorf("D = %g: reported %v, recomputed %v", d, a.Losses, again)
			}
			switch {
			case a.Recon > d*(1+1e-12)+1e-15:
				t.Errorf("D = %g: best achievable violates the constraint: L_R = %g", d, a.Recon)
			case a.MinAdv < p.MinAdv*(1-1e-12) || a.MinAdv < era.MinAdv*(1-1e-12):
				t.Errorf("D = %g: best %g below Proposition 1 %g or erasure %g", d, a.MinAdv, p.MinAdv, era.MinAdv)
			case a.MinAdv > m.UpperBound(d)*(1+1e-9):
				t.Errorf("D = %g: best %g above the upper bound %g", d, a.MinAdv, m.UpperBound(d))
			case a.MinAdv < prev*(1-1e-12):
				t.Errorf("D = %g: envelope decreases: %g after %g", d, a.MinAdv, prev)
			}
			prev = a.MinAdv
		}
		// concavity of the hull
		h := m.Envelope().Vertices()
		for j := 2; j < len(h); j++ {
			a, b, c := h[j-2], h[j-1], h[j]
			if (b.MinAdv-a.MinAdv)*(c.Recon-a.Recon) < (c.MinAdv-a.MinAdv)*(b.Recon-a.Recon)*(1+1e-12) {
				t.Errorf("hull vertex %d (%g, %g) not above the chord", j-1, b.Recon, b.MinAdv)
			}
		}
	}
}

// On the paper's setup binning beats the erasure chord by a large factor
// at small D (the claim of docs/gauss.md's table).
func TestPaperBinningBeatsErasure(t *testing.T) {
	m := Paper()
	for _, d := range []float64{0.005, 0.5, 3} {
		a, _ := m.BestAchievable(d)
		era, _ := m.Losses(Erasure(1 - d/m.VarRecon()))
		if !(a.MinAdv > 1.5*era.MinAdv) {
			t.Errorf("D = %g: best %g not above 1.5 × the erasure chord %g", d, a.MinAdv, era.MinAdv)
		}
	}
}

func TestMechanismErrors(t *testing.T) {
	m := Paper()
	neg := -1.0
	for _, mech := range []Mechanism{{Family: "fourier"}, Modulo(0), Modulo(math.NaN()), Nested(1, 1),
		Quantizer(1, math.Inf(1)), {Family: FamilyErasure, Lambda: &neg}, {Family: FamilyLinear},
		{Family: FamilyMixture}, {Family: FamilyMixture, Parts: []Part{{Weight: 0.5, Mechanism: Modulo(1)}}}} {
		if _, err := m.Losses(mech); err == nil {
			t.Errorf("%+v: no error", mech)
		}
	}
}

func BenchmarkModuloLoss(b *testing.B) {
	for b.Loop() {
		ModuloLoss(5.76, 12)
	}
}

func BenchmarkNestedLoss(b *testing.B) {
	m := Paper()
	for b.Loop() {
		m.observe(Nested(0.5, 8))
	}
}

// When every adversary is better informed than the reconstructor (Q_i ≥ 0)
// the I-MMSE ceiling makes Proposition 1 exactly optimal: the bracket closes
// on Proposition 1's value, and no family beats it.
func TestBracketClosesWhenAdversariesStronger(t *testing.T) {
	c := PaperConfig()
	c.Reconstructor, c.Adversaries, c.Coalitions = []string{"Z1"}, [][]string{{"Y"}, {"Z2"}}, nil
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []float64{0, 0.3, 2, 7, 15, 20} {
		b, err := m.Bracket(d)
		if err != nil {
			t.Fatal(err)
		}
		if b.Open() || math.Abs(b.UpperBound-b.MinAdv) > 1e-12*m.VarX() {
			t.Errorf("D = %g: bracket [%g, %g] with Proposition 1 at %g; want closed on Proposition 1", d, b.Achievable.MinAdv, b.UpperBound, b.MinAdv)
		}
	}
}
