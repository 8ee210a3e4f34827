package network

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// The ONNX versions WriteONNX declares: IR version 7 with the default
// operator set 13 (ONNX 1.8, 2020), which every ONNX Runtime since 1.6 and
// torch.onnx load. Every operator written (Concat, Gemm, Relu, Sigmoid,
// Tanh, Softmax) has had its current semantics since opset 13 or earlier.
const (
	onnxIRVersion = 7
	onnxOpset     = 13
)

// ONNXOutput is the name of the graph output WriteONNX writes: k(x, r),
// shape [batch, 1], or a categorical network's law over its m labels,
// [batch, m].
const ONNXOutput = "k"

// WriteONNX writes m as an ONNX model that ParseONNX reads back to the same
// network (inputs, layers and precision; every weight bit for bit) and that
// ONNX Runtime, or PyTorch through onnx2torch, runs as the function m is:
//
//   - two graph inputs named x and r, x [batch, 1] (or [batch, n] for a
//     one-hot x over n values) and r [batch, 1], joined by a Concat along
//     axis 1 in the order of m.Inputs (the first layer's columns);
//   - per layer a Gemm with B = W as stored (out × in, transB = 1), C = b,
//     alpha = beta = 1 (nothing for a runtime to fold or round beyond
//     W·a + b), then Relu, Sigmoid, Tanh or Softmax (axis 1; no node for
//     identity);
//   - one output ONNXOutput, [batch, 1] ([batch, m] for a categorical
//     network); the metadata entry ONNXInputsKey repeats the input names.
//
// Tensors are float for a Float32 network and double for a Float64 one, so
// the runtime computes in m.Precision. A Float32 network whose weights are
// not float32 values (ParseJSON and ParseONNX round them so) is an error
// wrapping ErrInput: writing them as float would change the function. m
// must be valid (Validate).
func (m *Network) WriteONNX(w io.Writer) error {
	mp, err := m.onnxModel()
	if err != nil {
		return err
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(mp)
	if err != nil {
		return fmt.Errorf("network %s: ONNX encoding: %w", m.Name, err)
	}
	_, err = w.Write(b)
	return err
}

// onnxModel builds the ModelProto of WriteONNX.
func (m *Network) onnxModel() (*onnxpb.ModelProto, error) {
	elem := onnxpb.TensorProto_DOUBLE
	if m.Precision == Float32 {
		elem = onnxpb.TensorProto_FLOAT
	}
	g := &onnxpb.GraphProto{Name: proto.String("mmds_privatizer"),
		DocString: proto.String("a privatizer k(x, r), r ~ N(0, 1) independent of X (mmds)")}
	g.Input = []*onnxpb.ValueInfoProto{onnxValue("x", elem, max(m.XValues(), 1)), onnxValue("r", elem, 1)}
	cur, order := "xr", []string{"x", "r"}
	if m.Inputs[0] == "r" {
		order = []string{"r", "x"}
	}
	g.Node = append(g.Node, onnxNode("Concat", "concat", order, cur, onnxIntAttr("axis", 1)))
	for l, ly := range m.Layers {
		wt, err := m.onnxTensor(fmt.Sprintf("layer%d.weight", l), []int64{int64(len(ly.W)), int64(len(ly.W[0]))}, slices.Concat(ly.W...), elem)
		if err != nil {
			return nil, err
		}
		bt, err := m.onnxTensor(fmt.Sprintf("layer%d.bias", l), []int64{int64(len(ly.B))}, ly.B, elem)
		if err != nil {
			return nil, err
		}
		g.Initializer = append(g.Initializer, wt, bt)
		last := l == len(m.Layers)-1
		out := fmt.Sprintf("layer%d.linear", l)
		if last && ly.Act == Identity {
			out = ONNXOutput
		}
		g.Node = append(g.Node, onnxNode("Gemm", fmt.Sprintf("layer%d.gemm", l), []string{cur, wt.GetName(), bt.GetName()}, out, onnxIntAttr("transB", 1)))
		cur = out
		if ly.Act == Identity {
			continue
		}
		op := map[Activation]string{ReLU: "Relu", Sigmoid: "Sigmoid", Tanh: "Tanh", Softmax: "Softmax"}[ly.Act]
		out = fmt.Sprintf("layer%d.%s", l, ly.Act)
		if last {
			out = ONNXOutput
		}
		var attrs []*onnxpb.AttributeProto
		if ly.Act == Softmax {
			attrs = append(attrs, onnxIntAttr("axis", 1))
		}
		g.Node = append(g.Node, onnxNode(op, fmt.Sprintf("layer%d.%s", l, ly.Act), []string{cur}, out, attrs...))
		cur = out
	}
	g.Output = []*onnxpb.ValueInfoProto{onnxValue(ONNXOutput, elem, m.Outputs())}
	return &onnxpb.ModelProto{
		IrVersion:     proto.Int64(onnxIRVersion),
		ProducerName:  proto.String("mmds"),
		Graph:         g,
		OpsetImport:   []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(onnxOpset)}},
		MetadataProps: []*onnxpb.StringStringEntryProto{{Key: proto.String(ONNXInputsKey), Value: proto.String(strings.Join(m.Inputs, ","))}},
	}, nil
}

// onnxTensor encodes v (row-major, dims) as raw little-endian data of type
// elem, as torch.onnx writes initializers.
func (m *Network) onnxTensor(name string, dims []int64, v []float64, elem onnxpb.TensorProto_DataType) (*onnxpb.TensorProto, error) {
	t := &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(elem))}
	if elem == onnxpb.TensorProto_DOUBLE {
		t.RawData = make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(t.RawData[8*i:], math.Float64bits(x))
		}
		return t, nil
	}
	t.RawData = make([]byte, 4*len(v))
	for i, x := range v {
		f := float32(x)
		if float64(f) != x && !math.IsNaN(x) {
			return nil, m.errorf("%s entry %d = %v is not a float32 value, but the network is float32: round its weights (ParseJSON does) or declare it float64", name, i, x)
		}
		binary.LittleEndian.PutUint32(t.RawData[4*i:], math.Float32bits(f))
	}
	return t, nil
}

func onnxNode(op, name string, in []string, out string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(op), Name: proto.String(name), Input: in, Output: []string{out}, Attribute: attrs}
}

func onnxIntAttr(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

// onnxValue declares a tensor [batch, 1] of type elem.
func onnxValue(name string, elem onnxpb.TensorProto_DataType, width int) *onnxpb.ValueInfoProto {
	dims := []*onnxpb.TensorShapeProto_Dimension{
		{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "batch"}},
		{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: int64(width)}},
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(elem)), Shape: &onnxpb.TensorShapeProto{Dim: dims}}}}}
}
