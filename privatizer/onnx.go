package privatizer

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/privatizer/internal/onnxpb"
)

// MaxONNXBytes bounds an ONNX file; a small privatizer is a few kilobytes.
const MaxONNXBytes = 256 << 20

// ONNXInputsKey is the ONNX model metadata key that names the input order,
// e.g. "x,r" (the default) or "r,x". torch.onnx.export does not write it;
// onnx.helper.set_model_props does.
const ONNXInputsKey = "mmds.inputs"

// SupportedOps lists the ONNX operators ParseONNX accepts.
var supportedOps = []string{"Gemm", "MatMul", "Add", "Relu", "Sigmoid", "Tanh", "Identity", "Flatten", "Constant", "Transpose"}

// ParseONNX reads a privatizer network exported to ONNX (e.g. by
// torch.onnx.export of an nn.Sequential of nn.Linear and activations) and
// converts it to the same MLP as the JSON layout. The graph must be a chain
// from one input tensor of width 2, holding (x, r) in the order of the
// metadata entry ONNXInputsKey (default x, r), to one output of width 1,
// made of
//
//   - Gemm (alpha, beta, transB; transA = 0) or MatMul with a constant
//     weight, optionally followed by Add of a constant bias: a linear layer;
//   - Relu, Sigmoid, Tanh: the activation of the preceding linear layer;
//   - Identity, Flatten (axis 1) and Constant: no computation; Transpose of
//     a constant matrix: a constant.
//
// A model whose forward pass takes x and r as two tensors and concatenates
// them is read too: its two inputs must be named x and r (their order is the
// Concat's).
//
// Weights are initializers or Constant nodes of type float or double. Any
// other operator is an error naming it; a truncated or corrupt file is an
// error saying so. name is the file name for messages.
func ParseONNX(data []byte, name string) (*MLP, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: ONNX network %s: %s", ErrInput, name, fmt.Sprintf(format, args...))
	}
	if len(data) == 0 {
		return nil, bad("empty file")
	}
	if len(data) > MaxONNXBytes {
		return nil, bad("file larger than %d bytes", MaxONNXBytes)
	}
	var mp onnxpb.ModelProto
	if err := proto.Unmarshal(data, &mp); err != nil {
		return nil, bad("not a readable ONNX model (truncated or corrupt file): %v", err)
	}
	g := mp.GetGraph()
	if g == nil || len(g.GetNode()) == 0 {
		return nil, bad("no graph: truncated, or not an ONNX model")
	}
	if len(mp.GetOpsetImport()) == 0 {
		return nil, bad("no opset_import: truncated, or not an ONNX model")
	}
	c := &onnxChain{bad: bad, consts: map[string]*onnxpb.TensorProto{}}
	for _, t := range g.GetInitializer() {
		c.consts[t.GetName()] = t
	}
	for _, n := range g.GetNode() {
		if n.GetOpType() == "Constant" && len(n.GetOutput()) == 1 {
			for _, a := range n.GetAttribute() {
				if a.GetName() == "value" && a.GetT() != nil {
					c.consts[n.GetOutput()[0]] = a.GetT()
				}
			}
		}
	}
	var inputs []*onnxpb.ValueInfoProto
	for _, in := range g.GetInput() {
		if _, ok := c.consts[in.GetName()]; !ok {
			inputs = append(inputs, in)
		}
	}
	m := &MLP{Name: name, Inputs: []string{"x", "r"}}
	for _, p := range mp.GetMetadataProps() {
		if p.GetKey() == ONNXInputsKey {
			m.Inputs = strings.Split(strings.ReplaceAll(p.GetValue(), " ", ""), ",")
		}
	}
	skip := -1 // the Concat node joining two inputs x and r
	switch len(inputs) {
	case 1:
		c.cur, c.width = inputs[0].GetName(), 2
		if v := lastDim(inputs[0]); v != 0 && v != 2 {
			return nil, bad("input %q has width %d: want 2, (x, r)", c.cur, v)
		}
	case 2:
		order, at, out, err := joinInputs(g, inputs)
		if err != nil {
			return nil, bad("%v", err)
		}
		m.Inputs, skip, c.cur, c.width = order, at, out, 2
	default:
		return nil, bad("%d input tensors: want one of shape [batch, 2] holding (x, r), or two named x and r of shape [batch, 1] joined by a Concat", len(inputs))
	}
	for i, n := range g.GetNode() {
		if i == skip {
			continue
		}
		if err := c.node(i, n); err != nil {
			return nil, err
		}
	}
	if outs := g.GetOutput(); len(outs) != 1 || outs[0].GetName() != c.cur {
		return nil, bad("the graph's output must be the end of the chain of layers, %q (got %d outputs)", c.cur, len(outs))
	}
	m.Layers = c.layers
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// lastDim is the last dimension of a graph input's declared shape, 0 if
// unknown.
func lastDim(v *onnxpb.ValueInfoProto) int64 {
	dims := v.GetType().GetTensorType().GetShape().GetDim()
	if len(dims) == 0 {
		return 0
	}
	return dims[len(dims)-1].GetDimValue()
}

// joinInputs handles a model whose forward pass takes x and r separately
// (torch.onnx.export(…, input_names=["x", "r"])) and concatenates them: the
// two graph inputs must be named x and r, of width 1, and joined by one
// Concat along the last axis. It returns the input order (the Concat's),
// the Concat node's index and its output.
func joinInputs(g *onnxpb.GraphProto, inputs []*onnxpb.ValueInfoProto) ([]string, int, string, error) {
	names := map[string]bool{}
	for _, in := range inputs {
		n := in.GetName()
		if n != "x" && n != "r" {
			return nil, 0, "", fmt.Errorf("two input tensors %q and %q: name them x and r (input_names=[\"x\", \"r\"]), or pass one tensor [batch, 2]", inputs[0].GetName(), inputs[1].GetName())
		}
		if v := lastDim(in); v != 0 && v != 1 {
			return nil, 0, "", fmt.Errorf("input %q has width %d: want 1", n, v)
		}
		names[n] = true
	}
	if len(names) != 2 {
		return nil, 0, "", fmt.Errorf("two inputs both named %q: want x and r", inputs[0].GetName())
	}
	for i, n := range g.GetNode() {
		ins := n.GetInput()
		if n.GetOpType() != "Concat" || len(ins) != 2 || !names[ins[0]] || !names[ins[1]] || ins[0] == ins[1] || len(n.GetOutput()) != 1 {
			continue
		}
		if ax, _ := intAttr(n, "axis"); ax != 1 && ax != -1 {
			return nil, 0, "", fmt.Errorf("node %d (%q, op Concat): axis %d: want the last axis (1 or -1)", i, n.GetName(), ax)
		}
		return []string{ins[0], ins[1]}, i, n.GetOutput()[0], nil
	}
	return nil, 0, "", fmt.Errorf("inputs x and r are not joined by a Concat of both along axis 1")
}

// onnxChain converts a chain of ONNX nodes into layers.
type onnxChain struct {
	bad    func(string, ...any) error
	consts map[string]*onnxpb.TensorProto
	cur    string // the tensor holding the chain's current activations
	width  int    // its width
	layers []Layer
	linear bool // cur is the output of the last layer's affine map (no activation yet)
}

func (c *onnxChain) node(i int, n *onnxpb.NodeProto) error {
	op := n.GetOpType()
	where := fmt.Sprintf("node %d (%q, op %s)", i, n.GetName(), op)
	if d := n.GetDomain(); d != "" && d != "ai.onnx" {
		return c.bad("%s: operator domain %q is not supported; supported: %s of the default domain", where, d, strings.Join(supportedOps, ", "))
	}
	if op == "Constant" {
		return nil
	}
	if !onnxSupported(op) {
		return c.bad("%s: operator %s is not supported; supported: %s", where, op, strings.Join(supportedOps, ", "))
	}
	ins, outs := n.GetInput(), n.GetOutput()
	if len(outs) < 1 {
		return c.bad("%s: no output", where)
	}
	// Identity or Transpose of a constant (shared or transposed weights) is
	// a constant.
	if (op == "Identity" || op == "Transpose") && len(ins) == 1 {
		if t, ok := c.consts[ins[0]]; ok {
			if op == "Transpose" {
				var err error
				if t, err = c.transpose(where, n, t); err != nil {
					return err
				}
			}
			c.consts[outs[0]] = t
			return nil
		}
		if op == "Transpose" {
			return c.bad("%s: Transpose of the chain %q: only constant weights may be transposed", where, ins[0])
		}
	}
	var data []string // non-constant inputs
	var cs []*onnxpb.TensorProto
	for _, in := range ins {
		if in == "" {
			continue
		}
		if t, ok := c.consts[in]; ok {
			cs = append(cs, t)
		} else {
			data = append(data, in)
		}
	}
	if len(data) != 1 || data[0] != c.cur {
		return c.bad("%s: reads %q, but the graph must be a chain through %q (one tensor flowing from the input to the output)", where, data, c.cur)
	}
	var err error
	switch op {
	case "Identity":
	case "Flatten":
		if ax, ok := intAttr(n, "axis"); ok && ax != 1 {
			return c.bad("%s: axis %d: only axis 1 (a no-op on [batch, width]) is supported", where, ax)
		}
	case "Gemm":
		err = c.gemm(where, n, ins, cs)
	case "MatMul":
		err = c.matmul(where, ins, cs)
	case "Add":
		err = c.add(where, cs)
	case "Relu", "Sigmoid", "Tanh":
		c.activation(map[string]Activation{"Relu": ReLU, "Sigmoid": Sigmoid, "Tanh": Tanh}[op])
	}
	if err != nil {
		return err
	}
	c.cur = outs[0]
	return nil
}

func onnxSupported(op string) bool {
	for _, s := range supportedOps {
		if s == op {
			return true
		}
	}
	return false
}

// gemm: Y = alpha·A·op(B) + beta·C with A the chain, op(B) = B or Bᵀ.
func (c *onnxChain) gemm(where string, n *onnxpb.NodeProto, ins []string, cs []*onnxpb.TensorProto) error {
	if len(ins) < 2 || ins[0] != c.cur {
		return c.bad("%s: the chain must be input A", where)
	}
	if ta, _ := intAttr(n, "transA"); ta != 0 {
		return c.bad("%s: transA = %d: the chain tensor [batch, width] cannot be transposed", where, ta)
	}
	alpha, beta := 1.0, 1.0
	if v, ok := floatAttr(n, "alpha"); ok {
		alpha = v
	}
	if v, ok := floatAttr(n, "beta"); ok {
		beta = v
	}
	tb, _ := intAttr(n, "transB")
	b, dims, err := c.tensor(where, "B", cs[0])
	if err != nil {
		return err
	}
	if len(dims) != 2 {
		return c.bad("%s: weight B has shape %v: want a matrix", where, dims)
	}
	w := matrix(b, dims, tb != 0, alpha)
	bias := make([]float64, len(w))
	if len(cs) > 1 {
		cv, _, err := c.tensor(where, "C", cs[1])
		if err != nil {
			return err
		}
		if err := addBroadcast(bias, cv, beta); err != nil {
			return c.bad("%s: bias C: %v", where, err)
		}
	}
	c.push(Layer{W: w, B: bias})
	return nil
}

// matmul: Y = A·B with A the chain and B a constant [in, out].
func (c *onnxChain) matmul(where string, ins []string, cs []*onnxpb.TensorProto) error {
	if len(ins) != 2 || ins[0] != c.cur || len(cs) != 1 {
		return c.bad("%s: want the chain times a constant weight matrix", where)
	}
	b, dims, err := c.tensor(where, "B", cs[0])
	if err != nil {
		return err
	}
	if len(dims) != 2 {
		return c.bad("%s: weight has shape %v: want a matrix [in, out]", where, dims)
	}
	w := matrix(b, dims, false, 1)
	c.push(Layer{W: w, B: make([]float64, len(w))})
	return nil
}

// add: the chain plus a constant, folded into the last layer's bias when it
// has no activation yet, else a new identity-weight layer.
func (c *onnxChain) add(where string, cs []*onnxpb.TensorProto) error {
	if len(cs) != 1 {
		return c.bad("%s: want the chain plus a constant bias", where)
	}
	v, _, err := c.tensor(where, "bias", cs[0])
	if err != nil {
		return err
	}
	if !c.linear {
		c.push(identityLayer(c.width))
	}
	if err := addBroadcast(c.layers[len(c.layers)-1].B, v, 1); err != nil {
		return c.bad("%s: %v", where, err)
	}
	return nil
}

// activation sets the last layer's activation, or appends an identity-weight
// layer when the chain is not the output of an affine map.
func (c *onnxChain) activation(a Activation) {
	if !c.linear {
		c.push(identityLayer(c.width))
	}
	c.layers[len(c.layers)-1].Act = a
	c.linear = false
}

func (c *onnxChain) push(l Layer) {
	c.layers = append(c.layers, l)
	c.width = len(l.W)
	c.linear = true
}

func identityLayer(n int) Layer {
	l := Layer{W: make([][]float64, n), B: make([]float64, n)}
	for j := range l.W {
		l.W[j] = make([]float64, n)
		l.W[j][j] = 1
	}
	return l
}

// matrix returns the nn.Linear weight (out × in) of an ONNX weight with
// dims [d0, d1], scaled: B as stored is [in, out] unless transposed.
func matrix(b []float64, dims []int64, transposed bool, scale float64) [][]float64 {
	d0, d1 := int(dims[0]), int(dims[1])
	if transposed { // B is [out, in]
		w := make([][]float64, d0)
		for j := range w {
			w[j] = make([]float64, d1)
			for i := range w[j] {
				w[j][i] = scale * b[j*d1+i]
			}
		}
		return w
	}
	w := make([][]float64, d1)
	for j := range w {
		w[j] = make([]float64, d0)
		for i := range w[j] {
			w[j][i] = scale * b[i*d1+j]
		}
	}
	return w
}

// addBroadcast adds scale·v to dst, v of length len(dst) or 1.
func addBroadcast(dst, v []float64, scale float64) error {
	switch len(v) {
	case len(dst):
		for j := range dst {
			dst[j] += scale * v[j]
		}
	case 1:
		for j := range dst {
			dst[j] += scale * v[0]
		}
	default:
		return fmt.Errorf("%d values for %d outputs: want %d or 1", len(v), len(dst), len(dst))
	}
	return nil
}

// tensor decodes a float or double tensor, stored inline (typed fields or
// raw little-endian bytes), and checks its size against its dims.
func (c *onnxChain) tensor(where, what string, t *onnxpb.TensorProto) ([]float64, []int64, error) {
	if t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return nil, nil, c.bad("%s: %s %q is stored in an external file: save the model with its weights inside", where, what, t.GetName())
	}
	if len(t.GetDims()) > 2 {
		return nil, nil, c.bad("%s: %s %q has shape %v: want at most 2 dimensions", where, what, t.GetName(), t.GetDims())
	}
	n := int64(1)
	for _, d := range t.GetDims() {
		if d < 0 || d > MaxWidth {
			return nil, nil, c.bad("%s: %s %q has dimension %d", where, what, t.GetName(), d)
		}
		n *= d
	}
	var v []float64
	raw := t.GetRawData()
	switch onnxpb.TensorProto_DataType(t.GetDataType()) {
	case onnxpb.TensorProto_FLOAT:
		if raw != nil {
			if int64(len(raw)) != 4*n {
				return nil, nil, c.bad("%s: %s %q has %d bytes for %d floats (truncated?)", where, what, t.GetName(), len(raw), n)
			}
			for i := int64(0); i < n; i++ {
				v = append(v, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))))
			}
		} else {
			for _, f := range t.GetFloatData() {
				v = append(v, float64(f))
			}
		}
	case onnxpb.TensorProto_DOUBLE:
		if raw != nil {
			if int64(len(raw)) != 8*n {
				return nil, nil, c.bad("%s: %s %q has %d bytes for %d doubles (truncated?)", where, what, t.GetName(), len(raw), n)
			}
			for i := int64(0); i < n; i++ {
				v = append(v, math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
			}
		} else {
			v = append(v, t.GetDoubleData()...)
		}
	default:
		return nil, nil, c.bad("%s: %s %q has data type %v: want float or double", where, what, t.GetName(), onnxpb.TensorProto_DataType(t.GetDataType()))
	}
	if int64(len(v)) != n {
		return nil, nil, c.bad("%s: %s %q has %d values for shape %v", where, what, t.GetName(), len(v), t.GetDims())
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, c.bad("%s: %s %q entry %d is %v: weights must be finite", where, what, t.GetName(), i, x)
		}
	}
	return v, t.GetDims(), nil
}

// transpose returns the transpose of a constant matrix, as a double tensor.
func (c *onnxChain) transpose(where string, n *onnxpb.NodeProto, t *onnxpb.TensorProto) (*onnxpb.TensorProto, error) {
	for _, a := range n.GetAttribute() {
		if a.GetName() == "perm" && !(len(a.GetInts()) == 2 && a.GetInts()[0] == 1 && a.GetInts()[1] == 0) {
			return nil, c.bad("%s: perm %v: only the transpose of a matrix (perm [1, 0]) is supported", where, a.GetInts())
		}
	}
	v, dims, err := c.tensor(where, "weight", t)
	if err != nil {
		return nil, err
	}
	if len(dims) != 2 {
		return nil, c.bad("%s: Transpose of a tensor of shape %v: want a matrix", where, dims)
	}
	d0, d1 := int(dims[0]), int(dims[1])
	tv := make([]float64, len(v))
	for i := range d0 {
		for j := range d1 {
			tv[j*d0+i] = v[i*d1+j]
		}
	}
	return &onnxpb.TensorProto{Name: t.Name, Dims: []int64{dims[1], dims[0]},
		DataType: proto.Int32(int32(onnxpb.TensorProto_DOUBLE)), DoubleData: tv}, nil
}

func intAttr(n *onnxpb.NodeProto, name string) (int64, bool) {
	for _, a := range n.GetAttribute() {
		if a.GetName() == name {
			return a.GetI(), true
		}
	}
	return 0, false
}

func floatAttr(n *onnxpb.NodeProto, name string) (float64, bool) {
	for _, a := range n.GetAttribute() {
		if a.GetName() == name {
			return float64(a.GetF()), true
		}
	}
	return 0, false
}
