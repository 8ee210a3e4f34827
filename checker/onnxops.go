package main

import (
	"fmt"
	"math"
	"math/big"
	"slices"
)

// The ONNX operators that mmds lowers or that compute nothing
// (docs/certify.md, "ONNX" and "Precision"): the checker builds the same
// functions from ReLU units and affine layers, exactly, and its rounding
// model of the lowered layers bounds what the runtime computes on the
// original ones.

// reshape checks a shape operator or Dropout, which compute nothing, on
// a chain [batch, width], or [batch] when the width is 1: Squeeze and
// Unsqueeze of axis 1 (or −1), Reshape to [-1] or [-1 or 0, width],
// Dropout in inference mode (training_mode absent or a constant false,
// one output).
func (c *chain) reshape(where, op string, at map[string]pb, ins []string) {
	var v []int64
	if a := at["axes"]; a != nil {
		v = a.ints(attrInts)
	} else if len(ins) > 1 && ins[1] != "" && op != "Dropout" {
		if v = c.ints[ins[1]]; v == nil {
			notCovered("%s: %s by %s, not an int64 constant", where, op, quote(ins[1]))
		}
	}
	if a := at["allowzero"]; a != nil {
		if z, _ := a.int(attrI); z != 0 {
			notCovered("%s: Reshape with allowzero", where)
		}
	}
	w, is := c.width(), func(s ...int64) bool { return fmt.Sprint(v) == fmt.Sprint(s) }
	switch {
	case op == "Dropout" && (len(ins) <= 2 || ins[2] == "" || fmt.Sprint(c.ints[ins[2]]) == "[0]") && len(ins) <= 3:
		c.inference(where, at)
	case op == "Squeeze" && !c.rank1 && w == 1 && (v == nil || is(1) || is(-1)) && len(ins) <= 2:
		c.rank1 = true
	case op == "Unsqueeze" && c.rank1 && (is(1) || is(-1)) && len(ins) <= 2:
		c.rank1 = false
	case op == "Reshape" && len(ins) == 2 && (is(-1, int64(w)) || is(0, int64(w))):
		c.rank1 = false
	case op == "Reshape" && len(ins) == 2 && w == 1 && is(-1):
		c.rank1 = true
	default:
		notCovered("%s: %s (axes or shape %v, %d inputs) on a chain of width %d: mmds reads Squeeze and Unsqueeze of axis 1, Reshape to [-1] or [-1, width], Dropout in inference mode", where, op, v, len(ins), w)
	}
}

// leaky lowers LeakyRelu(α) exactly: leaky(z) = relu(z) − α·relu(−z), a
// ReLU layer of the units z and −z (the weights and bias negated: exact)
// and an identity layer with weights 1 and −α. The runtime evaluates z
// once and α·z with one rounding; each lowered unit carries z's error
// and the combination adds it and γ₃ of its terms, at least that.
func (c *chain) leaky(where string, alpha float64) {
	if !c.linear {
		c.identity(where)
	}
	ly := &c.n.layers[len(c.n.layers)-1]
	w := len(ly.w)
	for j := range w {
		ly.w, ly.b, ly.bmag = append(ly.w, negated(ly.w[j])), append(ly.b, -ly.b[j]), append(ly.bmag, ly.bmag[j])
	}
	if ly.berr != nil {
		ly.berr = append(ly.berr, ly.berr...)
	}
	if ly.bn != nil {
		ly.bn = append(ly.bn, ly.bn...)
	}
	ly.act = "relu"
	comb := tensor{v: make([]float64, 2*w*w), dims: []int64{int64(w), int64(2 * w)}, f32: !c.f64}
	for j := range w {
		comb.v[j*2*w+j], comb.v[j*2*w+w+j] = 1, -alpha
	}
	c.push(where, comb, true, nil)
}

// clip lowers Clip(lo, hi) exactly into ReLU units, max then min:
// max(z, lo) = lo + relu(z − lo), min(y, hi) = hi − relu(hi − y). Each
// stage carries z's error (the clip is 1-Lipschitz, and max and min are
// exact in floating point). A bound the activation before it already
// meets (a sigmoid's [0, 1], a tanh's [−1, 1], a ReLU's 0) is dropped:
// the runtime's clip projects onto an interval that holds the exact
// value, which moves it no farther away.
func (c *chain) clip(where string, at map[string]pb, ins []string) {
	bound := func(i int, attr string) (float64, bool) {
		if a := at[attr]; a != nil {
			v, _ := a.one(attrF).(uint64)
			return float64(math.Float32frombits(uint32(v))), true
		}
		if i >= len(ins) || ins[i] == "" {
			return 0, false
		}
		t, ok := c.consts[ins[i]]
		notCoveredIf(!ok || len(t.v) != 1, "%s: Clip bound %s is not a constant scalar", where, quote(ins[i]))
		c.weight(t)
		return t.v[0], true
	}
	lo, hasLo := bound(1, "min")
	hi, hasHi := bound(2, "max")
	rejectIf(len(ins) > 3 || lo != lo || hi != hi || hasLo && hasHi && !(lo <= hi), "%s: Clip with min %v and max %v", where, lo, hi)
	rlo, rhi := math.Inf(-1), math.Inf(1) // the range of the activation before
	if !c.linear && len(c.n.layers) > 0 {
		if r, ok := map[string][2]float64{"sigmoid": {0, 1}, "tanh": {-1, 1}, "relu": {0, rhi}}[c.n.layers[len(c.n.layers)-1].act]; ok {
			rlo, rhi = r[0], r[1]
		}
	}
	if hasLo && lo > rlo {
		c.relu(where, 1, -lo)
		c.affine(where, 1, lo)
	}
	if hasHi && hi < rhi {
		c.relu(where, -1, hi)
		c.affine(where, -1, hi)
	}
}

// relu makes the chain relu(sign·y + c): the last layer's affine map
// negated (exact) when sign is −1 and c folded into its bias.
func (c *chain) relu(where string, sign, add float64) {
	if !c.linear { // after an activation: a stage the runtime does not compute
		c.identity(where)
		c.n.layers[len(c.n.layers)-1].virtual = true
	}
	ly := &c.n.layers[len(c.n.layers)-1]
	for j := range ly.w {
		if sign < 0 {
			ly.w[j], ly.b[j] = negated(ly.w[j]), -ly.b[j]
		}
	}
	c.bias(where, tensor{v: []float64{add}, f32: !c.f64}, true)
	c.activation(where, "relu")
}

func negated(row []float64) []float64 {
	out := make([]float64, len(row))
	for i, v := range row {
		out[i] = -v
	}
	return out
}

// affine appends the identity layer sign·y + c, a virtual stage.
func (c *chain) affine(where string, sign, add float64) {
	c.identity(where)
	ly := &c.n.layers[len(c.n.layers)-1]
	ly.virtual = true
	for j := range ly.w {
		ly.w[j] = append([]float64(nil), ly.w[j]...)
		ly.w[j][j] = sign
	}
	c.bias(where, tensor{v: []float64{add}, f32: !c.f64}, false)
}

// open reports a chain that is an affine map's output with no batch
// normalization folded into it yet: an Add or a batch normalization joins
// that map, else it gets an identity layer of its own (as mmds does).
func (c *chain) open() bool {
	return c.linear && c.n.layers[len(c.n.layers)-1].bn == nil
}

// inference refuses a Dropout or BatchNormalization in training mode
// (is_test 0, or absent before opset 7; training_mode ≠ 0), which drops
// units at random or normalizes by the batch's own statistics.
func (c *chain) inference(where string, at map[string]pb) {
	v, ok := at["training_mode"].int(attrI)
	t, hasTest := at["is_test"].int(attrI)
	rejectIf(ok && v != 0 || hasTest && t == 0 || !hasTest && c.opset < 7, "%s: training mode (or opset %d without is_test): call model.eval() before torch.onnx.export", where, c.opset)
}

// bnUnit is a batch normalization y = s·(z − μ) + β folded into a unit
// z = w·a + b (docs/check.md, "Batch normalization"): the unit's map
// before the fold (w, the magnitude of its bias parts and the rounding of
// their sum), an upper bound s of the exact |s|, |μ|, |β| (plus the shifts
// of a lowered Clip), |γ|, and how far the checker's folded weights and
// bias lie from s·w and s·(b − μ) + β for the exact s (own, ob).
type bnUnit struct {
	w                                []float64
	bmag, berr, s, mu, beta, gam, ob float64
	own                              []float64
}

// batchNorm folds BatchNormalization in inference mode into the last
// layer: s = γ/√(v + ε) in float64, W_f = s·W and b_f = s·(b − μ) + β
// rounded to the network's precision, as mmds folds it. The exact s is
// enclosed by sqrtBounds, and each folded number's distance to its exact
// value is kept for the rounding bound.
func (c *chain) batchNorm(where string, at map[string]pb, cs []tensor) {
	c.inference(where, at)
	eps := 1e-5
	if a := at["epsilon"]; a != nil {
		e, _ := a.one(attrF).(uint64)
		eps = float64(math.Float32frombits(uint32(e)))
	}
	w := c.width()
	rejectIf(len(cs) != 4 || !(eps >= 0) || math.IsInf(eps, 0), "%s: want X, scale, B, mean and var, all constants, and a finite epsilon ≥ 0", where)
	for _, t := range cs {
		if c.weight(t); len(t.dims) != 1 || t.dims[0] != int64(w) {
			reject("%s: a parameter of shape %v: want [%d]", where, t.dims, w)
		}
	}
	if !c.open() {
		c.identity(where)
	}
	ly := &c.n.layers[len(c.n.layers)-1]
	_, tiny, _, maxv := c.n.roundoff()
	c.n.f32 = !c.f64
	round := func(x float64) float64 {
		if !c.f64 {
			return float64(float32(x))
		}
		return x
	}
	ly.bn = make([]bnUnit, w)
	for j := range w {
		g, beta, mu, vr := cs[0].v[j], cs[1].v[j], cs[2].v[j], cs[3].v[j]
		sd := math.Sqrt(vr + eps)
		s := g / sd
		rejectIf(vr < 0 || vr+eps == 0 || !(1/sd <= maxv && math.Abs(s) <= maxv) || s != 0 && math.Abs(s) < 2*tiny, "%s: unit %d: var %v, epsilon %v, scale %v: want var + epsilon > 0, 1/√(var + ε) and |s| ≤ %v, s 0 or ≥ twice the smallest normal number", where, j, vr, eps, s, maxv)
		lo, hi := sqrtBounds(add(exact(vr), exact(eps)))
		sl, sh := quo(exact(g), hi), quo(exact(g), lo)   // the exact s lies between
		dist := func(f float64, a, b *big.Rat) float64 { // sup over s of |f − (s·a + b)|
			d := maxRat(abs(sub(exact(f), add(mul(sl, a), b))), abs(sub(exact(f), add(mul(sh, a), b))))
			return ratFI(d).hi
		}
		bu := bnUnit{w: ly.w[j], bmag: ly.bmag[j], s: ratFI(maxRat(abs(sl), abs(sh))).hi, mu: math.Abs(mu), beta: math.Abs(beta), gam: math.Abs(g)}
		if ly.berr != nil {
			bu.berr = ly.berr[j]
		}
		row := make([]float64, len(ly.w[j]))
		for i, x := range ly.w[j] {
			row[i] = round(s * x)
			bu.own = append(bu.own, dist(row[i], exact(x), new(big.Rat)))
		}
		b := round(s*(ly.b[j]-mu) + beta)
		bu.ob = dist(b, sub(exact(ly.b[j]), exact(mu)), exact(beta))
		rejectIf(slices.ContainsFunc(append(row, b), func(x float64) bool { return math.IsInf(x, 0) }), "%s: unit %d: the folded weights are beyond the precision's range", where, j)
		ly.w[j], ly.b[j], ly.bmag[j], ly.bn[j] = row, b, math.Abs(b), bu
	}
	ly.berr = nil
}
