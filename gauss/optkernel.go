package gauss

import (
	"context"

	"gonum.org/v1/gonum/floats"
)

// The LP's posteriors as a privatizer on the continuum (docs/gauss.md,
// "A mechanism on the continuum"). Cells c_j centred on the grid points
// (edges at the midpoints, the tails in the end cells) have exactly the grid
// prior's masses p_j, so the kernel
//
//	K_jl = P(F = l | X ∈ c_j) = τ_l μ_l(j) / p_j
//
// releases label l with probability τ_l and leaves, given F = l, X spread
// over the cells with masses τ_l μ_l(j): the grid posterior with each atom
// spread over its cell as the prior is. The losses of this kernel are
// computed on the continuum by KernelLosses, as certify computes them; the
// spread costs the reconstructor about step²/12, which the LP is re-solved
// for (at D minus the excess), and whatever remains is removed by
// time-sharing with F = X.

// kernelOfColumns returns the kernel of the master solution tau.
func (cg *colGen) kernelOfColumns(tau []float64) Kernel {
	g := cg.g
	n := len(g.xs)
	edges := make([]float64, n-1)
	for j := range edges {
		edges[j] = (g.xs[j] + g.xs[j+1]) / 2
	}
	var labels []int
	for ci := range tau { // columns added after the last master have no weight
		if tau[ci] > 0 {
			labels = append(labels, ci)
		}
	}
	prob := make([][]float64, n)
	for j := range prob {
		prob[j] = make([]float64, len(labels))
	}
	for l, ci := range labels {
		c := cg.cols[ci]
		for a, j := range c.idx {
			prob[j][l] += tau[ci] * c.w[a] / g.prior[j]
		}
	}
	// The master's rows hold to primalAbsTol: a cell of the far tails may
	// have no label at all; it takes its inner neighbour's row.
	mid := n / 2
	for j := mid; j < n; j++ {
		cg.fixRow(prob, j, j-1)
	}
	for j := mid; j >= 0; j-- {
		cg.fixRow(prob, j, j+1)
	}
	return Kernel{Edges: edges, Prob: prob}
}

// fixRow normalizes row j of the kernel, or copies row from when it has no
// mass.
func (cg *colGen) fixRow(prob [][]float64, j, from int) {
	if floats.Sum(prob[j]) > 0 { // the entries are ≥ 0: any positive one
		normalized(prob[j])
		return
	}
	if from < 0 || from >= len(prob) {
		prob[j][0] = 1
		return
	}
	copy(prob[j], prob[from])
}

// secantRounds bounds the re-solves at a reduced D.
const secantRounds = 2

// continuum builds the kernel of the master solution, certifies it and,
// while its reconstructor loss exceeds D, re-solves the LP at D less the
// excess (with the columns found so far). The result is feasible: a kernel
// still above D is time-shared with F = X.
// It returns the feasible mechanism, the kernel alone and the quadrature
// error estimate.
func (o *OptimumSearcher) continuum(ctx context.Context, cg *colGen, mr masterResult) (Achievable, Achievable, float64, error) {
	d := cg.d
	var best, bestKernel Achievable
	bestQE := 0.0
	have := false
	target := d
	for round := 0; ; round++ {
		k := cg.kernelOfColumns(mr.tau)
		l, qe, err := o.m.KernelLosses(k)
		if err != nil {
			return Achievable{}, Achievable{}, 0, err
		}
		mech := Mechanism{Family: FamilyKernel, Delta: cg.g.step, Labels: len(k.Prob[0]), Kernel: &k}
		kern := Achievable{Losses: l, Mechanism: mech}
		a := o.m.feasible(kern, d)
		if !have || a.MinAdv > best.MinAdv {
			best, bestKernel, bestQE, have = a, kern, qe, true
		}
		excess := l.Recon - d
		if excess <= 0 || round >= secantRounds {
			break
		}
		target -= excess
		if !(target > 0) {
			break
		}
		sub := *cg
		sub.d, sub.lp = target, nil
		if _, mr, err = sub.solve(ctx, o.s); err != nil {
			return Achievable{}, Achievable{}, 0, err
		}
		cg.cols, cg.seen = sub.cols, sub.seen
	}
	return best, bestKernel, bestQE, nil
}
