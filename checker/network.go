package main

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// Networks k(x, r) on binary and finite models (docs/check.md, "Networks"):
// the release is F ~ Bernoulli(k(X, R)), R ~ N(0, 1), so the channel is
// p_x = E_R[k(x, R)], and a runtime in the network's precision releases
// p_rt,x = E_R[k_rt(x, R)]. The certificate states per x the mean p_x
// that its losses are computed from, and bounds ε_x (the computation's)
// and δ_x (the runtime's rounding); the checker encloses p_rt,x itself and
// requires its enclosure to lie within p_x ± (ε_x + δ_x).

// layer is one layer: out × in weights, biases, an activation, and what an
// ONNX runtime computes beyond W·a + b: ops extra rounded additions (Add
// nodes folded into the bias) and bmag, the bias parts' magnitudes.
type layer struct {
	w     [][]float64
	b     []float64
	act   string // identity, relu, sigmoid, tanh
	ops   int
	alpha float64 // a Gemm's |α| (0: 1): the runtime's A·B is W·a/α
	// virtual: a stage of a lowered Clip that the runtime does not
	// compute (max and min are exact): it only passes its inputs' errors.
	virtual bool
	bmag    []float64
	berr    []float64    // per unit, the rounding of its bias parts' float64 sum (nil: exact)
	bn      []bnUnit     // per unit, a batch normalization folded into it (nil: none)
	wr      [][]*big.Rat // w and b as rationals, for the exact walk
	br      []*big.Rat
}

// network is a privatizer network: inputs in order ("x", "r", or the
// one-hot "x=0".."x=n−1"), float32 (weights rounded to float32, as a
// runtime loads them) or float64.
type network struct {
	name   string
	inputs []string
	f32    bool
	layers []layer
	np     int // the piecewise-linear prefix: layers before the first sigmoid or tanh
	// per layer and unit, the rounded terms k and γ_k (roundingTerms; nil
	// until roundingAt first needs them)
	terms  [][]int
	gammas [][]float64
	buf    [][2][]float64 // roundingAt's scratch, per level
}

// parseNetworkJSON reads mmds's JSON layout {"inputs", "noise",
// "precision", "layers": [{"weight", "bias", "activation"}]}.
func parseNetworkJSON(name string, root *object) *network {
	n := &network{name: name, f32: true, inputs: listOf(name+": inputs", root.get("inputs"), "names", text)}
	root.used["noise"], root.used["precision"] = true, true
	if root.has("noise") && root.str("noise") != "normal(0,1)" {
		reject("%s: noise %s: want normal(0,1)", printable(name), quote(root.str("noise")))
	}
	if root.has("precision") {
		switch p := root.str("precision"); p {
		case "float64":
			n.f32 = false
		case "float32":
		default:
			reject("%s: precision %s: want float32 or float64", printable(name), quote(p))
		}
	}
	for l, v := range root.list("layers") {
		o := asObject(fmt.Sprintf("%s: layers[%d]", name, l), v)
		ly := layer{w: matrix(o.key("weight"), o.get("weight")), b: numbers(o.key("bias"), o.get("bias")), act: "identity"}
		o.used["activation"] = true
		if o.has("activation") {
			ly.act = o.str("activation")
		}
		o.done()
		n.layers = append(n.layers, ly)
	}
	root.done()
	if n.f32 {
		for _, ly := range n.layers {
			for _, row := range append([][]float64{ly.b}, ly.w...) {
				for i, v := range row {
					if row[i] = float64(float32(v)); math.IsInf(row[i], 0) {
						reject("%s: %v is beyond float32's range", printable(name), v)
					}
				}
			}
		}
	}
	n.validate()
	return n
}

// validate applies mmds's rules and prepares the exact weights.
func (n *network) validate() {
	bad := func(format string, args ...any) { reject("%s: "+format, append([]any{printable(n.name)}, args...)...) }
	width, params, units := len(n.inputs), 0, 0
	if err := n.checkInputs(); err != "" {
		bad("%s", err)
	}
	if len(n.layers) == 0 || len(n.layers) > 256 {
		bad("%d layers: want 1 to 256", len(n.layers))
	}
	n.np = len(n.layers)
	for l := range n.layers {
		ly := &n.layers[l]
		if len(ly.w) == 0 || len(ly.w) > 1<<14 || len(ly.b) != len(ly.w) {
			bad("layer %d: %d rows and %d biases", l, len(ly.w), len(ly.b))
		}
		for _, row := range ly.w {
			if len(row) != width {
				bad("layer %d takes %d inputs, the layer before gives %d", l, len(row), width)
			}
		}
		switch ly.act {
		case "identity", "relu":
			if l > n.np && ly.act == "relu" {
				bad("layer %d: relu after a sigmoid or tanh layer (mmds refuses it: no error bound)", l)
			}
		case "sigmoid", "tanh":
			n.np = min(n.np, l)
		case "softmax":
			if l != len(n.layers)-1 {
				bad("layer %d: softmax before the last layer", l)
			}
		default:
			bad("layer %d: activation %s", l, quote(ly.act))
		}
		params += len(ly.w) * (width + 1)
		if l > 0 {
			units += width
		}
		width = len(ly.w)
		for j, row := range ly.w {
			for _, v := range append([]float64{ly.b[j]}, row...) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					bad("layer %d: %v is not a finite weight", l, v)
				}
			}
		}
		ly.wr, ly.br = ratMatrix(ly.w), ratMatrix([][]float64{ly.b})[0]
		if ly.bmag == nil {
			ly.bmag = make([]float64, len(ly.b))
			for j, v := range ly.b {
				ly.bmag[j] = math.Abs(v)
			}
		}
	}
	if (width != 1) != n.categorical() || width > 1<<12 || params > 1<<22 || units > 1<<12 {
		bad("want one output (2 to 4,096 after a softmax), at most 2²² parameters and 4,096 hidden units")
	}
}

// checkInputs accepts "x" and "r" in either order, or "x=0".."x=n−1" and
// "r" with r first or last.
func (n *network) checkInputs() string {
	in := n.inputs
	if len(in) < 2 || (in[0] != "r" && in[len(in)-1] != "r") {
		return fmt.Sprintf("inputs %q: want x and r", in)
	}
	xs := in[:len(in)-1]
	if in[0] == "r" {
		xs = in[1:]
	}
	if len(xs) == 1 && xs[0] == "x" {
		return ""
	}
	for k, s := range xs {
		if s != "x="+strconv.Itoa(k) || len(xs) > 1<<12 {
			return fmt.Sprintf("inputs %q: want x and r, or x=0..x=n−1 and r", in)
		}
	}
	return ""
}

// categorical reports a softmax last layer: F ~ Categorical(softmax(z)).
func (n *network) categorical() bool { return n.layers[len(n.layers)-1].act == "softmax" }

// oneHot is the number of values of a one-hot x (0 for a real x).
func (n *network) oneHot() int {
	if len(n.inputs) == 2 {
		return 0
	}
	return len(n.inputs) - 1
}

// input is the value of input i at (x, r) as an affine function α + βr.
func (n *network) input(i int, x int) (alpha, beta int64) {
	switch s := n.inputs[i]; {
	case s == "r":
		return 0, 1
	case s == "x":
		return int64(x), 0
	case s == "x="+strconv.Itoa(x):
		return 1, 0
	}
	return 0, 0
}

// region is an interval (s, e) of r on which every unit of the
// piecewise-linear prefix keeps its activation: the inputs (level 0) and
// the activations of prefix layer l (level l + 1) are α + βr there,
// exactly.
type region struct {
	s, e        *big.Rat
	alpha, beta [][]*big.Rat
	af, bf      [][]fi // enclosures of alpha and beta
}

// at is unit j of level l at r.
func (g *region) at(l, j int, r *big.Rat) *big.Rat {
	return add(g.alpha[l][j], mul(g.beta[l][j], r))
}

// atFI encloses unit j of level l at every r of rf (outward rounding:
// the exact value α + βr lies inside).
func (g *region) atFI(l, j int, rf fi) fi {
	return g.af[l][j].add(g.bf[l][j].mul(rf))
}

// walk cuts [lo, hi] into the regions of the prefix at x, in exact
// arithmetic: at a region's start each unit's pre-activation α + βr is
// evaluated under the activations of the layers before it (a unit at 0
// takes the side its slope leads to), and the region ends at the first
// root of any of them.
func (n *network) walk(x int, lo, hi *big.Rat) []region {
	var out []region
	for r := lo; r.Cmp(hi) < 0; {
		g := n.regionAt(x, r, hi)
		out = append(out, g)
		r = g.e
		if len(out) > 1<<20 {
			notCovered("%s: more than 2²⁰ linear pieces", printable(n.name))
		}
	}
	return out
}

func (n *network) regionAt(x int, r, hi *big.Rat) region {
	g := region{s: r, e: hi}
	var pa, pb []*big.Rat
	for i := range n.inputs {
		a, b := n.input(i, x)
		pa, pb = append(pa, ratInt(a)), append(pb, ratInt(b))
	}
	g.alpha, g.beta = [][]*big.Rat{pa}, [][]*big.Rat{pb}
	for l := range n.np {
		ly := n.layers[l]
		na, nb := make([]*big.Rat, len(ly.w)), make([]*big.Rat, len(ly.w))
		for j, row := range ly.wr {
			a, b := new(big.Rat).Set(ly.br[j]), new(big.Rat)
			for i, w := range row {
				if w.Sign() != 0 {
					addTo(a, w, pa[i])
					addTo(b, w, pb[i])
				}
			}
			if ly.act == "relu" {
				if b.Sign() != 0 {
					if t := quo(neg(a), b); t.Cmp(r) > 0 && t.Cmp(g.e) < 0 {
						g.e = t
					}
				}
				if v := add(a, mul(b, r)); v.Sign() < 0 || (v.Sign() == 0 && b.Sign() <= 0) {
					a, b = new(big.Rat), new(big.Rat)
				}
			}
			na[j], nb[j] = a, b
		}
		g.alpha, g.beta = append(g.alpha, na), append(g.beta, nb)
		pa, pb = na, nb
	}
	for l := range g.alpha {
		af, bf := make([]fi, len(g.alpha[l])), make([]fi, len(g.alpha[l]))
		for j := range af {
			af[j], bf[j] = ratFI(g.alpha[l][j]), ratFI(g.beta[l][j])
		}
		g.af, g.bf = append(g.af, af), append(g.bf, bf)
	}
	return g
}
