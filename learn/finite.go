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
	// c[a*m+l] its unnormalized risks, cm its mass, best its least risk, z
	// its weights' sum, wr its weighted posterior risk; s[x*m+l] the
	// gradient of P(l|x). Kept from risk for gradient, per side value v at
	// offset v·na·m or v·m: w[a*m+l] the cells' soft-minimum weights, dm
	// ∂(cm·g)/∂cm, ab the estimate, hard whether the cell takes the exact
	// minimum, and soft[v] whether any does not; m the label count.
	c, cm, best, z, wr, s, w, dm []float64
	ab                           []int
	hard, soft                   []bool
	m                            int
	one                          [1]float64 // accRows's coefficient of a plain sum
}

func newBayesRisk(prior []float64, o mip.Observer) *bayesRisk {
	n := len(prior)
	nv := len(o.Channel[0])
	loss := o.LossMatrix(n)
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

// risk returns R(P) for the channel p (p[x*m+l] = P(l | x), m labels) at
// temperature tau (0: the exact risk) and
// keeps what gradient needs: per side value v, the cells' soft-minimum
// weights, ∂(cm·g)/∂cm, estimates and whether each is hard.
//
// The sums run over x (and a) in index order for every cell (v, l), as a
// cell-at-a-time loop would add them; the loops run label-innermost
// (bayesrisk_kernels.go) so that the m cells of a side value are
// independent chains over the rows of p.
func (r *bayesRisk) risk(p []float64, m int, tau float64) float64 {
	n, na := r.n, r.na
	r.scratch(m)
	r.m = m
	cm, c, best := r.cm[:m], r.c[:na*m], r.best[:m]
	var total float64
	for v := range r.nv {
		w, ab := r.w[v*na*m:(v+1)*na*m], r.ab[v*m:(v+1)*m]
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
		r.soft[v] = soft
		total = r.finish(total, v, m, tau)
	}
	return total
}

// finish adds side value v's cells to the running risk total (in label
// order, one cell at a time) and keeps their normalized weights and dm;
// when soft, w holds exp(−(r_a − r_min)/τ) of the soft cells.
func (r *bayesRisk) finish(total float64, v, m int, tau float64) float64 {
	na := r.na
	cm, c, best, z, wr := r.cm[:m], r.c[:na*m], r.best[:m], r.z[:m], r.wr[:m]
	w, dm, hard := r.w[v*na*m:(v+1)*na*m], r.dm[v*m:(v+1)*m], r.hard[v*m:(v+1)*m]
	for l := range m {
		hard[l] = tau <= 0 || cm[l] <= 0
	}
	if r.soft[v] {
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
	return total
}

// gradient adds scale·∂R/∂P(l|x) of the channel of the last risk call into
// grad[x*m+l], side value by side value (at τ = 0 the derivative of the
// minimizing estimate's term, the lowest index on ties).
func (r *bayesRisk) gradient(grad []float64, scale float64) {
	n, na, m := r.n, r.na, r.m
	s := r.s[:n*m]
	for v := range r.nv {
		w, ab := r.w[v*na*m:(v+1)*na*m], r.ab[v*m:(v+1)*m]
		dm, hard := r.dm[v*m:(v+1)*m], r.hard[v*m:(v+1)*m]
		// s[x*m+l] = ∂(cm·g)/∂P(l|x) of cell (v, l); a hard cell's is the
		// coefficient of its minimizing estimate.
		coef := r.coef[v*na*n : (v+1)*na*n]
		if r.soft[v] {
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
	}
}

// scratch sizes the per-label buffers for m labels.
func (r *bayesRisk) scratch(m int) {
	if len(r.cm) >= m {
		return
	}
	r.cm, r.best, r.z, r.wr = make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	r.c, r.s = make([]float64, r.na*m), make([]float64, r.n*m)
	r.w, r.dm = make([]float64, r.nv*r.na*m), make([]float64, r.nv*m)
	r.ab, r.hard, r.soft = make([]int, r.nv*m), make([]bool, r.nv*m), make([]bool, r.nv)
}
