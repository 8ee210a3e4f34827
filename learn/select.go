package learn

import (
	"cmp"
	"slices"
)

// History is one trial's per-epoch evaluation on the test split (Evaluate),
// one entry per epoch in order.
type History struct {
	Recon Floats   `json:"recon_loss"` // L_recon per epoch
	Adv   []Floats `json:"adv_loss"`   // Adv[i][e] is L_adv,i+1 at epoch e
	// The binary model's hard-decision 0-1 errors (threshold 1/2); nil for
	// the Gaussian model.
	ReconHard Floats   `json:"recon_hard,omitempty"`
	AdvHard   []Floats `json:"adv_hard,omitempty"`
}

func newHistory(k int, hard bool, epochs int) History {
	h := History{Recon: make(Floats, 0, epochs), Adv: make([]Floats, k)}
	for i := range h.Adv {
		h.Adv[i] = make(Floats, 0, epochs)
	}
	if hard {
		h.ReconHard = make(Floats, 0, epochs)
		h.AdvHard = make([]Floats, k)
		for i := range h.AdvHard {
			h.AdvHard[i] = make(Floats, 0, epochs)
		}
	}
	return h
}

func (h *History) add(recon float64, adv []float64, reconHard float64, advHard []float64) {
	h.Recon = append(h.Recon, recon)
	for i := range h.Adv {
		h.Adv[i] = append(h.Adv[i], adv[i])
	}
	if h.ReconHard != nil {
		h.ReconHard = append(h.ReconHard, reconHard)
		for i := range h.AdvHard {
			h.AdvHard[i] = append(h.AdvHard[i], advHard[i])
		}
	}
}

// selected returns the series the protocol selects on: h itself, or for
// Protocol.Select = SelectHard a view whose losses are the hard-decision
// errors (h itself if it has none).
func (h *History) selected(p Protocol) *History {
	if p.Select != SelectHard || h.ReconHard == nil {
		return h
	}
	return &History{Recon: h.ReconHard, Adv: h.AdvHard}
}

// Len returns the number of epochs recorded.
func (h *History) Len() int { return len(h.Recon) }

// Point is an epoch of a trial, as the selection protocol sees it.
type Point struct {
	Trial int       `json:"trial"`
	Epoch int       `json:"epoch"` // 0-based
	Recon float64   `json:"recon_loss"`
	Adv   []float64 `json:"adv_loss"`
}

// MeanAdv returns the mean of the adversarial losses.
func (p *Point) MeanAdv() float64 {
	var s float64
	for _, a := range p.Adv {
		s += a
	}
	return s / float64(len(p.Adv))
}

// point returns epoch e of h as a Point of trial.
func (h *History) point(trial, e int) Point {
	p := Point{Trial: trial, Epoch: e, Recon: h.Recon[e], Adv: make([]float64, len(h.Adv))}
	for i := range h.Adv {
		p.Adv[i] = h.Adv[i][e]
	}
	return p
}

// lowerMedian returns the element of ps at the lower median of key: after a
// stable sort by key (ties keep their order), the element at index
// (len−1)/2. For an even count this is the lower of the two middle elements,
// so the result is always one of ps.
func lowerMedian(ps []Point, key func(*Point) float64) Point {
	s := slices.Clone(ps)
	slices.SortStableFunc(s, func(a, b Point) int { return cmp.Compare(key(&a), key(&b)) })
	return s[(len(s)-1)/2]
}

// PickEpoch is the per-trial step of Section V's protocol: among the last K
// epochs of h (scanning back from the end) whose L_recon lies in [D − τ, D],
// it returns the one whose mean adversarial loss is the lower median. ok is
// false when no epoch is eligible. The mean over adversaries is our reading of
// the paper's "median adversarial loss" with two adversaries (it matches the
// mean used to finalize a D; with one adversary it is that adversary's loss).
func PickEpoch(h *History, trial int, d, tau float64, k int) (p Point, ok bool) {
	var kept []Point
	for e := h.Len() - 1; e >= 0 && len(kept) < k; e-- {
		if r := h.Recon[e]; r >= d-tau && r <= d {
			kept = append(kept, h.point(trial, e))
		}
	}
	if len(kept) == 0 {
		return Point{}, false
	}
	slices.Reverse(kept) // epoch order, so ties in the median go to the earlier epoch
	return lowerMedian(kept, (*Point).MeanAdv), true
}

// Beats reports whether p is acceptable after prev, the previous threshold's
// finalized point: every adversary's loss strictly exceeds prev's (Section V:
// "has a higher adversarial loss … for both adversaries"). Any p beats a nil
// prev (the first D, or no point finalized yet).
func Beats(p, prev *Point) bool {
	if prev == nil {
		return true
	}
	for i, a := range p.Adv {
		if !(a > prev.Adv[i]) {
			return false
		}
	}
	return true
}

// Verdict is what the protocol made of one trial.
type Verdict struct {
	Trial    int    `json:"trial"`
	Eligible bool   `json:"eligible"` // some epoch had L_recon in [D−τ, D]
	Accepted bool   `json:"accepted"`
	Point    *Point `json:"point,omitempty"` // the trial's representative epoch, if eligible
}

// Selection is the outcome of the protocol at one threshold D.
type Selection struct {
	Finalized *Point    // the accepted trial whose mean adversarial loss is the lower median; nil if none was accepted
	Attempted int       // trials consumed
	Accepted  int       // trials accepted
	CapHit    bool      // stopped at MaxAttempts before Accept trials were accepted
	Verdicts  []Verdict // one per consumed trial, in trial order
}

// Selector runs the protocol at one threshold D over trials offered in
// trial-index order. Whether trial j is accepted depends only on its own
// history and on the previous threshold's finalized point, so trials may be
// trained speculatively in parallel and offered in order afterwards.
type Selector struct {
	d    float64
	prev *Point
	p    Protocol
	sel  Selection
	acc  []Point
}

// NewSelector starts the protocol at threshold d after the previous
// threshold's finalized point prev (nil for the first threshold, or when no
// earlier threshold finalized a point). p must be valid (Tau > 0, K,
// Accept ≥ 1, MaxAttempts ≥ Accept).
func NewSelector(d float64, prev *Point, p Protocol) *Selector {
	if errs := p.validate(); len(errs) > 0 {
		panic(errs[0])
	}
	return &Selector{d: d, prev: prev, p: p}
}

// Done reports whether the protocol has stopped: Accept trials accepted, or
// MaxAttempts trials consumed.
func (s *Selector) Done() bool {
	return s.sel.Accepted >= s.p.Accept || s.sel.Attempted >= s.p.MaxAttempts
}

// Offer consumes the next trial's history and reports Done. It panics if
// called after Done.
func (s *Selector) Offer(h *History) bool {
	if s.Done() {
		panic("learn: Selector.Offer after Done")
	}
	trial := s.sel.Attempted
	s.sel.Attempted++
	v := Verdict{Trial: trial}
	if p, ok := PickEpoch(h.selected(s.p), trial, s.d, s.p.Tau, s.p.K); ok {
		v.Eligible, v.Point = true, &p
		if s.p.Finalize == FinalizeBest || Beats(&p, s.prev) {
			v.Accepted = true
			s.sel.Accepted++
			s.acc = append(s.acc, p)
		}
	}
	s.sel.Verdicts = append(s.sel.Verdicts, v)
	return s.Done()
}

// Result returns the selection so far: the finalized point is the accepted
// trial whose mean adversarial loss is the lower median (ties: lower trial
// index). CapHit is set when MaxAttempts trials were consumed with fewer than
// Accept accepted; if some were accepted, the point is finalized among them.
func (s *Selector) Result() Selection {
	r := s.sel
	r.Verdicts = slices.Clone(r.Verdicts)
	r.CapHit = r.Accepted < s.p.Accept && r.Attempted >= s.p.MaxAttempts
	switch {
	case len(s.acc) > 0 && s.p.Finalize == FinalizeBest:
		f := best(s.acc)
		r.Finalized = &f
	case len(s.acc) > 0:
		f := lowerMedian(s.acc, (*Point).MeanAdv)
		r.Finalized = &f
	}
	return r
}

// best returns the point with the largest minimum adversarial loss (ties:
// the larger mean, then the earlier trial).
func best(ps []Point) Point {
	minAdv := func(p *Point) float64 { return slices.Min(p.Adv) }
	b := ps[0]
	for _, p := range ps[1:] {
		if c := cmp.Compare(minAdv(&p), minAdv(&b)); c > 0 || c == 0 && p.MeanAdv() > b.MeanAdv() {
			b = p
		}
	}
	return b
}
