package network

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// The operators torch.onnx.export writes around nn.Linear: nn.BatchNorm1d
// (BatchNormalization), nn.LeakyReLU, nn.ReLU6, nn.Hardtanh and torch.clamp
// (LeakyRelu, Clip), nn.Flatten, squeeze, unsqueeze and view (Flatten,
// Squeeze, Unsqueeze, Reshape), and nn.Dropout (removed in eval mode,
// Dropout in graphs written otherwise).

// supportedText lists the operators ParseONNX reads (attrSpecs) for
// messages.
const supportedText = "Gemm, MatMul, Add, Sub (of a constant), BatchNormalization, Relu, LeakyRelu, Clip, Sigmoid, Tanh, Softmax (last), " +
	"Identity, Dropout, Flatten, Squeeze, Unsqueeze, Reshape, Constant, Transpose (of a weight), Concat (of x and r)"

// exportFix is the fix every refused operator's message ends with.
const exportFix = `export a network built from nn.Linear, nn.BatchNorm1d and the activations listed (docs/certify.md, "Export checklist")`

// opHints says what usually writes an operator and how to avoid it.
var opHints = map[string]string{
	"Shape":  "x.view(x.size(0), -1) computes its shape at run time: write x.flatten(1) or nn.Flatten()",
	"Gather": "x.view(x.size(0), -1) computes its shape at run time: write x.flatten(1) or nn.Flatten()",
	"Cast":   "a dtype conversion inside the graph: export the model and its example input in one dtype",
	"Mul":    "arithmetic on the chain: fold constant scales into the nn.Linear layers before export",
	"Div":    "arithmetic on the chain: fold constant scales into the nn.Linear layers before export",
	"Neg":    "arithmetic on the chain: fold constant scales into the nn.Linear layers before export",
	"Max":    "an elementwise max or min of the chain and a constant: write torch.clamp, which exports Clip",
	"Min":    "an elementwise max or min of the chain and a constant: write torch.clamp, which exports Clip",
	"HardSigmoid": "hardsigmoid(z) = clamp(z/6 + 1/2, 0, 1): fold the 1/6 and 1/2 into the nn.Linear before it and " +
		"write torch.clamp",
}

// checkOp refuses a node whose operator ParseONNX does not read, before
// anything is read: the message names the operator, those supported and the
// fix (the caller names the node).
func checkOp(n *onnxpb.NodeProto) error {
	op := safefile.Path(clip(n.GetOpType()))
	if d := n.GetDomain(); d != "" && d != "ai.onnx" {
		return fmt.Errorf("is %s of domain %q: supported operators are %s, of the default domain; %s", op, clip(d), supportedText, exportFix)
	}
	if _, ok := attrSpecs[n.GetOpType()]; ok {
		return nil
	}
	fix := exportFix
	if h, ok := opHints[n.GetOpType()]; ok {
		fix = h + "; " + exportFix
	}
	return fmt.Errorf("is %s: supported operators are %s; %s", op, supportedText, fix)
}

// defaultOpset is the version of the default operator set a model imports
// (0 when it imports none).
func defaultOpset(mp *onnxpb.ModelProto) int64 {
	for _, o := range mp.GetOpsetImport() {
		if d := o.GetDomain(); d == "" || d == "ai.onnx" {
			return o.GetVersion()
		}
	}
	return 0
}

// setShape starts the chain's shape at [batch, width], known when the graph
// inputs declare their rank.
func (c *onnxChain) setShape(known bool) {
	c.shape, c.known = []int64{int64(c.width)}, known
}

// canonical reports that the chain is known to be [batch, width].
func (c *onnxChain) canonical() bool {
	return c.known && !c.lost && len(c.shape) == 1
}

// open reports that the chain is the output of the last layer's affine map
// and that more may be folded into it: no activation yet, no batch
// normalization folded (whose runtime order a further fold would hide).
func (c *onnxChain) open() bool {
	return c.linear && c.folds[len(c.folds)-1].bn == nil
}

// lastAct is the last layer's activation when the chain is its output
// (Identity when it is an affine map's output or there is no layer).
func (c *onnxChain) lastAct() Activation {
	if c.linear || len(c.layers) == 0 {
		return Identity
	}
	return c.layers[len(c.layers)-1].Act
}

func (c *onnxChain) shapeText() string {
	if !c.known || c.lost {
		return "unknown"
	}
	s := "[batch"
	for _, d := range c.shape {
		s += fmt.Sprintf(", %d", d)
	}
	return s + "]"
}

// checkShape refuses an operator whose meaning depends on the chain's shape
// when that shape is not one it reads as a batch of unit vectors. An
// elementwise operator acts on each value alone, whatever the shape.
func (c *onnxChain) checkShape(where, op string) error {
	switch op {
	case "Identity", "Dropout", "Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip":
		return nil
	}
	if c.lost {
		return c.bad("%s: follows a Squeeze without axes, after which the chain's rank depends on the batch size (a batch of one loses its batch axis): give the Squeeze its axes (x.squeeze(-1))", where)
	}
	switch op {
	case "Gemm":
		if c.known && len(c.shape) != 1 {
			return c.bad("%s: Gemm of a chain of shape %s: Gemm takes [batch, width]", where, c.shapeText())
		}
	case "MatMul", "Add", "Sub":
		if c.known && len(c.shape) == 0 {
			return c.bad("%s: %s of a chain of shape [batch]: its units must be its last axis (x.unsqueeze(-1) restores [batch, 1])", where, op)
		}
	case "BatchNormalization":
		if !c.canonical() {
			return c.bad("%s: BatchNormalization of a chain of shape %s: want [batch, width], the units on axis 1", where, c.shapeText())
		}
	case "Flatten", "Squeeze", "Unsqueeze", "Reshape":
		if !c.known {
			return c.bad("%s: %s of a chain whose rank the graph inputs do not declare: declare them [batch, width]", where, op)
		}
	}
	return nil
}

// maxRank bounds the rank of the chain and of the shapes and axes that
// Squeeze, Unsqueeze and Reshape give.
const maxRank = 16

// reshape applies Flatten, Squeeze, Unsqueeze or Reshape to the chain's
// shape. Each moves no value: it is read when the batch axis stays first
// and alone, so that every batch row still holds one sample's units.
func (c *onnxChain) reshape(where string, n *onnxpb.NodeProto, ins []string) error {
	var out []int64
	var err error
	switch n.GetOpType() {
	case "Flatten":
		ax, ok := intAttr(n, "axis")
		if !ok {
			ax = 1
		}
		out, err = flattenShape(c.shape, ax)
	case "Squeeze", "Unsqueeze":
		var axes []int64
		if axes, err = c.axes(where, n, ins); err != nil {
			return err
		}
		if n.GetOpType() == "Unsqueeze" {
			out, err = unsqueezeShape(c.shape, axes)
			break
		}
		if len(axes) == 0 {
			// Every axis of size 1 goes, the batch axis of a batch of one
			// too: the values stay, the rank is no longer known.
			c.lost, c.shape = true, nil
			return nil
		}
		out, err = squeezeShape(c.shape, axes)
	case "Reshape":
		if len(ins) != 2 {
			return c.bad("%s: %d inputs: want the chain and a constant shape", where, len(ins))
		}
		var target []int64
		if target, err = c.ints(where, "shape", ins[1]); err != nil {
			return err
		}
		az, _ := intAttr(n, "allowzero")
		out, err = reshapeShape(c.shape, target, az != 0, c.batch)
	}
	if err != nil {
		return c.bad("%s: %v", where, err)
	}
	c.shape = out
	return nil
}

// axes reads the axes of a Squeeze or Unsqueeze: the attribute (opset < 13)
// or the second input (opset ≥ 13); none for a Squeeze without them.
func (c *onnxChain) axes(where string, n *onnxpb.NodeProto, ins []string) ([]int64, error) {
	var attr []int64
	has := false
	for _, a := range n.GetAttribute() {
		if a.GetName() == "axes" {
			attr, has = a.GetInts(), true
		}
	}
	switch {
	case len(ins) > 2:
		return nil, c.bad("%s: %d inputs: want the chain and its axes", where, len(ins))
	case len(ins) == 2 && ins[1] != "" && has:
		return nil, c.bad("%s: axes given both as an attribute and as an input", where)
	case len(ins) == 2 && ins[1] != "":
		return c.ints(where, "axes", ins[1])
	case !has && n.GetOpType() == "Unsqueeze":
		return nil, c.bad("%s: no axes: Unsqueeze needs them", where)
	}
	if len(attr) > maxRank {
		return nil, c.bad("%s: %d axes: at most %d", where, len(attr), maxRank)
	}
	return attr, nil
}

// normAxis returns axis a of a tensor of the given rank (batch axis
// included) as an index ≥ 0, or an error.
func normAxis(a int64, rank int) (int, error) {
	if a < -int64(rank) || a >= int64(rank) {
		return 0, fmt.Errorf("axis %d is out of range for a tensor of rank %d", a, rank)
	}
	if a < 0 {
		a += int64(rank)
	}
	return int(a), nil
}

// flattenShape is Flatten(axis) of [batch] ++ shape: [Π dims before axis,
// Π dims from axis]; the first factor must be the batch alone.
func flattenShape(shape []int64, axis int64) ([]int64, error) {
	if axis < -int64(len(shape)+1) || axis > int64(len(shape)+1) {
		return nil, fmt.Errorf("axis %d is out of range for a tensor of rank %d", axis, len(shape)+1)
	}
	if axis < 0 {
		axis += int64(len(shape) + 1)
	}
	if axis == 0 {
		return nil, fmt.Errorf("axis 0 merges the batch axis into the units: use axis 1 (x.flatten(1), nn.Flatten())")
	}
	outer, inner := int64(1), int64(1)
	for i, d := range shape {
		if int64(i) < axis-1 {
			outer *= d
		} else {
			inner *= d
		}
	}
	if outer != 1 {
		return nil, fmt.Errorf("axis %d merges axes of the units into the batch axis: use axis 1 (x.flatten(1), nn.Flatten())", axis)
	}
	return []int64{inner}, nil
}

// squeezeShape removes the given axes (each of size 1, never the batch
// axis 0) from [batch] ++ shape.
func squeezeShape(shape []int64, axes []int64) ([]int64, error) {
	drop := map[int]bool{}
	for _, a := range axes {
		i, err := normAxis(a, len(shape)+1)
		if err != nil {
			return nil, err
		}
		switch {
		case i == 0:
			return nil, fmt.Errorf("axes %v squeeze the batch axis 0: keep it (x.squeeze(-1) squeezes the units' axis)", axes)
		case drop[i]:
			return nil, fmt.Errorf("axis %d is given twice", a)
		case shape[i-1] != 1:
			return nil, fmt.Errorf("axis %d has size %d: only an axis of size 1 can be squeezed", a, shape[i-1])
		}
		drop[i] = true
	}
	var out []int64
	for i, d := range shape {
		if !drop[i+1] {
			out = append(out, d)
		}
	}
	return out, nil
}

// unsqueezeShape inserts axes of size 1 into [batch] ++ shape, never before
// the batch axis.
func unsqueezeShape(shape []int64, axes []int64) ([]int64, error) {
	rank := len(shape) + 1 + len(axes)
	if rank > maxRank {
		return nil, fmt.Errorf("a tensor of rank %d: at most %d", rank, maxRank)
	}
	ins := map[int]bool{}
	for _, a := range axes {
		i, err := normAxis(a, rank)
		if err != nil {
			return nil, err
		}
		switch {
		case i == 0:
			return nil, fmt.Errorf("axes %v insert an axis before the batch axis: keep the batch axis first (x.unsqueeze(-1))", axes)
		case ins[i]:
			return nil, fmt.Errorf("axis %d is given twice", a)
		}
		ins[i] = true
	}
	out := make([]int64, 0, rank-1)
	k := 0
	for i := 1; i < rank; i++ {
		if ins[i] {
			out = append(out, 1)
		} else {
			out = append(out, shape[k])
			k++
		}
	}
	return out, nil
}

// reshapeShape is Reshape of [batch] ++ shape to target (0 copies an axis
// unless allowzero, −1 is inferred): the first axis of the result must be
// the batch — copied (0), inferred (−1, the others holding exactly the
// units), or the batch size the graph declares — and the others must hold
// the chain's units. The view(-1) of a [batch, 1] chain is [batch].
func reshapeShape(shape, target []int64, allowzero bool, batch int64) ([]int64, error) {
	width := int64(1)
	for _, d := range shape {
		width *= d
	}
	fix := "keep the batch axis first: x.flatten(1), x.reshape(-1, width) or, for one unit, x.squeeze(-1)"
	if len(target) == 0 || len(target) > maxRank {
		return nil, fmt.Errorf("shape %v: want 1 to %d entries, the batch axis first; %s", target, maxRank, fix)
	}
	out := make([]int64, len(target))
	infer := -1
	for i, t := range target {
		switch {
		case t == 0 && allowzero:
			return nil, fmt.Errorf("shape %v has an axis of size 0 (allowzero): an empty tensor", target)
		case t == 0 && i > len(shape):
			return nil, fmt.Errorf("shape %v copies axis %d (entry 0), which a tensor of rank %d has not", target, i, len(shape)+1)
		case t == 0 && i == 0:
			out[i] = -2 // the batch
		case t == 0:
			out[i] = shape[i-1]
		case t == -1 && infer >= 0:
			return nil, fmt.Errorf("shape %v has two entries −1", target)
		case t == -1:
			infer = i
		case t < -1 || t > MaxWidth:
			return nil, fmt.Errorf("shape %v: entry %d is %d", target, i, t)
		default:
			out[i] = t
		}
	}
	switch {
	case out[0] == -2, infer == 0:
	case batch > 0 && target[0] == batch:
	default:
		return nil, fmt.Errorf("shape %v: its first entry %d is not the batch axis (0, −1, or the batch size the graph declares); %s", target, target[0], fix)
	}
	prod := int64(1)
	for i, d := range out[1:] {
		if i+1 == infer {
			continue
		}
		if prod *= d; prod > width {
			return nil, fmt.Errorf("shape %v holds more than the chain's %d units per sample; %s", target, width, fix)
		}
	}
	if infer > 0 {
		if width%prod != 0 {
			return nil, fmt.Errorf("shape %v: %d units do not split into axes of %d; %s", target, width, prod, fix)
		}
		out[infer] = width / prod
	} else if prod != width {
		return nil, fmt.Errorf("shape %v holds %d units per sample, the chain %d: it would move units across the batch axis; %s", target, prod, width, fix)
	}
	return out[1:], nil
}

// dropout accepts Dropout in inference mode, which is the identity:
// training_mode absent or a constant false (opset ≥ 12), is_test = 1 where
// the opset (< 7) defaults to training.
func (c *onnxChain) dropout(where string, n *onnxpb.NodeProto, ins []string) error {
	const fix = "Dropout then drops units at random: call model.eval() before torch.onnx.export"
	if v, ok := intAttr(n, "is_test"); ok && v == 0 || !ok && c.opset < 7 {
		return c.bad("%s: is_test = 0 (or absent at opset %d): %s", where, c.opset, fix)
	}
	if len(ins) > 3 {
		return c.bad("%s: %d inputs: want at most data, ratio and training_mode", where, len(ins))
	}
	if len(ins) == 3 && ins[2] != "" {
		on, err := c.boolScalar(where, "training_mode", ins[2])
		if err != nil {
			return err
		}
		if on {
			return c.bad("%s: training_mode = true: %s", where, fix)
		}
	}
	return nil
}

// plPart is one set of ReLU units of a lowered activation:
// relu(sign·z + shift) for every unit z of the chain.
type plPart struct{ sign, shift float64 }

// leakyRelu reads LeakyRelu(α) (default 0.01) as
// leaky(z) = relu(z) − α·relu(−z), exact for any α.
func (c *onnxChain) leakyRelu(where string, n *onnxpb.NodeProto) error {
	alpha := 0.01
	if v, ok := floatAttr(n, "alpha"); ok {
		alpha = v
	}
	switch {
	case math.IsNaN(alpha) || math.IsInf(alpha, 0):
		return c.bad("%s: alpha = %v: want a finite slope", where, alpha)
	case alpha == 1:
		return nil // the identity
	case alpha == 0:
		return c.activation(where, ReLU)
	case c.lastAct() == ReLU:
		return nil // leaky(relu(z)) = relu(z)
	}
	return c.lowerPL(where, []plPart{{1, 0}, {-1, 0}}, []float64{1, -alpha}, 0)
}

// clipOp reads Clip(lo, hi) = min(max(z, lo), hi) as
//
//	max(z, lo) = lo + relu(z − lo),  min(y, hi) = hi − relu(hi − y),
//
// one after the other (clip(z) = hi − relu(hi − lo − relu(z − lo)): each
// step is 1-Lipschitz in the bound as in fact, where lo + relu(z − lo) −
// relu(z − hi) would add the errors of two units). A bound that the range
// of the activation before it already satisfies (lo ≤ 0 after a ReLU or a
// sigmoid, hi ≥ 1 after a sigmoid) is dropped: on exact values it changes
// nothing, and on the runtime's it projects onto an interval that holds the
// exact value, which moves them no farther apart, so EvalBound's δ still
// holds. Relu6 exports Relu then Clip(0, 6): min(relu(z), 6).
func (c *onnxChain) clipOp(where string, n *onnxpb.NodeProto, ins []string) error {
	lo, hi, err := c.clipBounds(where, n, ins)
	if err != nil {
		return err
	}
	if lo > hi {
		return c.bad("%s: min %g > max %g: want min ≤ max", where, lo, hi)
	}
	rlo, rhi := math.Inf(-1), math.Inf(1) // the range of the chain's values
	switch c.lastAct() {
	case ReLU:
		rlo = 0
	case Sigmoid, Softmax:
		rlo, rhi = 0, 1
	case Tanh:
		rlo, rhi = -1, 1
	}
	if !math.IsInf(lo, -1) && lo > rlo {
		if err := c.lowerPL(where, []plPart{{1, -lo}}, []float64{1}, lo); err != nil {
			return err
		}
	}
	if !math.IsInf(hi, 1) && hi < rhi {
		return c.lowerPL(where, []plPart{{-1, hi}}, []float64{-1}, hi)
	}
	return nil
}

// clipBounds reads Clip's min and max, as attributes (opset < 11) or as
// scalar inputs (opset ≥ 11); an absent or infinite bound is ∓Inf.
func (c *onnxChain) clipBounds(where string, n *onnxpb.NodeProto, ins []string) (lo, hi float64, err error) {
	lo, hi = math.Inf(-1), math.Inf(1)
	alo, okLo := floatAttr(n, "min")
	ahi, okHi := floatAttr(n, "max")
	if len(ins) > 3 {
		return 0, 0, c.bad("%s: %d inputs: want the chain, min and max", where, len(ins))
	}
	if (okLo || okHi) && len(ins) > 1 && (ins[1] != "" || len(ins) == 3 && ins[2] != "") {
		return 0, 0, c.bad("%s: min and max given both as attributes and as inputs", where)
	}
	if okLo {
		lo = alo
	}
	if okHi {
		hi = ahi
	}
	for k, name := range ins[1:] {
		if name == "" {
			continue
		}
		v, err := c.scalar(where, []string{"min", "max"}[k], name)
		if err != nil {
			return 0, 0, err
		}
		if k == 0 {
			lo = v
		} else {
			hi = v
		}
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || lo == math.Inf(1) || hi == math.Inf(-1) {
		return 0, 0, c.bad("%s: min %v, max %v: want numbers (or no bound)", where, lo, hi)
	}
	return lo, hi, nil
}

// lowerPL replaces a piecewise-linear activation g of the chain's units z
// by ReLU units and an affine combination, exactly:
//
//	g(z) = bias + Σ_k comb_k·relu(sign_k·z + shift_k).
//
// The units relu(sign·z + shift) replace the last layer's affine map
// z = W·a + b (rows sign·W, biases sign·b + shift) when the chain is that
// map's output and every new bias is exact in the network's precision;
// otherwise an identity layer carries z first (biases sign·0 + shift). A
// layer of the combination follows, with an identity activation (so an
// Add, a batch normalization or an activation after g folds into it). A
// layer with a batch normalization folded is lowered too: its units are
// y = s·(z − μ) + β, and bnFold.lower keeps their bounds.
//
// What the runtime computes is bounded by EvalBound's δ: it evaluates
// z_rt = W·a + b with the error D of the affine map, then g exactly (max
// and min; LeakyRelu rounds α·z once). The lowered units carry D each
// (their bias magnitude is the runtime's |b| plus |shift|, which also
// covers mmds's float64 evaluation of sign·b + shift), and the
// combination's bound is at least Σ_k |comb_k|·D + γ(|bias| + Σ_k
// |comb_k|·|unit_k|) ≥ Lip(g)·D + u·|α·z_rt|: Clip is 1-Lipschitz and exact,
// LeakyRelu max(1, |α|)-Lipschitz and its one rounding is within the
// combination's γ term. A runtime error only ever meets more roundings in
// the lowered form, never fewer.
func (c *onnxChain) lowerPL(where string, parts []plPart, comb []float64, bias float64) error {
	if !c.linear || !c.exactShifts(parts) {
		if err := c.identity(where); err != nil {
			return err
		}
	}
	last := len(c.layers) - 1
	ly, f := c.layers[last], c.folds[last]
	units := len(ly.W)
	if err := c.widen(where, len(parts)*units, len(ly.W[0])); err != nil {
		return err
	}
	w := make([][]float64, 0, len(parts)*units)
	b := make([]float64, 0, len(parts)*units)
	mag := make([]float64, 0, len(parts)*units)
	for _, p := range parts {
		for j, row := range ly.W {
			r := make([]float64, len(row))
			for i, v := range row {
				r[i] = p.sign * v
			}
			bm := math.Abs(ly.B[j])
			if f.biasMag != nil {
				bm = f.biasMag[j]
			}
			w, b, mag = append(w, r), append(b, p.sign*ly.B[j]+p.shift), append(mag, bm+math.Abs(p.shift))
		}
	}
	c.layers[last] = Layer{W: w, B: b, Act: ReLU}
	f.biasMag = mag
	if f.bn != nil {
		f.bn = f.bn.lower(parts)
	}
	c.folds[last] = f
	c.width = len(w)
	if err := c.grow(where, []int64{int64(len(w)), int64(units)}, false); err != nil {
		return err
	}
	cl := Layer{W: make([][]float64, units), B: make([]float64, units)}
	cm := make([]float64, units)
	for j := range cl.W {
		cl.W[j] = make([]float64, len(w))
		for k, v := range comb {
			cl.W[j][k*units+j] = v
		}
		cl.B[j], cm[j] = bias, math.Abs(bias)
	}
	c.push(cl)
	c.folds[len(c.folds)-1].biasMag = cm
	return nil
}

// exactShifts reports whether sign·b + shift is exact, in float64 and in
// the network's precision, for every bias b of the last layer.
func (c *onnxChain) exactShifts(parts []plPart) bool {
	for _, p := range parts {
		if p.shift == 0 {
			continue
		}
		for _, b := range c.layers[len(c.layers)-1].B {
			if !exactSum(p.sign*b, p.shift, c.float32) {
				return false
			}
		}
	}
	return true
}

// exactSum reports whether a + b is exact in float64 (Knuth's TwoSum: the
// rounding error of s = a + b is (a − a′) + (b − b′), itself exact) and,
// when f32, a float32 value.
func exactSum(a, b float64, f32 bool) bool {
	s := a + b
	bb := s - a
	if e := (a - (s - bb)) + (b - bb); e != 0 || math.IsInf(s, 0) {
		return false
	}
	return !f32 || float64(float32(s)) == s
}

// widen checks, before anything is allocated, that the last layer (in
// inputs) may grow to out units within MaxWidth and MaxParams.
func (c *onnxChain) widen(where string, out, in int) error {
	if out > MaxWidth {
		return c.bad("%s: %d units once lowered to ReLU units: at most %d", where, out, MaxWidth)
	}
	p := c.params + int64(out-c.width)*int64(in+1)
	if p > MaxParams {
		return c.bad("%s: more than %d parameters once lowered to ReLU units: too large to certify", where, MaxParams)
	}
	c.params = p
	return nil
}

// batchNorm folds BatchNormalization in inference mode,
// y = s·(z − μ) + β with s = γ/√(v + ε), into the last layer's affine map
// (an identity layer when the chain is not one): W ← s·W, b ← s·(b − μ) + β,
// rounded to the network's precision. The runtime computes z, then y; the
// fold keeps what EvalBound needs to bound that (bnFold).
func (c *onnxChain) batchNorm(where string, n *onnxpb.NodeProto, ins []string) error {
	const fix = "BatchNormalization then normalizes by the batch's own statistics: call model.eval() before torch.onnx.export"
	if v, ok := intAttr(n, "training_mode"); ok && v != 0 {
		return c.bad("%s: training_mode = %d: %s", where, v, fix)
	}
	if v, ok := intAttr(n, "is_test"); ok && v == 0 || !ok && c.opset < 7 {
		return c.bad("%s: is_test = 0 (or absent at opset %d): %s", where, c.opset, fix)
	}
	if len(ins) != 5 {
		return c.bad("%s: %d inputs: want X, scale, B, mean and var", where, len(ins))
	}
	eps := 1e-5
	if v, ok := floatAttr(n, "epsilon"); ok {
		eps = v
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return c.bad("%s: epsilon = %v: want a finite ε ≥ 0", where, eps)
	}
	var v [4][]float64
	for k, what := range []string{"scale", "B", "mean", "var"} {
		name := ins[k+1]
		t, ok := c.consts[name]
		if !ok {
			return c.bad("%s: input %s %q is not a constant", where, what, clip(name))
		}
		vals, dims, err := c.tensor(where, what, t)
		if err != nil {
			return err
		}
		if len(dims) != 1 || dims[0] != int64(c.width) {
			return c.bad("%s: %s %q has shape %v: want [%d], one entry per unit", where, what, clip(name), dims, c.width)
		}
		v[k] = vals
	}
	for j, x := range v[3] {
		if x < 0 || x+eps == 0 {
			return c.bad("%s: var[%d] = %g with epsilon %g: want var ≥ 0 and var + epsilon > 0", where, j, x, eps)
		}
	}
	if !c.open() {
		if err := c.identity(where); err != nil {
			return err
		}
	}
	return c.foldBN(where, v[0], v[1], v[2], v[3], eps)
}

// foldBN folds y = s·(z − μ) + β, s_j = γ_j/√(v_j + ε) computed in float64,
// into the last layer.
func (c *onnxChain) foldBN(where string, gamma, beta, mean, vr []float64, eps float64) error {
	p := Float64
	if c.float32 {
		p = Float32
	}
	_, maxv, tiny := p.roundoff()
	round := func(x float64) float64 {
		if p == Float32 {
			return float64(float32(x))
		}
		return x
	}
	last := len(c.layers) - 1
	ly, f := c.layers[last], c.folds[last]
	bn := &bnFold{w: ly.W, bmag: make([]float64, len(ly.W)), s: make([]float64, len(ly.W)),
		mu: make([]float64, len(ly.W)), beta: make([]float64, len(ly.W)), gamma: make([]float64, len(ly.W))}
	nl := Layer{W: make([][]float64, len(ly.W)), B: make([]float64, len(ly.W))}
	for j, row := range ly.W {
		sd := math.Sqrt(vr[j] + eps)
		s := gamma[j] / sd
		if !(1/sd <= maxv && math.Abs(s) <= maxv) {
			return c.bad("%s: unit %d: the scale 1/√(var + ε) = %g (times γ: %g) is beyond %v's range", where, j, 1/sd, s, p)
		}
		if s != 0 && math.Abs(s) < 2*tiny {
			// A runtime rounds a subnormal s by up to half its spacing,
			// which z·s carries times |z| (up to the format's maximum): not
			// the relative error bnUlps grants.
			return c.bad("%s: unit %d: the scale γ/√(var + ε) = %g is below twice %v's smallest normal number %g: a runtime's rounding of it is then absolute, and its product with the pre-activation unbounded; set γ to 0 or to a normal scale", where, j, s, p, tiny)
		}
		nl.W[j] = make([]float64, len(row))
		for i, w := range row {
			nl.W[j][i] = round(s * w)
		}
		nl.B[j] = round(s*(ly.B[j]-mean[j]) + beta[j])
		for _, w := range append(nl.W[j], nl.B[j]) {
			if math.IsInf(w, 0) || math.IsNaN(w) {
				return c.bad("%s: unit %d: the folded weights (γ/√(var + ε) times the layer's) are beyond %v's range", where, j, p)
			}
		}
		bn.bmag[j] = math.Abs(ly.B[j])
		if f.biasMag != nil {
			bn.bmag[j] = f.biasMag[j]
		}
		bn.s[j], bn.mu[j], bn.beta[j], bn.gamma[j] = s, math.Abs(mean[j]), math.Abs(beta[j]), math.Abs(gamma[j])
	}
	c.layers[last] = nl
	f.bn, f.biasMag = bn, nil
	c.folds[last] = f
	return nil
}

// ints decodes a constant int64 tensor of at most maxRank entries (a shape
// or axes).
func (c *onnxChain) ints(where, what, name string) ([]int64, error) {
	t, ok := c.consts[name]
	if !ok {
		return nil, c.bad("%s: %s %q is not a constant", where, what, clip(name))
	}
	if onnxpb.TensorProto_DataType(t.GetDataType()) != onnxpb.TensorProto_INT64 || len(t.GetDims()) > 1 || t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return nil, c.bad("%s: %s %q: want an inline int64 tensor of rank ≤ 1", where, what, clip(name))
	}
	raw, v := t.GetRawData(), t.GetInt64Data()
	if raw != nil {
		if len(raw)%8 != 0 || len(raw) > 8*maxRank {
			return nil, c.bad("%s: %s %q has %d bytes: want at most %d int64 values", where, what, clip(name), len(raw), maxRank)
		}
		v = make([]int64, len(raw)/8)
		for i := range v {
			v[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
		}
	}
	if len(v) > maxRank || len(t.GetDims()) == 1 && t.GetDims()[0] != int64(len(v)) || len(t.GetDims()) == 0 && len(v) != 1 {
		return nil, c.bad("%s: %s %q has %d values for shape %v (at most %d)", where, what, clip(name), len(v), t.GetDims(), maxRank)
	}
	return v, nil
}

// boolScalar decodes a constant boolean scalar.
func (c *onnxChain) boolScalar(where, what, name string) (bool, error) {
	t, ok := c.consts[name]
	if !ok {
		return false, c.bad("%s: %s %q is not a constant", where, what, clip(name))
	}
	raw, v := t.GetRawData(), t.GetInt32Data()
	if onnxpb.TensorProto_DataType(t.GetDataType()) != onnxpb.TensorProto_BOOL || len(t.GetDims()) > 1 || len(t.GetDims()) == 1 && t.GetDims()[0] != 1 ||
		!(raw != nil && len(raw) == 1 || raw == nil && len(v) == 1) {
		return false, c.bad("%s: %s %q: want one inline bool", where, what, clip(name))
	}
	if raw != nil {
		return raw[0] != 0, nil
	}
	return v[0] != 0, nil
}

// scalar decodes a constant float or double tensor holding one value (±Inf
// allowed: a Clip bound that is none).
func (c *onnxChain) scalar(where, what, name string) (float64, error) {
	t, ok := c.consts[name]
	if !ok {
		return 0, c.bad("%s: %s %q is not a constant", where, what, clip(name))
	}
	v, dims, err := c.values(where, what, t, false)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 || len(dims) > 1 {
		return 0, c.bad("%s: %s %q has shape %v: want a scalar", where, what, clip(name), dims)
	}
	return v[0], nil
}
