package network

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// The 2^24 network: relu(c·x + 2^24), then relu(h − 2^24), then
// sigmoid(64·(z − 1.5)), with c = 1 + 2⁻²³. In float32, c·1 + 2^24 rounds
// up to 2^24 + 2, so k = sigmoid(32) = 1 at x = 1 and sigmoid(−96) = 0 at
// x = 0: F = X. In exact arithmetic z = c·x < 1.5 and k ≈ 0 for both:
// a constant release.
const trickC = 1 + 0x1p-23

func trickONNX() []byte {
	return model([]*onnxpb.NodeProto{
		onode("Gemm", []string{"xr", "W1", "B1"}, "h1", &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1), Type: onnxpb.AttributeProto_INT.Enum()}),
		onode("Relu", []string{"h1"}, "a1"),
		onode("Gemm", []string{"a1", "W2", "B2"}, "h2", &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1), Type: onnxpb.AttributeProto_INT.Enum()}),
		onode("Relu", []string{"h2"}, "a2"),
		onode("Gemm", []string{"a2", "W3", "B3"}, "h3", &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1), Type: onnxpb.AttributeProto_INT.Enum()}),
		onode("Sigmoid", []string{"h3"}, "k"),
	}, []*onnxpb.TensorProto{
		f32Tensor("W1", []int64{1, 2}, float32(trickC), 0), f32Tensor("B1", []int64{1}, 1<<24),
		f32Tensor("W2", []int64{1, 1}, 1), f32Tensor("B2", []int64{1}, -(1 << 24)),
		f32Tensor("W3", []int64{1, 1}, 64), f32Tensor("B3", []int64{1}, -96),
	}, []string{"xr"}, "k")
}

func trickNetwork() *Network {
	return &Network{Name: "trick24", Inputs: []string{"x", "r"}, Layers: []Layer{
		{W: [][]float64{{trickC, 0}}, B: []float64{1 << 24}, Act: ReLU},
		{W: [][]float64{{1}}, B: []float64{-(1 << 24)}, Act: ReLU},
		{W: [][]float64{{64}}, B: []float64{-96}, Act: Sigmoid},
	}}
}

// The fixtures privatizer/testdata/trick24-binary.{onnx,json} are these
// bytes; MMDS_WRITE_FIXTURES=1 rewrites them.
func TestTrick24Fixtures(t *testing.T) {
	var js bytes.Buffer
	n := trickNetwork()
	if err := n.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	// The layout without "precision": float32, PyTorch's default.
	jb := bytes.Replace(js.Bytes(), []byte(`"precision":"float32",`), nil, 1)
	files := map[string][]byte{"trick24-binary.onnx": trickONNX(), "trick24-binary.json": jb}
	for name, want := range files {
		path := filepath.Join("..", "privatizer", "testdata", name)
		if os.Getenv("MMDS_WRITE_FIXTURES") != "" {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from what this test generates (MMDS_WRITE_FIXTURES=1 rewrites it): %v", name, err)
		}
	}
}

// float32Forward evaluates n as a float32 runtime may: weights and inputs
// as float32, each dot product summed in float32 in the given order
// (reverse: last term first), activations rounded to float32.
func float32Forward(n *Network, x, r float64, reverse bool) float64 {
	in := []float32{float32(x), float32(r)}
	if n.Inputs[0] == "r" {
		in[0], in[1] = in[1], in[0]
	}
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
			out[j] = float32(ly.Act.apply(float64(z)))
		}
		in = out
	}
	return float64(in[0])
}

func TestEvalBoundTrick(t *testing.T) {
	for _, n := range []*Network{trickNetwork(), mustONNX(t, trickONNX())} {
		if n.Precision != Float32 {
			t.Fatalf("%s: precision %v, want float32", n.Name, n.Precision)
		}
		for _, x := range []float64{0, 1} {
			k, d, err := n.EvalBound(x, 0.3)
			if err != nil {
				t.Fatal(err)
			}
			k32 := float32Forward(n, x, 0.3, false)
			if math.Abs(k32-x) > 1e-30 || k > 1e-10 {
				t.Errorf("%s: k(%v) = %v in float32, %v exact: want x and ≈ 0", n.Name, x, k32, k)
			}
			if math.Abs(k32-k) > d || d < 0.1 {
				t.Errorf("%s at x = %v: δ = %v does not cover |%v − %v|", n.Name, x, d, k32, k)
			}
		}
	}
}

func mustONNX(t *testing.T, b []byte) *Network {
	t.Helper()
	n, err := ParseONNX(b, "trick24.onnx")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// δ covers the difference between float32 evaluations in two summation
// orders and mmds's float64 evaluation, on random float32 networks of every
// activation, and is 0 for a float64 network.
func TestEvalBoundCoversFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	acts := []Activation{ReLU, Identity, Tanh, Sigmoid}
	for trial := range 200 {
		depth := 1 + rng.IntN(3)
		widths := make([]int, depth)
		for i := range widths {
			widths[i] = 1 + rng.IntN(40)
		}
		n := randomNet(rng, widths, acts[rng.IntN(4)], acts[rng.IntN(4)], 1+5*rng.Float64())
		n.Precision = Float32
		if err := n.roundFloat32(); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			x, r := 3*rng.NormFloat64(), 4*rng.NormFloat64()
			k, d, err := n.EvalBound(x, r)
			if err != nil {
				t.Fatal(err)
			}
			if k != n.Eval(x, r) {
				t.Fatalf("trial %d: EvalBound's value %v ≠ Eval %v", trial, k, n.Eval(x, r))
			}
			for _, rev := range []bool{false, true} {
				if k32 := float32Forward(n, x, r, rev); math.Abs(k32-k) > d {
					t.Fatalf("trial %d (%v) at (%g, %g): |%v − %v| = %.3g > δ = %.3g", trial, n, x, r, k32, k, math.Abs(k32-k), d)
				}
			}
		}
	}
	// A float64 runtime may sum in another order than mmds: δ > 0, tiny.
	n := randomNet(rng, []int{5}, ReLU, Identity, 1)
	if _, d, _ := n.EvalBound(0.5, 0.5); !(d > 0 && d < 1e-13) {
		t.Errorf("float64 network: δ = %v, want in (0, 1e-13)", d)
	}
	big := trickNetwork()
	big.Layers[0].B[0] = 1e39
	if _, _, err := big.EvalBound(1, 0); !errors.Is(err, ErrPrecision) {
		t.Errorf("a pre-activation beyond float32's range: %v, want ErrPrecision", err)
	}
}

// Expect reports the sup of δ over its evaluation points: large for the
// 2^24 network, small for an honest float32 fixture.
func TestExpectRounding(t *testing.T) {
	// The 2^24 network: refused by the walk's own bound, or a large δ.
	e, err := trickNetwork().Expect(t.Context(), 1, DefaultTol)
	switch {
	case errors.Is(err, ErrPrecision):
	case err != nil:
		t.Fatal(err)
	case e.Rounding < 0.1:
		t.Errorf("2^24 network: rounding %v, want ≥ 0.1", e.Rounding)
	}
	for _, f := range []string{"net-pass.onnx", "relu-sigmoid-binary.onnx", "tanh-binary.json"} {
		n := readNet(t, f)
		e, err := n.Expect(t.Context(), 1, DefaultTol)
		if err != nil {
			t.Fatal(err)
		}
		if n.Precision != Float32 || !(e.Rounding > 0 && e.Rounding < 1e-6) {
			t.Errorf("%s (%v): rounding %v, want in (0, 1e-6)", f, n.Precision, e.Rounding)
		}
	}
}
