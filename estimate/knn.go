package estimate

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// knnGrid are the neighbour counts cross-validation chooses from.
var knnGrid = []int{1, 2, 4, 8, 16, 32, 64, 128}

// folds is the number of cross-validation folds; example e is in fold
// e mod folds (the rows of a data run are already shuffled).
const folds = 5

// fitKNN chooses k by cross-validation on train and scores the k-nearest
// neighbour estimate on test.
func fitKNN(ctx context.Context, train, test *Sample, loss Loss) (Result, error) {
	var pool []int
	for k := range train.Rows() {
		if train.weight(k) > 0 {
			pool = append(pool, k)
		}
	}
	k, err := chooseK(ctx, train, pool, loss)
	if err != nil {
		return Result{}, err
	}
	all := newCandidates(train, pool)
	nb := newNeighbours(k)
	pred := make([]float64, test.Rows())
	for q, v := range test.V {
		if q%256 == 0 {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		nb.find(all, v)
		pred[q] = nb.mean(train, k)
	}
	return Result{Method: KNN, K: k, Test: score(test, pred, loss)}, nil
}

// chooseK is the k of knnGrid (at most the rows a fold leaves) with the
// lowest cross-validated loss on train, the smaller of equals.
func chooseK(ctx context.Context, train *Sample, pool []int, loss Loss) (int, error) {
	sets := make([]*candidates, folds)
	left := len(pool) // the fewest rows a fold leaves for its neighbours
	for f := range folds {
		var rows []int
		for _, k := range pool {
			if train.example(k)%folds != f {
				rows = append(rows, k)
			}
		}
		sets[f] = newCandidates(train, rows)
		left = min(left, len(rows))
	}
	if left < 1 {
		return 1, nil // too few rows to cross-validate: the nearest one
	}
	grid := knnGrid
	for len(grid) > 1 && grid[len(grid)-1] > left {
		grid = grid[:len(grid)-1]
	}
	cv := make([]float64, len(grid))
	nb := newNeighbours(grid[len(grid)-1])
	for q, v := range train.V {
		if q%256 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		w := train.weight(q)
		if w == 0 {
			continue
		}
		nb.find(sets[train.example(q)%folds], v)
		var sw, sx float64
		g := 0
		for i, e := range nb.near { // the running mean over the nearest rows
			r := e.row
			sw += train.weight(r)
			sx += train.weight(r) * train.X[r]
			if i+1 == grid[g] {
				cv[g] += w * pointLoss(sx/sw, train.X[q], loss)
				if g++; g == len(grid) {
					break
				}
			}
		}
	}
	best := 0
	for g := range grid {
		if cv[g] < cv[best] {
			best = g
		}
	}
	return grid[best], nil
}

// candidates are the rows a query's neighbours are taken from, their
// features laid out flat for the scan, and a k-d tree over them, so that a
// query visits the candidates near it first and skips the boxes that lie
// farther than the farthest neighbour kept.
type candidates struct {
	rows []int     // in increasing order
	flat []float64 // row i's features at flat[i·d : (i+1)·d]
	d    int
	// perm holds the indices i of rows, each node's in one run;
	// nodes[0] is the root, or nodes is nil when a feature is not finite
	// (the query then scans every candidate).
	perm  []int32
	nodes []kdNode
	box   []float64 // node n's box: lower ends at box[2n·d:], upper at box[(2n+1)·d:]
}

// kdNode is a box of candidates: perm[start:end], split into the nodes
// left and right (−1 at a leaf).
type kdNode struct {
	start, end  int32
	left, right int32
}

// leafSize is the most candidates a leaf of the k-d tree holds: a tree of
// n candidates has fewer than n/4 nodes (leaves of 8 to 16), so it takes
// at most 8 + 4·d bytes a candidate with perm (TreeBytesPerRow).
const leafSize = 16

// TreeBytesPerRow bounds the bytes the k-NN search's trees take per
// training row with d features: the five folds' and the whole split's,
// each row in five of them.
func TreeBytesPerRow(d int) int64 { return 5 * (8 + 4*int64(d)) }

func newCandidates(s *Sample, rows []int) *candidates {
	d := len(s.V[0])
	c := &candidates{rows: rows, flat: make([]float64, 0, len(rows)*d), d: d}
	for _, k := range rows {
		c.flat = append(c.flat, s.V[k]...)
	}
	for _, x := range c.flat {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return c
		}
	}
	c.perm = make([]int32, len(rows))
	for i := range c.perm {
		c.perm[i] = int32(i)
	}
	if len(rows) > 0 {
		nodes := 2*len(rows)/(leafSize/2) + 1
		c.nodes, c.box = make([]kdNode, 0, nodes), make([]float64, 0, 2*d*nodes)
		c.build(0, len(rows))
	}
	return c
}

// build adds the node of perm[start:end] and its subtree, and returns its
// index. A node is split at the median of its widest feature.
func (c *candidates) build(start, end int) int32 {
	d, n := c.d, int32(len(c.nodes))
	c.nodes = append(c.nodes, kdNode{start: int32(start), end: int32(end), left: -1, right: -1})
	at := len(c.box)
	first := c.flat[int(c.perm[start])*d:][:d]
	c.box = append(append(c.box, first...), first...)
	lo, hi := c.box[at:at+d], c.box[at+d:at+2*d]
	for _, i := range c.perm[start+1 : end] {
		for j, x := range c.flat[int(i)*d:][:d] {
			lo[j], hi[j] = min(lo[j], x), max(hi[j], x)
		}
	}
	if end-start <= leafSize {
		return n
	}
	split := 0
	for j := range d {
		if hi[j]-lo[j] > hi[split]-lo[split] {
			split = j
		}
	}
	if hi[split] == lo[split] {
		return n // every candidate at one point
	}
	slices.SortFunc(c.perm[start:end], func(a, b int32) int {
		return cmp.Or(cmp.Compare(c.flat[int(a)*d+split], c.flat[int(b)*d+split]), cmp.Compare(a, b))
	})
	mid := start + (end-start)/2
	left := c.build(start, mid)
	right := c.build(mid, end)
	c.nodes[n].left, c.nodes[n].right = left, right
	return n
}

// lowerBound is a lower bound, within rounding, on the squared distance
// of v to any candidate in node n's box.
func (c *candidates) lowerBound(n int32, v []float64) float64 {
	d := c.d
	lo, hi := c.box[2*int(n)*d:][:d], c.box[(2*int(n)+1)*d:][:d]
	var lb float64
	for j, x := range v {
		var g float64
		if x < lo[j] {
			g = lo[j] - x
		} else if x > hi[j] {
			g = x - hi[j]
		}
		lb += g * g
	}
	return lb
}

// neighbours holds the kmax nearest rows of a query, nearest first (ties:
// the earlier row), and reuses its buffer between queries. While rows are
// scanned it is a max-heap on (distance, row), so that a row enters in
// O(log kmax) steps; each entry keeps its distance beside its row, and a
// sift moves entries into a hole instead of swapping them
// (BenchmarkFit/knn). (distance, row) orders the rows totally, so the rows
// kept and their order do not depend on the order they are visited in.
type neighbours struct {
	kmax int
	near []neighbour
}

// neighbour is a candidate row and its squared distance to the query.
type neighbour struct {
	dist float64
	row  int
}

// after reports whether a is farther than b (the later row of equal
// distances).
func (a neighbour) after(b neighbour) bool {
	return a.dist > b.dist || a.dist == b.dist && a.row > b.row
}

func newNeighbours(kmax int) *neighbours {
	return &neighbours{kmax: kmax, near: make([]neighbour, 0, kmax)}
}

// down restores the heap below i among the first n entries.
func (nb *neighbours) down(i, n int) {
	h := nb.near[:n]
	x := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].after(h[c]) {
			c++
		}
		if !h[c].after(x) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}

// offer keeps candidate i of c, at squared distance dist, if it is among
// the kmax nearest so far.
func (nb *neighbours) offer(c *candidates, i int, dist float64) {
	e := neighbour{dist, c.rows[i]}
	n := len(nb.near)
	if n == nb.kmax {
		if nb.near[0].after(e) {
			nb.near[0] = e
			nb.down(0, n)
		}
		return
	}
	nb.near = append(nb.near, e)
	h := nb.near
	for n > 0 { // up
		p := (n - 1) / 2
		if !e.after(h[p]) {
			break
		}
		h[n] = h[p]
		n = p
	}
	h[n] = e
}

// dist is the squared Euclidean distance of candidate i to v.
func (c *candidates) dist(i int, v []float64) float64 {
	var dist float64
	for j, x := range c.flat[i*c.d : (i+1)*c.d] {
		e := x - v[j]
		dist += e * e
	}
	return dist
}

// find collects the nearest candidates to v (squared Euclidean distance)
// and leaves them nearest first.
func (nb *neighbours) find(c *candidates, v []float64) {
	nb.near = nb.near[:0]
	if c.nodes == nil {
		for i := range c.rows {
			nb.offer(c, i, c.dist(i, v))
		}
	} else {
		nb.search(c, 0, v)
	}
	for n := len(nb.near) - 1; n > 0; n-- { // heap sort: farthest to the end
		nb.near[0], nb.near[n] = nb.near[n], nb.near[0]
		nb.down(0, n)
	}
}

// prunable is the margin by which a box's lower bound must exceed the
// farthest neighbour kept for the box to be skipped: each candidate's
// distance is at least its box's bound within the rounding of the two sums
// (a few units in the last place for any d below 10⁶), so a box skipped holds
// only candidates strictly farther, which cannot enter. The rows kept are
// those of a scan of every candidate.
const prunable = 1 + 1e-9

// search visits node n of c's tree, the nearer child first.
func (nb *neighbours) search(c *candidates, n int32, v []float64) {
	node := c.nodes[n]
	if node.left < 0 {
		for _, i := range c.perm[node.start:node.end] {
			nb.offer(c, int(i), c.dist(int(i), v))
		}
		return
	}
	near, far := node.left, node.right
	lbNear, lbFar := c.lowerBound(near, v), c.lowerBound(far, v)
	if lbFar < lbNear {
		near, far, lbNear, lbFar = far, near, lbFar, lbNear
	}
	if !nb.beyond(lbNear) {
		nb.search(c, near, v)
	}
	if !nb.beyond(lbFar) {
		nb.search(c, far, v)
	}
}

// beyond reports whether every candidate at squared distance at least lb
// (within rounding) is farther than the farthest neighbour kept, which it
// cannot displace.
func (nb *neighbours) beyond(lb float64) bool {
	return len(nb.near) == nb.kmax && lb > nb.near[0].dist*prunable
}

// mean is the weighted mean target of the k nearest rows found (all of
// them when fewer).
func (nb *neighbours) mean(s *Sample, k int) float64 {
	var sw, sx float64
	for _, e := range nb.near[:min(k, len(nb.near))] {
		w := s.weight(e.row)
		sw += w
		sx += w * s.X[e.row]
	}
	if sw == 0 {
		return 0
	}
	return sx / sw
}
