package estimate

import (
	"context"
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
// features laid out flat for the scan.
type candidates struct {
	rows []int     // in increasing order
	flat []float64 // row i's features at flat[i·d : (i+1)·d]
	d    int
}

func newCandidates(s *Sample, rows []int) *candidates {
	d := len(s.V[0])
	c := &candidates{rows: rows, flat: make([]float64, 0, len(rows)*d), d: d}
	for _, k := range rows {
		c.flat = append(c.flat, s.V[k]...)
	}
	return c
}

// neighbours holds the kmax nearest rows of a query, nearest first (ties:
// the earlier row), and reuses its buffer between queries. While rows are
// scanned it is a max-heap on (distance, row), so that a row enters in
// O(log kmax) steps; each entry keeps its distance beside its row, and a
// sift moves entries into a hole instead of swapping them
// (BenchmarkFit/knn).
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

// find collects the nearest candidates to v (squared Euclidean distance)
// and leaves them nearest first.
func (nb *neighbours) find(c *candidates, v []float64) {
	kmax := nb.kmax
	nb.near = nb.near[:0]
	d := c.d
	for i, k := range c.rows { // rows in increasing order: a later row never displaces an equal one
		var dist float64
		for j, x := range c.flat[i*d : (i+1)*d] {
			e := x - v[j]
			dist += e * e
		}
		if n := len(nb.near); n < kmax {
			nb.near = append(nb.near, neighbour{dist, k})
			h := nb.near
			x, at := h[n], n
			for at > 0 { // up
				p := (at - 1) / 2
				if !x.after(h[p]) {
					break
				}
				h[at] = h[p]
				at = p
			}
			h[at] = x
			continue
		}
		if dist < nb.near[0].dist {
			nb.near[0] = neighbour{dist, k}
			nb.down(0, kmax)
		}
	}
	for n := len(nb.near) - 1; n > 0; n-- { // heap sort: farthest to the end
		nb.near[0], nb.near[n] = nb.near[n], nb.near[0]
		nb.down(0, n)
	}
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
