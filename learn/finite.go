package learn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/mmds-project/mmds/internal/vexp"
	"github.com/mmds-project/mmds/mip"
)

// ErrLaw is wrapped by every error about a finite model's law (Config.Law)
// or a dataset that cannot be read as one.
var ErrLaw = errors.New("learn: invalid finite law")

// checkLaw checks the finite model's law f for a dataset with k
// adversaries: X with at least 2 values, the reconstructor and k
// adversaries, every row a distribution (mip.Finite.Validate).
func checkLaw(f *mip.Finite, k int) error {
	if n := f.N(); n < 2 {
		return fmt.Errorf("%w: prior has %d entries: X needs at least 2 values", ErrLaw, n)
	}
	if f.K() != k {
		return fmt.Errorf("%w: %d observers, want the reconstructor and %d adversaries", ErrLaw, 1+f.K(), k)
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrLaw, err)
	}
	return nil
}

// observers lists f's observers in the order of a Dataset's side
// columns: the reconstructor, then adversary 1..K.
func observers(f *mip.Finite) []mip.Observer { return append([]mip.Observer{f.Recon}, f.Adv...) }

// bayesRisk is one observer's exact Bayes risk as a function of a channel
// P(l | x) with m labels:
//
//	R(P) = Σ_{l,v} min_a Σ_x π(x) W(v|x) L(x, a) P(l|x),
//
// the finite sum of docs/finite.md ("Exact Bayes risk"): the observer sees
// the label l and its side value v and answers with the estimate a that is
// Bayes-optimal for the posterior of X given (l, v). With a temperature
// τ > 0 the min is replaced by the soft minimum m·(−τ log Σ_a exp(−r_a/τ))
// of the posterior risks r_a = c_a/m of each cell (m its mass, c_a its
// unnormalized risk of a): a lower bound within τ log|A| per unit mass
// that tends to the exact risk as τ → 0 (deterministic annealing, Rose
// 1998). The expectation over labels is exact: no label is sampled.
type bayesRisk struct {
	n, nv, na int
	mass      []float64 // mass[v*n+x] = π(x) W(v|x)
	coef      []float64 // coef[(v*na+a)*n+x] = π(x) W(v|x) L(x, a)
	// Scratch for m labels (scratch): per cell (v, l) of one side value,
	// c[a*m+l] its unnormalized risks, w[a*m+l] their soft-minimum weights,
	// cm its mass, best and ab its least risk and estimate, z its weights'
	// sum, wr its weighted posterior risk, dm ∂(cm·g)/∂cm, hard whether it
	// takes the exact minimum; s[x*m+l] the gradient of P(l|x).
	c, w, cm, best, z, wr, dm, s []float64
	ab                           []int
	hard                         []bool
	one                          [1]float64 // accRows's coefficient of a plain sum
}

func newBayesRisk(prior []float64, o mip.Observer) *bayesRisk {
	n := len(prior)
	nv := len(o.Channel[0])
	loss := o.Loss
	if loss == nil {
		loss = zeroOne(n)
	}
	na := len(loss[0])
	r := &bayesRisk{n: n, nv: nv, na: na, mass: make([]float64, nv*n), coef: make([]float64, nv*na*n), one: [1]float64{1}}
	for v := range nv {
		for x := range n {
			m := prior[x] * o.Channel[x][v]
			r.mass[v*n+x] = m
			for a := range na {
				r.coef[(v*na+a)*n+x] = m * loss[x][a]
			}
		}
	}
	return r
}

// empiricalRisk is bayesRisk of the empirical joint law of (x, v) in the
// given rows, with the 0-1 loss on {0..n−1}.
func empiricalRisk(n, nv int, x, v []int) *bayesRisk {
	r := &bayesRisk{n: n, nv: nv, na: n, mass: make([]float64, nv*n), coef: make([]float64, nv*n*n), one: [1]float64{1}}
	inc := 1 / float64(len(x))
	for k := range x {
		r.mass[v[k]*n+x[k]] += inc
	}
	for vv := range nv {
		for a := range n {
			for xx := range n {
				if xx != a {
					r.coef[(vv*n+a)*n+xx] = r.mass[vv*n+xx]
				}
			}
		}
	}
	return r
}

func zeroOne(n int) [][]float64 {
	l := make([][]float64, n)
	for x := range l {
		l[x] = make([]float64, n)
		for a := range l[x] {
			if a != x {
				l[x][a] = 1
			}
		}
	}
	return l
}

// eval returns R(P) for the channel p (p[x*m+l] = P(l | x), m labels) at
// temperature tau (0: the exact risk), and when grad is not nil adds
// scale·∂R/∂P(l|x) into grad[x*m+l] (at τ = 0 the derivative of the
// minimizing estimate's term, the lowest index on ties).
//
// The sums run over x (and a) in index order for every cell (v, l), as a
// cell-at-a-time loop would add them; the loops run label-innermost
// (bayesrisk_kernels.go) so that the m cells of a side value are
// independent chains over the rows of p.
func (r *bayesRisk) eval(p []float64, m int, tau float64, grad []float64, scale float64) float64 {
	n, na := r.n, r.na
	r.scratch(m)
	cm, c, w, best, ab := r.cm[:m], r.c[:na*m], r.w[:na*m], r.best[:m], r.ab[:m]
	var total float64
	for v := range r.nv {
		clear(cm)
		clear(c)
		accRows(cm, r.mass[v*n:v*n+n], p, 1, n, m, 0, 1)
		accRows(c, r.coef[v*na*n:(v+1)*na*n], p, na, n, m, n, 1)
		minRows(best, ab, c, na, m)
		soft := false
		if tau > 0 {
			for _, s := range cm {
				soft = soft || !(s <= 0)
			}
		}
		if soft {
			// Soft minimum of the posterior risks r_a = c_a/cm, shifted
			// by the exact minimum for stability.
			softWeights(w, c, cm, best, na, m, tau)
			vexp.Exp(w, w) // math.Exp's bits
		}
		total = r.finish(total, v, m, tau, soft, grad, scale)
	}
	return total
}

// finish adds side value v's cells to the running risk total (in label
// order, one cell at a time) and, when grad is not nil, their derivatives;
// when soft, w holds exp(−(r_a − r_min)/τ) of the soft cells.
func (r *bayesRisk) finish(total float64, v, m int, tau float64, soft bool, grad []float64, scale float64) float64 {
	n, na := r.n, r.na
	cm, c, w, best, ab, dm, hard := r.cm[:m], r.c[:na*m], r.w[:na*m], r.best[:m], r.ab[:m], r.dm[:m], r.hard[:m]
	z, wr := r.z[:m], r.wr[:m]
	for l := range m {
		hard[l] = tau <= 0 || cm[l] <= 0
	}
	if soft {
		clear(z)
		accRows(z, r.one[:], w, 1, na, m, 0, 0) // z[l] = Σ_a w[a*m+l]
		for l := range m {
			if hard[l] {
				z[l] = 1
			}
		}
		normalize(w, c, cm, z, wr, na, m)
	}
	for l := range m {
		if hard[l] {
			total += best[l]
			dm[l] = 0
			continue
		}
		rmin := best[l] / cm[l]
		g := rmin - float64(tau*math.Log(z[l]))
		total += float64(cm[l] * g)
		// ∂(cm·g)/∂c_a = w_a; ∂(cm·g)/∂cm = g − Σ_a w_a r_a.
		dm[l] = g - wr[l]
	}
	if grad == nil {
		return total
	}
	// s[x*m+l] = ∂(cm·g)/∂P(l|x) of cell (v, l); a hard cell's is the
	// coefficient of its minimizing estimate.
	coef := r.coef[v*na*n : (v+1)*na*n]
	s := r.s[:n*m]
	if soft {
		mass := r.mass[v*n : v*n+n]
		for x := range n {
			floats.ScaleTo(s[x*m:x*m+m], mass[x], dm)
		}
		accRows(s, coef, w, n, na, m, 1, n)
	}
	for l := range m {
		if hard[l] {
			for x := range n {
				s[x*m+l] = coef[ab[l]*n+x]
			}
		}
	}
	floats.AddScaled(grad[:n*m], scale, s)
	return total
}

// scratch sizes the per-label buffers for m labels.
func (r *bayesRisk) scratch(m int) {
	if len(r.cm) >= m {
		return
	}
	r.cm, r.best, r.dm, r.z, r.wr = make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	r.s = make([]float64, r.n*m)
	r.ab, r.hard = make([]int, m), make([]bool, m)
	r.c, r.w = make([]float64, r.na*m), make([]float64, r.na*m)
}
