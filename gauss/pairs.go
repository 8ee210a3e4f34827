package gauss

import (
	"math"
	"sort"
)

// Two-atom posteriors on a uniform grid (docs/gauss.md, "Pricing").
//
// A posterior p·δ_a + (1 − p)·δ_b has, for every observer, an MMSE that
// depends only on the distance b − a and on p: on a uniform grid one table
// per distance (in grid steps) serves every pair. Each entry holds m_o(p)
// and its derivative m_o′(p) = R_o(a) − R_o(b) (the Bayes estimator's risks
// at the atoms: m_o is concave in p, and the risks are its supergradient).
//
// The reduced cost of the pair is rc(p) = C(p) + V(p) with
//
//	C(p) = Σ_i w_i m_i(p) − p g_a − (1 − p) g_b   (concave),
//	V(p) = −λ m_Y(p)                              (convex),
//
// so on [p₁, p₂] C lies below both tangents at the ends and V below its
// chord: rc(p) ≤ max_p [min(T₁(p), T₂(p)) + chord(p)], a concave piecewise
// linear function whose maximum is at an end or where T₁ = T₂. Bisecting
// the intervals whose bound is above a target until none is proves that no
// two-atom posterior on the grid has a reduced cost above the target (up to
// the quadrature's error, below 1e-13 relative, and rounding).

// pairNode is one tabulated weight of a distance: p, and m_o, m_o′ for
// every observer o (0: the reconstructor).
type pairNode struct {
	p     float64
	m, dm []float64
}

// pairTable holds the nodes of every distance 1..n−1 (index k), sorted by p,
// with p = 0 and p = 1 (point masses) at the ends.
type pairTable struct {
	step  float64 // grid step
	s     []float64
	nodes [][]pairNode
}

// The tabulated weights: p = 1/(1 + e^{−u}) for u from −pairU to pairU in
// steps of pairDU, and the ends 0 and 1.
const (
	pairU  = 24.0
	pairDU = 1.0
)

// newPairTable tabulates every distance of an n-point grid of the given
// step for the observers with channel noise s.
func newPairTable(n int, step float64, s []float64, workers int) *pairTable {
	t := &pairTable{step: step, s: s, nodes: make([][]pairNode, n)}
	parallel(n-1, workers, nil, func(i int) {
		k := i + 1
		d := float64(k) * step
		nodes := []pairNode{t.end(d, 0), t.end(d, 1)}
		var e postEval
		for u := -pairU; u <= pairU; u += pairDU {
			nodes = append(nodes, t.eval(d, 1/(1+math.Exp(-u)), &e))
		}
		sort.Slice(nodes, func(a, b int) bool { return nodes[a].p < nodes[b].p })
		t.nodes[k] = nodes
	})
	return t
}

// end is the node of a point mass: p = 0 (all mass at b) or p = 1. Its
// MMSE is 0 and the Bayes estimator is the atom, so m′ = R(a) − R(b) =
// ±d² for every observer.
func (t *pairTable) end(d, p float64) pairNode {
	nd := pairNode{p: p, m: make([]float64, len(t.s)), dm: make([]float64, len(t.s))}
	for o := range t.s {
		nd.dm[o] = d * d
		if p == 1 {
			nd.dm[o] = -d * d
		}
	}
	return nd
}

// eval computes the node at weight p of distance d.
func (t *pairTable) eval(d, p float64, e *postEval) pairNode {
	xs, ws := []float64{0, d}, []float64{p, 1 - p}
	nd := pairNode{p: p, m: make([]float64, len(t.s)), dm: make([]float64, len(t.s))}
	r := make([]float64, 2)
	for o, s := range t.s {
		nd.m[o] = e.mmse(xs, ws, s, xs, r)
		nd.dm[o] = r[0] - r[1]
	}
	return nd
}

// pairPrice is the pricing of pairs at fixed multipliers: coefficient c_o
// of observer o's MMSE in the reduced cost (w_i, or −λ for o = 0) and the
// prior rows' multipliers g.
type pairPrice struct {
	c   []float64
	g   []float64
	off []bool // atoms left out (lpDuals.off), nil for none
}

// skip reports whether a posterior with atom j is left out of pricing.
func (pp pairPrice) skip(j int) bool { return pp.off != nil && pp.off[j] }

// nodeSum is a node's reduced-cost terms that do not depend on the pair's
// position: the adversaries' Σ_i w_i m_i and its derivative, and the
// reconstructor's −λ m_Y.
type nodeSum struct{ p, c, dc, v float64 }

// sums returns the nodes' position-free terms.
func (pp pairPrice) sums(nodes []pairNode, out []nodeSum) []nodeSum {
	out = out[:0]
	for _, nd := range nodes {
		ns := nodeSum{p: nd.p}
		for o, c := range pp.c {
			if o == 0 {
				ns.v = c * nd.m[0]
				continue
			}
			ns.c += c * nd.m[o]
			ns.dc += c * nd.dm[o]
		}
		out = append(out, ns)
	}
	return out
}

// parts returns the concave part C, its derivative and the convex part V
// of the reduced cost of a pair with multipliers ga, gb at a node.
func (ns nodeSum) parts(ga, gb float64) (cv, dc, vv float64) {
	return ns.c - ns.p*ga - (1-ns.p)*gb, ns.dc + gb - ga, ns.v
}

// rc is the reduced cost of a pair at a node.
func (ns nodeSum) rc(ga, gb float64) float64 { return ns.c - ns.p*ga - (1-ns.p)*gb + ns.v }

// pairBound returns an upper bound on rc over [l.p, r.p] for a pair with
// multipliers ga, gb.
func pairBound(l, r nodeSum, ga, gb float64) float64 {
	c1, d1, v1 := l.parts(ga, gb)
	c2, d2, v2 := r.parts(ga, gb)
	w := r.p - l.p
	f := func(p float64) float64 {
		t := math.Min(c1+d1*(p-l.p), c2+d2*(p-r.p))
		return t + v1 + (v2-v1)*(p-l.p)/w
	}
	best := math.Max(f(l.p), f(r.p))
	if d1 != d2 {
		// T₁ = T₂: c1 + d1(p − p₁) = c2 + d2(p − p₂)
		if p := (c2 - c1 + d1*l.p - d2*r.p) / (d1 - d2); p > l.p && p < r.p {
			best = math.Max(best, f(p))
		}
	}
	// the terms' rounding and quadrature error (below 1e-13 relative)
	return best + pairMargin*(math.Abs(c1)+math.Abs(c2)+math.Abs(v1)+math.Abs(v2)+(math.Abs(d1)+math.Abs(d2))*w)
}

// pairMargin is the relative margin of pairBound over the computed terms:
// the MMSEs are exact to about 1e-13 (posterior.go), their sums round to a
// few ulps.
const pairMargin = 1e-10

// pairCandidate is a two-atom posterior (a, b; weight p on a) with its
// reduced cost.
type pairCandidate struct {
	a, b int
	p    float64
	rc   float64
}

// pairSearch is the result of searching every pair of the grid.
type pairSearch struct {
	// Bound is an upper bound on the reduced cost of every posterior with
	// at most two atoms on the grid (the tangent/chord bound over every
	// interval between nodes, after refinement); Best is the largest
	// reduced cost evaluated.
	Bound, Best float64
	// Candidates are the best evaluated pairs with rc > 0, best first, one
	// per pair of atoms.
	Candidates []pairCandidate
}

// pairMaxNodes bounds the nodes of one distance during a refinement.
const pairMaxNodes = 4096

// searchPairs evaluates every pair of the grid at every node and, where
// slack > 0, refines the intervals whose bound exceeds max(Best, 0) + slack
// until none does (or a distance reaches pairMaxNodes nodes). With slack ≤ 0
// it only scans the nodes (Bound is then the tangent bound without
// refinement). With slack ≤ 0 it only scans the nodes, and Bound is +Inf.
// At most limit candidates are returned.
func (t *pairTable) searchPairs(pp pairPrice, slack float64, limit, workers int) pairSearch {
	n := len(t.nodes)
	type res struct {
		bound, best float64
		cands       []pairCandidate
	}
	out := make([]res, n)
	parallel(n-1, workers, nil, func(i int) {
		k := i + 1
		nodes := t.nodes[k]
		r := res{bound: math.Inf(1), best: math.Inf(-1)}
		var e postEval
		var ns []nodeSum
		for {
			ns = pp.sums(nodes, ns)
			// best node per pair, and the intervals above the target
			r.cands = r.cands[:0]
			r.best = math.Inf(-1)
			for a := 0; a+k < n; a++ {
				if pp.skip(a) || pp.skip(a+k) {
					continue
				}
				ga, gb := pp.g[a], pp.g[a+k]
				c := pairCandidate{a: a, b: a + k, rc: math.Inf(-1)}
				for _, nd := range ns {
					v := nd.rc(ga, gb)
					r.best = math.Max(r.best, v)
					if v > c.rc && nd.p >= minWeight && 1-nd.p >= minWeight {
						c.rc, c.p = v, nd.p
					}
				}
				if c.rc > 0 && c.p >= minWeight && 1-c.p >= minWeight {
					r.cands = append(r.cands, c)
				}
			}
			if slack <= 0 {
				break
			}
			target := math.Max(r.best, 0) + slack
			var split []int
			r.bound = math.Inf(-1)
			for iv := 0; iv+1 < len(nodes); iv++ {
				hi := math.Inf(-1)
				for a := 0; a+k < n; a++ {
					if pp.skip(a) || pp.skip(a+k) {
						continue
					}
					hi = math.Max(hi, pairBound(ns[iv], ns[iv+1], pp.g[a], pp.g[a+k]))
				}
				r.bound = math.Max(r.bound, hi)
				if hi > target {
					split = append(split, iv)
				}
			}
			if len(split) == 0 || len(nodes)+len(split) > pairMaxNodes {
				break
			}
			if len(nodes) == len(t.nodes[k]) {
				nodes = append([]pairNode(nil), nodes...) // refine a copy: the table is shared
			}
			d := float64(k) * t.step
			for _, iv := range split {
				nodes = append(nodes, t.eval(d, midWeight(nodes[iv].p, nodes[iv+1].p), &e))
			}
			sort.Slice(nodes, func(a, b int) bool { return nodes[a].p < nodes[b].p })
		}
		out[k] = r
	})
	s := pairSearch{Bound: math.Inf(-1), Best: math.Inf(-1)}
	for k := 1; k < n; k++ {
		s.Bound = math.Max(s.Bound, out[k].bound)
		s.Best = math.Max(s.Best, out[k].best)
		s.Candidates = append(s.Candidates, out[k].cands...)
	}
	sort.Slice(s.Candidates, func(i, j int) bool { return s.Candidates[i].rc > s.Candidates[j].rc })
	if len(s.Candidates) > limit {
		s.Candidates = s.Candidates[:limit]
	}
	return s
}

// midWeight splits [p1, p2] at the midpoint of the log-odds (in p where an
// end is 0 or 1).
func midWeight(p1, p2 float64) float64 {
	if p1 == 0 || p2 == 1 {
		return (p1 + p2) / 2
	}
	l1, l2 := math.Log(p1/(1-p1)), math.Log(p2/(1-p2))
	return 1 / (1 + math.Exp(-(l1+l2)/2))
}
