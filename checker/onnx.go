package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ONNX networks, read as mmds reads them (docs/certify.md, "ONNX"): a chain
// of Gemm or MatMul (+ Add) layers and Relu, Sigmoid and Tanh activations
// (Identity, Flatten with axis 1, Constant and the Transpose of a constant
// are no computation), from one input of width 2 holding (x, r) in the
// order of the metadata entry "mmds.inputs", or two inputs named x and r
// joined by one Concat, to one output. The file is decoded by a protocol
// buffer reader of its own (below) that knows the few ONNX fields used.

// pb is a decoded protocol buffer message: per field number, its values in
// order (varints and fixed-width numbers as uint64, the rest as bytes).
type pb map[int][]any

// decodePB decodes one message, refusing malformed input and groups.
func decodePB(b []byte) pb {
	m := pb{}
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		rejectIf(n <= 0, "ONNX: malformed (a bad field key): truncated or not an ONNX file")
		b = b[n:]
		field, wire := int(key>>3), key&7
		var v any
		switch wire {
		case 0:
			x, n := binary.Uvarint(b)
			rejectIf(n <= 0, "ONNX: malformed varint")
			v, b = x, b[n:]
		case 1, 5:
			size := 8 - 4*int(wire/5)
			rejectIf(len(b) < size, "ONNX: truncated")
			// The size bytes, zero-extended to 8: a fixed32's bits in the low half.
			v, b = binary.LittleEndian.Uint64(append(b[:size:size], 0, 0, 0, 0)), b[size:]
		case 2:
			l, n := binary.Uvarint(b)
			rejectIf(n <= 0 || l > uint64(len(b)-n), "ONNX: truncated (a field runs past the end)")
			v, b = b[n:n+int(l)], b[n+int(l):]
		default:
			reject("ONNX: wire type %d is not read", wire)
		}
		m[field] = append(m[field], v)
	}
	return m
}

// one returns a field that ONNX has at most once (nil when absent); twice
// is refused: protocol buffers would merge or overwrite, and a file
// should mean one thing.
func (m pb) one(f int) any {
	switch len(m[f]) {
	case 0:
		return nil
	case 1:
		return m[f][0]
	}
	notCovered("ONNX: field %d given %d times", f, len(m[f]))
	return nil
}

func (m pb) str(f int) string {
	b, _ := m.one(f).([]byte)
	return string(b)
}

func (m pb) msg(f int) pb {
	b, ok := m.one(f).([]byte)
	if !ok {
		return pb{}
	}
	return decodePB(b)
}

func (m pb) msgs(f int) []pb {
	var out []pb
	for _, v := range m[f] {
		b, ok := v.([]byte)
		rejectIf(!ok, "ONNX: field %d is not a message", f)
		out = append(out, decodePB(b))
	}
	return out
}

func (m pb) strs(f int) []string {
	var out []string
	for _, v := range m[f] {
		b, _ := v.([]byte)
		out = append(out, string(b))
	}
	return out
}

func (m pb) int(f int) (int64, bool) {
	v, ok := m.one(f).(uint64)
	return int64(v), ok
}

// ints reads a repeated integer field, packed or not.
func (m pb) ints(f int) []int64 {
	var out []int64
	for _, v := range m[f] {
		switch x := v.(type) {
		case uint64:
			out = append(out, int64(x))
		case []byte:
			for len(x) > 0 {
				u, n := binary.Uvarint(x)
				rejectIf(n <= 0, "ONNX: malformed packed integers")
				out, x = append(out, int64(u)), x[n:]
			}
		}
	}
	return out
}

// fixed reads a repeated float (size 4) or double (size 8) field, packed
// or not.
func (m pb) fixed(f, size int) []float64 {
	var raw []byte // the values as packed little-endian bytes
	for _, v := range m[f] {
		if x, ok := v.([]byte); ok {
			raw = append(raw, x...)
		} else {
			raw = binary.LittleEndian.AppendUint64(raw, v.(uint64))[:len(raw)+size]
		}
	}
	rejectIf(len(raw)%size != 0, "ONNX: packed numbers of a bad length")
	out := make([]float64, 0, len(raw)/size)
	for i := 0; i < len(raw); i += size {
		if size == 4 {
			out = append(out, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))))
		} else {
			out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(raw[i:])))
		}
	}
	return out
}

// Field numbers of onnx.proto (IR 8).
const (
	modelGraph, modelOpset, modelMeta                             = 7, 8, 14
	graphNode, graphInit, graphInput, graphOutput                 = 1, 5, 11, 12
	nodeInput, nodeOutput, nodeName, nodeOp, nodeAttr, nodeDomain = 1, 2, 3, 4, 5, 7
	attrName, attrF, attrI, attrT, attrInts, attrType             = 1, 2, 3, 5, 8, 20
	tensorDims, tensorType, tensorFloat, tensorName, tensorRaw    = 1, 2, 4, 8, 9
	tensorDouble, tensorLocation                                  = 10, 14
)

// tensor is a constant: its values and dims, and whether it is float32.
type tensor struct {
	v    []float64
	dims []int64
	f32  bool
}

func readTensor(where string, t pb) tensor {
	if loc, _ := t.int(tensorLocation); loc == 1 {
		reject("%s: weights in an external file", where)
	}
	out := tensor{dims: t.ints(tensorDims)}
	n := int64(1)
	for _, d := range out.dims {
		rejectIf(d < 0 || d > 1<<14 || len(out.dims) > 2, "%s: shape %v", where, out.dims)
		n *= d
	}
	typ, _ := t.int(tensorType)
	size := map[int64]int{1: 4, 11: 8}[typ]
	rejectIf(size == 0, "%s: data type %d: want float or double", where, typ)
	out.f32 = size == 4
	if raw, ok := t.one(tensorRaw).([]byte); ok {
		out.v = pb{0: {raw}}.fixed(0, size)
	} else {
		out.v = t.fixed(map[int]int{4: tensorFloat, 8: tensorDouble}[size], size)
	}
	rejectIf(int64(len(out.v)) != n, "%s: %d values for shape %v (truncated?)", where, len(out.v), out.dims)
	for _, v := range out.v {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			reject("%s: a weight is not finite", where)
		}
	}
	return out
}

// attrs reads a node's attributes, allowing only those mmds reads for its
// operator: name → the attribute.
func attrs(where, op string, n pb) map[string]pb {
	allowed := map[string][]string{"Gemm": {"alpha", "beta", "transA", "transB"}, "Flatten": {"axis"},
		"Softmax": {"axis"}, "Concat": {"axis"}, "Transpose": {"perm"}, "Constant": {"value"}, "LeakyRelu": {"alpha"},
		"Clip": {"min", "max"}, "Squeeze": {"axes"}, "Unsqueeze": {"axes"}, "Reshape": {"allowzero"}, "Dropout": {"seed", "ratio", "is_test"},
		"BatchNormalization": {"epsilon", "momentum", "training_mode", "spatial", "is_test"}}[op]
	out := map[string]pb{}
	for _, a := range n.msgs(nodeAttr) {
		name := a.str(attrName)
		rejectIf(!strings.Contains(" "+strings.Join(allowed, " ")+" ", " "+name+" ") || out[name] != nil, "%s: attribute %s is not read (or given twice)", where, quote(name))
		out[name] = a
	}
	return out
}

// parseONNX converts an ONNX file into a network.
func parseONNX(name string, b []byte) *network {
	model := decodePB(b)
	g := model.msg(modelGraph)
	rejectIf(len(g[graphNode]) == 0 || len(model[modelOpset]) == 0, "%s: no graph or no opset_import: truncated, or not an ONNX model", printable(name))
	n := &network{name: name, inputs: []string{"x", "r"}}
	for _, p := range model.msgs(modelMeta) {
		if p.str(1) == "mmds.inputs" {
			n.inputs = strings.Split(strings.ReplaceAll(p.str(2), " ", ""), ",")
		}
	}
	c := &chain{n: n, consts: map[string]tensor{}, ints: map[string][]int64{}, defined: map[string]bool{}}
	for _, o := range model.msgs(modelOpset) {
		if d := o.str(1); d == "" || d == "ai.onnx" {
			c.opset, _ = o.int(2)
		}
	}
	for i, t := range g.msgs(graphInit) {
		c.define(fmt.Sprintf("initializer %d", i), t.str(tensorName))
		c.constant(name, t.str(tensorName), t)
	}
	nodes := g.msgs(graphNode)
	rejectIf(len(nodes) > 8*256, "%s: %d nodes", printable(name), len(nodes))
	skip := c.start(g, nodes)
	for i, nd := range nodes {
		where := fmt.Sprintf("%s: node %d (%s)", printable(name), i, quote(nd.str(nodeOp)))
		for _, in := range nd.strs(nodeInput) {
			rejectIf(in != "" && !c.defined[in], "%s reads %s, which nothing defines before it", where, quote(in))
		}
		rejectIf(len(nd.strs(nodeOutput)) == 0, "%s has no output", where)
		for _, out := range nd.strs(nodeOutput) {
			c.define(where, out)
		}
		if i != skip {
			c.node(where, nd)
		}
	}
	if outs := g.msgs(graphOutput); len(outs) != 1 || outs[0].str(1) != c.cur {
		reject("%s: the graph's one output must be the end of the chain", printable(name))
	}
	rejectIf(c.f32 && c.f64, "%s: mixes float and double weights", printable(name))
	n.f32 = !c.f64
	n.validate()
	return n
}

// chain converts a chain of ONNX nodes into layers.
type chain struct {
	n        *network
	consts   map[string]tensor
	ints     map[string][]int64 // int64 constants: axes and shapes
	defined  map[string]bool
	cur      string // the tensor the chain's activations flow through
	linear   bool   // cur is the last layer's affine map, no activation yet
	rank1    bool   // cur is [batch] (width 1, squeezed), else [batch, width]
	opset    int64
	f32, f64 bool
}

// constant records a constant tensor: int64 (axes, shapes) or weights.
func (c *chain) constant(where, name string, t pb) {
	typ, _ := t.int(tensorType)
	if typ != 7 && typ != 9 {
		c.consts[name] = readTensor(where, t)
		return
	}
	size := map[int64]int{7: 8, 9: 1}[typ] // int64, or bool (a Dropout's training_mode)
	v := t.ints(map[int64]int{7: 7, 9: 5}[typ])
	if raw, ok := t.one(tensorRaw).([]byte); ok {
		rejectIf(len(raw)%size != 0 || len(raw) > 64, "%s: an integer tensor of %d bytes", where, len(raw))
		for v = nil; len(raw) > 0; raw = raw[size:] {
			v = append(v, int64(binary.LittleEndian.Uint64(append(raw[:size:size], make([]byte, 8-size)...))))
		}
	}
	c.ints[name] = v
}

// width is the chain's width.
func (c *chain) width() int {
	if len(c.n.layers) > 0 {
		return len(c.n.layers[len(c.n.layers)-1].w)
	}
	return len(c.n.inputs)
}

// define enforces ONNX's single assignment: every name once.
func (c *chain) define(where, name string) {
	rejectIf(name == "" || c.defined[name], "%s: the name %s is empty or defined twice", where, quote(name))
	c.defined[name] = true
}

// start finds the chain's input: one graph input that is not a weight, of
// width len(inputs), or x and r joined by a Concat (whose index it
// returns, −1 otherwise).
func (c *chain) start(g pb, nodes []pb) int {
	var ins []pb
	for _, in := range g.msgs(graphInput) {
		if _, ok := c.consts[in.str(1)]; !ok && c.ints[in.str(1)] == nil {
			ins = append(ins, in)
			c.define("a graph input", in.str(1))
		}
	}
	lastDim := func(v pb) int64 {
		dims := v.msg(2).msg(1).msg(2).msgs(1)
		if len(dims) == 0 {
			return 0
		}
		d, _ := dims[len(dims)-1].int(1)
		return d
	}
	switch {
	case len(ins) == 1:
		c.cur = ins[0].str(1)
		if d := lastDim(ins[0]); d != 0 && d != int64(len(c.n.inputs)) {
			reject("%s: input of width %d: want %d, the inputs %q", printable(c.n.name), d, len(c.n.inputs), c.n.inputs)
		}
		return -1
	case len(ins) == 2:
		xs := []string{"x"}
		for _, in := range ins {
			if d := lastDim(in); in.str(1) == "x" && d >= 2 {
				xs = xs[:0]
				for k := range d {
					xs = append(xs, "x="+strconv.FormatInt(k, 10))
				}
			}
		}
		for i, nd := range nodes {
			in := nd.strs(nodeInput)
			if nd.str(nodeOp) == "Concat" && len(in) == 2 && (in[0]+in[1] == "xr" || in[0]+in[1] == "rx") {
				ax := attrs("Concat", "Concat", nd)["axis"]
				if v, _ := ax.int(attrI); ax == nil || (v != 1 && int64(v) != -1) {
					reject("%s: Concat of x and r not along axis 1", printable(c.n.name))
				}
				c.n.inputs, c.cur = append(xs, "r"), nd.strs(nodeOutput)[0]
				if in[0] == "r" {
					c.n.inputs = append([]string{"r"}, xs...)
				}
				return i
			}
		}
	}
	reject("%s: want one input [batch, 2] or inputs x and r joined by a Concat", printable(c.n.name))
	return -1
}

func (c *chain) node(where string, nd pb) {
	op := nd.str(nodeOp)
	if d := nd.str(nodeDomain); d != "" && d != "ai.onnx" {
		reject("%s: operator domain %s", where, quote(d))
	}
	notCoveredIf(!strings.Contains(" Gemm MatMul Add Sub BatchNormalization Relu LeakyRelu Clip Sigmoid Tanh Softmax Identity Dropout Flatten Squeeze Unsqueeze Reshape Constant Transpose ", " "+op+" "), "%s: operator %s (this version reads what mmds reads: Gemm, MatMul, Add, Sub, BatchNormalization, Relu, LeakyRelu, Clip, Sigmoid, Tanh, Softmax (last), Identity, Dropout, Flatten, Squeeze, Unsqueeze, Reshape, Constant and Transpose)", where, quote(op))
	at := attrs(where, op, nd)
	ins, outs := nd.strs(nodeInput), nd.strs(nodeOutput)
	if op == "Constant" {
		if t, ok := at["value"]; ok && len(at) == 1 && len(ins) == 0 && len(outs) == 1 {
			c.constant(where, outs[0], t.msg(attrT))
			return
		}
		reject("%s: want one attribute value holding a tensor", where)
	}
	if t, ok := c.consts[first(ins)]; ok && len(ins) == 1 && (op == "Identity" || op == "Transpose") {
		if op == "Transpose" {
			if p := at["perm"]; p != nil && fmt.Sprint(p.ints(attrInts)) != "[1 0]" || len(t.dims) != 2 {
				reject("%s: only the transpose of a matrix", where)
			}
			t = transposed(t)
		}
		c.consts[outs[0]] = t
		return
	}
	rejectIf(len(ins) == 0 || ins[0] != c.cur || len(outs) != 1, "%s: the graph must be a chain through %s", where, quote(c.cur))
	c.cur = outs[0]
	switch op {
	case "Squeeze", "Unsqueeze", "Reshape", "Dropout":
		c.reshape(where, op, at, ins)
		return
	case "Clip":
		c.clip(where, at, ins)
		return
	}
	var cs []tensor
	for _, in := range ins[1:] {
		if in != "" {
			t, ok := c.consts[in]
			rejectIf(!ok, "%s: the graph must be a chain (%s is not a constant)", where, quote(in))
			cs = append(cs, t)
		}
	}
	notCoveredIf(c.rank1 && (op == "Gemm" || op == "MatMul" || op == "BatchNormalization"), "%s: %s after a Squeeze or Reshape to [batch]", where, op)
	switch op {
	case "Identity":
	case "Flatten": // [batch, width] stays; [batch] becomes [batch, 1]
		if a := at["axis"]; a != nil {
			if v, _ := a.int(attrI); v != 1 {
				reject("%s: only axis 1", where)
			}
		}
		c.rank1 = false
	case "Gemm":
		c.gemm(where, at, cs)
	case "MatMul":
		rejectIf(len(cs) != 1 || len(cs[0].dims) != 2, "%s: want the chain times a constant matrix", where)
		c.push(where, cs[0], false, nil)
	case "Add", "Sub": // of a constant; negation is exact
		if len(cs) == 1 && op == "Sub" {
			cs[0].v = negated(cs[0].v)
		}
		if c.rank1 && (len(cs) != 1 || len(cs[0].dims) > 1) {
			notCovered("%s: %s of a constant of shape %v to [batch] (it broadcasts the chain)", where, op, cs[0].dims)
		}
		c.add(where, cs)
	case "BatchNormalization":
		c.batchNorm(where, at, cs)
	case "Relu", "Sigmoid", "Tanh":
		c.activation(where, strings.ToLower(op))
	case "LeakyRelu":
		alpha := float32(0.01)
		if a := at["alpha"]; a != nil {
			v, _ := a.one(attrF).(uint64)
			alpha = math.Float32frombits(uint32(v))
		}
		c.leaky(where, float64(alpha))
	case "Softmax": // over the last axis of [batch, width]
		if a := at["axis"]; a != nil {
			if v, _ := a.int(attrI); v != 1 && v != -1 {
				reject("%s: only axis 1 or -1", where)
			}
		}
		notCoveredIf(c.rank1, "%s: Softmax of [batch]", where)
		c.activation(where, "softmax")
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func transposed(t tensor) tensor {
	d0, d1 := int(t.dims[0]), int(t.dims[1])
	v := make([]float64, len(t.v))
	for i := range d0 {
		for j := range d1 {
			v[j*d0+i] = t.v[i*d1+j]
		}
	}
	return tensor{v: v, dims: []int64{t.dims[1], t.dims[0]}, f32: t.f32}
}

// gemm: Y = α·A·op(B) + β·C, folded as mmds folds it: W = α·B, b = β·C
// in float64. The runtime computes α·(A·B) + β·C: each scaling is one more
// rounding of the unit (two in a float64 network, whose float64 fold
// rounds at the runtime's own unit; in float32, γ's second-order slack
// covers the fold), A·B's magnitude is |W·a|/|α|, and its products'
// underflow is scaled by |α|. A fold product that is subnormal is not
// covered (its rounding is absolute).
func (c *chain) gemm(where string, at map[string]pb, cs []tensor) {
	scale := func(k string) float64 {
		if a := at[k]; a != nil {
			v, _ := a.one(attrF).(uint64)
			return float64(math.Float32frombits(uint32(v)))
		}
		return 1
	}
	alpha, beta := scale("alpha"), scale("beta")
	rejectIf(alpha == 0 || math.IsNaN(alpha) || math.IsInf(alpha, 0) || math.IsNaN(beta) || math.IsInf(beta, 0), "%s: Gemm with alpha %v and beta %v: want alpha ≠ 0, both finite", where, alpha, beta)
	fold := func(t tensor, f float64) tensor {
		if f == 1 {
			return t
		}
		v := make([]float64, len(t.v))
		for i, x := range t.v {
			if v[i] = f * x; v[i] != 0 && math.Abs(v[i]) < 0x1p-1022 || math.IsInf(v[i], 0) {
				notCovered("%s: Gemm's scaled weight %v·%v is subnormal or beyond float64", where, f, x)
			}
		}
		return tensor{v: v, dims: t.dims, f32: t.f32}
	}
	extra := map[bool]int{true: 1, false: 2}[!c.f64 && (len(cs) == 0 || cs[0].f32)]
	if a := at["transA"]; a != nil {
		if v, _ := a.int(attrI); v != 0 {
			reject("%s: transA must be 0", where)
		}
	}
	tb := int64(0)
	if a := at["transB"]; a != nil {
		tb, _ = a.int(attrI)
	}
	rejectIf(len(cs) == 0 || len(cs[0].dims) != 2, "%s: want a constant weight matrix B", where)
	var bias *tensor
	if len(cs) > 1 {
		rejectIf(len(cs[1].dims) == 2 && cs[1].dims[0] != 1, "%s: bias C of shape %v: want [width] or [1, width]", where, cs[1].dims)
		t := fold(cs[1], beta)
		bias = &t
	}
	c.weight(cs[0])
	c.push(where, fold(cs[0], alpha), tb != 0, bias)
	ly := &c.n.layers[len(c.n.layers)-1]
	if ly.alpha = math.Abs(alpha); alpha != 1 {
		ly.ops += extra
	}
	if beta != 1 && bias != nil {
		ly.ops += extra
	}
}

// push appends the linear layer of weight B ([in, out], or [out, in] when
// transposed) and bias.
func (c *chain) push(where string, w tensor, trans bool, bias *tensor) {
	c.weight(w)
	if !trans {
		w = transposed(w)
	}
	out, in := int(w.dims[0]), int(w.dims[1])
	if width := c.width(); in != width {
		reject("%s: a weight taking %d inputs on a chain of width %d", where, in, c.width())
	}
	ly := layer{act: "identity", b: make([]float64, out), bmag: make([]float64, out)}
	for j := range out {
		ly.w = append(ly.w, w.v[j*in:(j+1)*in:(j+1)*in])
	}
	c.n.layers, c.linear = append(c.n.layers, ly), true
	if bias != nil {
		c.bias(where, *bias, false)
	}
}

// add adds a constant to the last layer's output: its bias when it has no
// activation yet (one more rounding), else through an identity layer.
func (c *chain) add(where string, cs []tensor) {
	rejectIf(len(cs) != 1 || len(cs[0].dims) > 2 || len(cs[0].dims) == 2 && cs[0].dims[0] != 1, "%s: want a constant bias [width] or [1, width]", where)
	if !c.open() {
		c.identity(where)
	}
	c.n.layers[len(c.n.layers)-1].virtual = false // the runtime adds: one rounding
	c.bias(where, cs[0], true)
}

// bias adds v (one value per unit, or one for all) to the last layer's
// bias; the parts' magnitudes add up in bmag, and each folded Add is one
// more rounding. The bias is their float64 sum: where it is not exact, the
// network the checker walks differs from the graph's by at most u'·|sum|
// (u' = 2⁻⁵³) in that unit, which berr adds to the unit's error bound.
func (c *chain) bias(where string, v tensor, folded bool) {
	c.weight(v)
	ly := &c.n.layers[len(c.n.layers)-1]
	rejectIf(len(v.v) != len(ly.b) && len(v.v) != 1, "%s: %d bias values for %d units", where, len(v.v), len(ly.b))
	for j := range ly.b {
		x := v.v[min(j, len(v.v)-1)]
		s := ly.b[j] + x
		if add(exact(ly.b[j]), exact(x)).Cmp(exact(s)) != 0 {
			ly.berr = append(ly.berr, make([]float64, len(ly.b)-len(ly.berr))...)
			ly.berr[j] = up(ly.berr[j] + up(0x1p-53*math.Abs(s)+0x1p-1074))
		}
		ly.b[j], ly.bmag[j] = s, ly.bmag[j]+math.Abs(x)
		if ly.bn != nil { // a lowered Clip's shift of a normalized unit
			ly.bn[j].beta = up(ly.bn[j].beta + math.Abs(x))
		}
	}
	if folded {
		ly.ops++
	}
}

func (c *chain) activation(where, act string) {
	if !c.linear {
		c.identity(where)
	}
	c.n.layers[len(c.n.layers)-1].act = act
	c.linear = false
}

// identity appends an identity-weight layer of the chain's width.
func (c *chain) identity(where string) {
	w := c.width()
	rejectIf(w*w > 1<<22, "%s: an identity layer of width %d: more than 2²² parameters", where, w)
	t := tensor{v: make([]float64, w*w), dims: []int64{int64(w), int64(w)}, f32: !c.f64}
	for j := range w {
		t.v[j*w+j] = 1
	}
	c.push(where, t, true, nil)
}

// weight records a weight's precision.
func (c *chain) weight(t tensor) {
	c.f32, c.f64 = c.f32 || t.f32, c.f64 || !t.f32
}
