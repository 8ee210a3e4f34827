package bayes

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/network"
)

// rampLayers is F = X + noise·R wherever X has mass, plus a ramp of slope
// 1e9 beyond x = 30 (prior mass ~1e-11 on the paper's model): a privatizer
// sized from F's range over the x grid looks noisy everywhere, while F
// reveals X almost exactly.
func rampLayers(noise float64) []AffineLayer {
	return []AffineLayer{
		{W: [][]float64{{1, 0}, {-1, 0}, {1, 0}, {0, 1}, {0, -1}}, B: []float64{0, 0, -30, 0, 0}, ReLU: true},
		{W: [][]float64{{1, -1, 1e9, noise, -noise}}, B: []float64{0}},
	}
}

func layersK(layers []AffineLayer) func(x, r float64) float64 {
	return func(x, r float64) float64 {
		in := []float64{x, r}
		for _, l := range layers {
			out := make([]float64, len(l.W))
			for j, row := range l.W {
				z := l.B[j]
				for i, w := range row {
					z += w * in[i]
				}
				if l.ReLU {
					z = max(z, 0)
				}
				out[j] = z
			}
			in = out
		}
		return in[0]
	}
}

func layersPrivatizer(layers []AffineLayer) Privatizer {
	return Privatizer{K: layersK(layers), PiecewiseLinear: true, Faces: LayerFaces(layers, true)}
}

// The ramp attack: the adversaries' Bayes losses are those of F = X + 0.01R,
// 1/(1/v + 1e4) ≈ 1e-4, so no certified adversary loss may be far above
// that, whatever F does in the tails; with zero noise F = X there (losses
// 0), and the certificate must still answer cleanly.
func TestCertifyGaussRampAttack(t *testing.T) {
	m := gauss.Paper()
	for _, noise := range []float64{0.01, 0} {
		start := time.Now()
		c, err := CertifyGauss(m, layersPrivatizer(rampLayers(noise)), GaussQuad{})
		if errors.Is(err, ErrCannotCertify) {
			t.Logf("noise %g: %v", noise, err)
			continue
		}
		if err != nil {
			t.Fatalf("noise %g: %v", noise, err)
		}
		for i, v := range m.VarAdv() {
			exact := 1 / (1/v + 1/(noise*noise))
			if noise == 0 {
				exact = 0
			}
			if b := c.Bounds[i+1]; b.Lo > exact*(1+1e-6)+1e-12 || b.Hi < exact*(1-1e-6) {
				t.Errorf("noise %g: adversary %d certified [%.6g, %.6g], exact %.6g", noise, i, b.Lo, b.Hi, exact)
			}
		}
		t.Logf("noise %g: %v, losses %+v, stated error %.2g, %d faces", noise, time.Since(start), c.Losses, c.Change, c.Faces)
	}
}

// A network whose linear regions exceed the cap, and one too costly to
// integrate, are ErrCannotCertify in well under a second, before the work.
func TestCertifyGaussCaps(t *testing.T) {
	m := gauss.Paper()
	k, err := fromMLP(randomNet(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []GaussQuad{{MaxFaces: 100}, {MaxWork: 1e5}, {MaxStore: 2000}} {
		start := time.Now()
		_, err := CertifyGauss(m, k, q)
		if !errors.Is(err, ErrCannotCertify) {
			t.Errorf("%+v: error %v, want ErrCannotCertify", q, err)
		}
		if q.MaxFaces != 0 && !errors.Is(err, network.ErrTooComplex) {
			t.Errorf("%+v: error %v does not wrap network.ErrTooComplex", q, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%+v: %v to refuse", q, d)
		}
	}
	// Not piecewise affine: no faces.
	if _, err := CertifyGauss(m, Privatizer{K: func(x, r float64) float64 { return math.Tanh(x + r) }}, GaussQuad{}); !errors.Is(err, ErrCannotCertify) {
		t.Errorf("tanh privatizer: error %v, want ErrCannotCertify", err)
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

// The dead-zone network ends with a clean answer in seconds; when certified,
// its intervals hold the Monte Carlo loss of the certificate's own
// reconstructor estimator (an upper bound on the Bayes loss) within 4 SE.
func TestCertifyGaussDeadZone(t *testing.T) {
	m := gauss.Paper()
	layers := deadZoneLayers()
	start := time.Now()
	c, err := CertifyGauss(m, layersPrivatizer(layers), GaussQuad{})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("%v to answer", d)
	}
	if errors.Is(err, ErrCannotCertify) {
		t.Logf("cannot certify: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: %d faces (%d constant), bounds %+v", time.Since(start), c.Faces, c.Atoms, c.Bounds)
	checkEstimatorMC(t, "dead zone", m, layers, c, 20000, 3)
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

// Property: on random Gaussian models and random 1–3-layer ReLU networks,
// every certificate (or a clean refusal) holds the Monte Carlo loss of its
// own reconstructor estimator within 4 SE (an upper-bound check: that loss
// is at least the Bayes loss and at most Hi), and the adversaries' lower
// ends lie below the same Monte Carlo losses of the in-box posterior mean
// (a Bayes loss lower bound must lie below any estimator's loss).
func TestCertifyGaussRandomNetworks(t *testing.T) {
	n := 20
	if testing.Short() {
		n = 6
	}
	refused := 0
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 77))
		m, err := randomModel(rng)
		if err != nil {
			t.Fatal(err)
		}
		layers := randomLayers(rng, 1+int(seed%3), math.Sqrt(m.VarX()))
		c, err := CertifyGauss(m, layersPrivatizer(layers), GaussQuad{})
		if errors.Is(err, ErrCannotCertify) {
			refused++
			t.Logf("seed %d: %v", seed, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		checkEstimatorMC(t, "seed "+string(rune('0'+seed%10)), m, layers, c, 4000, seed)
	}
	if refused > n/4 {
		t.Errorf("%d of %d random networks refused", refused, n)
	}
}

// checkEstimatorMC draws (M, X, R) for every observer and compares the mean
// squared error of the in-box posterior mean E[X | F, M, B] (the
// certificate's estimator, μ outside) with the certified interval: it must
// not exceed Hi by more than 4 SE, and Lo must not exceed it by more than 4
// SE.
func checkEstimatorMC(t *testing.T, name string, m *gauss.Model, layers []AffineLayer, c *GaussCertificate, n int, seed uint64) {
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
		// A discrete value: the mean of N(m, v) over the cluster's faces.
		var m0, m1 float64
		sv := math.Sqrt(v)
		for _, fc := range s.disc {
			if fc.hiGroup != group {
				continue
			}
			for x := m - 10*sv; x <= m+10*sv; x += sv / 200 {
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
	ev := newPanelEval(nodes, len(s.cont), kCutMax)
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
