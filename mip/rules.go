package mip

import "math"

// realizer decides which partial decision rules of a 0-1 reconstructor are
// Bayes-optimal at some column c in the interior of the simplex. With
// q_y(x) = π(x) W(y|x), estimate a is optimal for side value y at c iff
// q_y(a) c_a ≥ q_y(x) c_x for every x; in s = log c these are difference
// constraints s_x − s_a ≤ log q_y(a) − log q_y(x), feasible iff the graph
// with an edge a → x of that weight per constraint has no negative cycle.
// Only such rules can be optimal at an interior point, and the maximum of
// the reduced cost is a limit of interior points, so pricing over them is
// exact (docs/finite.md, "Pricing"). The realizable rules number
// C(|Y|+n−1, n−1) at most for n = |Y| generic channels, far fewer than n^|Y|.
type realizer struct {
	n     int
	q     [][]float64 // q[y][x]
	acts  [][]int     // acts[y][j]: the estimate of rr.k[y][j]
	dist  []float64   // all-pairs shortest paths, n × n, row-major
	stack []float64   // saved dist matrices, one after another
}

func newRealizer(prior []float64, o Observer, rr risk) *realizer {
	n := len(prior)
	r := &realizer{n: n, acts: rr.acts, dist: make([]float64, n*n)}
	for y := range rr.k {
		q := make([]float64, n)
		for x := range q {
			q[x] = prior[x] * o.Channel[x][y]
		}
		r.q = append(r.q, q)
	}
	r.reset()
	return r
}

// reset forgets every assignment.
func (r *realizer) reset() {
	n := r.n
	for i := range r.dist {
		r.dist[i] = 0
		if i/n != i%n {
			r.dist[i] = math.Inf(1)
		}
	}
	r.stack = r.stack[:0]
}

// save pushes the current state (reusing the stack's memory) and returns
// the mark restore takes.
func (r *realizer) save() int {
	mark := len(r.stack)
	r.stack = append(r.stack, r.dist...)
	return mark
}

func (r *realizer) restore(mark int) {
	copy(r.dist, r.stack[mark:])
	r.stack = r.stack[:mark]
}

// assign adds the constraints of choosing rr.k[y][j] for side value y and
// reports whether the rule so far is still realizable (on false, the
// caller restores).
func (r *realizer) assign(y, j int) bool {
	n, q := r.n, r.q[y]
	a := r.acts[y][j]
	if q[a] <= 0 {
		// Side value y never occurs with X = a: a is optimal only if y
		// never occurs at all (then every estimate is).
		for _, v := range q {
			if v > 0 {
				return false
			}
		}
		return true
	}
	la := math.Log(q[a])
	for x := 0; x < n; x++ {
		if x == a || q[x] <= 0 {
			continue
		}
		w := la - math.Log(q[x])
		// Edge a → x of weight w: a negative cycle through it?
		if r.dist[x*n+a]+w < -1e-12 {
			return false
		}
		if r.dist[a*n+x] <= w {
			continue
		}
		for i := 0; i < n; i++ {
			dia := r.dist[i*n+a]
			if math.IsInf(dia, 1) {
				continue
			}
			for j := 0; j < n; j++ {
				if v := dia + w + r.dist[x*n+j]; v < r.dist[i*n+j] {
					r.dist[i*n+j] = v
				}
			}
		}
	}
	return true
}
