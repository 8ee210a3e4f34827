package network

import (
	"errors"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// A Gemm with a tiny alpha: mmds folds alpha into the weights (W = αB ≈
// −0.23, harmless), but ONNX computes Y = α·(A·B) + βC, and a float32 runtime
// overflows A·B = −2e38·x − 2e38·x to −Inf at x = 1 before scaling it. So
// k = relu(α·(A·B) + 1) is 1 − 0.463x for mmds (net-pass: PASS at D = 0.15
// on the paper's binary model, δ ≈ 1e-7) and 1 − x, F = 1 − X, for the
// runtime — no "beyond float32's range" refusal.
func TestRedTeam2GemmAlphaHidesOverflow(t *testing.T) {
	alpha := float32(0.463 / 4e38)
	tb := &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1), Type: onnxpb.AttributeProto_INT.Enum()}
	al := &onnxpb.AttributeProto{Name: proto.String("alpha"), F: proto.Float32(alpha), Type: onnxpb.AttributeProto_FLOAT.Enum()}
	data := model([]*onnxpb.NodeProto{
		onode("Gemm", []string{"xr", "W1", "C1"}, "z1", tb),
		onode("Relu", []string{"z1"}, "u"),
		onode("Gemm", []string{"u", "W2", "C2"}, "z2", tb, al),
		onode("Relu", []string{"z2"}, "k"),
	}, []*onnxpb.TensorProto{
		f32Tensor("W1", []int64{2, 2}, 1, 0, 1, 0), f32Tensor("C1", []int64{2}, 0, 0),
		f32Tensor("W2", []int64{1, 2}, -2e38, -2e38), f32Tensor("C2", []int64{1}, 1),
	}, []string{"xr"}, "k")
	m, err := ParseONNX(data, "alpha.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if m.Precision != Float32 {
		t.Fatalf("precision %v", m.Precision)
	}
	// ONNX's Gemm in float32: A·B accumulated, then times alpha, plus C.
	runtime := func(x float32) float32 {
		u := max(x, 0)
		var ab float32 = -2e38 * u
		ab += -2e38 * u
		return max(alpha*ab+1, 0)
	}
	for x := range 2 {
		k, delta, err := m.EvalBound(float64(x), 0)
		if err != nil {
			t.Logf("x = %d: refused: %v", x, err)
			continue
		}
		if rt := float64(runtime(float32(x))); !(math.Abs(k-rt) <= delta) {
			t.Errorf("x = %d: mmds k = %v with δ = %.3g, but ONNX's float32 Gemm gives %v", x, k, delta, rt)
		}
	}
	e, err := m.Expect(t.Context(), 1, DefaultTol)
	if errors.Is(err, ErrPrecision) {
		return // cannot certify: never a pass
	}
	if err != nil {
		t.Fatal(err)
	}
	if e.Mean > 0.01 {
		t.Errorf("E_R[k(1, R)] = %v ± %g (rounding %g): the runtime's is 0", e.Mean, e.Bound, e.Rounding)
	}
}
