package network

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// MaxONNXBytes bounds an ONNX file; a small privatizer is a few kilobytes.
const MaxONNXBytes = 256 << 20

// ONNXInputsKey is the ONNX model metadata key that names the input order,
// e.g. "x,r" (the default) or "r,x". torch.onnx.export does not write it;
// onnx.helper.set_model_props does.
const ONNXInputsKey = "mmds.inputs"

// ParseONNX reads a privatizer network exported to ONNX (e.g. by
// torch.onnx.export of an nn.Sequential of nn.Linear, nn.BatchNorm1d and
// activations) and converts it to the same MLP as the JSON layout. The graph
// must be a chain from one input tensor of width 2, holding (x, r) in the
// order of the metadata entry ONNXInputsKey (default x, r; names as
// Network.Inputs, so a one-hot x is declared "x=0,…,x=n−1,r" and the input
// is that wide), to one output of width 1 (or m after a Softmax), made of
//
//   - Gemm (alpha, beta, transB; transA = 0) or MatMul with a constant
//     weight, optionally followed by Add of a constant bias: a linear layer;
//   - BatchNormalization in inference mode: folded into the linear layer
//     before it (an identity layer when there is none), its runtime
//     roundings recorded for EvalBound;
//   - Relu, Sigmoid, Tanh: the activation of the preceding linear layer;
//     Softmax (axis 1 or −1 on the [batch, m] chain), the last one's: a
//     categorical network;
//   - LeakyRelu and Clip (Relu6, Hardtanh, torch.clamp): lowered exactly
//     into ReLU units (lowerPL), so the region walk stays exact;
//   - Identity, Dropout (inference), Flatten, Squeeze, Unsqueeze and
//     Reshape by a constant shape where they keep the batch axis (a shape
//     no-op on the values; the chain's shape is tracked), and Constant: no
//     computation; Transpose of a constant matrix: a constant.
//
// A model whose forward pass takes x and r as two tensors and concatenates
// them is read too: its two inputs must be named x and r (their order is the
// Concat's), r of width 1 and x of width 1, or n ≥ 2 for a one-hot x over
// n values.
//
// Weights are initializers or Constant nodes of type float or double. Any
// other operator is an error naming it, the node, the operators supported
// and the fix; a truncated or corrupt file is an error saying so. name is
// the file name for messages. The network returned is the folded and
// lowered one: its JSON and ONNX forms (WriteJSON, WriteONNX) are plain
// Gemm/activation chains computing the same function.
func ParseONNX(data []byte, name string) (*Network, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: ONNX network %s: %s", ErrInput, name, fmt.Sprintf(format, args...))
	}
	mp, err := decodeONNX(data, bad)
	if err != nil {
		return nil, err
	}
	g := mp.GetGraph()
	c := &onnxChain{bad: bad, consts: map[string]*onnxpb.TensorProto{}, opset: defaultOpset(mp)}
	if err := c.readConsts(g); err != nil {
		return nil, err
	}
	m := &Network{Name: name, Inputs: []string{"x", "r"}}
	for _, p := range mp.GetMetadataProps() {
		if p.GetKey() == ONNXInputsKey {
			m.Inputs = strings.Split(strings.ReplaceAll(p.GetValue(), " ", ""), ",")
		}
	}
	skip, err := c.start(g, m)
	if err != nil {
		return nil, err
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
		return nil, bad("the graph's output must be the end of the chain of layers, %q (got %d outputs)", clip(c.cur), len(outs))
	}
	if c.float32 && c.float64 {
		return nil, bad("mixes float and double weights: a runtime refuses mixed types in one graph (export every weight as float, or every one as double)")
	}
	m.Layers, m.folds = c.layers, c.folds
	m.Precision = Float64
	if c.float32 {
		m.Precision = Float32
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// wireFailure is where (1-based) a protobuf message that does not decode
// as a ModelProto goes wrong: the start of the first top-level field whose
// tag or length does not read, or that does not decode on its own.
func wireFailure(data []byte) int {
	for pos := 0; pos < len(data); {
		num, typ, n := protowire.ConsumeTag(data[pos:])
		if n < 0 {
			return pos + 1
		}
		m := protowire.ConsumeFieldValue(num, typ, data[pos+n:])
		if m < 0 {
			return pos + 1
		}
		var one onnxpb.ModelProto
		if proto.Unmarshal(data[pos:pos+n+m], &one) != nil {
			return pos + 1
		}
		pos += n + m
	}
	return len(data)
}

// decodeONNX decodes a model file and checks the shape of its graph before
// any of it is read: not empty, not too large, a graph with nodes and an
// opset, at most maxNodes nodes in single-assignment order, and only the
// attributes each operator allows.
func decodeONNX(data []byte, bad func(string, ...any) error) (*onnxpb.ModelProto, error) {
	if len(data) == 0 {
		return nil, bad("empty file")
	}
	if len(data) > MaxONNXBytes {
		return nil, bad("file larger than %d bytes", MaxONNXBytes)
	}
	var mp onnxpb.ModelProto
	if err := proto.Unmarshal(data, &mp); err != nil {
		return nil, bad("not an ONNX model (protobuf decoding failed at byte %d: a truncated or corrupt file, or another format)", wireFailure(data))
	}
	g := mp.GetGraph()
	if g == nil || len(g.GetNode()) == 0 {
		return nil, bad("no graph: truncated, or not an ONNX model")
	}
	if len(mp.GetOpsetImport()) == 0 {
		return nil, bad("no opset_import: truncated, or not an ONNX model")
	}
	if n := len(g.GetNode()); n > maxNodes {
		return nil, bad("%d nodes: at most %d (a chain of at most %d layers)", n, maxNodes, MaxLayers)
	}
	if err := checkSSA(g); err != nil {
		return nil, bad("%v", err)
	}
	for i, n := range g.GetNode() {
		if err := checkOp(n); err != nil {
			return nil, bad("node %d (%q) %v", i, clip(n.GetName()), err)
		}
		if err := checkAttrs(n); err != nil {
			return nil, bad("node %d (%q, op %s): %v", i, clip(n.GetName()), safefile.Path(clip(n.GetOpType())), err)
		}
	}
	return &mp, nil
}

// readConsts collects the graph's weights: its initializers and the values
// of its Constant nodes, by name.
func (c *onnxChain) readConsts(g *onnxpb.GraphProto) error {
	for _, t := range g.GetInitializer() {
		c.consts[clip(t.GetName())] = t
	}
	for i, n := range g.GetNode() {
		if n.GetOpType() != "Constant" {
			continue
		}
		t, err := constantValue(n)
		if err != nil {
			return c.bad("node %d (%q, op Constant): %v", i, clip(n.GetName()), err)
		}
		c.consts[n.GetOutput()[0]] = t
	}
	return nil
}

// start sets the chain's first tensor from the graph's inputs that are not
// weights: one of width 2 holding (x, r), or two joined by a Concat, whose
// order becomes m's inputs. It returns the index of that Concat node,
// which the chain skips (−1 for one input).
func (c *onnxChain) start(g *onnxpb.GraphProto, m *Network) (int, error) {
	var inputs []*onnxpb.ValueInfoProto
	for _, in := range g.GetInput() {
		if _, ok := c.consts[in.GetName()]; !ok {
			inputs = append(inputs, in)
		}
	}
	rank2 := true
	for _, in := range inputs {
		dims := in.GetType().GetTensorType().GetShape().GetDim()
		rank2 = rank2 && len(dims) == 2
		if len(dims) > 0 {
			c.batch = dims[0].GetDimValue() // 0 when dynamic
		}
	}
	switch len(inputs) {
	case 1:
		c.cur, c.width = inputs[0].GetName(), len(m.Inputs)
		if v := lastDim(inputs[0]); v != 0 && v != int64(c.width) {
			return -1, c.bad("input %q has width %d: want %d, the inputs %s", clip(c.cur), v, c.width, short(m.Inputs))
		}
		c.setShape(rank2)
		return -1, nil
	case 2:
		order, at, out, err := joinInputs(g, inputs)
		if err != nil {
			return -1, c.bad("%v", err)
		}
		m.Inputs, c.cur, c.width = order, out, len(order)
		c.setShape(rank2)
		return at, nil
	}
	return -1, c.bad("%d input tensors: want one of shape [batch, 2] holding (x, r), or two named x and r of shape [batch, 1] joined by a Concat", len(inputs))
}

// maxNodes bounds a graph's node count: a chain of MaxLayers layers, each
// at most a weight Transpose, a Gemm or MatMul, an Add, an activation and a
// few no-ops.
const maxNodes = 8 * MaxLayers

// checkSSA checks ONNX's single-assignment rule and the order of a graph:
// every name is defined once (a graph input, an initializer, or one node
// output; an initializer may also be listed as a graph input, its default),
// and every node input is defined before the node, or is "" (an omitted
// optional input).
func checkSSA(g *onnxpb.GraphProto) error {
	defined := map[string]string{}
	def := func(name, what string) error {
		if name == "" {
			return fmt.Errorf("%s has an empty name", what)
		}
		if prev, ok := defined[name]; ok {
			return fmt.Errorf("%q is defined twice, by %s and by %s: ONNX names are assigned once", clip(name), prev, what)
		}
		defined[name] = what
		return nil
	}
	inits := map[string]bool{}
	for i, t := range g.GetInitializer() {
		if err := def(clip(t.GetName()), fmt.Sprintf("initializer %d", i)); err != nil {
			return err
		}
		inits[clip(t.GetName())] = true
	}
	for i, in := range g.GetInput() {
		if inits[in.GetName()] {
			continue
		}
		if err := def(in.GetName(), fmt.Sprintf("graph input %d", i)); err != nil {
			return err
		}
	}
	for i, n := range g.GetNode() {
		where := fmt.Sprintf("node %d (%q, op %s)", i, clip(n.GetName()), safefile.Path(clip(n.GetOpType())))
		for _, in := range n.GetInput() {
			if _, ok := defined[in]; in != "" && !ok {
				return fmt.Errorf("%s reads %q, which no graph input, initializer or earlier node defines", where, clip(in))
			}
		}
		if len(n.GetOutput()) == 0 {
			return fmt.Errorf("%s has no output", where)
		}
		for _, out := range n.GetOutput() {
			if err := def(out, where); err != nil {
				return err
			}
		}
	}
	return nil
}

// constantValue returns the tensor of a Constant node: exactly one output
// and one attribute, "value", of type TENSOR.
func constantValue(n *onnxpb.NodeProto) (*onnxpb.TensorProto, error) {
	if len(n.GetOutput()) != 1 || len(n.GetInput()) != 0 {
		return nil, fmt.Errorf("%d inputs and %d outputs: want none and one", len(n.GetInput()), len(n.GetOutput()))
	}
	as := n.GetAttribute()
	if len(as) != 1 || as[0].GetName() != "value" || as[0].GetT() == nil || !attrType(as[0], onnxpb.AttributeProto_TENSOR) {
		return nil, fmt.Errorf("want one attribute \"value\" holding a tensor (value_float and the other forms are not supported)")
	}
	return as[0].GetT(), nil
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
// Concat along the last axis. It returns the input names in the Concat's
// order (x's one-hot columns "x=0".."x=n−1" when x is n ≥ 2 wide), the
// Concat node's index and its output.
func joinInputs(g *onnxpb.GraphProto, inputs []*onnxpb.ValueInfoProto) ([]string, int, string, error) {
	names := map[string]bool{}
	xs := []string{"x"}
	for _, in := range inputs {
		n := in.GetName()
		if n != "x" && n != "r" {
			return nil, 0, "", fmt.Errorf("two input tensors %q and %q: name them x and r (input_names=[\"x\", \"r\"]), or pass one tensor [batch, 2]", inputs[0].GetName(), inputs[1].GetName())
		}
		v := lastDim(in)
		switch {
		case n == "x" && v >= 2 && v <= MaxXValues:
			xs = xs[:0]
			for k := range v {
				xs = append(xs, "x="+strconv.FormatInt(k, 10))
			}
		case v != 0 && v != 1:
			return nil, 0, "", fmt.Errorf("input %q has width %d: want 1 (x: 1, or between 2 and %d for a one-hot x)", n, v, MaxXValues)
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
		if ins[0] == "r" {
			return append([]string{"r"}, xs...), i, n.GetOutput()[0], nil
		}
		return append(xs, "r"), i, n.GetOutput()[0], nil
	}
	return nil, 0, "", fmt.Errorf("inputs x and r are not joined by a Concat of both along axis 1")
}

// onnxChain converts a chain of ONNX nodes into layers.
type onnxChain struct {
	bad    func(string, ...any) error
	consts map[string]*onnxpb.TensorProto
	cur    string // the tensor holding the chain's current activations
	width  int    // its width
	opset  int64  // the default domain's operator set version (0: none)
	// batch is the batch size the graph inputs declare (0: dynamic).
	batch int64
	// shape is the chain tensor's shape after its batch axis, [width] for
	// [batch, width], when known: the graph inputs declare their rank, or
	// a Gemm fixed it. lost: a Squeeze without axes made the rank depend
	// on the batch size; only elementwise operators may follow.
	shape       []int64
	known, lost bool
	layers      []Layer
	linear      bool // cur is the output of the last layer's affine map (no activation yet)
	// params and units count the parameters and hidden units so far.
	params, units int64
	// float32: some weight is a float tensor, so the network runs in
	// float32; float64: some weight is a double tensor.
	float32, float64 bool
	// folds has one entry per layer: what the reader folded into it.
	folds []fold
}

func (c *onnxChain) node(i int, n *onnxpb.NodeProto) error {
	op := n.GetOpType()
	where := fmt.Sprintf("node %d (%q, op %s)", i, clip(n.GetName()), safefile.Path(clip(op)))
	if op == "Constant" {
		return nil
	}
	if op == "Concat" {
		return c.bad("%s: a Concat other than the one joining the inputs x and r: the graph must be a chain of layers", where)
	}
	ins, outs := n.GetInput(), n.GetOutput()
	switch {
	case op == "BatchNormalization" && len(outs) > 1:
		return c.bad("%s: %d outputs (the batch statistics of training mode): BatchNormalization then normalizes by the batch's own statistics; call model.eval() before torch.onnx.export", where, len(outs))
	case len(outs) != 1 && !(op == "Dropout" && len(outs) == 2):
		return c.bad("%s: %d outputs: want one", where, len(outs))
	}
	if done, err := c.constant(where, n); done || err != nil {
		return err
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
	if op != "Add" && ins[0] != c.cur {
		return c.bad("%s: the chain %q must be its first input", where, clip(c.cur))
	}
	if err := c.checkShape(where, op); err != nil {
		return err
	}
	var err error
	switch op {
	case "Identity":
	case "Dropout":
		err = c.dropout(where, n, ins)
	case "Flatten", "Squeeze", "Unsqueeze", "Reshape":
		err = c.reshape(where, n, ins)
	case "Gemm":
		err = c.gemm(where, n, ins, cs)
	case "MatMul":
		err = c.matmul(where, ins, cs)
	case "Add":
		err = c.add(where, cs, 1)
	case "Sub":
		err = c.add(where, cs, -1)
	case "BatchNormalization":
		err = c.batchNorm(where, n, ins)
	case "Relu", "Sigmoid", "Tanh":
		err = c.activation(where, map[string]Activation{"Relu": ReLU, "Sigmoid": Sigmoid, "Tanh": Tanh}[op])
	case "LeakyRelu":
		err = c.leakyRelu(where, n)
	case "Clip":
		err = c.clipOp(where, n, ins)
	case "Softmax":
		err = c.softmax(where, n)
	case "Transpose":
		err = c.bad("%s: Transpose of the chain %q: only constant weights may be transposed", where, clip(c.cur))
	default: // checkOp lets through only the operators above
		err = c.bad("%s: operator %s is not supported", where, safefile.Path(clip(op)))
	}
	if err != nil {
		return err
	}
	c.cur = outs[0]
	return nil
}

// constant handles Identity or Transpose of a constant (shared or
// transposed weights), which is a constant: done reports that n was one.
func (c *onnxChain) constant(where string, n *onnxpb.NodeProto) (done bool, err error) {
	op, ins, outs := n.GetOpType(), n.GetInput(), n.GetOutput()
	if (op != "Identity" && op != "Transpose") || len(ins) != 1 {
		return false, nil
	}
	t, ok := c.consts[ins[0]]
	if !ok {
		if op == "Transpose" {
			return true, c.bad("%s: Transpose of the chain %q: only constant weights may be transposed", where, ins[0])
		}
		return false, nil
	}
	if op == "Transpose" {
		if t, err = c.transpose(where, n, t); err != nil {
			return true, err
		}
	}
	c.consts[outs[0]] = t
	return true, nil
}

// softmax makes the chain's last layer a softmax: over the chain's last
// axis, −1, or 1 on the [batch, m] chain (opset 13's per-axis softmax and
// the older 2-D coercion agree there; axis 0 would mix the batch).
func (c *onnxChain) softmax(where string, n *onnxpb.NodeProto) error {
	if ax, ok := intAttr(n, "axis"); ok && ax != 1 && ax != -1 {
		return c.bad("%s: axis %d: want the last axis (1 or -1)", where, ax)
	}
	if !c.canonical() {
		return c.bad("%s: Softmax on a chain whose shape is not known to be [batch, width]: over which axes it normalizes depends on the rank", where)
	}
	return c.activation(where, Softmax)
}

// gemm: Y = alpha·A·op(B) + beta·C with A the chain, op(B) = B or Bᵀ.
func (c *onnxChain) gemm(where string, n *onnxpb.NodeProto, ins []string, cs []*onnxpb.TensorProto) error {
	if len(ins) < 2 || len(ins) > 3 || ins[0] != c.cur {
		return c.bad("%s: want inputs A (the chain), B (a constant weight) and optionally C (a constant bias)", where)
	}
	if _, ok := c.consts[ins[1]]; !ok || len(cs) == 0 {
		return c.bad("%s: input B %q is not a constant weight", where, clip(ins[1]))
	}
	if len(ins) == 3 && ins[2] != "" {
		if _, ok := c.consts[ins[2]]; !ok {
			return c.bad("%s: input C %q is not a constant bias", where, clip(ins[2]))
		}
	}
	if ta, _ := intAttr(n, "transA"); ta != 0 {
		return c.bad("%s: transA = %d: the chain tensor [batch, width] cannot be transposed", where, ta)
	}
	alpha, beta := 1.0, 1.0
	if v, ok := floatAttr(n, "alpha"); ok {
		alpha = v
	}
	if alpha == 0 {
		// The runtime still forms A·B, then 0·(A·B): NaN where A·B
		// overflows, which W = 0 would hide.
		return c.bad("%s: alpha = 0: the layer ignores its input (and a runtime's 0·(A·B) is NaN where A·B overflows); drop the layer's weight", where)
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
	if err := c.grow(where, dims, tb != 0); err != nil {
		return err
	}
	w := matrix(b, dims, tb != 0, alpha)
	bias := make([]float64, len(w))
	// The runtime computes α·(A·B) + β·C: W = α·B hides the magnitude of
	// A·B (1/|α| times W·a) and both scalings round once more.
	f := fold{unscale: 1, biasMag: make([]float64, len(w))}
	if alpha != 1 {
		f.unscale, f.ops = 1/math.Abs(alpha), f.ops+1
	}
	if len(cs) > 1 {
		cv, cdims, err := c.tensor(where, "C", cs[1])
		if err != nil {
			return err
		}
		if len(cdims) == 2 && cdims[0] != 1 {
			// C broadcasts to [batch, out]: a [k, 1] C adds C_i to every
			// unit of batch row i (and fails unless the batch is k).
			return c.bad("%s: bias C of shape %v: want [width] or [1, width]", where, cdims)
		}
		if err := addBroadcast(bias, cv, beta); err != nil {
			return c.bad("%s: bias C: %v", where, err)
		}
		if beta != 1 {
			f.ops++
		}
	}
	for j, v := range bias {
		f.biasMag[j] = math.Abs(v)
	}
	c.push(Layer{W: w, B: bias})
	c.folds[len(c.folds)-1] = f
	if c.known { // Gemm's output is [batch, out]
		c.shape = []int64{int64(len(w))}
	}
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
	if err := c.grow(where, dims, false); err != nil {
		return err
	}
	w := matrix(b, dims, false, 1)
	c.push(Layer{W: w, B: make([]float64, len(w))})
	if c.known { // MatMul maps the last axis
		c.shape[len(c.shape)-1] = int64(len(w))
	}
	return nil
}

// add: the chain plus sign times a constant (Add, or Sub of a constant from
// the chain: negation is exact), folded into the last layer's bias when it
// has no activation yet, else a new identity-weight layer.
func (c *onnxChain) add(where string, cs []*onnxpb.TensorProto, sign float64) error {
	if len(cs) != 1 {
		return c.bad("%s: want the chain plus or minus a constant bias", where)
	}
	v, dims, err := c.tensor(where, "bias", cs[0])
	if err != nil {
		return err
	}
	for i := range v {
		v[i] *= sign
	}
	if len(dims) > 2 || len(dims) == 2 && dims[0] != 1 {
		// A higher-rank bias would broadcast the chain to that rank.
		return c.bad("%s: bias of shape %v: want [width] or [1, width]", where, dims)
	}
	if !c.open() {
		if err := c.identity(where); err != nil {
			return err
		}
	}
	last := len(c.layers) - 1
	if err := addBroadcast(c.layers[last].B, v, 1); err != nil {
		return c.bad("%s: %v", where, err)
	}
	// The runtime adds v to the layer's output: one more rounding, and the
	// bias parts are held apart (b = β·C + v hides their magnitudes).
	f := &c.folds[last]
	if f.biasMag == nil {
		f.biasMag = make([]float64, len(c.layers[last].B))
	}
	for j := range f.biasMag {
		f.biasMag[j] += math.Abs(v[min(j, len(v)-1)])
	}
	f.ops++
	return nil
}

// activation sets the last layer's activation, or appends an identity-weight
// layer when the chain is not the output of an affine map.
func (c *onnxChain) activation(where string, a Activation) error {
	if !c.linear {
		if err := c.identity(where); err != nil {
			return err
		}
	}
	c.layers[len(c.layers)-1].Act = a
	c.linear = false
	return nil
}

// identity appends an identity-weight layer of the chain's width, within
// the caps.
func (c *onnxChain) identity(where string) error {
	if err := c.grow(where, []int64{int64(c.width), int64(c.width)}, false); err != nil {
		return err
	}
	c.push(identityLayer(c.width))
	return nil
}

// grow checks, before anything is allocated, that a layer with weight dims
// (as stored: [in, out], or [out, in] when transposed) keeps the network
// within MaxLayers, MaxWidth, MaxParams and MaxUnits.
func (c *onnxChain) grow(where string, dims []int64, transposed bool) error {
	in, out := dims[0], dims[1]
	if transposed {
		in, out = out, in
	}
	if in != int64(c.width) {
		return c.bad("%s: weight of shape %v takes %d inputs, but the chain has width %d", where, dims, in, c.width)
	}
	if out < 1 || out > MaxWidth {
		return c.bad("%s: %d outputs: want between 1 and %d", where, out, MaxWidth)
	}
	if len(c.layers)+1 > MaxLayers {
		return c.bad("%s: more than %d layers", where, MaxLayers)
	}
	p := c.params + out*(in+1)
	if p > MaxParams {
		return c.bad("%s: more than %d parameters: too large to certify", where, MaxParams)
	}
	if u := c.units + int64(c.width); len(c.layers) > 0 && u > MaxUnits {
		return c.bad("%s: more than %d hidden units: at most %d can be certified (each is a kink of k(x, ·) for every x)", where, u, MaxUnits)
	}
	c.params = p
	if len(c.layers) > 0 {
		c.units += int64(c.width)
	}
	return nil
}

func (c *onnxChain) push(l Layer) {
	c.layers = append(c.layers, l)
	c.folds = append(c.folds, fold{unscale: 1})
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

// addBroadcast adds scale·v to dst, v of length len(dst) or 1. A zero dst
// takes scale·v as it is, so that a bias of −0 keeps its sign (0 + −0 is
// +0): WriteONNX's files read back bit for bit.
func addBroadcast(dst, v []float64, scale float64) error {
	add := func(j int, x float64) {
		if dst[j] == 0 {
			dst[j] = x
			return
		}
		dst[j] += x
	}
	switch len(v) {
	case len(dst):
		for j := range dst {
			add(j, scale*v[j])
		}
	case 1:
		for j := range dst {
			add(j, scale*v[0])
		}
	default:
		return fmt.Errorf("%d values for %d outputs: want %d or 1", len(v), len(dst), len(dst))
	}
	return nil
}

// tensor decodes a float or double tensor, stored inline (typed fields or
// raw little-endian bytes), and checks its size against its dims and that
// every entry is finite.
func (c *onnxChain) tensor(where, what string, t *onnxpb.TensorProto) ([]float64, []int64, error) {
	return c.values(where, what, t, true)
}

// values is tensor, refusing NaN always and infinite entries when finite.
func (c *onnxChain) values(where, what string, t *onnxpb.TensorProto, finite bool) ([]float64, []int64, error) {
	if t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return nil, nil, c.bad("%s: %s %q is stored in an external file: save the model with its weights inside", where, what, clip(t.GetName()))
	}
	if len(t.GetDims()) > 2 {
		return nil, nil, c.bad("%s: %s %q has shape %v: want at most 2 dimensions", where, what, clip(t.GetName()), t.GetDims())
	}
	n := int64(1)
	for _, d := range t.GetDims() {
		if d < 0 || d > MaxWidth {
			return nil, nil, c.bad("%s: %s %q has dimension %d: want between 0 and %d", where, what, clip(t.GetName()), d, MaxWidth)
		}
		n *= d
	}
	if n > MaxParams {
		return nil, nil, c.bad("%s: %s %q has %d entries: at most %d", where, what, clip(t.GetName()), n, MaxParams)
	}
	raw := t.GetRawData()
	var size, stored int64
	switch onnxpb.TensorProto_DataType(t.GetDataType()) {
	case onnxpb.TensorProto_FLOAT:
		size, stored = 4, int64(len(t.GetFloatData()))
		c.float32 = true
	case onnxpb.TensorProto_DOUBLE:
		size, stored = 8, int64(len(t.GetDoubleData()))
		c.float64 = true
	default:
		return nil, nil, c.bad("%s: %s %q has data type %v: want float or double", where, what, clip(t.GetName()), onnxpb.TensorProto_DataType(t.GetDataType()))
	}
	switch {
	case raw != nil && int64(len(raw)) != size*n:
		return nil, nil, c.bad("%s: %s %q has %d bytes for %d values of %d bytes (truncated?)", where, what, clip(t.GetName()), len(raw), n, size)
	case raw == nil && stored != n:
		return nil, nil, c.bad("%s: %s %q has %d values for shape %v", where, what, clip(t.GetName()), stored, t.GetDims())
	}
	v := make([]float64, n)
	for i := range v {
		switch {
		case size == 4 && raw != nil:
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		case size == 4:
			v[i] = float64(t.GetFloatData()[i])
		case raw != nil:
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		default:
			v[i] = t.GetDoubleData()[i]
		}
	}
	for i, x := range v {
		if math.IsNaN(x) || finite && math.IsInf(x, 0) {
			return nil, nil, c.bad("%s: %s %q entry %d is %v: weights must be finite", where, what, clip(t.GetName()), i, x)
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
	out := &onnxpb.TensorProto{Name: t.Name, Dims: []int64{dims[1], dims[0]}}
	// The same type as the weight (float values are exact as float32), so
	// the precision the graph runs in is unchanged.
	if onnxpb.TensorProto_DataType(t.GetDataType()) == onnxpb.TensorProto_FLOAT {
		out.DataType = proto.Int32(int32(onnxpb.TensorProto_FLOAT))
		out.FloatData = make([]float32, len(tv))
		for i, v := range tv {
			out.FloatData[i] = float32(v)
		}
		return out, nil
	}
	out.DataType, out.DoubleData = proto.Int32(int32(onnxpb.TensorProto_DOUBLE)), tv
	return out, nil
}

// attrSpecs lists the operators ParseONNX reads and, per operator, the
// attributes it reads and their types; any other attribute, or one of
// another type, is refused: it could change what the node computes.
var attrSpecs = map[string]map[string]onnxpb.AttributeProto_AttributeType{
	"MatMul": nil, "Add": nil, "Sub": nil, "Relu": nil, "Sigmoid": nil, "Tanh": nil, "Identity": nil,
	"Gemm":      {"alpha": onnxpb.AttributeProto_FLOAT, "beta": onnxpb.AttributeProto_FLOAT, "transA": onnxpb.AttributeProto_INT, "transB": onnxpb.AttributeProto_INT},
	"Flatten":   {"axis": onnxpb.AttributeProto_INT},
	"Squeeze":   {"axes": onnxpb.AttributeProto_INTS},
	"Unsqueeze": {"axes": onnxpb.AttributeProto_INTS},
	"Reshape":   {"allowzero": onnxpb.AttributeProto_INT},
	"Dropout":   {"ratio": onnxpb.AttributeProto_FLOAT, "seed": onnxpb.AttributeProto_INT, "is_test": onnxpb.AttributeProto_INT},
	"LeakyRelu": {"alpha": onnxpb.AttributeProto_FLOAT},
	"Clip":      {"min": onnxpb.AttributeProto_FLOAT, "max": onnxpb.AttributeProto_FLOAT},
	"BatchNormalization": {"epsilon": onnxpb.AttributeProto_FLOAT, "momentum": onnxpb.AttributeProto_FLOAT,
		"training_mode": onnxpb.AttributeProto_INT, "spatial": onnxpb.AttributeProto_INT, "is_test": onnxpb.AttributeProto_INT},
	"Softmax":   {"axis": onnxpb.AttributeProto_INT},
	"Concat":    {"axis": onnxpb.AttributeProto_INT},
	"Transpose": {"perm": onnxpb.AttributeProto_INTS},
	"Constant":  {"value": onnxpb.AttributeProto_TENSOR},
}

// checkAttrs refuses unknown, repeated or mistyped attributes.
func checkAttrs(n *onnxpb.NodeProto) error {
	spec := attrSpecs[n.GetOpType()]
	seen := map[string]bool{}
	for _, a := range n.GetAttribute() {
		want, ok := spec[a.GetName()]
		if !ok {
			return fmt.Errorf("attribute %q is not supported", clip(a.GetName()))
		}
		if seen[a.GetName()] {
			return fmt.Errorf("attribute %q is given twice", a.GetName())
		}
		seen[a.GetName()] = true
		if !attrType(a, want) {
			return fmt.Errorf("attribute %q has type %v: want %v", a.GetName(), a.GetType(), want)
		}
	}
	return nil
}

// attrType reports whether a has type want: declared so, or undeclared
// (older exporters) with only the field of that type set.
func attrType(a *onnxpb.AttributeProto, want onnxpb.AttributeProto_AttributeType) bool {
	if a.GetType() != onnxpb.AttributeProto_UNDEFINED {
		return a.GetType() == want
	}
	set := map[onnxpb.AttributeProto_AttributeType]bool{
		onnxpb.AttributeProto_FLOAT:  a.F != nil,
		onnxpb.AttributeProto_INT:    a.I != nil,
		onnxpb.AttributeProto_INTS:   len(a.GetInts()) > 0,
		onnxpb.AttributeProto_TENSOR: a.GetT() != nil,
	}
	for t, ok := range set {
		if ok != (t == want) {
			return false
		}
	}
	return len(a.GetFloats()) == 0 && a.S == nil && len(a.GetStrings()) == 0 && len(a.GetTensors()) == 0 && a.G == nil && len(a.GetGraphs()) == 0
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

// clip shortens a name taken from a file for a message (quoted with %q,
// which escapes it): messages never carry more than a short excerpt.
func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}
