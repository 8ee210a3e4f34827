package learn

import (
	"math"
	"math/rand/v2"

	"github.com/mmds-project/mmds/internal/vexp"
)

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
		for l, v := range th {
			pr[l] = (v - top) / temp
		}
		vexp.Exp(pr, pr) // math.Exp's bits
		var z float64
		for _, v := range pr {
			z += v
		}
		for l := range pr {
			pr[l] /= z
		}
	}
}

// softmaxRows is network.SoftmaxInPlace on each row of m values of z, with the
// exponentials of every row through one vexp call and each row's
// divisions by its sum as one reciprocal and m multiplies (each entry
// within 1.5 ulp of the quotient; finite Algorithm 1's order).
func softmaxRows(z []float64, m int) {
	for r := 0; r < len(z); r += m {
		row := z[r : r+m]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = max(mx, v)
		}
		for i, v := range row {
			row[i] = v - mx
		}
	}
	vexp.Exp(z, z)
	for r := 0; r < len(z); r += m {
		row := z[r : r+m]
		var s float64
		for _, v := range row {
			s += v
		}
		inv := 1 / s
		for i := range row {
			row[i] *= inv
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

// logitTable is a labels privatizer as it trains: logits θ (rows × labels,
// row-major), the released table p (their softmax, pruned), the
// objective's gradients in p and in θ, and Adam over θ.
type logitTable struct {
	theta, p, gP, gTheta []float64
	opt                  *Optimizer
}

// newLogitTable draws size logits from U(±scale) with rng, for Adam at
// rate lr.
func newLogitTable(size int, scale, lr float64, rng *rand.Rand) logitTable {
	t := logitTable{theta: make([]float64, size), p: make([]float64, size), gP: make([]float64, size),
		gTheta: make([]float64, size), opt: NewOptimizer(Adam, lr, size)}
	for k := range t.theta {
		t.theta[k] = scale * (2*rng.Float64() - 1)
	}
	return t
}

// tableRecord is what a labels trainer records after every epoch: the
// exact losses of the released table (its History) and the last
// Protocol.K released tables whose distortion is in the selection band
// [D − τ, D] (Section V's snapshots). Both trainers embed it, so it also
// answers trialRun's History. A labels privatizer is its table (a channel
// or a cell kernel), and its observers are exact Bayes rules, not networks.
type tableRecord struct {
	hist  History
	snaps []labelSnap
}

// labelSnap is a released table in the band: p (rows × labels,
// row-major) at an epoch, with a cell kernel's Kernel.Reveal.
type labelSnap struct {
	epoch   int
	channel []float64
	reveal  float64
}

// record adds an epoch's exact losses and, when rec is in the band of
// threshold d, a copy of the released table p with its reveal weight.
func (r *tableRecord) record(c *Config, d, rec float64, adv, p []float64, reveal float64) {
	r.hist.add(rec, adv, 0, nil)
	k, tau := c.Protocol.K, c.Protocol.Tau
	if !(rec >= d-tau && rec <= d) {
		return
	}
	if len(r.snaps) == k {
		r.snaps = r.snaps[1:]
	}
	r.snaps = append(r.snaps, labelSnap{epoch: r.hist.Len() - 1, channel: append([]float64(nil), p...), reveal: reveal})
}

// snapshots returns the band's tables as of makes them.
func (r *tableRecord) snapshots(of func(labelSnap) Snapshot) []Snapshot {
	out := make([]Snapshot, len(r.snaps))
	for k, s := range r.snaps {
		out[k] = of(s)
	}
	return out
}

// History implements trialRun.
func (r *tableRecord) History() *History { return &r.hist }
