package gauss

import (
	"context"
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
	for j := range prob {
		normalized(prob[j]) // the master's rows hold to 1e-9
	}
	return Kernel{Edges: edges, Prob: prob}
}

// secantRounds bounds the re-solves at a reduced D.
const secantRounds = 2

// continuum builds the kernel of the master solution, certifies it and,
// while its reconstructor loss exceeds D, re-solves the LP at D less the
// excess (with the columns found so far). The result is feasible: a kernel
// still above D is time-shared with F = X.
func (o *OptimumSearcher) continuum(ctx context.Context, cg *colGen, mr masterResult) (Achievable, float64, error) {
	d := cg.d
	best, bestQE := Achievable{}, 0.0
	have := false
	target := d
	for round := 0; ; round++ {
		k := cg.kernelOfColumns(mr.tau)
		l, qe, err := o.m.KernelLosses(k)
		if err != nil {
			return Achievable{}, 0, err
		}
		mech := Mechanism{Family: FamilyKernel, Delta: cg.g.step, Labels: len(k.Prob[0]), Kernel: &k}
		a := o.m.feasible(Achievable{Losses: l, Mechanism: mech}, d)
		if !have || a.MinAdv > best.MinAdv {
			best, bestQE, have = a, qe, true
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
			return Achievable{}, 0, err
		}
		cg.cols, cg.seen = sub.cols, sub.seen
	}
	return best, bestQE, nil
}
