package network

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mmds-project/mmds/network/internal/onnxpb"
)

// gop is one node of a generated ONNX chain, both written to ONNX and
// interpreted as a runtime would compute it.
type gop struct {
	op      string      // Gemm, Add, BatchNormalization, Relu, LeakyRelu, Clip, Sigmoid, Tanh
	w       [][]float64 // Gemm: out × in
	b       []float64   // Gemm's C, Add's and Sub's constant
	g, beta []float64   // BatchNormalization
	mu, v   []float64
	eps     float64
	alpha   float64 // LeakyRelu; Gemm's alpha (0: none)
	lo, hi  float64 // Clip: ±Inf for no bound
}

// genChain returns a random chain 2 → … → 1 of Gemm layers with Add,
// BatchNormalization and the piecewise-linear and smooth activations in
// between, its values representable in float32 (f32) or float64, with
// weights and statistics over several orders of magnitude.
func genChain(rng *rand.Rand, f32 bool) []gop {
	rnd := func(s float64) float64 {
		v := s * rng.NormFloat64()
		if f32 {
			v = float64(float32(v))
		}
		return v
	}
	vec := func(n int, s float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rnd(s)
		}
		return v
	}
	bn := func(n int) gop {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Abs(rnd(math.Pow(10, -3+4*rng.Float64())))
		}
		// epsilon is a float attribute, whatever the tensors' type.
		eps := float64(float32([]float64{1e-5, 0, 1e-3}[rng.IntN(3)]))
		if eps == 0 {
			for i := range v {
				v[i] += 1e-4
				if f32 {
					v[i] = float64(float32(v[i]))
				}
			}
		}
		return gop{op: "BatchNormalization", g: vec(n, 1), beta: vec(n, 1), mu: vec(n, math.Pow(10, -1+2*rng.Float64())), v: v, eps: eps}
	}
	act := func() gop {
		alphas := []float64{0.01, 0.1, 0.2, -0.3, 1.5}
		switch rng.IntN(6) {
		case 0:
			return gop{op: "Relu"}
		case 1:
			a := alphas[rng.IntN(len(alphas))]
			return gop{op: "LeakyRelu", alpha: float64(float32(a))}
		case 2:
			lo, hi := math.Inf(-1), math.Inf(1)
			switch rng.IntN(4) {
			case 0:
				lo, hi = 0, 6
			case 1:
				lo, hi = -1, 1
			case 2:
				lo = rnd(1)
			default:
				hi = rnd(1)
			}
			return gop{op: "Clip", lo: lo, hi: hi}
		case 3:
			return gop{op: "Sigmoid"}
		case 4:
			return gop{op: "Tanh"}
		}
		return gop{op: "Identity"}
	}
	var ops []gop
	in := 2
	depth := 1 + rng.IntN(3)
	for l := 0; l <= depth; l++ {
		out := 1 + rng.IntN(6)
		if l == depth {
			out = 1
		}
		s := math.Pow(10, -1+2*rng.Float64())
		w := make([][]float64, out)
		for j := range w {
			w[j] = vec(in, s)
		}
		ops = append(ops, gop{op: "Gemm", w: w, b: vec(out, s)})
		if rng.IntN(5) == 0 {
			ops = append(ops, gop{op: []string{"Add", "Sub"}[rng.IntN(2)], b: vec(out, 1)})
		}
		if rng.IntN(3) > 0 {
			ops = append(ops, bn(out))
		}
		a := act()
		if l == depth && a.op != "Clip" && a.op != "LeakyRelu" {
			continue
		}
		ops = append(ops, a)
		if rng.IntN(4) == 0 && a.op != "Sigmoid" && a.op != "Tanh" {
			ops = append(ops, bn(out)) // a batch normalization after an activation
		}
		in = out
	}
	return ops
}

// chainONNX writes a chain as an ONNX graph from one input xr [batch, 2].
func chainONNX(ops []gop, f32 bool) []byte {
	elem := onnxpb.TensorProto_DOUBLE
	if f32 {
		elem = onnxpb.TensorProto_FLOAT
	}
	tensor := func(name string, dims []int64, v []float64) *onnxpb.TensorProto {
		t := &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(elem))}
		for _, x := range v {
			if f32 {
				t.RawData = binary.LittleEndian.AppendUint32(t.RawData, math.Float32bits(float32(x)))
			} else {
				t.RawData = binary.LittleEndian.AppendUint64(t.RawData, math.Float64bits(x))
			}
		}
		return t
	}
	fattr := func(name string, v float64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(float32(v))}
	}
	var nodes []*onnxpb.NodeProto
	var inits []*onnxpb.TensorProto
	cur := "xr"
	for i, o := range ops {
		out := fmt.Sprintf("t%d", i)
		p := fmt.Sprintf("p%d.", i)
		switch o.op {
		case "Gemm":
			var flat []float64
			for _, row := range o.w {
				flat = append(flat, row...)
			}
			inits = append(inits, tensor(p+"W", []int64{int64(len(o.w)), int64(len(o.w[0]))}, flat), tensor(p+"C", []int64{int64(len(o.b))}, o.b))
			attrs := []*onnxpb.AttributeProto{{Name: proto.String("transB"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)}}
			if o.alpha != 0 {
				attrs = append(attrs, fattr("alpha", o.alpha))
			}
			nodes = append(nodes, onode("Gemm", []string{cur, p + "W", p + "C"}, out, attrs...))
		case "Add", "Sub":
			inits = append(inits, tensor(p+"V", []int64{int64(len(o.b))}, o.b))
			nodes = append(nodes, onode(o.op, []string{cur, p + "V"}, out))
		case "BatchNormalization":
			n := []int64{int64(len(o.g))}
			inits = append(inits, tensor(p+"g", n, o.g), tensor(p+"b", n, o.beta), tensor(p+"m", n, o.mu), tensor(p+"v", n, o.v))
			nodes = append(nodes, onode(o.op, []string{cur, p + "g", p + "b", p + "m", p + "v"}, out, fattr("epsilon", o.eps), fattr("momentum", 0.9)))
		case "LeakyRelu":
			nodes = append(nodes, onode(o.op, []string{cur}, out, fattr("alpha", o.alpha)))
		case "Clip":
			ins := []string{cur, "", ""}
			if !math.IsInf(o.lo, 0) {
				inits, ins[1] = append(inits, tensor(p+"lo", nil, []float64{o.lo})), p+"lo"
			}
			if !math.IsInf(o.hi, 0) {
				inits, ins[2] = append(inits, tensor(p+"hi", nil, []float64{o.hi})), p+"hi"
			}
			nodes = append(nodes, onode(o.op, ins, out))
		default:
			nodes = append(nodes, onode(o.op, []string{cur}, out))
		}
		cur = out
	}
	g := &onnxpb.GraphProto{Name: proto.String("g"), Node: nodes, Initializer: inits,
		Input: []*onnxpb.ValueInfoProto{onnxValue("xr", elem, 2)}, Output: []*onnxpb.ValueInfoProto{onnxValue(cur, elem, 1)}}
	data, err := proto.Marshal(&onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(15)}}})
	if err != nil {
		panic(err)
	}
	return data
}

// runtime is one way a runtime may evaluate a chain: every operation
// rounded by fl (to float32, or float64), dot products summed forward or
// backward with the bias first or last, and the batch normalization by one
// of the formulas bnUlps covers: 0 z·s + (β − μ·s), 1 (z − μ)·s + β,
// 2 ((z − μ)/√(v + ε))·γ + β, 3 folded into the Gemm before it (s·W and
// s·(b − μ) + β formed with fl; form 0 where no Gemm precedes it).
type runtime struct {
	fl                 func(float64) float64
	reverse, biasFirst bool
	bnForm             int
}

func (rt runtime) dot(w, a []float64, b float64) float64 {
	s := 0.0
	if rt.biasFirst {
		s = b
	}
	for k := range w {
		i := k
		if rt.reverse {
			i = len(w) - 1 - k
		}
		s = rt.fl(s + rt.fl(w[i]*a[i]))
	}
	if !rt.biasFirst {
		s = rt.fl(s + b)
	}
	return s
}

func (rt runtime) eval(ops []gop, x, r float64) float64 {
	fl := rt.fl
	a := []float64{fl(x), fl(r)}
	for i := 0; i < len(ops); i++ {
		o := ops[i]
		switch o.op {
		case "Gemm":
			w, b := o.w, o.b
			if rt.bnForm == 3 && i+1 < len(ops) && ops[i+1].op == "BatchNormalization" {
				n := ops[i+1]
				w, b = make([][]float64, len(o.w)), make([]float64, len(o.b))
				for j := range w {
					s := fl(n.g[j] / fl(math.Sqrt(fl(n.v[j]+n.eps))))
					w[j] = make([]float64, len(o.w[j]))
					for k := range w[j] {
						w[j][k] = fl(o.w[j][k] * s)
					}
					b[j] = fl(fl(fl(o.b[j]-n.mu[j])*s) + n.beta[j])
				}
				i++
			}
			z := make([]float64, len(w))
			for j := range w {
				if o.alpha != 0 { // α·(A·B) + C
					z[j] = fl(fl(o.alpha*rt.dot(w[j], a, 0)) + b[j])
					continue
				}
				z[j] = rt.dot(w[j], a, b[j])
			}
			a = z
		case "Add":
			for j := range a {
				a[j] = fl(a[j] + o.b[j])
			}
		case "Sub":
			for j := range a {
				a[j] = fl(a[j] - o.b[j])
			}
		case "BatchNormalization":
			for j := range a {
				sd := fl(math.Sqrt(fl(o.v[j] + o.eps)))
				s := fl(o.g[j] / sd)
				switch rt.bnForm {
				case 1:
					a[j] = fl(fl(fl(a[j]-o.mu[j])*s) + o.beta[j])
				case 2:
					a[j] = fl(fl(fl(fl(a[j]-o.mu[j])/sd)*o.g[j]) + o.beta[j])
				default:
					a[j] = fl(fl(a[j]*s) + fl(o.beta[j]-fl(o.mu[j]*s)))
				}
			}
		case "Relu":
			for j := range a {
				a[j] = max(a[j], 0)
			}
		case "LeakyRelu":
			for j := range a {
				if a[j] < 0 {
					a[j] = fl(o.alpha * a[j])
				}
			}
		case "Clip":
			for j := range a {
				a[j] = min(max(a[j], o.lo), o.hi)
			}
		case "Sigmoid":
			for j := range a {
				a[j] = fl(Sigmoid.apply(a[j]))
			}
		case "Tanh":
			for j := range a {
				a[j] = fl(math.Tanh(a[j]))
			}
		}
	}
	return a[0]
}

// What a runtime computes from a graph of Gemm, Add, Sub, BatchNormalization,
// Relu, LeakyRelu, Clip, Sigmoid and Tanh nodes — interpreted node by node
// in float32 (and in float64), in three summation orders (forward or
// backward, the bias first or last), with the batch normalization by each
// of the formulas bnUlps covers — lies within
// EvalBound's δ of what mmds computes from the folded and lowered network
// it reads, on random chains whose weights, variances and inputs span
// several orders of magnitude. Logs the largest observed/δ ratio.
func TestONNXOpsAgainstRuntime(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 2))
	f32 := func(v float64) float64 { return float64(float32(v)) }
	f64 := func(v float64) float64 { return v }
	var worst, checked, refused float64
	for trial := range 400 {
		single := trial%4 != 3
		ops := genChain(rng, single)
		m, err := ParseONNX(chainONNX(ops, single), "chain.onnx")
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if want := map[bool]Precision{true: Float32, false: Float64}[single]; m.Precision != want {
			t.Fatalf("trial %d: precision %v", trial, m.Precision)
		}
		fl := f64
		if single {
			fl = f32
		}
		for range 8 {
			x, r := 3*rng.NormFloat64(), 4*rng.NormFloat64()
			k, d, err := m.EvalBound(x, r)
			if errors.Is(err, ErrPrecision) {
				refused++
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for form := range 4 {
				for _, order := range [][2]bool{{false, false}, {true, true}, {false, true}} {
					rt := runtime{fl: fl, reverse: order[0], biasFirst: order[1], bnForm: form}
					got := rt.eval(ops, x, r)
					if dev := math.Abs(got - k); !(dev <= d) {
						t.Fatalf("trial %d (%v, %v) at (%g, %g), runtime %+v: |%v − %v| = %.3g > δ = %.3g\n%+v", trial, m, m.Precision, x, r, rt, got, k, dev, d, ops)
					} else if d > 0 {
						worst = max(worst, dev/d)
					}
					checked++
				}
			}
		}
	}
	if refused > checked/20 {
		t.Errorf("%v of %v points refused (a runtime overflow): the test exercises too little", refused, checked/12)
	}
	t.Logf("%v runtime evaluations, largest |runtime − mmds|/δ %.3g; %v points refused as overflowing", checked, worst, refused)
}

// bumpChain is a float32 chain whose unit b(r) = c·(h1 − 2h2 + h3) ≥ 0,
// h_i = relu(r − t_i), is a triangle of height c·(t2 − t1) on (t1, t3)
// (t2 − t1 = t3 − t2), followed by tail.
func bumpChain(t1, t2, t3, c float64, tail ...gop) []gop {
	return append([]gop{
		{op: "Gemm", w: [][]float64{{0, 1}, {0, 1}, {0, 1}}, b: []float64{-t1, -t2, -t3}},
		{op: "Relu"},
		{op: "Gemm", w: [][]float64{{c, -2 * c, c}}, b: []float64{0}},
		{op: "Relu"},
	}, tail...)
}

// sigmoidChain is the float32 chain σ(r) followed by tail: a first unit in
// (0, 1) without kinks.
func sigmoidChain(tail ...gop) []gop {
	return append([]gop{{op: "Gemm", w: [][]float64{{0, 1}}, b: []float64{0}}, {op: "Sigmoid"}}, tail...)
}

// Hand-built float32 graphs that hide a runtime's error behind a fold:
// every number mmds states must hold for the float32 interpreter of the
// graph (δ at each r, at x = 0 and at the row's x, in each
// batch-normalization formula and summation order, and the certified
// E_R[k(x, R)]) — or mmds must refuse (cannot certify, or the refusal want
// on reading).
//
//   - A product 3e38·b(r) overflows float32 where a bump b exceeds 1.13,
//     and a Gemm α = 2⁻¹⁴⁹ scales it down to a harmless weight: δ stays
//     small, k = σ(·) is near 0 for mmds and 1 for the runtime on the bump
//     (E_R[k] 4.5e-5 certified, 0.046 run), which lies between the mean
//     rounding bound's points (between its first cells' ends, or, narrow,
//     between its finest cells'). A batch normalization hides it the same
//     way (a scale γ = 1e-44 did; a subnormal scale is now refused on
//     reading, and a normal one leaves a folded weight whose slope the
//     bound sees).
//   - A Gemm with a tiny alpha: mmds folds alpha into the weights
//     (W = αB ≈ −0.23, harmless), but ONNX computes Y = α·(A·B) + βC, and a
//     float32 runtime overflows A·B = −2e38·x − 2e38·x to −Inf at x = 1
//     before scaling it. So k = relu(α·(A·B) + 1) is 1 − 0.463x for mmds
//     (net-pass: PASS at D = 0.15 on the paper's binary model, δ ≈ 1e-7)
//     and 1 − x, F = 1 − X, for the runtime, unless the product's range is
//     checked before the scaling ("beyond float32's range": cannot
//     certify).
//   - Roundings to float32's subnormal range are absolute, and a fold
//     multiplies them by a large factor after the fact: a subnormal batch
//     normalization scale s times z ≈ 1.5e38 (0.317 run, 0.2595 ± 1e-6
//     certified), the quotient (z − μ)/√(v + ε) ≈ 1e-46 times γ = 1e38
//     (0.378 run, 0.5 certified), the runtime's fused s·w = 0.87·2⁻¹³⁸
//     rounded apart from mmds's, a Gemm's α = 1e38 times A·B = 2⁻¹⁴⁹·σ(r)
//     rounded to 0 or 2⁻¹⁴⁹ (0.33 or 0.67 where mmds has σ(1.4σ(r) − 0.7)
//     ± 5e-7).
func TestHostileChainsAgainstRuntime(t *testing.T) {
	bn := func(g, v float64) gop {
		return gop{op: "BatchNormalization", g: []float64{g}, beta: []float64{0}, mu: []float64{0}, v: []float64{v}}
	}
	gemm := func(w, b float64) gop { return gop{op: "Gemm", w: [][]float64{{w}}, b: []float64{b}} }
	alpha := gop{op: "Gemm", w: [][]float64{{3e38}}, b: []float64{-10}, alpha: 0x1p-149}
	sig := gop{op: "Sigmoid"}
	bnSmall := bn(1e-37, 1)
	bnSmall.beta = []float64{-100}
	f32 := func(v float64) float64 { return float64(float32(v)) }
	hideAtOne := []gop{{op: "Gemm", w: [][]float64{{1, 0}, {1, 0}}, b: []float64{0, 0}}, {op: "Relu"},
		{op: "Gemm", w: [][]float64{{f32(-2e38), f32(-2e38)}}, b: []float64{1}, alpha: f32(0.463 / 4e38)}, {op: "Relu"}}
	for _, tc := range []struct {
		name, want string
		ops        []gop
		x          float64 // where the fold hides the error (0 unless set)
	}{
		{name: "batch normalization hides an overflow between grid points", ops: bumpChain(2+1./32, 2+1./8, 2+7./32, 32, gemm(3e38, 0), bnSmall, sig)},
		{name: "Gemm alpha hides an overflow between grid points", ops: bumpChain(1./32, 1./8, 7./32, 32, alpha, sig)},
		{name: "Gemm alpha hides an overflow narrower than the finest cell", ops: bumpChain(0.0999, 0.09996, 0.10002, 5e4, alpha, sig)},
		{name: "subnormal batch-normalization scale", want: "below twice float32's smallest normal number",
			ops: sigmoidChain(gemm(1.5e38, 0), bn(3*0x1p-149, 3), gemm(1e7, -3), sig)},
		{name: "subnormal normalized value times a huge γ", ops: sigmoidChain(gemm(1e-36, 0), bn(1e38, 1e20), gemm(1e8, -0.5), sig)},
		{name: "subnormal fused weight", ops: sigmoidChain(gemm(1e38, 0), gemm(float64(float32(1.5*0x1p-100)), 0), bn(0x1p-38, 3), gemm(1e7, -3), sig)},
		{name: "Gemm alpha times subnormal products", ops: sigmoidChain(gop{op: "Gemm", w: [][]float64{{0x1p-149}}, b: []float64{0}, alpha: 1e38}, gemm(1e7, -0.7), sig)},
		{name: "Gemm alpha hides an overflow of A·B at x = 1", ops: hideAtOne, x: 1},
	} {
		m, err := ParseONNX(chainONNX(tc.ops, true), "hostile.onnx")
		if err != nil {
			if tc.want == "" || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want accepted or refused with %q", tc.name, err, tc.want)
			}
			continue
		}
		xs := []float64{0}
		if tc.x != 0 {
			xs = append(xs, tc.x)
		}
		for _, x := range xs {
			for r := -3.0; r <= 3; r += 0.125 {
				k, d, err := m.EvalBound(x, r)
				if errors.Is(err, ErrPrecision) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for form := range 4 {
					for _, order := range [][2]bool{{false, false}, {true, true}, {false, true}} {
						rt := runtime{fl: f32, reverse: order[0], biasFirst: order[1], bnForm: form}
						if got := rt.eval(tc.ops, x, r); !(math.Abs(got-k) <= d) {
							t.Errorf("%s at (x, r) = (%g, %g) (formula %d, order %v): the runtime gives %.6g, mmds %.6g ± %.3g", tc.name, x, r, form, order, got, k, d)
						}
					}
				}
			}
		}
		e, err := m.Expect(t.Context(), tc.x, DefaultTol)
		if errors.Is(err, ErrPrecision) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for form := range 4 {
			rt := runtime{fl: f32, biasFirst: true, bnForm: form}
			mean, _ := stratifiedMean(func(r float64) float64 { return rt.eval(tc.ops, tc.x, r) }, 1<<14)
			// The strata's mean is an estimate: 1e-4 for its error.
			if dev := math.Abs(mean - e.Mean); !(dev <= e.Bound+e.Rounding+1e-4) {
				t.Errorf("%s: the float32 runtime's E_R[k(%g, R)] ≈ %.4g (formula %d), certified %.4g ± %.3g (rounding %.3g)", tc.name, tc.x, mean, form, e.Mean, e.Bound, e.Rounding)
			}
		}
	}
}

// shapeGraph is a Gemm 2 → width followed by the given nodes, reading the
// initializers inits, with input xr of the given declared batch (0:
// dynamic) and the last node's output as the graph's.
func shapeGraph(width int, batch int64, opset int64, nodes []*onnxpb.NodeProto, inits ...*onnxpb.TensorProto) []byte {
	w := make([]float32, 2*width)
	for i := range w {
		w[i] = float32(i%3) - 0.5
	}
	tb := &onnxpb.AttributeProto{Name: proto.String("transB"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)}
	all := append([]*onnxpb.NodeProto{onode("Gemm", []string{"xr", "W"}, "z", tb)}, nodes...)
	in := onnxValue("xr", onnxpb.TensorProto_FLOAT, 2)
	if batch > 0 {
		in.Type.GetTensorType().Shape.Dim[0].Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: batch}
	}
	g := &onnxpb.GraphProto{Name: proto.String("g"), Node: all, Initializer: append([]*onnxpb.TensorProto{f32Tensor("W", []int64{int64(width), 2}, w...)}, inits...),
		Input: []*onnxpb.ValueInfoProto{in}, Output: []*onnxpb.ValueInfoProto{valueInfo(all[len(all)-1].GetOutput()[0])}}
	data, err := proto.Marshal(&onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}}})
	if err != nil {
		panic(err)
	}
	return data
}

func i64Tensor(name string, v ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: []int64{int64(len(v))}, DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Int64Data: v}
}

func boolTensor(name string, v bool) *onnxpb.TensorProto {
	b := byte(0)
	if v {
		b = 1
	}
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(onnxpb.TensorProto_BOOL)), RawData: []byte{b}}
}

func intsAttr(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func intAttrP(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func floatAttrP(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

// onnxCase is a hand-built graph and what ParseONNX makes of it: "" when
// accepted, else a part of the one-line refusal.
type onnxCase struct {
	name string
	data []byte
	want string
}

// shapeOpsCases are TestONNXShapeOps's graphs: Gemm 2 → width, then shape
// operators; accepted ones compute k(x, r) = x/2 − r/2 (width 1).
func shapeOpsCases() []onnxCase {
	one := []*onnxpb.TensorProto{i64Tensor("a1", 1), i64Tensor("a0", 0), i64Tensor("am1", -1)}
	bn := []*onnxpb.TensorProto{f32Tensor("g", []int64{1}, 2), f32Tensor("b", []int64{1}, 0.5), f32Tensor("m", []int64{1}, 0.25), f32Tensor("v", []int64{1}, 4)}
	return []onnxCase{
		{"squeeze13", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Squeeze", []string{"z", "a1"}, "k")}, one...), ""},
		{"squeeze11", shapeGraph(1, 0, 11, []*onnxpb.NodeProto{onode("Squeeze", []string{"z"}, "k", intsAttr("axes", -1))}), ""},
		{"squeeze-all-then-relu", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Squeeze", []string{"z"}, "s"), onode("Identity", []string{"s"}, "k")}), ""},
		{"unsqueeze-flatten", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Unsqueeze", []string{"z", "a1"}, "u"), onode("Flatten", []string{"u"}, "k")}, one...), ""},
		{"unsqueeze-squeeze-gemm", shapeGraph(1, 0, 11, []*onnxpb.NodeProto{onode("Unsqueeze", []string{"z"}, "u", intsAttr("axes", 2)),
			onode("Squeeze", []string{"u"}, "s", intsAttr("axes", 2)), onode("Gemm", []string{"s", "one"}, "k")}, f32Tensor("one", []int64{1, 1}, 1)), ""},
		{"reshape-1", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "am1"}, "k")}, one...), ""},
		{"reshape-1-1", shapeGraph(1, 0, 14, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "s"}, "k", intAttrP("allowzero", 0))}, i64Tensor("s", -1, 1)), ""},
		{"reshape-0-1", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "s"}, "k")}, i64Tensor("s", 0, -1)), ""},
		{"reshape-static", shapeGraph(1, 3, 13, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "s"}, "k")}, i64Tensor("s", 3, 1)), ""},
		{"bn-after-unsqueeze-flatten", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Unsqueeze", []string{"z", "a1"}, "u"), onode("Flatten", []string{"u"}, "f"),
			onode("BatchNormalization", []string{"f", "g", "b", "m", "v"}, "k")}, append(one, bn...)...), ""},
		{"dropout-eval", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Dropout", []string{"z", "ratio", "tm"}, "k")}, f32Tensor("ratio", nil, 0.5), boolTensor("tm", false)), ""},
		{"dropout-mask", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{{OpType: proto.String("Dropout"), Name: proto.String("d"), Input: []string{"z"}, Output: []string{"k", "mask"}}}), ""},
		{"dropout-train", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Dropout", []string{"z", "ratio", "tm"}, "k")}, f32Tensor("ratio", nil, 0.5), boolTensor("tm", true)),
			`node 1 ("k", op Dropout): training_mode = true: Dropout then drops units at random: call model.eval()`},
		{"dropout-opset6", shapeGraph(1, 0, 6, []*onnxpb.NodeProto{onode("Dropout", []string{"z"}, "k")}), "is_test = 0 (or absent at opset 6)"},
		{"squeeze-batch", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Squeeze", []string{"z", "a0"}, "k")}, one...), "axes [0] squeeze the batch axis 0"},
		{"squeeze-wide", shapeGraph(3, 0, 11, []*onnxpb.NodeProto{onode("Squeeze", []string{"z"}, "k", intsAttr("axes", 1))}), "axis 1 has size 3"},
		{"squeeze-range", shapeGraph(1, 0, 11, []*onnxpb.NodeProto{onode("Squeeze", []string{"z"}, "k", intsAttr("axes", 5))}), "axis 5 is out of range for a tensor of rank 2"},
		{"squeeze-both", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Squeeze", []string{"z", "a1"}, "k", intsAttr("axes", 1))}, one...), "axes given both as an attribute and as an input"},
		{"squeeze-all-then-gemm", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Squeeze", []string{"z"}, "s"), onode("Gemm", []string{"s", "one"}, "k")}, f32Tensor("one", []int64{1, 1}, 1)),
			"follows a Squeeze without axes"},
		{"unsqueeze-batch", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Unsqueeze", []string{"z", "a0"}, "k")}, one...), "insert an axis before the batch axis"},
		{"flatten0", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Flatten", []string{"z"}, "k", intAttrP("axis", 0))}), "axis 0 merges the batch axis into the units"},
		{"reshape-merge", shapeGraph(3, 0, 13, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "am1"}, "k")}, one...), "holds 1 units per sample, the chain 3"},
		{"reshape-static-wrong", shapeGraph(1, 3, 13, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "s"}, "k")}, i64Tensor("s", 1, 3)), "its first entry 1 is not the batch axis"},
		{"reshape-zero", shapeGraph(1, 0, 14, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "s"}, "k", intAttrP("allowzero", 1))}, i64Tensor("s", 0, 1)), "an axis of size 0"},
		{"reshape-dynamic", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "xr"}, "k")}), `reads ["z" "xr"]`},
		{"reshape-float", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Reshape", []string{"z", "f"}, "k")}, f32Tensor("f", []int64{1}, -1)), "want an inline int64 tensor"},
		{"softmax-after-squeeze", shapeGraph(2, 0, 13, []*onnxpb.NodeProto{onode("Unsqueeze", []string{"z", "a1"}, "u"), onode("Softmax", []string{"u"}, "k")}, one...),
			"Softmax on a chain whose shape is not known to be [batch, width]"},
	}
}

// Shape operators are read where they keep the batch axis first and every
// batch row one sample's units, and refused, naming the node and the value,
// where they would not (or where what follows depends on a shape that the
// batch size decides).
func TestONNXShapeOps(t *testing.T) {
	for _, tc := range shapeOpsCases() {
		m, err := ParseONNX(tc.data, tc.name+".onnx")
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			for _, p := range [][2]float64{{1, 0}, {0.5, -2}} {
				want := -0.5*p[0] + 0.5*p[1]
				if strings.HasPrefix(tc.name, "bn") {
					want = 2*(want-0.25)/math.Sqrt(4+1e-5) + 0.5
				}
				if got := m.Eval(p[0], p[1]); !near(got, want, 1e-6) {
					t.Errorf("%s: k(%v) = %v, want %v", tc.name, p, got, want)
				}
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name+".onnx") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v\nwant one line naming the file and containing %q", tc.name, err, tc.want)
		}
	}
}

// opsBadInputCases are TestONNXOpsBadInput's graphs.
func opsBadInputCases() []onnxCase {
	bn := func(v float32, attrs ...*onnxpb.AttributeProto) []byte {
		return shapeGraph(1, 0, 15, []*onnxpb.NodeProto{onode("BatchNormalization", []string{"z", "g", "b", "m", "v"}, "k", attrs...)},
			f32Tensor("g", []int64{1}, 2), f32Tensor("b", []int64{1}, 0.5), f32Tensor("m", []int64{1}, 0.25), f32Tensor("v", []int64{1}, v))
	}
	clip := func(lo, hi float32) []byte {
		return shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Clip", []string{"z", "lo", "hi"}, "k")}, f32Tensor("lo", nil, lo), f32Tensor("hi", nil, hi))
	}
	return []onnxCase{
		{"bn-ok", bn(4, floatAttrP("epsilon", 1e-3), floatAttrP("momentum", 0.9), intAttrP("training_mode", 0)), ""},
		{"bn-opset7-spatial", shapeGraph(1, 0, 7, []*onnxpb.NodeProto{onode("BatchNormalization", []string{"z", "g", "b", "m", "v"}, "k", intAttrP("spatial", 1))},
			f32Tensor("g", []int64{1}, 2), f32Tensor("b", []int64{1}, 0.5), f32Tensor("m", []int64{1}, 0.25), f32Tensor("v", []int64{1}, 4)), ""},
		{"clip-attrs", shapeGraph(1, 0, 6, []*onnxpb.NodeProto{onode("Clip", []string{"z"}, "k", floatAttrP("min", -1), floatAttrP("max", 1))}), ""},
		{"clip-inf", clip(float32(math.Inf(-1)), 1), ""},
		{"sub", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Sub", []string{"z", "c"}, "k")}, f32Tensor("c", nil, 0.5)), ""},
		{"sub-reversed", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Sub", []string{"c", "z"}, "k")}, f32Tensor("c", nil, 0.5)), `the chain "z" must be its first input`},
		{"leaky-ok", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("LeakyRelu", []string{"z"}, "k", floatAttrP("alpha", 0.2))}), ""},
		{"bn-negvar", bn(-0.5), `node 1 ("k", op BatchNormalization): var[0] = -0.5 with epsilon 1e-05: want var ≥ 0`},
		{"bn-zero", bn(0, floatAttrP("epsilon", 0)), "var[0] = 0 with epsilon 0"},
		{"bn-eps-nan", bn(4, floatAttrP("epsilon", float32(math.NaN()))), "epsilon = NaN"},
		{"bn-train", bn(4, intAttrP("training_mode", 1)), "training_mode = 1: BatchNormalization then normalizes by the batch's own statistics: call model.eval()"},
		{"bn-opset6", shapeGraph(1, 0, 6, []*onnxpb.NodeProto{onode("BatchNormalization", []string{"z", "g", "b", "m", "v"}, "k")},
			f32Tensor("g", []int64{1}, 2), f32Tensor("b", []int64{1}, 0.5), f32Tensor("m", []int64{1}, 0.25), f32Tensor("v", []int64{1}, 4)), "is_test = 0 (or absent at opset 6)"},
		{"bn-shape", shapeGraph(1, 0, 15, []*onnxpb.NodeProto{onode("BatchNormalization", []string{"z", "g", "b", "m", "v"}, "k")},
			f32Tensor("g", []int64{2}, 2, 2), f32Tensor("b", []int64{1}, 0.5), f32Tensor("m", []int64{1}, 0.25), f32Tensor("v", []int64{1}, 4)), `scale "g" has shape [2]: want [1]`},
		{"bn-range", shapeGraph(1, 0, 15, []*onnxpb.NodeProto{onode("BatchNormalization", []string{"z", "g", "b", "m", "v"}, "k")},
			f32Tensor("g", []int64{1}, 3e38), f32Tensor("b", []int64{1}, 0.5), f32Tensor("m", []int64{1}, 0.25), f32Tensor("v", []int64{1}, 1e-4)), "is beyond float32's range"},
		{"bn-inputs", shapeGraph(1, 0, 15, []*onnxpb.NodeProto{onode("BatchNormalization", []string{"z", "g"}, "k")}, f32Tensor("g", []int64{1}, 2)), "2 inputs: want X, scale, B, mean and var"},
		{"clip-order", clip(1, -1), "min 1 > max -1"},
		{"clip-nan", clip(float32(math.NaN()), 1), `min "lo" entry 0 is NaN`},
		{"clip-vector", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Clip", []string{"z", "lo"}, "k")}, f32Tensor("lo", []int64{2}, 0, 1)), "want a scalar"},
		{"clip-both", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Clip", []string{"z", "lo"}, "k", floatAttrP("max", 1))}, f32Tensor("lo", nil, 0)), "both as attributes and as inputs"},
		{"leaky-nan", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("LeakyRelu", []string{"z"}, "k", floatAttrP("alpha", float32(math.Inf(1))))}), "alpha = +Inf: want a finite slope"},
		{"leaky-attr", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("LeakyRelu", []string{"z"}, "k", floatAttrP("beta", 1))}), `attribute "beta" is not supported`},
		{"chain-second", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Clip", []string{"lo", "z"}, "k")}, f32Tensor("lo", nil, 0)), `the chain "z" must be its first input`},
		{"concat", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Concat", []string{"z", "c"}, "k", intAttrP("axis", 1))}, f32Tensor("c", []int64{1, 1}, 0)), "a Concat other than the one joining the inputs x and r"},
		{"elu", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Elu", []string{"z"}, "k", floatAttrP("alpha", 1))}), `node 1 ("k") is Elu: supported operators are`},
		{"mul", shapeGraph(1, 0, 13, []*onnxpb.NodeProto{onode("Mul", []string{"z", "c"}, "k")}, f32Tensor("c", nil, 2)), "arithmetic on the chain: fold constant scales into the nn.Linear layers"},
	}
}

// BatchNormalization, LeakyRelu and Clip with bad values or in training
// mode are refused in one line naming the file, the node and the value;
// legal attributes are read.
func TestONNXOpsBadInput(t *testing.T) {
	for _, tc := range opsBadInputCases() {
		_, err := ParseONNX(tc.data, tc.name+".onnx")
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name+".onnx") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v\nwant one line naming the file and containing %q", tc.name, err, tc.want)
		}
	}
}

// roundingLip's L and J hold for folded batch normalizations and lowered
// activations: on the PyTorch exports and on random chains, for r on a
// grid of [−8, 8], δ(r′) ≤ J·(J·δ(r) + L·|r′ − r|) (δ* ≤ J·δ and δ ≤ J·δ*,
// δ* L-Lipschitz), the property the mean rounding bound integrates with.
func TestRoundingLipCoversFolds(t *testing.T) {
	var nets []*Network
	for _, tc := range torchExports {
		nets = append(nets, readNet(t, tc.name+".onnx"))
	}
	rng := rand.New(rand.NewPCG(35, 36))
	for trial := range 60 {
		m, err := ParseONNX(chainONNX(genChain(rng, trial%3 != 2), trial%3 != 2), "chain.onnx")
		if err != nil {
			t.Fatal(err)
		}
		nets = append(nets, m)
	}
	var tightest float64
	for _, m := range nets {
		lip, _, jitter, _ := m.roundingLip()
		for _, x := range []float64{0, 1, -2.5} {
			const h = 1.0 / 64
			var ds []float64
			for r := -8.0; r <= 8; r += h {
				_, d, err := m.EvalBound(x, r)
				if err != nil {
					ds = nil
					break
				}
				ds = append(ds, d)
			}
			for i := range ds {
				for _, k := range []int{i + 1, i + 16, i - 1, i - 16} {
					if k < 0 || k >= len(ds) {
						continue
					}
					allowed := jitter * (jitter*ds[i] + lip*h*math.Abs(float64(k-i)))
					if ds[k] > allowed {
						t.Fatalf("%s (%v) at x = %v: δ(%v) = %.6g > J·(J·δ(%v) + L·Δr) = %.6g (δ(%v) = %.6g, L = %.3g, J − 1 = %.3g)",
							m.Name, m, x, -8+float64(k)*h, ds[k], -8+float64(i)*h, allowed, -8+float64(i)*h, ds[i], lip, jitter-1)
					}
					if ds[k] > ds[i] {
						tightest = max(tightest, (ds[k]-ds[i])/(allowed-ds[i]))
					}
				}
			}
		}
	}
	// An affine stretch of δ(x, ·) meets its allowance (L is tight there).
	t.Logf("largest increase of δ over its allowance: %.3g", tightest)
}
