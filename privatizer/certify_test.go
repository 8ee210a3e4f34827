package privatizer_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

func readNet(t *testing.T, name string) *network.Network {
	t.Helper()
	m, err := privatizer.ReadNetwork(context.Background(), filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readChannel(t *testing.T, name string) *privatizer.Channel {
	t.Helper()
	c, err := privatizer.ReadChannel(context.Background(), filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// gap is Proposition 2's γ*(D̂) at the certified distortion minus the
// certified minimum adversarial loss (HiGHS, re-checked from s*).
func gap(t *testing.T, m mip.Binary, l loss.Losses) float64 {
	t.Helper()
	opt, err := m.SolveProp2(l.Recon, mip.DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	if opt.Recon > l.Recon+1e-9 {
		t.Fatalf("HiGHS's s* has distortion %v > D̂ = %v", opt.Recon, l.Recon)
	}
	return opt.MinAdv - l.MinAdv
}

// The fixtures written at D = 0.15 on the paper's binary model: the grid
// optimum of Proposition 2 must pass (gap within the grid's resolution) and
// the symmetric channel with the same distortion must fail by far.
func TestPassAndFailFixtures(t *testing.T) {
	ctx := t.Context()
	m := mip.PaperBinary()
	for _, tc := range []struct {
		name string
		pass bool
	}{
		{"channel-pass.json", true},
		{"channel-fail.json", false},
		{"net-pass.json", true},
		{"net-pass.onnx", true},
		{"net-fail.onnx", false},
	} {
		var l loss.Losses
		if strings.HasPrefix(tc.name, "channel") {
			var err error
			if l, err = readChannel(t, tc.name).BinaryLosses(m); err != nil {
				t.Fatal(err)
			}
		} else {
			r, err := privatizer.NetworkBinaryLosses(ctx, readNet(t, tc.name), m, privatizer.DefaultTol)
			if err != nil {
				t.Fatal(err)
			}
			// Exact up to the float32 error bound of its rows and the walk's
			// float64 rounding.
			if !r.Exact || r.Bound > 2*r.Rounding+1e-14 || r.Rounding > 1e-6 {
				t.Errorf("%s: an affine network must be exact: %+v", tc.name, r)
			}
			l = r.Losses
		}
		if l.Recon > 0.15+1e-7 || l.Recon < 0.149 {
			t.Errorf("%s: certified distortion %v, want 0.15 within the grid's resolution", tc.name, l.Recon)
		}
		g := gap(t, m, l)
		t.Logf("%s: D̂ = %v, min adv %v, gap %.3g", tc.name, l.Recon, l.MinAdv, g)
		if tc.pass && (g > 1e-3 || g < -1e-9) {
			t.Errorf("%s: gap %v, want within [0, 1e-3]: the fixture is Proposition 2's optimum on a 1/2000 grid", tc.name, g)
		}
		if !tc.pass && g < 0.1 {
			t.Errorf("%s: gap %v, want ≥ 0.1: the symmetric channel leaks far more than the optimum", tc.name, g)
		}
	}
}

// A network's certified losses are those of the channel it releases:
// net-pass (k = p0 + (p1 − p0)x, float32 weights) against channel-pass.
func TestNetworkEqualsItsChannel(t *testing.T) {
	ctx := t.Context()
	m := mip.PaperBinary()
	c, err := readChannel(t, "channel-pass.json").BinaryLosses(m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := privatizer.NetworkBinaryLosses(ctx, readNet(t, "net-pass.json"), m, privatizer.DefaultTol)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Losses.Recon-c.Recon) > 1e-7 || math.Abs(r.Losses.MinAdv-c.MinAdv) > 1e-7 {
		t.Errorf("network %+v, channel %+v", r.Losses, c)
	}
	ch := readChannel(t, "channel-pass.json")
	if math.Abs(r.S0()-ch.P[0][0]) > 1e-7 || math.Abs(r.S1()-ch.P[1][1]) > 1e-7 {
		t.Errorf("s0, s1 = %v, %v; channel %v", r.S0(), r.S1(), ch.P)
	}
}

// Deep ReLU and smooth networks on the binary model: the losses are
// Appendix B's of the exact (s0, s1), the bound follows Expect's, and the
// certified intervals hold the losses of the channel a runtime releases,
// P(F = 1 | x) = E_R[clamp(k(x, R), 0, 1)] (independent Gauss–Legendre
// quadrature; float32 networks within their rounding bound of it), each
// row's mean within its error of that probability, and EvalBound's δ
// covers the runtime's k. A k that crosses 1 within ProbSlack ("crossing
// one": 1 + 9e-7 − relu(−r)/16 at x = 0) has a clamped mean 4.5e-7 below
// its mean: the interval holds the runtime's losses only with the clamp's
// share stated. Networks built to make mmds's float64 arithmetic differ
// from the runtime's may instead be refused (cannot certify, never a pass).
func TestNetworkBinaryLosses(t *testing.T) {
	ctx := t.Context()
	m := mip.PaperBinary()
	for _, tc := range []struct {
		file, json string
		net        *network.Network                               // built here; file is its name
		runtime    func(n *network.Network, x, r float64) float64 // k as a runtime computes it; nil: Eval
		refusable  bool                                           // network.ErrPrecision is a sound answer too
	}{
		{file: "relu2-binary.onnx"}, {file: "clamp-binary.json"}, {file: "tanh-binary.onnx"}, {file: "relu-sigmoid-binary.json"},
		{file: "crossing one", json: `{"inputs": ["x", "r"], "precision": "float64", "layers": [
			{"weight": [[-100, -1], [1, 0]], "bias": [0, 0], "activation": "relu"},
			{"weight": [[-0.0625, -0.7]], "bias": [1.0000009], "activation": "identity"}]}`},
		{file: "a unit 2⁻⁴⁰ above 0", net: smallUnitLeak(), refusable: true},
		{file: "2⁵³ summed bias last", net: summationOrderLeak(), runtime: forwardBiasLast, refusable: true},
	} {
		f := tc.file
		n := tc.net
		if n == nil {
			n = networkOf(t, tc.file, tc.json)
		} else if err := n.Validate(); err != nil {
			t.Fatal(err)
		}
		run := tc.runtime
		if run == nil {
			run = (*network.Network).Eval
		}
		for x := range 2 {
			k, d, err := n.EvalBound(float64(x), 0)
			if err != nil {
				t.Fatal(err)
			}
			if kr := run(n, float64(x), 0); !(math.Abs(k-kr) <= d) {
				t.Errorf("%s: x = %d: mmds k = %v with δ = %g, but the runtime gives %v", f, x, k, d, kr)
			}
		}
		r, err := privatizer.NetworkBinaryLosses(ctx, n, m, privatizer.DefaultTol)
		if tc.refusable && errors.Is(err, network.ErrPrecision) {
			t.Logf("%s: cannot certify (never a pass): %v", f, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var e [2]network.Expectation
		var rt [2]float64
		for x := range 2 {
			if e[x], err = n.Expect(ctx, float64(x), privatizer.DefaultTol); err != nil {
				t.Fatal(err)
			}
			rt[x] = legendreExpect(func(r float64) float64 { return min(max(run(n, float64(x), r), 0), 1) }, n.Kinks(float64(x), nil))
		}
		s := mip.Privatizer{S0: 1 - min(max(e[0].Mean, 0), 1), S1: min(max(e[1].Mean, 0), 1)}
		if r.Losses.Recon != m.ReconLoss(s) || r.Losses.Adv[0] != m.AdvLosses(s)[0] {
			t.Errorf("%s: %+v, Appendix B %v %v", f, r.Losses, m.ReconLoss(s), m.AdvLosses(s))
		}
		// A row's bound: Expect's, and for a k that may leave [0, 1] (not
		// a sigmoid output) its excursion out of [0, 1] and Expect's again.
		rowErr := func(e network.Expectation) float64 {
			b := e.Bound + e.Rounding
			if out := max(0, e.Max-1, -e.Min); n.Layers[len(n.Layers)-1].Act != network.Sigmoid && (out > 0 || e.Exact) {
				b += (out + e.Bound) * (1 + 0x1p-40)
			}
			return b
		}
		if want := privatizer.RiskShift(m.Finite(), []float64{2 * rowErr(e[0]), 2 * rowErr(e[1])}); !scalar.EqualWithinRel(r.Bound, want, 1e-12) || r.Exact != n.PiecewiseLinear() {
			t.Errorf("%s: bound %v exact %v; want %v, %v", f, r.Bound, r.Exact, want, n.PiecewiseLinear())
		}
		for x := range 2 {
			if got := r.Rows[x].Mean; !(math.Abs(got-rt[x]) <= rowErr(e[x])+1e-9) {
				t.Errorf("%s: x = %d: certified E_R[k] = %v ± %g, but the function that runs gives %v", f, x, got, rowErr(e[x]), rt[x])
			}
		}
		if err := r.Losses.Validate(); err != nil {
			t.Error(err)
		}
		c, err := model.NewBinary(m).CertifyFile(ctx, privatizer.File{Network: n}, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st := mip.Privatizer{S0: 1 - rt[0], S1: rt[1]}
		recon, adv := m.ReconLoss(st), m.AdvLosses(st)[0]
		in := func(v float64, iv [2]float64) bool { return v >= iv[0]-1e-12 && v <= iv[1]+1e-12 }
		if !in(recon, c.Interval.Recon) || !in(adv, c.Interval.Adv[0]) {
			t.Errorf("%s: the clamped channel's losses (%.12g, %.12g) outside the certified intervals %v, %v", f, recon, adv, c.Interval.Recon, c.Interval.Adv[0])
		}
	}
}

// smallUnitLeak is a float64 network whose layer-1 unit z = (1 + 2⁻⁴⁰)x − 1
// is exactly 2⁻⁴⁰ at x = 1. A region walk that rounds it to 0 (|z| ≤
// zeroTol·Σ|terms| = 2e-12) never sees the next layer's −2⁴⁰ weight, while
// Eval (and any float64 runtime) computes k(1, r) = relu(0.537 − 1) = 0.
// The released channel is F = 1 − X (adversary loss 0), but such a walk
// certifies net-pass's p0 = 1, p1 = 0.537 (adversary loss 0.29, the optimum
// at D = 0.15): a leaking privatizer certified PASS.
func smallUnitLeak() *network.Network {
	eps := math.Ldexp(1, -40)
	return &network.Network{Name: "leak", Inputs: []string{"x", "r"}, Precision: network.Float64, Layers: []network.Layer{
		{W: [][]float64{{-0.463, 0}, {1 + eps, 0}}, B: []float64{1, -1}, Act: network.ReLU},
		{W: [][]float64{{1, -math.Ldexp(1, 40)}}, B: []float64{0}, Act: network.ReLU},
	}}
}

// summationOrderLeak is a float64 network on which mmds's evaluation, itself
// rounded in one summation order, is not the function that runs (were δ 0
// for float64, "mmds's own evaluation is the function that runs"): the
// hidden unit z = 2⁵³ + x − 2⁵³·1 is 0 for mmds (2⁵³ + 1 rounds to 2⁵³
// first) and x for a float64 runtime that adds the bias last (PyTorch's
// addmm) — and for exact arithmetic. The output relu(1 − 0.463x − z) is
// net-pass for mmds (PASS at D = 0.15) and F = 1 − X for the runtime. The
// runtime's loss, 0, must lie in the certified interval: the rounding is
// part of the stated error (a verdict then says cannot certify, the error
// being far above its limit).
func summationOrderLeak() *network.Network {
	two53 := math.Ldexp(1, 53)
	return &network.Network{Name: "order", Inputs: []string{"x", "r"}, Precision: network.Float64, Layers: []network.Layer{
		{W: [][]float64{{1, 0}, {0, 0}, {-0.463, 0}}, B: []float64{0, 1, 1}, Act: network.ReLU},
		{W: [][]float64{{1, -two53, 0}, {0, 0, 1}}, B: []float64{two53, 0}, Act: network.ReLU},
		{W: [][]float64{{-1, 1}}, B: []float64{0}, Act: network.ReLU},
	}}
}

// forwardBiasLast is a float64 runtime that sums each unit as PyTorch's
// nn.Linear (addmm) does: the dot product first, then the bias.
func forwardBiasLast(m *network.Network, x, r float64) float64 {
	a := []float64{x, r}
	if m.Inputs[0] == "r" {
		a = []float64{r, x}
	}
	for _, ly := range m.Layers {
		na := make([]float64, len(ly.W))
		for j, row := range ly.W {
			var s float64
			for i, w := range row {
				s += w * a[i]
			}
			s += ly.B[j]
			if ly.Act == network.ReLU {
				s = max(s, 0)
			}
			na[j] = s
		}
		a = na
	}
	return a[0]
}

// networkOf reads testdata's file, or the JSON layout given inline.
func networkOf(t *testing.T, file, layout string) *network.Network {
	t.Helper()
	if layout == "" {
		return readNet(t, file)
	}
	n, err := network.ParseJSON(strings.NewReader(layout), file)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// On the Gaussian model a network plugs into bayes.CertifyGauss; a linear
// network F = aX + bR + c reproduces Appendix A's closed form
// (gauss.LinearLosses): every certified interval contains it.
func TestLinearNetworkGaussClosedForm(t *testing.T) {
	n := readNet(t, "linear-gauss.onnx")
	k := mustPrivatizer(t, n)
	m := gauss.Paper()
	cert, err := bayes.CertifyGauss(context.Background(), m, k, bayes.GaussQuad{})
	if err != nil {
		t.Fatal(err)
	}
	w := n.Layers[0]
	want, err := m.LinearLosses(gauss.Linear{A: w.W[0][0], B: w.W[0][1], C: w.B[0]})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range append([]float64{want.Recon}, want.Adv...) {
		if b := cert.Bounds[i]; b.Lo > w*(1+1e-9) || b.Hi < w*(1-1e-9) || b.Hi > w*(1+5e-3) {
			t.Errorf("loss %d: certified [%v, %v], closed form %v", i, b.Lo, b.Hi, w)
		}
	}
}

// The deep ReLU network's certificate on the Gaussian model is the same
// from its JSON and its ONNX file, with a stated error within the verdicts'
// 0.5%.
func TestDeepNetworkGaussJSONEqualsONNX(t *testing.T) {
	m := gauss.Paper()
	var certs []*bayes.GaussAnalysis
	for _, f := range []string{"relu2-gauss.json", "relu2-gauss-matmul.onnx"} {
		n := readNet(t, f)
		c, err := bayes.CertifyGauss(context.Background(), m, mustPrivatizer(t, n), bayes.GaussQuad{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Change > 5e-3 {
			t.Errorf("%s: stated error %v", f, c.Change)
		}
		certs = append(certs, c)
	}
	if a, b := certs[0], certs[1]; math.Abs(a.Recon-b.Recon) > 1e-9*a.Recon || math.Abs(a.MinAdv-b.MinAdv) > 1e-9*a.MinAdv {
		t.Errorf("JSON %v %v, ONNX %v %v", a.Recon, a.Adv, b.Recon, b.Adv)
	}
}

func mustPrivatizer(t *testing.T, n *network.Network) bayes.Privatizer {
	t.Helper()
	k, err := bayes.FromNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A network unbounded in r is not a probability: the channel it would
// release is refused, naming the file.
func TestNetworkChannelRejectsNonProbability(t *testing.T) {
	g := readNet(t, "relu2-gauss.json")
	if _, _, err := privatizer.NetworkChannel(t.Context(), g, 2, privatizer.DefaultTol); err == nil || !strings.Contains(err.Error(), "must lie in [0, 1]") || !strings.Contains(err.Error(), "relu2-gauss.json") {
		t.Errorf("unbounded network as a probability: %v", err)
	}
}

// identityCategorical is a categorical network over a one-hot x with n
// values that releases F = x but for e^{−gain} of its mass, whatever r.
func identityCategorical(n int, gain float64) *network.Network {
	var in []string
	for k := range n {
		in = append(in, "x="+string(rune('0'+k)))
	}
	nw := &network.Network{Name: "release-x", Inputs: append(in, "r"), Precision: network.Float64}
	ly := network.Layer{B: make([]float64, n), Act: network.Softmax}
	for f := range n {
		row := make([]float64, n+1)
		row[f] = gain
		ly.W = append(ly.W, row)
	}
	nw.Layers = []network.Layer{ly}
	return nw
}

// A categorical network that releases X itself is certified as the channel
// it is, the identity, whose adversaries lose nothing: the losses match the
// identity channel's exact sums within the stated bound. A one-hot x over
// another alphabet than the model's is refused before any work.
func TestCategoricalReleaseOfX(t *testing.T) {
	ctx := t.Context()
	m := mip.PaperBinary()
	nw := identityCategorical(2, 40)
	r, err := privatizer.NetworkBinaryLosses(ctx, nw, m, privatizer.DefaultTol)
	if err != nil {
		t.Fatal(err)
	}
	id := &privatizer.Channel{Name: "identity", P: [][]float64{{1, 0}, {0, 1}}}
	want, err := id.BinaryLosses(m)
	if err != nil {
		t.Fatal(err)
	}
	slack := r.Bound + 4*math.Exp(-40)
	if math.Abs(r.Losses.Recon-want.Recon) > slack || math.Abs(r.Losses.MinAdv-want.MinAdv) > slack || want.MinAdv != 0 {
		t.Errorf("certified %+v, identity channel %+v (bound %.3g)", r.Losses, want, r.Bound)
	}
	if r.Laws == nil || r.Rows != nil {
		t.Errorf("a categorical network's analysis has rows %v and laws %v: want laws only", r.Rows, r.Laws)
	}
	if _, err := privatizer.NetworkBinaryLosses(ctx, identityCategorical(3, 40), m, privatizer.DefaultTol); !errors.Is(err, privatizer.ErrInput) || !strings.Contains(err.Error(), "one-hot over 3 values") {
		t.Errorf("one-hot x over 3 values on the binary model: %v, want ErrInput", err)
	}
}

// The categorical fixture, written by PyTorch (scripts/make-certify-fixtures.py):
// torch.onnx.export of forward(x, r) with a one-hot x and a softmax, and the
// same weights in the JSON layout, read as one network; at 60 points the law
// PyTorch's float32 forward pass released is within ProbsBound of mmds's,
// and each certified row is within 5 standard errors (plus its bound) of
// PyTorch's Monte Carlo estimate of E_R[softmax].
func TestCategoricalFixtureAgainstTorch(t *testing.T) {
	ctx := t.Context()
	onnxNet, jsonNet := readNet(t, "categorical-finite.onnx"), readNet(t, "categorical-finite.json")
	if !onnxNet.Categorical() || onnxNet.XValues() != 3 || onnxNet.Outputs() != 4 || onnxNet.Precision != network.Float32 {
		t.Fatalf("ONNX fixture read as %v (%v, inputs %q)", onnxNet, onnxNet.Precision, onnxNet.Inputs)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "categorical-finite.torch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Points []struct {
			X int
			R float64
			P []float64
		}
		Rows []struct {
			X        int
			Mean, SE []float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*network.Network{onnxNet, jsonNet} {
		for _, pt := range ref.Points {
			p, d, err := n.ProbsBound(float64(pt.X), pt.R, nil)
			if err != nil {
				t.Fatal(err)
			}
			var l1 float64
			for f := range p {
				l1 += math.Abs(p[f] - pt.P[f])
			}
			if l1 > d {
				t.Errorf("%s at (x, r) = (%d, %g): PyTorch's law is %.3g from mmds's in ℓ1, above ProbsBound %.3g", n.Name, pt.X, pt.R, l1, d)
			}
		}
		for _, row := range ref.Rows {
			got, err := n.ExpectRow(ctx, float64(row.X), network.DefaultTol)
			if err != nil {
				t.Fatal(err)
			}
			for f := range got.P {
				if dev := math.Abs(got.P[f] - row.Mean[f]); dev > 5*row.SE[f]+got.Bound {
					t.Errorf("%s: P(%d | %d) = %.6f, PyTorch's Monte Carlo %.6f ± %.2g", n.Name, f, row.X, got.P[f], row.Mean[f], row.SE[f])
				}
			}
		}
	}
}

// TestRiskShift: the ℓ1 rounding bound of a channel's risks, (max − min)/2
// of each loss row weighted by π(x)·ε_x and maximized over the observers;
// +Inf for inputs that give no number.
func TestRiskShift(t *testing.T) {
	zeroOne := mip.Observer{Channel: [][]float64{{1}, {1}}}
	graded := mip.Observer{Channel: [][]float64{{1}, {1}}, Loss: [][]float64{{0, 4}, {1, 3}}}
	for _, c := range []struct {
		name string
		m    mip.Finite
		l1   []float64
		want float64
	}{
		{"0-1", mip.Finite{Prior: []float64{0.25, 0.75}, Recon: zeroOne, Adv: []mip.Observer{zeroOne}}, []float64{0.5, 0.25}, 0.25*0.5/2 + 0.75*0.25/2},
		{"graded adversary", mip.Finite{Prior: []float64{0.5, 0.5}, Recon: zeroOne, Adv: []mip.Observer{graded}}, []float64{0.5, 0.25}, 0.5*0.5*4/2 + 0.5*0.25*2/2},
		{"l1 of the wrong length", mip.Finite{Prior: []float64{0.5, 0.5}, Recon: zeroOne}, []float64{0.5}, math.Inf(1)},
		{"a loss row without estimates", mip.Finite{Prior: []float64{0.5, 0.5}, Recon: zeroOne, Adv: []mip.Observer{{Loss: [][]float64{{0, 1}, {}}}}}, []float64{0.5, 0.5}, math.Inf(1)},
		{"a loss matrix short of a row", mip.Finite{Prior: []float64{0.5, 0.5}, Recon: zeroOne, Adv: []mip.Observer{{Loss: [][]float64{{0, 1}}}}}, []float64{0.5, 0.5}, math.Inf(1)},
	} {
		got := privatizer.RiskShift(c.m, c.l1)
		if !(got == c.want || scalar.EqualWithinRel(got, c.want, 1e-11)) || got < c.want {
			t.Errorf("%s: %v, want %v (rounded up)", c.name, got, c.want)
		}
	}
}
