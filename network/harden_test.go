package network

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// hostile returns ONNX graphs that violate the spec or the cost caps.
func hostile() map[string]struct {
	data []byte
	want string
} {
	w := f32Tensor("W", []int64{1, 2}, 1, 2)
	b := f32Tensor("B", []int64{1}, 0)
	tb := &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1), Type: onnxpb.AttributeProto_INT.Enum()}
	gemm := onode("Gemm", []string{"xr", "W", "B"}, "k", tb)
	// Gemm 2 → 16384, then 300 Relu nodes: each would need a 16384² identity
	// layer (19 GB in all).
	wide := f32Tensor("WB", []int64{16384, 2}, make([]float32, 2*16384)...)
	nodes := []*onnxpb.NodeProto{onode("Gemm", []string{"xr", "WB"}, "h0", tb)}
	for i := range 300 {
		nodes = append(nodes, onode("Relu", []string{fmt.Sprintf("h%d", i)}, fmt.Sprintf("h%d", i+1)))
	}
	cw := &onnxpb.AttributeProto{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: f32Tensor("", []int64{1, 2}, 5, 5)}
	badType := &onnxpb.AttributeProto{Name: proto.String("transB"), F: proto.Float32(1), Type: onnxpb.AttributeProto_FLOAT.Enum()}
	return map[string]struct {
		data []byte
		want string
	}{
		"gemm-a-only.onnx":    {model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", ""}, "k", tb)}, nil, []string{"xr"}, "k"), "input B \"\" is not a constant weight"},
		"gemm-one-input.onnx": {model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr"}, "k", tb)}, nil, []string{"xr"}, "k"), "want inputs A"},
		"wide-relus.onnx":     {model(nodes, []*onnxpb.TensorProto{wide}, []string{"xr"}, "h300"), "too large to certify"},
		"const-redefines.onnx": {model([]*onnxpb.NodeProto{onode("Constant", nil, "W", cw), gemm},
			[]*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), `"W" is defined twice`},
		"node-redefines.onnx": {model([]*onnxpb.NodeProto{onode("Relu", []string{"xr"}, "a"), onode("Relu", []string{"a"}, "a"), gemm},
			[]*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), `"a" is defined twice`},
		"input-redefined.onnx": {model([]*onnxpb.NodeProto{onode("Relu", []string{"xr"}, "xr")}, nil, []string{"xr"}, "xr"), `"xr" is defined twice`},
		"dangling.onnx":        {model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W", "nowhere"}, "k", tb)}, []*onnxpb.TensorProto{w}, []string{"xr"}, "k"), "which no graph input"},
		"attr-type.onnx":       {model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W", "B"}, "k", badType)}, []*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), `attribute "transB" has type FLOAT`},
		"attr-unknown.onnx": {model([]*onnxpb.NodeProto{onode("Relu", []string{"xr"}, "k", &onnxpb.AttributeProto{Name: proto.String("alpha"), F: proto.Float32(0.1)})},
			nil, []string{"xr"}, "k"), `attribute "alpha" is not supported`},
		"huge-dims.onnx": {model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{{Name: proto.String("W"), Dims: []int64{16384, 16384},
			DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), RawData: []byte{0, 0, 0, 0}}, b}, []string{"xr"}, "k"), "entries: at most"},
	}
}

// Hostile graphs are refused with an ErrInput naming the file and the
// problem, quickly and without a panic.
func TestONNXHostile(t *testing.T) {
	for name, tc := range hostile() {
		start := time.Now()
		_, err := ParseONNX(tc.data, name)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v; want an ErrInput naming the file and containing %q", name, err, tc.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: refused after %v", name, d)
		}
	}
}

// The hostile graphs seed FuzzParseONNX's corpus (testdata/fuzz);
// MMDS_WRITE_FIXTURES=1 rewrites the files.
func TestONNXHostileCorpus(t *testing.T) {
	if os.Getenv("MMDS_WRITE_FIXTURES") == "" {
		t.Skip("MMDS_WRITE_FIXTURES not set")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParseONNX")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, tc := range hostile() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", tc.data)
		if err := os.WriteFile(filepath.Join(dir, strings.TrimSuffix(name, ".onnx")), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// results.json's layout is read into a Network honouring its input order.
func TestParseRecord(t *testing.T) {
	rec := `{"role":"privatizer","inputs":["r","x"],"layers":[
		{"in":2,"out":1,"activation":"relu","weights":[[0,2]],"bias":[0.5]},
		{"in":1,"out":1,"activation":"identity","weights":[[3]],"bias":[1]}]}`
	n, err := ParseRecord([]byte(rec), "rec")
	if err != nil {
		t.Fatal(err)
	}
	if n.Precision != Float64 || n.Eval(1, 7) != 3*(2*1+0.5)+1 {
		t.Errorf("k(1, 7) = %v with precision %v: want 8.5 (only x read), float64", n.Eval(1, 7), n.Precision)
	}
	for _, bad := range []string{
		strings.Replace(rec, "[[0,2]]", "[[0,null]]", 1),
		strings.Replace(rec, `"in":2`, `"in":3`, 1),
		strings.Replace(rec, `"relu"`, `"gelu"`, 1),
	} {
		if _, err := ParseRecord([]byte(bad), "rec"); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", bad, err)
		}
	}
}
