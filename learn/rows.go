package learn

import "math"

// The labels methods' privatizers are tables of logits, one row of m labels
// per value (finite X) or cell (Gaussian X); these are their row-wise maps.

// rowSoftmax writes p = softmax(θ/temp) row by row (rows of m entries),
// shifted by each row's largest logit so that no exponential overflows.
func rowSoftmax(p, theta []float64, m int, temp float64) {
	for r := 0; r < len(theta); r += m {
		th, pr := theta[r:r+m], p[r:r+m]
		top := math.Inf(-1)
		for _, v := range th {
			top = max(top, v)
		}
		var z float64
		for l, v := range th {
			pr[l] = math.Exp((v - top) / temp)
			z += pr[l]
		}
		for l := range pr {
			pr[l] /= z
		}
	}
}

// rowSoftmaxGrad writes ∂J/∂θ from g = ∂J/∂p through the row softmax:
// ∂J/∂θ[r][l] = p[r][l](g[r][l] − Σ_l' p[r][l'] g[r][l'])/temp.
func rowSoftmaxGrad(out, p, g []float64, m int, temp float64) {
	for r := 0; r < len(p); r += m {
		pr, gr := p[r:r+m], g[r:r+m]
		var s float64
		for l := range pr {
			s += pr[l] * gr[l]
		}
		for l := range pr {
			out[r+l] = pr[l] * (gr[l] - s) / temp
		}
	}
}

// pruneRows sets the entries of each row below thr to 0 and renormalizes:
// the softmax never reaches 0, but an optimal mechanism often has zeros (a
// label that never follows some x), and at D = D_min only a channel with
// exact zeros meets the constraint.
func pruneRows(p []float64, m int, thr float64) {
	for r := 0; r < len(p); r += m {
		pr := p[r : r+m]
		var s float64
		for l, v := range pr {
			if v < thr {
				pr[l] = 0
			}
			s += pr[l]
		}
		for l := range pr {
			pr[l] /= s
		}
	}
}
