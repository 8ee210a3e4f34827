package learn

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/network"
)

// fdLoss is L = Σ_r c_r · y_r, whose dL/dy is c.
func fdLoss(m *MLP, in []float64, n int, c []float64) float64 {
	h := make([]float64, n*m.Hidden)
	out := make([]float64, n)
	m.Forward(in, n, h, out)
	var s float64
	for r := range n {
		s += c[r] * out[r]
	}
	return s
}

// checkClose fails unless got and want agree to within tol relative to
// max(1, scale).
func checkClose(t *testing.T, what string, got, want, scale, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*max(1, scale) {
		t.Errorf("%s: analytic %.10g, finite difference %.10g", what, got, want)
	}
}

func maxAbs(s []float64) float64 {
	var m float64
	for _, v := range s {
		m = max(m, math.Abs(v))
	}
	return m
}

// TestMLPGradients checks Backward's parameter and input gradients, and
// InputGradCol, against central finite differences, for both output
// activations and for the fused two-input and general paths.
func TestMLPGradients(t *testing.T) {
	// n = 21: two blocks of eight rows for the vector kernels, five after.
	for _, tc := range []struct{ in, n int }{{1, 5}, {2, 5}, {3, 5}, {1, 21}, {2, 21}, {3, 21}} {
		in, n := tc.in, tc.n
		for _, act := range []network.Activation{network.Identity, network.Sigmoid} {
			t.Run(fmt.Sprintf("in=%d/n=%d/%v", in, n, act), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(in), uint64(act)))
				m := NewMLP(in, 7, act, rng)
				x := make([]float64, n*in)
				c := make([]float64, n)
				for k := range x {
					x[k] = 2 * rng.NormFloat64()
				}
				for k := range c {
					c[k] = rng.NormFloat64()
				}
				h, out := make([]float64, n*m.Hidden), make([]float64, n)
				m.Forward(x, n, h, out)
				grad, dIn := make([]float64, len(m.Params)), make([]float64, n*in)
				m.Backward(x, h, out, c, n, grad, dIn)

				const eps = 1e-6
				gs := maxAbs(grad)
				for k := range m.Params {
					p0 := m.Params[k]
					m.Params[k] = p0 + eps
					lp := fdLoss(m, x, n, c)
					m.Params[k] = p0 - eps
					lm := fdLoss(m, x, n, c)
					m.Params[k] = p0
					checkClose(t, fmt.Sprintf("dL/dparam[%d]", k), grad[k], (lp-lm)/(2*eps), gs, 1e-6)
				}
				is := maxAbs(dIn)
				for k := range x {
					x0 := x[k]
					x[k] = x0 + eps
					lp := fdLoss(m, x, n, c)
					x[k] = x0 - eps
					lm := fdLoss(m, x, n, c)
					x[k] = x0
					checkClose(t, fmt.Sprintf("dL/din[%d]", k), dIn[k], (lp-lm)/(2*eps), is, 1e-6)
				}
				for col := range in {
					d := make([]float64, n)
					m.InputGradCol(col, h, out, c, n, make([]float64, m.Hidden), d)
					for r := range n {
						checkClose(t, fmt.Sprintf("InputGradCol(%d)[%d]", col, r), d[r], dIn[col*n+r], is, 0)
					}
				}
			})
		}
	}
}

func TestMLPInitBounds(t *testing.T) {
	m := NewMLP(2, 50, network.Identity, rand.New(rand.NewPCG(1, 2)))
	w1, b1, w2, b2 := m.Layers()
	check := func(name string, s []float64, fanIn int) {
		bound := 1 / math.Sqrt(float64(fanIn))
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range s {
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo < -bound || hi > bound {
			t.Errorf("%s: range [%g, %g] exceeds ±1/√%d = %g", name, lo, hi, fanIn, bound)
		}
		if len(s) >= 50 && (hi-lo) < bound {
			t.Errorf("%s: range [%g, %g] too narrow for U(±%g)", name, lo, hi, bound)
		}
	}
	check("W1", w1, 2)
	check("B1", b1, 2)
	check("W2", w2, 50)
	check("B2", []float64{b2}, 50)
}

// TestMLPForwardByHand checks Forward on a network small enough to evaluate
// by hand.
func TestMLPForwardByHand(t *testing.T) {
	m := &MLP{In: 2, Hidden: 2, Out: network.Identity, Params: []float64{
		1, -1, // W1 row for input 0: to hidden 0, hidden 1
		2, 0.5, // input 1
		0.5, 0.25, // B1
		3, -2, // W2
		0.125, // B2
	}}
	// x = (1, 2): hidden pre = (1·1 + 2·2 + 0.5, −1·1 + 0.5·2 + 0.25) = (5.5, 0.25)
	// out = 3·5.5 − 2·0.25 + 0.125 = 16.125
	// x = (1, −3): pre = (1 − 6 + 0.5, −1 − 1.5 + 0.25) = (−4.5, −2.25) → relu 0 → out = 0.125
	in := []float64{1, 1, 2, -3} // feature-major: input 0 of both rows, then input 1
	h, out := make([]float64, 4), make([]float64, 2)
	m.Forward(in, 2, h, out)
	if out[0] != 16.125 || out[1] != 0.125 {
		t.Errorf("Forward = %v, want [16.125 0.125]", out)
	}
	m.Out = network.Sigmoid
	m.Forward(in, 2, h, out)
	if want := 1 / (1 + math.Exp(-16.125)); math.Abs(out[0]-want) > 1e-15 {
		t.Errorf("sigmoid output %g, want %g", out[0], want)
	}
}

func TestNetworkJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := NewMLP(3, 6, network.Sigmoid, rng)
	b, err := json.Marshal(m.Network("reconstructor", []string{"f", "y1", "y2"}))
	if err != nil {
		t.Fatal(err)
	}
	var n network.Network
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	if len(n.Layers) != 2 || len(n.Layers[0].W) != 6 || len(n.Layers[0].W[0]) != 3 {
		t.Fatalf("layer shapes: %+v", n.Layers)
	}
	// PyTorch layout: W[j][i] is W1 from input i to hidden j.
	w1, _, _, _ := m.Layers()
	if n.Layers[0].W[4][2] != w1[2*6+4] {
		t.Errorf("weights[4][2] = %g, want W1[2][4] = %g", n.Layers[0].W[4][2], w1[2*6+4])
	}
	m2, err := MLPOf(&n)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, -1.2, 2}
	if a, b := m.Predict(x), m2.Predict(x); a != b {
		t.Errorf("round trip changed the output: %g vs %g", a, b)
	}
	n.Layers[1].Act = network.Tanh
	if _, err := MLPOf(&n); err == nil {
		t.Error("unknown activation accepted")
	}
}

// TestSigmoidRows: the vector sigmoid of a forward pass is sigmoid, bit
// for bit, on values of every size and sign.
func TestSigmoidRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	z := make([]float64, 1003)
	for i := range z {
		z[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(6)-2))
	}
	z[5], z[6], z[7] = math.Copysign(0, -1), 800, -800
	got := append([]float64(nil), z...)
	sigmoidRows(got)
	for i, v := range z {
		if math.Float64bits(got[i]) != math.Float64bits(sigmoid(v)) {
			t.Fatalf("sigmoid(%v): rows %v, scalar %v", v, got[i], sigmoid(v))
		}
	}
}

// sigmoid is the logistic function in the two-branch form that never
// overflows: the scalar oracle of sigmoidRows.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}
