package gauss

import (
	"math"
	"slices"
)

// Local ascent of the reduced cost over posteriors on the whole grid
// (docs/gauss.md, "Pricing"). m_W is concave and positively homogeneous in
// μ with supergradient R_W (posterior.go), so
//
//	G_j = Σ_i w_i R_i(x_j) − λ R_Y(x_j) − g_j
//
// linearizes rc at μ: rc(μ) = Σ_k μ_k G_k, and moving mass ε towards atom j
// changes rc by ε(G_j − rc(μ)) to first order. The ascent alternates
// multiplicative reweighting of the support (μ_k ∝ μ_k e^{η(G_k − rc)}) and
// inserting the atom of largest G_j, each with a line search on the true
// rc. It finds posteriors of any size, but only locally: a numerical
// search, never a bound.

// gradient stores G in G (one entry per grid point) and returns rc(μ).
func (cg *colGen) gradient(e *postEval, du lpDuals, idx []int, w []float64, G []float64) float64 {
	xs := pick(cg.g.xs, idx)
	r := make([]float64, len(cg.g.xs))
	for j := range G {
		G[j] = -du.g[j]
	}
	for o, s := range cg.g.s {
		c := -du.lam
		if o > 0 {
			c = du.w[o-1]
		}
		if c == 0 {
			continue
		}
		e.mmse(xs, w, s, cg.g.xs, r)
		for j := range G {
			G[j] += c * r[j]
		}
	}
	v := 0.0
	for k, j := range idx {
		v += w[k] * G[j]
	}
	return v
}

// ascentIters bounds one ascent's iterations.
const ascentIters = 30

// ascend climbs rc from the posterior (idx, w) and returns the best
// posterior found with its reduced cost.
// It is safe to run concurrently with other ascents (not with add).
func (cg *colGen) ascend(du lpDuals, idx []int, w []float64) (column, float64) {
	var e postEval
	if du.off != nil {
		// start without the lifted atoms
		var ki []int
		var kw []float64
		for k, j := range idx {
			if !du.off[j] {
				ki, kw = append(ki, j), append(kw, w[k])
			}
		}
		if len(ki) == 0 {
			return column{}, math.Inf(-1)
		}
		idx, w = ki, normalized(kw)
	}
	cur := cg.evalColumn(&e, idx, w)
	best := cg.rc(du, cur)
	G := make([]float64, len(cg.g.xs))
	for range ascentIters {
		v := cg.gradient(&e, du, cur.idx, cur.w, G)
		next, nv := cur, best
		try := func(i []int, ww []float64) {
			i, ww = sortIdx(i, ww)
			c := cg.evalColumn(&e, i, ww)
			if r := cg.rc(du, c); r > nv {
				next, nv = c, r
			}
		}
		// reweight the support
		spread := 0.0
		for _, j := range cur.idx {
			spread = math.Max(spread, math.Abs(G[j]-v))
		}
		if spread > 0 && len(cur.idx) > 1 {
			for _, eta := range []float64{2, 0.5, 0.1} {
				ww := make([]float64, len(cur.w))
				for k, j := range cur.idx {
					ww[k] = cur.w[k] * math.Exp(eta*(G[j]-v)/spread)
				}
				try(append([]int(nil), cur.idx...), normalized(ww))
			}
		}
		// insert the best new atom
		bj := -1
		for j, gv := range G {
			if !slices.Contains(cur.idx, j) && (du.off == nil || !du.off[j]) && gv > v && (bj < 0 || gv > G[bj]) {
				bj = j
			}
		}
		if bj >= 0 {
			for _, eps := range []float64{1e-4, 0.01, 0.1, 0.4} {
				ww := make([]float64, len(cur.w), len(cur.w)+1)
				for k := range ww {
					ww[k] = cur.w[k] * (1 - eps)
				}
				try(append(append([]int(nil), cur.idx...), bj), append(ww, eps))
			}
		}
		if nv <= best+1e-12*math.Max(1, math.Abs(best)) {
			break
		}
		cur, best = next, nv
	}
	return cur, best
}

// normalized scales w to sum 1 (in place) and returns it.
func normalized(w []float64) []float64 {
	s := 0.0
	for _, v := range w {
		s += v
	}
	for k := range w {
		w[k] /= s
	}
	return w
}
