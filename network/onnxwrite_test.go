package network

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// sameNetwork reports the first difference between a and b in inputs,
// precision, shapes, activations or a weight's bits ("" when none).
func sameNetwork(a, b *Network) string {
	switch {
	case !slices.Equal(a.Inputs, b.Inputs):
		return "inputs " + short(a.Inputs) + " vs " + short(b.Inputs)
	case a.Precision != b.Precision:
		return "precision " + a.Precision.String() + " vs " + b.Precision.String()
	case len(a.Layers) != len(b.Layers):
		return "depth"
	}
	for l := range a.Layers {
		la, lb := a.Layers[l], b.Layers[l]
		if la.Act != lb.Act || len(la.W) != len(lb.W) || len(la.B) != len(lb.B) {
			return "layer shape or activation"
		}
		for j := range la.W {
			if len(la.W[j]) != len(lb.W[j]) || math.Float64bits(la.B[j]) != math.Float64bits(lb.B[j]) {
				return "bias or row length"
			}
			for i := range la.W[j] {
				if math.Float64bits(la.W[j][i]) != math.Float64bits(lb.W[j][i]) {
					return "weight bits"
				}
			}
		}
	}
	return ""
}

// roundTrip writes m as ONNX and reads it back.
func roundTrip(t testing.TB, m *Network) *Network {
	t.Helper()
	var buf bytes.Buffer
	if err := m.WriteONNX(&buf); err != nil {
		t.Fatalf("WriteONNX: %v", err)
	}
	back, err := ParseONNX(buf.Bytes(), "written.onnx")
	if err != nil {
		t.Fatalf("ParseONNX of a written network: %v", err)
	}
	return back
}

// Random networks of every depth, activation, input order and precision
// come back from ONNX bit for bit, and with the same forward value and the
// same forward error bound (the written Gemm folds nothing).
func TestWriteONNXRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	acts := []Activation{Identity, ReLU, Sigmoid, Tanh}
	for trial := range 200 {
		widths := make([]int, rng.IntN(4))
		for i := range widths {
			widths[i] = 1 + rng.IntN(6)
		}
		m := randomNet(rng, widths, acts[rng.IntN(4)], acts[rng.IntN(4)], 2)
		for l := range m.Layers { // mixed activations, layer by layer
			m.Layers[l].Act = acts[rng.IntN(4)]
		}
		if trial%2 == 0 {
			m.Precision = Float32
			if err := m.roundFloat32(); err != nil {
				t.Fatal(err)
			}
		}
		if trial%7 == 0 {
			m.Layers[0].B[0] = math.Copysign(0, -1) // −0 keeps its sign bit
		}
		back := roundTrip(t, m)
		if d := sameNetwork(m, back); d != "" {
			t.Fatalf("trial %d: %s after the round trip", trial, d)
		}
		for range 20 {
			x, r := 3*rng.NormFloat64(), 3*rng.NormFloat64()
			k1, d1, err1 := m.EvalBound(x, r)
			k2, d2, err2 := back.EvalBound(x, r)
			if k1 != k2 || d1 != d2 || (err1 == nil) != (err2 == nil) {
				t.Fatalf("trial %d at (%g, %g): k %v vs %v, δ %v vs %v, %v vs %v", trial, x, r, k1, k2, d1, d2, err1, err2)
			}
		}
	}
}

// The file declares what a runtime needs: IR 7, opset 13 of the default
// domain, inputs x and r and output k of the network's element type, shape
// [batch, 1].
func TestWriteONNXDeclarations(t *testing.T) {
	for _, p := range []Precision{Float32, Float64} {
		m := randomNet(rand.New(rand.NewPCG(1, 2)), []int{3}, ReLU, Sigmoid, 1)
		m.Precision = p
		if err := m.roundFloat32(); p == Float32 && err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.WriteONNX(&buf); err != nil {
			t.Fatal(err)
		}
		var mp onnxpb.ModelProto
		if err := proto.Unmarshal(buf.Bytes(), &mp); err != nil {
			t.Fatal(err)
		}
		elem := int32(onnxpb.TensorProto_DOUBLE)
		if p == Float32 {
			elem = int32(onnxpb.TensorProto_FLOAT)
		}
		if mp.GetIrVersion() != 7 || len(mp.GetOpsetImport()) != 1 || mp.GetOpsetImport()[0].GetVersion() != 13 || mp.GetOpsetImport()[0].GetDomain() != "" {
			t.Errorf("%v: IR %d, opsets %v", p, mp.GetIrVersion(), mp.GetOpsetImport())
		}
		g := mp.GetGraph()
		vals := append(append([]*onnxpb.ValueInfoProto(nil), g.GetInput()...), g.GetOutput()...)
		names := []string{"x", "r", ONNXOutput}
		if len(vals) != 3 {
			t.Fatalf("%v: %d inputs and outputs", p, len(vals))
		}
		for i, v := range vals {
			tt := v.GetType().GetTensorType()
			dims := tt.GetShape().GetDim()
			if v.GetName() != names[i] || tt.GetElemType() != elem || len(dims) != 2 || dims[0].GetDimParam() != "batch" || dims[1].GetDimValue() != 1 {
				t.Errorf("%v: value %d is %v", p, i, v)
			}
		}
		for _, init := range g.GetInitializer() {
			if init.GetDataType() != elem {
				t.Errorf("%v: initializer %s has type %d", p, init.GetName(), init.GetDataType())
			}
		}
	}
}

// A float32 network whose weights are not float32 values cannot be written
// as float tensors without changing the function: an error, not a silent
// rounding.
func TestWriteONNXRefusesUnroundedFloat32(t *testing.T) {
	m := randomNet(rand.New(rand.NewPCG(3, 4)), []int{2}, ReLU, Identity, 1)
	m.Precision = Float32
	m.Layers[0].W[0][0] = 0.1 // not a float32
	var buf bytes.Buffer
	if err := m.WriteONNX(&buf); !errors.Is(err, ErrInput) {
		t.Errorf("unrounded float32 weight: %v, want ErrInput", err)
	}
}

// The fixtures read from PyTorch's ONNX and from the JSON layout survive a
// write and a read unchanged.
func TestWriteONNXFixtures(t *testing.T) {
	for _, name := range []string{"relu2-gauss.json", "relu2-gauss-gemm.onnx", "two-inputs.onnx", "tanh-binary.json", "relu-sigmoid-binary.onnx"} {
		m := readNet(t, name)
		if d := sameNetwork(m, roundTrip(t, m)); d != "" {
			t.Errorf("%s: %s after the round trip", name, d)
		}
	}
}

// FuzzWriteONNX builds a network from the fuzzer's bytes (shapes,
// activations, precision, order, weights as raw bits, NaN and infinities
// replaced) and requires the round trip to be exact.
func FuzzWriteONNX(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add(bytes.Repeat([]byte{0xff, 0x7f, 0, 0x80}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := fuzzNetwork(data)
		if m == nil {
			return
		}
		if d := sameNetwork(m, roundTrip(t, m)); d != "" {
			t.Fatalf("%s after the round trip", d)
		}
	})
}

// fuzzNetwork decodes a valid network from data, or nil when data is too
// short.
func fuzzNetwork(data []byte) *Network {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	if len(data) < 4 {
		return nil
	}
	head := next()
	m := &Network{Name: "fuzz", Inputs: []string{"x", "r"}, Precision: Precision(head & 1)}
	if head&4 != 0 { // a one-hot x over 2..5 values
		m.Inputs = []string{"r"}
		for k := range 2 + int(head>>4)%4 {
			m.Inputs = append(m.Inputs, fmt.Sprintf("x=%d", k))
		}
		if head&2 == 0 {
			m.Inputs = append(m.Inputs[1:], "r")
		}
	} else if head&2 != 0 {
		m.Inputs = []string{"r", "x"}
	}
	depth := 1 + int(next()%4)
	in := len(m.Inputs)
	for l := range depth {
		w := 1 + int(next()%5)
		act := Activation(next() % 4)
		if l == depth-1 {
			w = 1
			if head&8 != 0 { // a categorical network: a softmax over 2..5 labels
				w, act = 2+int(head>>6), Softmax
			}
		}
		ly := Layer{W: make([][]float64, w), B: make([]float64, w), Act: act}
		weight := func() float64 {
			var bits uint64
			for range 8 {
				bits = bits<<8 | uint64(next())
			}
			v := math.Float64frombits(bits)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = float64(int8(next()))
			}
			if m.Precision == Float32 {
				v = float64(float32(v))
				if math.IsInf(v, 0) {
					v = 0
				}
			}
			return v
		}
		for j := range ly.W {
			ly.W[j] = make([]float64, in)
			for i := range ly.W[j] {
				ly.W[j][i] = weight()
			}
			ly.B[j] = weight()
		}
		m.Layers = append(m.Layers, ly)
		in = w
	}
	if m.Validate() != nil {
		return nil
	}
	return m
}
