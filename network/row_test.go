package network

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
)

// randomCategorical returns a categorical network over a one-hot x with n
// values: (one-hot x, r) → widths… (ReLU) → m logits → softmax, weights
// N(0, 1/fan-in)·scale, r first or last at random.
func randomCategorical(rng *rand.Rand, n int, widths []int, m int, scale float64) *Network {
	var in []string
	for k := range n {
		in = append(in, fmt.Sprintf("x=%d", k))
	}
	if rng.IntN(2) == 0 {
		in = append([]string{"r"}, in...)
	} else {
		in = append(in, "r")
	}
	net := &Network{Name: "categorical", Inputs: in, Precision: Float64}
	fan := len(in)
	for l, w := range append(append([]int(nil), widths...), m) {
		ly := Layer{W: make([][]float64, w), B: make([]float64, w), Act: ReLU}
		if l == len(widths) {
			ly.Act = Softmax
		}
		for j := range ly.W {
			ly.W[j] = make([]float64, fan)
			for i := range ly.W[j] {
				ly.W[j][i] = scale * rng.NormFloat64() / math.Sqrt(float64(fan))
			}
			ly.B[j] = scale * 0.5 * rng.NormFloat64()
		}
		net.Layers = append(net.Layers, ly)
		fan = w
	}
	if err := net.Validate(); err != nil {
		panic(err)
	}
	return net
}

// rCol and xCol are the columns of r and of x = k in a one-hot network.
func rCol(n *Network) int {
	if n.Inputs[0] == "r" {
		return 0
	}
	return len(n.Inputs) - 1
}

func xCol(n *Network, k int) int {
	if n.Inputs[0] == "r" {
		return k + 1
	}
	return k
}

func TestCategoricalValidate(t *testing.T) {
	good := func() *Network {
		return randomCategorical(rand.New(rand.NewPCG(1, 2)), 3, []int{4}, 3, 1)
	}
	cases := []struct {
		name string
		edit func(n *Network)
		want string
	}{
		{"one-hot out of order", func(n *Network) { n.Inputs[xCol(n, 0)], n.Inputs[xCol(n, 1)] = "x=1", "x=0" }, `one-hot input 0 is "x=1"`},
		{"r in the middle", func(n *Network) { n.Inputs = []string{"x=0", "r", "x=1", "x=2"} }, "or a one-hot x"},
		{"no r", func(n *Network) { n.Inputs = []string{"x=0", "x=1", "x=2", "x=3"} }, "or a one-hot x"},
		{"softmax inside", func(n *Network) { n.Layers[0].Act = Softmax }, "softmax before the last layer"},
		{"softmax of one output", func(n *Network) {
			last := &n.Layers[1]
			last.W, last.B = last.W[:1], last.B[:1]
		}, "softmax over 1 outputs"},
		{"several outputs without softmax", func(n *Network) { n.Layers[1].Act = Identity }, "output size 3: want 1"},
	}
	for _, c := range cases {
		n := good()
		c.edit(n)
		err := n.Validate()
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInput containing %q", c.name, err, c.want)
		}
	}
	if n := good(); n.XValues() != 3 || n.Outputs() != 3 || !n.Categorical() {
		t.Errorf("XValues %d, Outputs %d, Categorical %v: want 3, 3, true", n.XValues(), n.Outputs(), n.Categorical())
	}
}

// Probs is the softmax of the logits computed by hand from the one-hot
// columns, and sums to 1.
func TestProbsByHand(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		n := randomCategorical(rng, 2+rng.IntN(4), []int{1 + rng.IntN(6)}, 2+rng.IntN(4), 2)
		x, r := rng.IntN(n.XValues()), rng.NormFloat64()
		l0, l1 := n.Layers[0], n.Layers[1]
		h := make([]float64, len(l0.W))
		for j, row := range l0.W {
			h[j] = max(0, l0.B[j]+row[xCol(n, x)]+r*row[rCol(n)])
		}
		z := make([]float64, len(l1.W))
		var sum float64
		for f, row := range l1.W {
			z[f] = l1.B[f]
			for j, w := range row {
				z[f] += w * h[j]
			}
			sum += math.Exp(z[f])
		}
		p := n.Probs(float64(x), r, nil)
		var tot float64
		for f := range p {
			if want := math.Exp(z[f]) / sum; math.Abs(p[f]-want) > 1e-14 {
				t.Fatalf("P(%d | x=%d, r=%g) = %v, by hand %v", f, x, r, p[f], want)
			}
			tot += p[f]
		}
		if math.Abs(tot-1) > 1e-14 {
			t.Fatalf("Σ_f P = %v", tot)
		}
	}
}

// quadCase is a categorical network and an x whose row ExpectRow must
// match the reference quadrature within the bound it states, the bound at
// most slack times the tolerance asked.
type quadCase struct {
	name  string
	n     *Network
	x     int
	width float64 // the reference's widest panel
	slack float64
}

// tinyRegion is a network whose second ReLU unit switches on w after the
// first, at r = r0 + w: an activation region w wide, logits k times the
// units.
func tinyRegion(r0, w, k float64) *Network {
	return &Network{Name: "tiny", Inputs: []string{"x", "r"}, Precision: Float64, Layers: []Layer{
		{W: [][]float64{{0, 1}, {0, 1}}, B: []float64{-r0, -(r0 + w)}, Act: ReLU},
		{W: [][]float64{{0, 0}, {k, -k}, {-k, 3 * k}}, B: []float64{0, 0, 0.3}, Act: Softmax},
	}}
}

// ExpectRow on one-hidden-layer networks matches an independent composite
// Gauss–Legendre quadrature whose panels end at the kinks computed from
// the first layer's weights (the integrand is analytic between them), within
// the bound it states; the bound meets the tolerance asked for.
func TestExpectRowMatchesQuadrature(t *testing.T) {
	ctx := context.Background()
	cases := []quadCase{
		// Activation regions a few ulps wide: the quadratic's c2 is the
		// samples' rounding over s², and the moments M1, M2 on such a step
		// are all cancellation. The row must stay within its stated bound
		// (it was 1e-3 off with a bound of 1.6e-9), and the bound near
		// the tolerance. The reference's panels are narrow: the logits'
		// slope reaches 2k.
		{"region 1e-13 wide at r = 1", tinyRegion(1, 1e-13, 5), 0, 0.01, 2},
		{"region 1e-14 wide at r = 1", tinyRegion(1, 1e-14, 5), 0, 0.01, 2},
		{"region 4e-16 wide at r = 1", tinyRegion(1, 4e-16, 5), 0, 0.01, 2},
		{"region 1e-14 wide at r = −2.5, sharp", tinyRegion(-2.5, 1e-14, 40), 0, 0.01, 2},
		{"region 1e-15 wide at r = 0.999", tinyRegion(0.999, 1e-15, 5), 0, 0.01, 2},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		n := randomCategorical(rng, 2+rng.IntN(3), []int{1 + rng.IntN(8)}, 2+rng.IntN(4), 1+3*rng.Float64())
		for x := range n.XValues() {
			cases = append(cases, quadCase{fmt.Sprintf("trial %d x=%d", trial, x), n, x, 0.25, 1})
		}
	}
	for _, c := range cases {
		n := c.n
		var kinks []float64
		l0 := n.Layers[0]
		for j, row := range l0.W {
			if w := row[rCol(n)]; w != 0 {
				kinks = append(kinks, -(l0.B[j]+row[xCol(n, c.x)])/w)
			}
		}
		for _, tol := range []float64{1e-4, DefaultTol} {
			row, err := n.ExpectRow(ctx, float64(c.x), tol)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if row.Bound > c.slack*tol {
				t.Errorf("%s: bound %.3g above %g times the tolerance %.3g", c.name, row.Bound, c.slack, tol)
			}
			var l1 float64
			for f := range row.P {
				ref := quadExpect(func(r float64) float64 { return n.Probs(float64(c.x), r, nil)[f] }, kinks, c.width, 30)
				l1 += math.Abs(row.P[f] - ref)
			}
			if l1 > row.Bound+1e-13 {
				t.Errorf("%s tol %g: ℓ1 error %.3g above the stated bound %.3g", c.name, tol, l1, row.Bound)
			}
		}
	}
}

// Deeper networks: the rows at two tolerances agree within the sum of their
// bounds, and each sums to 1 within its bound.
func TestExpectRowDeepConsistent(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 20 {
		n := randomCategorical(rng, 2+rng.IntN(3), []int{2 + rng.IntN(6), 2 + rng.IntN(6)}, 2+rng.IntN(4), 1+4*rng.Float64())
		x := float64(rng.IntN(n.XValues()))
		lo, err := n.ExpectRow(ctx, x, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		hi, err := n.ExpectRow(ctx, x, 1e-10)
		if err != nil {
			t.Fatal(err)
		}
		var d, sum float64
		for f := range lo.P {
			d += math.Abs(lo.P[f] - hi.P[f])
			sum += hi.P[f]
		}
		if d > lo.Bound+hi.Bound {
			t.Fatalf("trial %d: rows %.3g apart, bounds %.3g + %.3g", trial, d, lo.Bound, hi.Bound)
		}
		if math.Abs(sum-1) > hi.Bound+1e-14 {
			t.Fatalf("trial %d: Σ_f P = %.17g, bound %.3g", trial, sum, hi.Bound)
		}
		if hi.Samples <= lo.Samples {
			t.Errorf("trial %d: %d samples at 1e-10, %d at 1e-3: the step does not follow the tolerance", trial, hi.Samples, lo.Samples)
		}
	}
}

// A network whose r weights are 0 releases softmax(z(x)) whatever R: the row
// is that law, to rounding.
func TestExpectRowWithoutNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := randomCategorical(rng, 4, []int{5}, 3, 2)
	for j := range n.Layers[0].W {
		n.Layers[0].W[j][rCol(n)] = 0
	}
	for x := range 4 {
		row, err := n.ExpectRow(context.Background(), float64(x), DefaultTol)
		if err != nil {
			t.Fatal(err)
		}
		want := n.Probs(float64(x), 0, nil)
		for f := range want {
			if math.Abs(row.P[f]-want[f]) > 1e-14 {
				t.Errorf("x=%d: P_%d = %.17g, want %.17g", x, f, row.P[f], want[f])
			}
		}
		if row.Pieces != 1 {
			t.Errorf("x=%d: %d pieces, want 1", x, row.Pieces)
		}
	}
}

// float32Probs is what a float32 runtime computes: each layer's dot product
// in float32 in one order or the other, then the softmax in float32.
func float32Probs(n *Network, x int, r float64, reverse bool) []float64 {
	in := make([]float32, len(n.Inputs))
	in[rCol(n)] = float32(r)
	in[xCol(n, x)] = 1
	for _, ly := range n.Layers {
		out := make([]float32, len(ly.W))
		for j, row := range ly.W {
			z := float32(ly.B[j])
			for k := range row {
				i := k
				if reverse {
					i = len(row) - 1 - k
				}
				z += float32(row[i]) * in[i]
			}
			out[j] = z
			if ly.Act != Softmax {
				out[j] = float32(ly.Act.apply(float64(z)))
			}
		}
		if ly.Act == Softmax {
			mx := out[0]
			for _, v := range out {
				mx = max(mx, v)
			}
			var s float32
			for j, v := range out {
				out[j] = float32(math.Exp(float64(v - mx)))
				s += out[j]
			}
			for j := range out {
				out[j] /= s
			}
		}
		in = out
	}
	p := make([]float64, len(in))
	for i, v := range in {
		p[i] = float64(v)
	}
	return p
}

// ProbsBound covers what a float32 runtime releases, summing in either
// order; a float64 network's bound is tiny but not zero.
func TestProbsBoundCoversFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 100 {
		n := randomCategorical(rng, 2+rng.IntN(4), []int{1 + rng.IntN(30)}, 2+rng.IntN(6), 1+5*rng.Float64())
		n.Precision = Float32
		if err := n.roundFloat32(); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			x, r := rng.IntN(n.XValues()), 4*rng.NormFloat64()
			p, d, err := n.ProbsBound(float64(x), r, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, rev := range []bool{false, true} {
				q := float32Probs(n, x, r, rev)
				var l1 float64
				for f := range p {
					l1 += math.Abs(p[f] - q[f])
				}
				if l1 > d {
					t.Fatalf("trial %d at (%d, %g): ℓ1 %.3g > δ %.3g", trial, x, r, l1, d)
				}
			}
		}
	}
	n := randomCategorical(rng, 3, []int{5}, 3, 1)
	if _, d, _ := n.ProbsBound(1, 0.5, nil); !(d > 0 && d < 1e-13) {
		t.Errorf("float64 network: δ = %v, want in (0, 1e-13)", d)
	}
}

// A categorical network goes through the JSON layout and ONNX and comes back
// the same network, with the same law and bound; the ONNX file has x as wide
// as its one-hot code and a Softmax output.
func TestCategoricalCodecs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 30 {
		n := randomCategorical(rng, 2+rng.IntN(4), []int{1 + rng.IntN(5)}, 2+rng.IntN(4), 2)
		if trial%2 == 0 {
			n.Precision = Float32
			if err := n.roundFloat32(); err != nil {
				t.Fatal(err)
			}
		}
		var buf bytes.Buffer
		if err := n.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		fromJSON, err := ParseJSON(&buf, "n.json")
		if err != nil {
			t.Fatal(err)
		}
		fromONNX := roundTrip(t, n)
		for _, back := range []*Network{fromJSON, fromONNX} {
			if d := sameNetwork(n, back); d != "" {
				t.Fatalf("trial %d (%s): %s", trial, back.Name, d)
			}
			x, r := float64(rng.IntN(n.XValues())), rng.NormFloat64()
			p1, d1, _ := n.ProbsBound(x, r, nil)
			p2, d2, _ := back.ProbsBound(x, r, nil)
			if fmt.Sprint(p1) != fmt.Sprint(p2) || d1 != d2 {
				t.Fatalf("trial %d (%s): law %v δ %v, back %v δ %v", trial, back.Name, p1, d1, p2, d2)
			}
		}
	}
}

// Softmax over an axis other than the last, or on a chain whose rank the
// file does not declare, would normalize something else than mmds does.
func TestONNXSoftmaxAxis(t *testing.T) {
	n := randomCategorical(rand.New(rand.NewPCG(15, 16)), 3, []int{4}, 3, 1)
	mp, err := n.onnxModel()
	if err != nil {
		t.Fatal(err)
	}
	last := mp.Graph.Node[len(mp.Graph.Node)-1]
	last.Attribute[0].I = new(int64)
	b, err := proto.Marshal(mp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseONNX(b, "axis0.onnx"); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "axis 0") {
		t.Errorf("Softmax axis 0: %v, want ErrInput naming the axis", err)
	}
	mp, _ = n.onnxModel()
	mp.Graph.Input[0].Type.GetTensorType().Shape.Dim = append(mp.Graph.Input[0].Type.GetTensorType().Shape.Dim, mp.Graph.Input[0].Type.GetTensorType().Shape.Dim[1])
	b, _ = proto.Marshal(mp)
	if _, err := ParseONNX(b, "rank3.onnx"); !errors.Is(err, ErrInput) {
		t.Errorf("Softmax on a rank-3 input: %v, want ErrInput", err)
	}
}

// The scalar methods refuse a categorical network or a one-hot x instead of
// computing something else.
func TestCategoricalScalarMethodsRefuse(t *testing.T) {
	n := randomCategorical(rand.New(rand.NewPCG(17, 18)), 3, []int{4}, 3, 1)
	if _, err := n.Expect(context.Background(), 0, DefaultTol); !errors.Is(err, ErrInput) {
		t.Errorf("Expect: %v, want ErrInput", err)
	}
	if _, _, err := n.EvalBound(0, 0); !errors.Is(err, ErrInput) {
		t.Errorf("EvalBound: %v, want ErrInput", err)
	}
	if _, err := n.Faces(Box{0, 1, -1, 1}, 10); !errors.Is(err, ErrInput) {
		t.Errorf("Faces: %v, want ErrInput", err)
	}
	if _, err := n.Pieces(0); !errors.Is(err, ErrInput) {
		t.Errorf("Pieces: %v, want ErrInput", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Eval of a categorical network did not panic")
			}
		}()
		n.Eval(0, 0)
	}()
}

// ExpectRow's Rounding of a float32 network covers the runtime's law at
// sampled noise values.
func TestExpectRowRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	n := randomCategorical(rng, 3, []int{8}, 4, 3)
	n.Precision = Float32
	if err := n.roundFloat32(); err != nil {
		t.Fatal(err)
	}
	checkRowRounding(t, rng, n, DefaultTol, 1e-4, 200)
}

// checkRowRounding checks that each row of the float32 categorical network
// n (x = 0..XValues()−1) states a small positive Rounding (below most) that
// covers a float32 evaluation, in either summation order, at samples values
// of r ~ N(0, 9).
func checkRowRounding(t *testing.T, rng *rand.Rand, n *Network, tol, most float64, samples int) {
	t.Helper()
	for x := range n.XValues() {
		row, err := n.ExpectRow(context.Background(), float64(x), tol)
		if err != nil {
			t.Fatal(err)
		}
		if !(row.Rounding > 0 && row.Rounding < most) {
			t.Fatalf("x=%d: rounding %v, want a small positive bound", x, row.Rounding)
		}
		for range samples {
			r := 3 * rng.NormFloat64()
			p := n.Probs(float64(x), r, nil)
			q := float32Probs(n, x, r, rng.IntN(2) == 0)
			var l1 float64
			for f := range p {
				l1 += math.Abs(p[f] - q[f])
			}
			if l1 > row.Rounding {
				t.Fatalf("x=%d r=%g: runtime law %.3g from mmds's, above Rounding %.3g", x, r, l1, row.Rounding)
			}
		}
	}
}

func TestProbsAllocatesNothing(t *testing.T) {
	n := randomCategorical(rand.New(rand.NewPCG(21, 22)), 4, []int{16}, 4, 1)
	p := make([]float64, 4)
	if a := testing.AllocsPerRun(100, func() { n.Probs(2, 0.3, p) }); a != 0 {
		t.Errorf("Probs: %v allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(100, func() { _, _, _ = n.ProbsBound(2, 0.3, p) }); a != 0 {
		t.Errorf("ProbsBound: %v allocations, want 0", a)
	}
}

// A law so sharp that its row would take more than MaxSamples samples is an
// error wrapping ErrTooComplex (a certificate's "cannot certify"), returned
// in seconds, not hours: the cap is checked before the samples are drawn,
// so the work is bounded whatever the machine's speed.
func TestExpectRowSampleCap(t *testing.T) {
	// 100 ReLU units with kinks spread over [−15.5, 15.5]: about 130 panels,
	// each at its step cap at a tolerance no step can meet.
	h := Layer{Act: ReLU}
	out := Layer{W: [][]float64{make([]float64, 100), make([]float64, 100)}, B: []float64{0, 0}, Act: Softmax}
	for j := range 100 {
		h.W = append(h.W, []float64{0, 0, 1})
		h.B = append(h.B, 15.5-0.31*float64(j))
		out.W[0][j] = 1
	}
	n := &Network{Name: "sharp", Inputs: []string{"x=0", "x=1", "r"}, Precision: Float64, Layers: []Layer{h, out}}
	_, err := n.ExpectRow(context.Background(), 0, 1e-300)
	if !errors.Is(err, ErrTooComplex) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d samples", MaxSamples)) {
		t.Fatalf("%v, want ErrTooComplex naming the cap on the samples", err)
	}
}
