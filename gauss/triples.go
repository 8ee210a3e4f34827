package gauss

import (
	"math"
	"sort"
)

// Three-atom posteriors on a coarse sub-grid (docs/gauss.md, "Pricing").
// Like pairs, a three-atom posterior's MMSEs depend only on its two gaps
// and its weights, so one table per shape serves every position: the scan
// of every triple of the sub-grid at every tabulated weight costs a few
// multiply-adds each. It is an exhaustive search of a finite set, not a
// bound: weights between the tabulated ones are left to the ascents.

// tripleTable holds, for every shape (k1, k2) of the sub-grid (gaps in
// sub-grid steps), every observer's MMSE at every tabulated weight.
type tripleTable struct {
	idx     []int        // the sub-grid: indices into the grid
	weights [][3]float64 // tabulated weights
	shapes  [][2]int
	m       [][][]float64 // [shape][weight][observer]
}

// newTripleTable lays a sub-grid of about s.TriplePoints points,
// symmetric about the grid's centre, and tabulates every shape.
func newTripleTable(n int, step float64, sn []float64, s OptimumSearch) *tripleTable {
	half := (n - 1) / 2
	h := max(1, (s.TriplePoints-1)/2)
	stride := max(1, half/h)
	h = half / stride
	t := &tripleTable{}
	for i := -h; i <= h; i++ {
		t.idx = append(t.idx, half+i*stride)
	}
	lo := -3 * float64(s.TripleWeights-1) / 2
	for a := range s.TripleWeights {
		for b := range s.TripleWeights {
			w := [3]float64{math.Exp(lo + 3*float64(a)), math.Exp(lo + 3*float64(b)), 1}
			sum := w[0] + w[1] + w[2]
			t.weights = append(t.weights, [3]float64{w[0] / sum, w[1] / sum, w[2] / sum})
		}
	}
	last := len(t.idx) - 1
	for k1 := 1; k1 < last; k1++ {
		for k2 := 1; k1+k2 <= last; k2++ {
			t.shapes = append(t.shapes, [2]int{k1, k2})
		}
	}
	t.m = make([][][]float64, len(t.shapes))
	parallel(len(t.shapes), s.Workers, nil, func(i int) {
		var e postEval
		sh := t.shapes[i]
		xs := []float64{0, float64(sh[0]*stride) * step, float64((sh[0]+sh[1])*stride) * step}
		t.m[i] = make([][]float64, len(t.weights))
		for wi, w := range t.weights {
			t.m[i][wi] = make([]float64, len(sn))
			for o, sd := range sn {
				t.m[i][wi][o] = e.mmse(xs, w[:], sd, nil, nil)
			}
		}
	})
	return t
}

// tripleCandidate is a three-atom posterior with its reduced cost.
type tripleCandidate struct {
	idx [3]int
	w   [3]float64
	rc  float64
}

// scan evaluates every triple of the sub-grid at every tabulated weight and
// returns the largest reduced cost and the best candidates with rc > 0 (one
// per triple of atoms, best first, at most limit).
func (t *tripleTable) scan(pp pairPrice, limit int) (float64, []tripleCandidate) {
	best := math.Inf(-1)
	var out []tripleCandidate
	n := len(t.idx)
	for si, sh := range t.shapes {
		for a := 0; a+sh[0]+sh[1] < n; a++ {
			j := [3]int{t.idx[a], t.idx[a+sh[0]], t.idx[a+sh[0]+sh[1]]}
			if pp.skip(j[0]) || pp.skip(j[1]) || pp.skip(j[2]) {
				continue
			}
			c := tripleCandidate{idx: j, rc: math.Inf(-1)}
			for wi, w := range t.weights {
				v := -w[0]*pp.g[j[0]] - w[1]*pp.g[j[1]] - w[2]*pp.g[j[2]]
				for o, co := range pp.c {
					v += co * t.m[si][wi][o]
				}
				if v > c.rc {
					c.rc, c.w = v, w
				}
			}
			best = math.Max(best, c.rc)
			if c.rc > 0 {
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rc > out[j].rc })
	if len(out) > limit {
		out = out[:limit]
	}
	return best, out
}
