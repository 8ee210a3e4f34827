package network

import (
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// What ParseONNX folds into W and b must not hide what the runtime
// computes: alpha = 0 (0·(A·B) is NaN where A·B overflows) is refused, and
// a bias split into β·C and an Add keeps its parts' magnitudes: C = 1.5e38
// and Add −1.5e38 fold to b = 0, but float32's 3e38·x + 1.5e38 is +Inf at
// x = 1 before the Add.
func TestONNXFoldsAsTheRuntime(t *testing.T) {
	tb := &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1), Type: onnxpb.AttributeProto_INT.Enum()}
	zero := &onnxpb.AttributeProto{Name: proto.String("alpha"), F: proto.Float32(0), Type: onnxpb.AttributeProto_FLOAT.Enum()}
	data := model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W", "C"}, "k", tb, zero)},
		[]*onnxpb.TensorProto{f32Tensor("W", []int64{1, 2}, 1, 0), f32Tensor("C", []int64{1}, 0.5)}, []string{"xr"}, "k")
	if _, err := ParseONNX(data, "alpha0.onnx"); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "alpha = 0") {
		t.Errorf("alpha = 0: %v, want a refusal", err)
	}

	data = model([]*onnxpb.NodeProto{
		onode("Gemm", []string{"xr", "W", "C"}, "z", tb),
		onode("Add", []string{"z", "V"}, "k"),
	}, []*onnxpb.TensorProto{
		f32Tensor("W", []int64{1, 2}, 3e38, 0), f32Tensor("C", []int64{1}, 1.5e38), f32Tensor("V", []int64{1}, -1.5e38),
	}, []string{"xr"}, "k")
	m, err := ParseONNX(data, "split-bias.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if m.Layers[0].B[0] != 0 {
		t.Fatalf("folded bias %v, want 0", m.Layers[0].B[0])
	}
	if _, _, err := m.EvalBound(1, 0); !errors.Is(err, ErrPrecision) {
		t.Errorf("3e38·x + 1.5e38 − 1.5e38 at x = 1: %v, want ErrPrecision (float32 overflows before the Add)", err)
	}
	if _, _, err := m.EvalBound(0, 0); err != nil {
		t.Errorf("x = 0 does not overflow: %v", err)
	}
}

// A network of double tensors is float64, and its δ is not 0: a float64
// runtime may sum in another order than mmds.
func TestONNXDoubleHasRounding(t *testing.T) {
	tb := &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1), Type: onnxpb.AttributeProto_INT.Enum()}
	data := model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W", "C"}, "k", tb)},
		[]*onnxpb.TensorProto{f64RawTensor("W", []int64{1, 2}, 0.3, 0.7), f64RawTensor("C", []int64{1}, 0.1)}, []string{"xr"}, "k")
	m, err := ParseONNX(data, "double.onnx")
	if err != nil {
		t.Fatal(err)
	}
	_, d, err := m.EvalBound(1, 2)
	if m.Precision != Float64 || err != nil || !(d > 0 && d < 1e-14) {
		t.Errorf("%v network: δ = %v, %v; want in (0, 1e-14)", m.Precision, d, err)
	}
}

// The cross-check refuses a walk whose value at a breakpoint or midpoint
// is further from the forward pass than both rounding bounds allow.
func TestCrossCheckRefusesDisagreement(t *testing.T) {
	m := &Network{Name: "id", Inputs: []string{"x", "r"}, Precision: Float64,
		Layers: []Layer{{W: [][]float64{{0.5, 1}}, B: []float64{0.25}, Act: Identity}}}
	honest := func(r float64) float64 { return m.Eval(1, r) }
	if _, err := m.crossCheck(1, -1, 1, 0, false, honest); err != nil {
		t.Errorf("the forward pass itself: %v", err)
	}
	off := func(r float64) float64 { return m.Eval(1, r) + 1e-9 }
	if _, err := m.crossCheck(1, -1, 1, 1e-12, false, off); !errors.Is(err, ErrPrecision) {
		t.Errorf("a walk 1e-9 off with a bound of 1e-12: %v, want ErrPrecision", err)
	}
}

// A unit whose pre-activation is far above its rounding bound has a known
// sign, however small: the walk keeps it (z = 2⁻⁴⁰ times 2⁴⁰ downstream
// turns the output off at x = 1), and a unit surely off adds nothing to
// the walk's own bound.
func TestWalkKeepsSmallCertainUnit(t *testing.T) {
	eps := math.Ldexp(1, -40)
	m := &Network{Name: "small", Inputs: []string{"x", "r"}, Precision: Float64,
		Layers: []Layer{
			{W: [][]float64{{0, 0}, {1 + eps, 0}}, B: []float64{1, -1}, Act: ReLU},
			{W: [][]float64{{0.25, -math.Ldexp(1, 40)}}, B: []float64{0}, Act: ReLU},
		}}
	for x, want := range []float64{0.25, 0} {
		e, err := m.Expect(t.Context(), float64(x), DefaultTol)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e.Mean-want) > 1e-12 || e.Walk > 1e-12 {
			t.Errorf("x = %d: E = %v (walk bound %g), want %v", x, e.Mean, e.Walk, want)
		}
	}
}
