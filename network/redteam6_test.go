package network

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
)

// rowQuad is E_R[softmax(z(x, R))] by quadExpect, label by label, with
// panels ending at brk.
func rowQuad(n *Network, x float64, brk []float64, width float64) []float64 {
	out := make([]float64, n.Outputs())
	for f := range out {
		out[f] = quadExpect(func(r float64) float64 { return n.Probs(x, r, nil)[f] }, brk, width, 30)
	}
	return out
}

// An activation region a few ulps wide: the quadratic's c2 is the samples'
// rounding over s², and the moments M1, M2 on such a step are all
// cancellation. The row must stay within its stated bound (it was 1e-3
// off with a bound of 1.6e-9), and the bound near the tolerance.
func TestRedTeam6TinyRegion(t *testing.T) {
	for _, c := range []struct{ r0, w, k float64 }{{1, 1e-13, 5}, {1, 1e-14, 5}, {1, 4e-16, 5}, {-2.5, 1e-14, 40}, {0.999, 1e-15, 5}} {
		n := &Network{Name: "tiny", Inputs: []string{"x", "r"}, Precision: Float64, Layers: []Layer{
			{W: [][]float64{{0, 1}, {0, 1}}, B: []float64{-c.r0, -(c.r0 + c.w)}, Act: ReLU},
			{W: [][]float64{{0, 0}, {c.k, -c.k}, {-c.k, 3 * c.k}}, B: []float64{0, 0, 0.3}, Act: Softmax},
		}}
		row, err := n.ExpectRow(context.Background(), 0, DefaultTol)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		ref := rowQuad(n, 0, []float64{c.r0, c.r0 + c.w}, 0.01)
		var l1 float64
		for f := range ref {
			l1 += math.Abs(row.P[f] - ref[f])
		}
		if l1 > row.Bound+1e-13 || row.Bound > 2*DefaultTol {
			t.Errorf("%+v: ℓ1 error %.3g, stated bound %.3g (want error ≤ bound ≤ 2·tol)", c, l1, row.Bound)
		}
	}
}

// A softmax so sharp that every panel takes maxPerPanel steps: ExpectRow
// returns soon after ctx is done, not after the region.
func TestRedTeam6CancelInsideRegion(t *testing.T) {
	const m = 128
	ly := Layer{W: make([][]float64, m), B: make([]float64, m), Act: Softmax}
	for f := range ly.W {
		ly.W[f] = []float64{0, 1e4 * float64(f%7)}
	}
	n := &Network{Name: "sharp", Inputs: []string{"x", "r"}, Precision: Float64, Layers: []Layer{ly}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := n.ExpectRow(ctx, 0, DefaultTol)
	if el := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || el > 5*time.Second {
		t.Errorf("ExpectRow after %v: %v, want context.DeadlineExceeded within 5s", el, err)
	}
}

// Gemm's C broadcasts to [batch, out]: a C of shape [out, 1] adds C_i to
// every unit of batch row i at a batch of out rows (and fails at any other
// batch), not C_j to unit j. ParseONNX read it as the bias.
func TestRedTeam6GemmColumnBias(t *testing.T) {
	n := randomCategorical(rand.New(rand.NewPCG(61, 62)), 3, []int{3}, 3, 1)
	mp, err := n.onnxModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, init := range mp.Graph.Initializer {
		if init.GetName() == "layer0.bias" {
			init.Dims = []int64{3, 1}
		}
	}
	b, err := proto.Marshal(mp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseONNX(b, "column-bias.onnx"); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "bias C of shape [3 1]") {
		t.Errorf("Gemm with C of shape [3, 1]: %v, want ErrInput naming the shape", err)
	}
}
