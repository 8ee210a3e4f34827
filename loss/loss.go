// Package loss holds the one value type for a privatizer's losses.
//
// For a privatizer F = k(X, R) (Section II, eq. (optimization_problem)) the
// authorized reconstructor incurs the expected distortion
//
//	L_R = E[d(X, g*(F, Y))]
//
// and adversary i the expected loss L_i = E[ℓ(X, h_i*(F, Z_i))], each under
// its Bayes-optimal estimator. The privatizer's objective is the smallest
// adversarial loss min_i L_i, maximized subject to L_R ≤ D. Losses carries
// the triple (L_R, (L_1, …, L_K), min_i L_i) with one JSON shape that every
// command prints.
package loss

import (
	"fmt"
	"math"
)

// Losses are a privatizer's reconstructor loss, its adversary losses and
// their minimum. Build values with New so that MinAdv always equals min Adv.
type Losses struct {
	Recon  float64   `json:"recon_loss"`
	Adv    []float64 `json:"adv_loss"`
	MinAdv float64   `json:"min_adv_loss"`
}

// New returns the losses (recon, adv) with MinAdv = min_i adv_i. It copies
// adv. It panics if adv is empty: every model has at least one adversary.
func New(recon float64, adv []float64) Losses {
	return Losses{Recon: recon, Adv: append([]float64(nil), adv...), MinAdv: Min(adv)}
}

// Min returns min_i adv_i, the privatizer's objective. A NaN entry makes the
// minimum NaN, so that a broken loss can never look like privacy. It panics
// on an empty slice.
func Min(adv []float64) float64 {
	if len(adv) == 0 {
		panic("loss: no adversary losses")
	}
	m := adv[0]
	for _, v := range adv[1:] {
		if math.IsNaN(v) {
			return v
		}
		if v < m {
			m = v
		}
	}
	return m
}

// Validate reports an error when MinAdv is not the minimum of Adv, or a loss
// is negative, NaN or infinite: a decoded value must be checked before use.
func (l Losses) Validate() error {
	if len(l.Adv) == 0 {
		return fmt.Errorf("loss: adv_loss is empty; want one loss per adversary")
	}
	for i, v := range append([]float64{l.Recon}, l.Adv...) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			name := "recon_loss"
			if i > 0 {
				name = fmt.Sprintf("adv_loss[%d]", i-1)
			}
			return fmt.Errorf("loss: %s = %v; want a finite value ≥ 0", name, v)
		}
	}
	if m := Min(l.Adv); m != l.MinAdv {
		return fmt.Errorf("loss: min_adv_loss = %v but min(adv_loss) = %v", l.MinAdv, m)
	}
	return nil
}

// Interval is a closed interval [lo, hi] that a certified loss lies in; its
// JSON form is the pair [lo, hi].
type Interval [2]float64

// Intervals are the intervals of a certificate's losses: the reconstructor's,
// every adversary's and their minimum's, whose ends are the minima of the
// adversaries' ends (min_i L_i lies in [min_i lo_i, min_i hi_i]).
type Intervals struct {
	Recon  Interval   `json:"recon_loss"`
	Adv    []Interval `json:"adv_loss"`
	MinAdv Interval   `json:"min_adv_loss"`
}

// NewIntervals returns the intervals (recon, adv) with MinAdv computed. It
// copies adv and panics if adv is empty.
func NewIntervals(recon Interval, adv []Interval) Intervals {
	lo, hi := make([]float64, len(adv)), make([]float64, len(adv))
	for i, v := range adv {
		lo[i], hi[i] = v[0], v[1]
	}
	return Intervals{Recon: recon, Adv: append([]Interval(nil), adv...), MinAdv: Interval{Min(lo), Min(hi)}}
}

// Around returns the intervals [v − e, v + e] of the losses l known to
// within e, the lower ends not below 0 (a loss is ≥ 0).
func Around(l Losses, e float64) Intervals {
	adv := make([]Interval, len(l.Adv))
	for i, v := range l.Adv {
		adv[i] = Interval{max(v-e, 0), v + e}
	}
	return NewIntervals(Interval{max(l.Recon-e, 0), l.Recon + e}, adv)
}

// SoundEnds returns the ends of the intervals a verdict must assume: the
// reconstructor's upper end (the certified distortion D̂) and every
// adversary's lower end, the ends that claim the least privacy at the most
// distortion.
func (iv Intervals) SoundEnds() Losses {
	adv := make([]float64, len(iv.Adv))
	for i, v := range iv.Adv {
		adv[i] = v[0]
	}
	return New(iv.Recon[1], adv)
}

// Within returns the intervals with every upper end at most the matching
// loss of limit — each observer's Bayes loss without the release, which no
// release can raise — and every lower end at most its upper end.
func (iv Intervals) Within(limit Losses) Intervals {
	clip := func(v Interval, hi float64) Interval {
		v[1] = min(v[1], hi)
		v[0] = min(v[0], v[1])
		return v
	}
	adv := make([]Interval, len(iv.Adv))
	for i, v := range iv.Adv {
		adv[i] = clip(v, limit.Adv[i])
	}
	return NewIntervals(clip(iv.Recon, limit.Recon), adv)
}
