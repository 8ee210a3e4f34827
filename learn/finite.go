package learn

import (
	"errors"
	"fmt"
	"math"

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
	c         []float64 // scratch, na
	w         []float64 // scratch, na
}

func newBayesRisk(prior []float64, o mip.Observer) *bayesRisk {
	n := len(prior)
	nv := len(o.Channel[0])
	loss := o.Loss
	if loss == nil {
		loss = zeroOne(n)
	}
	na := len(loss[0])
	r := &bayesRisk{n: n, nv: nv, na: na, mass: make([]float64, nv*n), coef: make([]float64, nv*na*n),
		c: make([]float64, na), w: make([]float64, na)}
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
	r := &bayesRisk{n: n, nv: nv, na: n, mass: make([]float64, nv*n), coef: make([]float64, nv*n*n),
		c: make([]float64, n), w: make([]float64, n)}
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
func (r *bayesRisk) eval(p []float64, m int, tau float64, grad []float64, scale float64) float64 {
	n, na := r.n, r.na
	var total float64
	for v := range r.nv {
		mass := r.mass[v*n : v*n+n]
		for l := range m {
			var cm float64
			for x := range n {
				cm += mass[x] * p[x*m+l]
			}
			best, ab := math.Inf(1), 0
			for a := range na {
				k := r.coef[(v*na+a)*n : (v*na+a)*n+n]
				var s float64
				for x := range n {
					s += k[x] * p[x*m+l]
				}
				r.c[a] = s
				if s < best {
					best, ab = s, a
				}
			}
			if tau <= 0 || cm <= 0 {
				total += best
				if grad != nil {
					k := r.coef[(v*na+ab)*n : (v*na+ab)*n+n]
					for x := range n {
						grad[x*m+l] += scale * k[x]
					}
				}
				continue
			}
			// Soft minimum of the posterior risks r_a = c_a/cm, shifted
			// by the exact minimum for stability.
			rmin := best / cm
			for a := range na {
				r.w[a] = -(r.c[a]/cm - rmin) / tau
			}
			vexp.Exp(r.w, r.w) // math.Exp's bits
			var z float64
			for _, w := range r.w {
				z += w
			}
			g := rmin - tau*math.Log(z)
			var wr float64
			for a := range na {
				r.w[a] /= z
				wr += r.w[a] * r.c[a] / cm
			}
			total += cm * g
			if grad != nil {
				// ∂(cm·g)/∂c_a = w_a; ∂(cm·g)/∂cm = g − Σ_a w_a r_a.
				dm := g - wr
				for x := range n {
					s := dm * mass[x]
					for a := range na {
						s += r.w[a] * r.coef[(v*na+a)*n+x]
					}
					grad[x*m+l] += scale * s
				}
			}
		}
	}
	return total
}
