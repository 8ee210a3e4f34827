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
		for i, r := range nb.idx { // the running mean over the nearest rows
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
// the earlier row), and reuses its buffers between queries. While rows are
// scanned it is a max-heap on (distance, row), so that a row enters in
// O(log kmax) steps.
type neighbours struct {
	idx  []int
	dist []float64
}

func newNeighbours(kmax int) *neighbours {
	return &neighbours{idx: make([]int, 0, kmax), dist: make([]float64, 0, kmax)}
}

// after reports whether entry i is farther than entry j (the later row of
// equal distances).
func (nb *neighbours) after(i, j int) bool {
	if nb.dist[i] != nb.dist[j] {
		return nb.dist[i] > nb.dist[j]
	}
	return nb.idx[i] > nb.idx[j]
}

func (nb *neighbours) swap(i, j int) {
	nb.idx[i], nb.idx[j] = nb.idx[j], nb.idx[i]
	nb.dist[i], nb.dist[j] = nb.dist[j], nb.dist[i]
}

// down restores the heap below i among the first n entries.
func (nb *neighbours) down(i, n int) {
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && nb.after(c+1, c) {
			c++
		}
		if !nb.after(c, i) {
			return
		}
		nb.swap(i, c)
		i = c
	}
}

// find collects the nearest candidates to v (squared Euclidean distance)
// and leaves them nearest first.
func (nb *neighbours) find(c *candidates, v []float64) {
	kmax := cap(nb.idx)
	nb.idx, nb.dist = nb.idx[:0], nb.dist[:0]
	d := c.d
	for i, k := range c.rows { // rows in increasing order: a later row never displaces an equal one
		var dist float64
		for j, x := range c.flat[i*d : (i+1)*d] {
			e := x - v[j]
			dist += e * e
		}
		if n := len(nb.idx); n < kmax {
			nb.idx, nb.dist = append(nb.idx, k), append(nb.dist, dist)
			for i := n; i > 0; { // up
				p := (i - 1) / 2
				if !nb.after(i, p) {
					break
				}
				nb.swap(i, p)
				i = p
			}
			continue
		}
		if dist < nb.dist[0] {
			nb.idx[0], nb.dist[0] = k, dist
			nb.down(0, kmax)
		}
	}
	for n := len(nb.idx) - 1; n > 0; n-- { // heap sort: farthest to the end
		nb.swap(0, n)
		nb.down(0, n)
	}
}

// mean is the weighted mean target of the k nearest rows found (all of
// them when fewer).
func (nb *neighbours) mean(s *Sample, k int) float64 {
	var sw, sx float64
	for _, r := range nb.idx[:min(k, len(nb.idx))] {
		w := s.weight(r)
		sw += w
		sx += w * s.X[r]
	}
	if sw == 0 {
		return 0
	}
	return sx / sw
}
