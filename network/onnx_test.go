package network

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// Hand-built ONNX graphs (the generated protobuf types) for the paths the
// PyTorch fixtures do not take.

func f32Tensor(name string, dims []int64, v ...float32) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), FloatData: v}
}

func f64RawTensor(name string, dims []int64, v ...float64) *onnxpb.TensorProto {
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(x))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_DOUBLE)), RawData: raw}
}

func onode(op string, in []string, out string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(op), Input: in, Output: []string{out}, Name: proto.String(out), Attribute: attrs}
}

func valueInfo(name string) *onnxpb.ValueInfoProto {
	return &onnxpb.ValueInfoProto{Name: proto.String(name)}
}

func model(nodes []*onnxpb.NodeProto, inits []*onnxpb.TensorProto, in []string, out string) []byte {
	g := &onnxpb.GraphProto{Name: proto.String("g"), Node: nodes, Initializer: inits}
	for _, n := range in {
		g.Input = append(g.Input, valueInfo(n))
	}
	g.Output = []*onnxpb.ValueInfoProto{valueInfo(out)}
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}}}
	data, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return data
}

// relu(relu(xr)) → MatMul by a Constant node → Add a double bias → Tanh →
// MatMul → Add: activations before any linear map, repeated activations,
// constants from Constant nodes and raw double data. The same graph with
// float weights and a double bias mixes types, which a runtime refuses:
// so does ParseONNX.
func TestONNXActivationsAndConstants(t *testing.T) {
	w1 := &onnxpb.AttributeProto{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(),
		T: f64RawTensor("", []int64{2, 3}, 1, -2, 0.5, 3, 1, -1)}
	mixed := hand(&onnxpb.AttributeProto{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(),
		T: f32Tensor("", []int64{2, 3}, 1, -2, 0.5, 3, 1, -1)}, f32Tensor("W2", []int64{3, 1}, 0.5, -1, 2), f32Tensor("B2", []int64{1}, 0.25))
	if _, err := ParseONNX(mixed, "mixed.onnx"); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "mixes float and double") {
		t.Errorf("float weights with a double bias: %v, want a refusal", err)
	}
	data := hand(w1, f64RawTensor("W2", []int64{3, 1}, 0.5, -1, 2), f64RawTensor("B2", []int64{1}, 0.25))
	m, err := ParseONNX(data, "hand.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if m.Precision != Float64 {
		t.Errorf("precision %v, want float64", m.Precision)
	}
	want := func(x, r float64) float64 {
		x, r = max(x, 0), max(r, 0)
		h := []float64{math.Tanh(x + 3*r + 0.1), math.Tanh(-2*x + r + 0.2), math.Tanh(0.5*x - r - 0.3)}
		return 0.5*h[0] - h[1] + 2*h[2] + 0.25
	}
	for _, p := range [][2]float64{{0.3, 0.7}, {-1, 2}, {2, -0.5}, {1.5, 1.5}} {
		if got := m.Eval(p[0], p[1]); !near(got, want(p[0], p[1]), 1e-12) {
			t.Errorf("k(%v) = %v, want %v", p, got, want(p[0], p[1]))
		}
	}
	if got := m.String(); got != "2→2 relu→2 relu→3 tanh→1 identity" {
		t.Errorf("layers %s", got)
	}
}

// hand is TestONNXActivationsAndConstants's graph with the given weights.
func hand(w1 *onnxpb.AttributeProto, w2, b2 *onnxpb.TensorProto) []byte {
	return model([]*onnxpb.NodeProto{
		onode("Relu", []string{"xr"}, "a"),
		onode("Relu", []string{"a"}, "b"),
		onode("Constant", nil, "W1", w1),
		onode("MatMul", []string{"b", "W1"}, "c"),
		onode("Add", []string{"B1", "c"}, "d"), // bias first: Add commutes
		onode("Tanh", []string{"d"}, "e"),
		onode("MatMul", []string{"e", "W2"}, "f"),
		onode("Add", []string{"f", "B2"}, "k"),
	}, []*onnxpb.TensorProto{
		f64RawTensor("B1", []int64{3}, 0.1, 0.2, -0.3), w2, b2,
	}, []string{"xr", "B1", "W2", "B2"}, "k")
}

// onnxRefusalCases are graphs that violate the ONNX specification, what
// mmds reads, or the cost caps: each is refused with an ErrInput whose one
// line contains want. They seed FuzzParseONNX's corpus.
func onnxRefusalCases() []onnxCase {
	untyped := &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1)}
	gemm := onode("Gemm", []string{"xr", "W", "B"}, "k", untyped)
	tb := &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1), Type: onnxpb.AttributeProto_INT.Enum()}
	gemmT := onode("Gemm", []string{"xr", "W", "B"}, "k", tb)
	w := f32Tensor("W", []int64{1, 2}, 1, 2)
	b := f32Tensor("B", []int64{1}, 0)
	ext := f32Tensor("W", []int64{1, 2})
	ext.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
	i64 := &onnxpb.TensorProto{Name: proto.String("W"), Dims: []int64{1, 2}, DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Int64Data: []int64{1, 2}}
	nan := f32Tensor("W", []int64{1, 2}, float32(math.NaN()), 1)
	short := f32Tensor("W", []int64{1, 2}, 1)
	ms := onode("Gemm", []string{"xr", "W", "B"}, "k")
	ms.Domain = proto.String("com.microsoft")
	ta := onode("Gemm", []string{"xr", "W", "B"}, "k", &onnxpb.AttributeProto{Name: proto.String("transA"), I: proto.Int64(1)})
	// Gemm 2 → 16384, then 300 Relu nodes: each would need a 16384² identity
	// layer (19 GB in all).
	wide := f32Tensor("WB", []int64{16384, 2}, make([]float32, 2*16384)...)
	wideRelus := []*onnxpb.NodeProto{onode("Gemm", []string{"xr", "WB"}, "h0", tb)}
	for i := range 300 {
		wideRelus = append(wideRelus, onode("Relu", []string{fmt.Sprintf("h%d", i)}, fmt.Sprintf("h%d", i+1)))
	}
	cw := &onnxpb.AttributeProto{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: f32Tensor("", []int64{1, 2}, 5, 5)}
	badType := &onnxpb.AttributeProto{Name: proto.String("transB"), F: proto.Float32(1), Type: onnxpb.AttributeProto_FLOAT.Enum()}
	return []onnxCase{
		{"empty", nil, "empty file"},
		{"garbage", []byte("not a protobuf at all"), "truncated or corrupt"},
		{"nograph", func() []byte { d, _ := proto.Marshal(&onnxpb.ModelProto{IrVersion: proto.Int64(8)}); return d }(), "no graph"},
		{"twoinputs", model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{w, b}, []string{"xr", "y"}, "k"), "name them x and r"},
		{"threeinputs", model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{w, b}, []string{"xr", "x", "r"}, "k"), "3 input tensors"},
		{"noconcat", model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{w, b}, []string{"x", "r"}, "k"), "which no graph input, initializer or earlier node defines"},
		{"concat0", model([]*onnxpb.NodeProto{onode("Concat", []string{"x", "r"}, "xr", &onnxpb.AttributeProto{Name: proto.String("axis"), I: proto.Int64(0)}), gemm},
			[]*onnxpb.TensorProto{w, b}, []string{"x", "r"}, "k"), "axis 0"},
		{"transposechain", model([]*onnxpb.NodeProto{onode("Transpose", []string{"xr"}, "t"), gemm}, []*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), "Transpose of the chain"},
		{"output", model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{w, b}, []string{"xr"}, "zz"), "graph's output"},
		{"domain", model([]*onnxpb.NodeProto{ms}, []*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), `domain "com.microsoft"`},
		{"transA", model([]*onnxpb.NodeProto{ta}, []*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), "transA = 1"},
		{"external", model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{ext, b}, []string{"xr"}, "k"), "external file"},
		{"int64", model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{i64, b}, []string{"xr"}, "k"), "data type INT64"},
		{"nan", model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{nan, b}, []string{"xr"}, "k"), "NaN: weights must be finite"},
		{"short", model([]*onnxpb.NodeProto{gemm}, []*onnxpb.TensorProto{short, b}, []string{"xr"}, "k"), "1 values for shape [1 2]"},
		{"conv", model([]*onnxpb.NodeProto{onode("Conv", []string{"xr", "W"}, "k")}, []*onnxpb.TensorProto{w}, []string{"xr"}, "k"), `node 0 ("k") is Conv: supported operators are Gemm, MatMul`},
		{"branch", model([]*onnxpb.NodeProto{onode("Relu", []string{"xr"}, "a"), onode("Relu", []string{"xr"}, "k")}, nil, []string{"xr"}, "k"), "must be a chain"},
		{"width", model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W3"}, "k", untyped)},
			[]*onnxpb.TensorProto{f32Tensor("W3", []int64{1, 3}, 1, 2, 3)}, []string{"xr"}, "k"), "takes 3 inputs, but the chain has width 2"},
		{"out2", model([]*onnxpb.NodeProto{onode("Relu", []string{"xr"}, "k")}, nil, []string{"xr"}, "k"), "output size 2: want 1"},
		{"gemm-a-only", model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", ""}, "k", tb)}, nil, []string{"xr"}, "k"), "input B \"\" is not a constant weight"},
		{"gemm-one-input", model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr"}, "k", tb)}, nil, []string{"xr"}, "k"), "want inputs A"},
		{"wide-relus", model(wideRelus, []*onnxpb.TensorProto{wide}, []string{"xr"}, "h300"), "too large to certify"},
		{"const-redefines", model([]*onnxpb.NodeProto{onode("Constant", nil, "W", cw), gemmT},
			[]*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), `"W" is defined twice`},
		{"node-redefines", model([]*onnxpb.NodeProto{onode("Relu", []string{"xr"}, "a"), onode("Relu", []string{"a"}, "a"), gemmT},
			[]*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), `"a" is defined twice`},
		{"input-redefined", model([]*onnxpb.NodeProto{onode("Relu", []string{"xr"}, "xr")}, nil, []string{"xr"}, "xr"), `"xr" is defined twice`},
		{"dangling", model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W", "nowhere"}, "k", tb)}, []*onnxpb.TensorProto{w}, []string{"xr"}, "k"), "which no graph input"},
		{"attr-type", model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W", "B"}, "k", badType)}, []*onnxpb.TensorProto{w, b}, []string{"xr"}, "k"), `attribute "transB" has type FLOAT`},
		{"attr-unknown", model([]*onnxpb.NodeProto{onode("Relu", []string{"xr"}, "k", &onnxpb.AttributeProto{Name: proto.String("alpha"), F: proto.Float32(0.1)})},
			nil, []string{"xr"}, "k"), `attribute "alpha" is not supported`},
		{"huge-dims", model([]*onnxpb.NodeProto{gemmT}, []*onnxpb.TensorProto{{Name: proto.String("W"), Dims: []int64{16384, 16384},
			DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), RawData: []byte{0, 0, 0, 0}}, b}, []string{"xr"}, "k"), "entries: at most"},
		// Gemm's C broadcasts to [batch, out]: a C of shape [out, 1] adds C_i
		// to every unit of batch row i at a batch of out rows (and fails at
		// any other batch), not C_j to unit j; reading it as the bias would
		// certify another function.
		{"column-bias", columnBiasONNX(), "bias C of shape [3 1]"},
	}
}

// columnBiasONNX is a categorical network's ONNX file whose first Gemm's C
// has shape [3, 1] instead of [3].
func columnBiasONNX() []byte {
	n := randomCategorical(rand.New(rand.NewPCG(61, 62)), 3, []int{3}, 3, 1)
	mp, err := n.onnxModel()
	if err != nil {
		panic(err)
	}
	for _, init := range mp.Graph.Initializer {
		if init.GetName() == "layer0.bias" {
			init.Dims = []int64{3, 1}
		}
	}
	b, err := proto.Marshal(mp)
	if err != nil {
		panic(err)
	}
	return b
}

// A valid graph is read; each refusal case is an ErrInput naming the file
// and the problem, returned without a panic and without allocating for the
// sizes it only declares: at most a megabyte plus 100 bytes a byte of the
// file (a count of memory, not of time, so that a loaded machine does not
// fail it).
func TestONNXErrors(t *testing.T) {
	tb := &onnxpb.AttributeProto{Name: proto.String("transB"), I: proto.Int64(1)}
	ok := model([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W", "B"}, "k", tb)},
		[]*onnxpb.TensorProto{f32Tensor("W", []int64{1, 2}, 1, 2), f32Tensor("B", []int64{1}, 0)}, []string{"xr"}, "k")
	if _, err := ParseONNX(ok, "ok.onnx"); err != nil {
		t.Fatalf("valid graph refused: %v", err)
	}
	for _, tc := range onnxRefusalCases() {
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		_, err := ParseONNX(tc.data, tc.name+".onnx")
		goruntime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name+".onnx") || !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v; want an ErrInput naming the file and containing %q", tc.name, err, tc.want)
		}
		if n, most := after.TotalAlloc-before.TotalAlloc, uint64(1<<20+100*len(tc.data)); n > most {
			t.Errorf("%s: refused after allocating %d bytes (at most %d)", tc.name, n, most)
		}
	}
}
