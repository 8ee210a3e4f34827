package network

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// randomNet returns a network (x, r) → widths… → 1 with the given hidden
// activation and output activation, weights N(0, 1/fan-in)·scale.
func randomNet(rng *rand.Rand, widths []int, hidden, out Activation, scale float64) *Network {
	m := &Network{Name: "random", Inputs: []string{"x", "r"}, Precision: Float64}
	if rng.IntN(2) == 0 {
		m.Inputs = []string{"r", "x"}
	}
	in := 2
	for l, w := range append(slices.Clone(widths), 1) {
		ly := Layer{W: make([][]float64, w), B: make([]float64, w), Act: hidden}
		if l == len(widths) {
			ly.Act = out
		}
		for j := range ly.W {
			ly.W[j] = make([]float64, in)
			for i := range ly.W[j] {
				ly.W[j][i] = scale * rng.NormFloat64() / math.Sqrt(float64(in))
			}
			ly.B[j] = scale * 0.5 * rng.NormFloat64()
		}
		m.Layers = append(m.Layers, ly)
		in = w
	}
	if err := m.Validate(); err != nil {
		panic(err)
	}
	return m
}

// quadExpect is E[f(R)] by composite Gauss–Legendre quadrature with the
// given nodes per panel, panels ending at the points brk and at most width
// wide, over [−12, 12] (P(|R| > 12) ≈ 3.6e-33). It knows nothing of the
// activation-region walk.
func quadExpect(f func(r float64) float64, brk []float64, width float64, nodes int) float64 {
	pts := []float64{-12, 12}
	for _, b := range brk {
		if b > -12 && b < 12 {
			pts = append(pts, b)
		}
	}
	slices.Sort(pts)
	x, w := make([]float64, nodes), make([]float64, nodes)
	quad.Legendre{}.FixedLocations(x, w, -1, 1)
	n := distuv.UnitNormal
	var sum float64
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		np := max(1, int(math.Ceil((b-a)/width)))
		h := (b - a) / float64(np)
		for p := range np {
			lo := a + float64(p)*h
			for j := range x {
				r := lo + 0.5*h*(x[j]+1)
				sum += 0.5 * h * w[j] * f(r) * n.Prob(r)
			}
		}
	}
	return sum
}

func TestPiecesMatchEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 40 {
		depth := 1 + rng.IntN(4)
		widths := make([]int, depth)
		for i := range widths {
			widths[i] = 1 + rng.IntN(12)
		}
		m := randomNet(rng, widths, ReLU, Identity, 1+3*rng.Float64())
		x := 2 * rng.NormFloat64()
		ps, err := m.Pieces(x)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsInf(ps[0].A, -1) || !math.IsInf(ps[len(ps)-1].B, 1) {
			t.Fatalf("trial %d: pieces do not cover the line: %v … %v", trial, ps[0], ps[len(ps)-1])
		}
		for i, p := range ps {
			if i > 0 && p.A != ps[i-1].B || !(p.A < p.B) {
				t.Fatalf("trial %d: pieces %v, %v not contiguous and increasing", trial, ps[i-1], p)
			}
			lo, hi := max(p.A, -RWalk), min(p.B, RWalk)
			for range 5 {
				r := lo + (hi-lo)*rng.Float64()
				if got, want := p.Alpha+p.Beta*r, m.Eval(x, r); !near(got, want, 1e-9) {
					t.Fatalf("trial %d (%v): piece %d %+v at r = %g gives %v, Eval %v", trial, m, i, p, r, got, want)
				}
			}
		}
		// Every inner breakpoint is a real change of slope of k(x, ·) or a
		// unit switching with no effect on the output (slopes equal).
		kinks := m.Kinks(x, nil)
		slices.Sort(kinks)
		if kinks = slices.Compact(kinks); len(kinks) != len(ps)-1 {
			t.Fatalf("trial %d: %d kinks for %d pieces", trial, len(kinks), len(ps))
		}
	}
}

// A clamped linear privatizer k = clip(μ + σR, 0, 1): E = g(μ) − g(μ − 1)
// with g(m) = E[(m + σR)⁺] = mΦ(m/σ) + σφ(m/σ).
func TestExpectClampClosedForm(t *testing.T) {
	ctx := t.Context()
	m := readNet(t, "clamp-binary.json")
	wx, wr, b := m.Layers[0].W[0][0], m.Layers[0].W[0][1], m.Layers[0].B[0]
	n := distuv.UnitNormal
	g := func(mu, s float64) float64 { return mu*n.CDF(mu/s) + s*n.Prob(mu/s) }
	for _, x := range []float64{0, 1, -2, 3.5} {
		e, err := m.Expect(ctx, x, DefaultTol)
		if err != nil {
			t.Fatal(err)
		}
		mu, s := b+wx*x, math.Abs(wr)
		want := g(mu, s) - g(mu-1, s)
		// Bound is the walk's float64 rounding bound (the tail is 1e-56).
		if !e.Exact || math.Abs(e.Mean-want) > 1e-14 || e.Bound > 1e-12 {
			t.Errorf("x = %g: %+v, closed form %v", x, e, want)
		}
	}
}

func TestExpectPiecewiseLinearMatchesQuadrature(t *testing.T) {
	ctx := t.Context()
	nets := []*Network{readNet(t, "relu2-binary.json"), readNet(t, "relu2-gauss.json"), readNet(t, "relu2-gauss.onnx")}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 4 {
		nets = append(nets, randomNet(rng, []int{1 + rng.IntN(10), 1 + rng.IntN(10), 1 + rng.IntN(10)}, ReLU, Identity, 2))
	}
	for _, m := range nets {
		for _, x := range []float64{0, 1} {
			e, err := m.Expect(ctx, x, DefaultTol)
			if err != nil {
				t.Fatal(err)
			}
			// The kinks are unknown to the reference: 1e-3-wide panels,
			// error ≲ h²·|slope jump|·φ per kink, ≈ 1e-9 here (measured
			// differences 5e-13 … 8e-10 at 2.4e-4).
			ref := quadExpect(func(r float64) float64 { return m.Eval(x, r) }, nil, 1e-3, 4)
			if !e.Exact || math.Abs(e.Mean-ref) > 1e-7*max(1, math.Abs(ref)) {
				t.Errorf("%s x = %g: %+v, quadrature %v (diff %.2g)", m.Name, x, e, ref, e.Mean-ref)
			}
		}
	}
}

// Networks with sigmoid or tanh layers: the sampled expectation is within
// its stated bound of a reference accurate to ~1e-15 (Gauss–Legendre, 24
// nodes on panels of width 1/4 ending at the kinks of the ReLU layer,
// computed here from the first layer's weights), and the bound meets the
// tolerance asked.
func TestExpectSampledWithinBound(t *testing.T) {
	ctx := t.Context()
	type tc struct {
		m     *Network
		kinks func(x float64) []float64
	}
	oneLayerKinks := func(m *Network) func(float64) []float64 {
		return func(x float64) []float64 {
			if m.Layers[0].Act != ReLU {
				return nil
			}
			xi := slices.Index(m.Inputs, "x")
			var k []float64
			for j, row := range m.Layers[0].W {
				if row[1-xi] != 0 {
					k = append(k, -(m.Layers[0].B[j]+row[xi]*x)/row[1-xi])
				}
			}
			return k
		}
	}
	var cases []tc
	for _, f := range []string{"tanh-binary.json", "relu-sigmoid-binary.json", "relu-sigmoid-binary.onnx"} {
		m := readNet(t, f)
		cases = append(cases, tc{m, oneLayerKinks(m)})
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 4 {
		m := randomNet(rng, []int{1 + rng.IntN(8), 1 + rng.IntN(8)}, Tanh, Sigmoid, 2)
		cases = append(cases, tc{m, oneLayerKinks(m)})
		m = randomNet(rng, []int{1 + rng.IntN(8)}, ReLU, Sigmoid, 3)
		cases = append(cases, tc{m, oneLayerKinks(m)})
	}
	for _, c := range cases {
		for _, x := range []float64{0, 1} {
			ref := quadExpect(func(r float64) float64 { return c.m.Eval(x, r) }, c.kinks(x), 0.25, 24)
			for _, tol := range []float64{1e-3, 1e-5, DefaultTol} {
				e, err := c.m.Expect(ctx, x, tol)
				if err != nil {
					t.Fatal(err)
				}
				if e.Exact || e.Samples == 0 {
					t.Errorf("%s: %+v claims exactness", c.m.Name, e)
				}
				if d := math.Abs(e.Mean - ref); d > e.Bound+1e-14 {
					t.Errorf("%s (%v) x = %g tol %g: error %.3g above the bound %.3g", c.m.Name, c.m, x, tol, d, e.Bound)
				}
				if e.Bound > tol*(1+1e-9) {
					t.Errorf("%s x = %g: bound %.3g above the tolerance %g (%d samples)", c.m.Name, x, e.Bound, tol, e.Samples)
				}
			}
		}
	}
}

// The bound is not vacuous: at a coarse tolerance the sampled expectation
// is visibly off, and still within the bound.
func TestExpectBoundIsExercised(t *testing.T) {
	ctx := t.Context()
	m := readNet(t, "tanh-binary.json")
	ref := quadExpect(func(r float64) float64 { return m.Eval(0, r) }, nil, 0.25, 24)
	e, err := m.Expect(ctx, 0, 1e-2)
	if err != nil {
		t.Fatal(err)
	}
	d := math.Abs(e.Mean - ref)
	if d < 1e-9 || d > e.Bound {
		t.Errorf("error %.3g, bound %.3g: want a real error within the bound", d, e.Bound)
	}
}

func TestExpectRejects(t *testing.T) {
	ctx := t.Context()
	m := readNet(t, "tanh-binary.json")
	m.Layers[len(m.Layers)-1].Act = ReLU
	if _, err := m.Expect(ctx, 0, DefaultTol); err == nil || !strings.Contains(err.Error(), "relu after the tanh") {
		t.Errorf("relu after tanh: %v", err)
	}
	g := readNet(t, "relu2-gauss.json")
	if _, err := g.Pieces(0); err != nil {
		t.Error(err)
	}
	if _, err := m.Pieces(0); err == nil {
		t.Error("Pieces of a tanh network: no error")
	}
}

func TestForwardAllocatesNothing(t *testing.T) {
	m := readNet(t, "relu2-gauss.json")
	a, b := make([]float64, m.Width()), make([]float64, m.Width())
	if n := testing.AllocsPerRun(100, func() { m.Forward(0.3, -0.2, a, b) }); n != 0 {
		t.Errorf("Forward allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { m.Eval(0.3, -0.2) }); n != 0 {
		t.Errorf("Eval allocates %v times", n)
	}
}

func BenchmarkExpectPiecewiseLinear(b *testing.B) {
	ctx := b.Context()
	m := readNet(b, "relu2-binary.json")
	for b.Loop() {
		if _, err := m.Expect(ctx, 1, DefaultTol); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExpectSampled(b *testing.B) {
	ctx := b.Context()
	m := readNet(b, "tanh-binary.json")
	var e Expectation
	for b.Loop() {
		var err error
		if e, err = m.Expect(ctx, 1, DefaultTol); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(e.Samples), "samples")
}

func BenchmarkExpectDeepWide(b *testing.B) {
	ctx := b.Context()
	m := randomNet(rand.New(rand.NewPCG(1, 1)), []int{64, 64, 64}, ReLU, Sigmoid, 1)
	e, err := m.Expect(ctx, 1, DefaultTol)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Expect(ctx, 1, DefaultTol); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(e.Pieces), "pieces")
	b.ReportMetric(float64(e.Samples), "samples")
}

// Expect and ExpectRow stop with their context's error, soon after it is
// done: cancelled before the call, or with a deadline inside a region.
func TestExpectCancelled(t *testing.T) {
	// A softmax so sharp that every panel takes maxPerPanel steps: ExpectRow
	// must return soon after ctx is done, not after the region.
	sharp := Layer{W: make([][]float64, 128), B: make([]float64, 128), Act: Softmax}
	for f := range sharp.W {
		sharp.W[f] = []float64{0, 1e4 * float64(f%7)}
	}
	sharpNet := &Network{Name: "sharp", Inputs: []string{"x", "r"}, Precision: Float64, Layers: []Layer{sharp}}
	for _, c := range []struct {
		name    string
		n       *Network
		timeout time.Duration // 0: cancelled before the call
		want    error
	}{
		{"relu2-binary.json", readNet(t, "relu2-binary.json"), 0, context.Canceled},
		{"tanh-binary.json", readNet(t, "tanh-binary.json"), 0, context.Canceled},
		{"a sharp softmax's row", sharpNet, 20 * time.Millisecond, context.DeadlineExceeded},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		if c.timeout == 0 {
			cancel()
		} else {
			var stop context.CancelFunc
			ctx, stop = context.WithTimeout(ctx, c.timeout)
			defer stop()
		}
		start := time.Now()
		var err error
		if c.n.Categorical() {
			_, err = c.n.ExpectRow(ctx, 0, DefaultTol)
		} else {
			_, err = c.n.Expect(ctx, 0, DefaultTol)
		}
		// Generous: a region that ignored ctx would take minutes.
		if el := time.Since(start); !errors.Is(err, c.want) || el > 30*time.Second {
			t.Errorf("%s after %v: %v, want %v within 30 s", c.name, el, err, c.want)
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b)) }
