package network

import (
	"context"
	"math"

	"github.com/mmds-project/mmds/internal/stdnormal"
)

// RRound: the mean forward error bound (Expectation.Rounding, Row.Rounding)
// integrates δ(x, r) over |r| ≤ RRound, where R has all but 2Φ(−8) ≈
// 1.2e-15 of its mass; on a binary or finite model the runtime's k and
// mmds's are both probabilities (a law over the labels), so the rest of the
// line moves E_R[k] by at most 2·2Φ(−RRound) (added).
const RRound = 8

// Grid of the mean rounding bound: [−RRound, RRound] in roundCells cells,
// each bisected while its Lipschitz slack is above an eighth of its value,
// at most roundDepth times and roundEvals evaluations of δ in all.
const (
	roundCells = 64
	roundDepth = 10
	roundEvals = 4096
)

// RoundingBound is the forward error bound of a runtime's E_R[k(x, R)] (or
// of its law over the labels, in ℓ1) at one x.
type RoundingBound struct {
	// Mean bounds E_R[δ(x, R)]: |E_R[k_rt(x, R)] − E_R[k(x, R)]| ≤ Mean.
	Mean float64
	// Sup bounds δ(x, r) over |r| ≤ RRound.
	Sup float64
}

// meanRounding bounds E_R[δ(x, R)] for R ~ N(0, 1), δ the forward error
// bound of EvalBound (or, for a categorical network, of ProbsBound in ℓ1):
// what a runtime in m.Precision can move E_R[k(x, R)] (the channel's row at
// x) by. A bound on the expectation, not on the worst r: the verdict needs
// no more.
//
// δ* — the error bound with exact magnitudes — is L-Lipschitz in r with L
// from roundingLip, and δ*(r) ≤ J·δ(r) where δ is computed (J the jitter of
// roundingLip). On a cell (a, b) therefore δ* ≤ J·max(δ(a), δ(b)) +
// L·(b − a)/2, and the cell contributes that times P(a < R < b) (plus
// 4u for the rounding of the mass). Cells start at width 2·RRound/64 and
// are bisected where the slack L·h/2 is above an eighth of their value
// (the bound stays sound wherever refinement stops). Beyond ±RRound,
// 4Φ(−RRound) is added. Sup is the largest cell bound. The work is at most
// roundEvals evaluations of δ per x, whatever the network.
func (m *Network) meanRounding(ctx context.Context, x float64) (RoundingBound, error) {
	lip, jitter := m.roundingLip()
	at := m.deltaAt(x)
	rc := roundCell{at: at, lip: lip, jitter: jitter, budget: roundEvals}
	h := 2 * RRound / float64(roundCells)
	a := -float64(RRound)
	da, err := at(a)
	if err != nil {
		return RoundingBound{}, err
	}
	var rb RoundingBound
	for i := range roundCells {
		if err := ctx.Err(); err != nil {
			return RoundingBound{}, err
		}
		b := a + h
		if i == roundCells-1 {
			b = RRound
		}
		db, err := at(b)
		if err != nil {
			return RoundingBound{}, err
		}
		s, sup, err := rc.integrate(a, b, da*jitter, db*jitter, 0)
		if err != nil {
			return RoundingBound{}, err
		}
		rb.Mean += s
		rb.Sup = max(rb.Sup, sup)
		a, da = b, db
	}
	rb.Mean = rb.Mean*(1+0x1p-40) + 4*stdnormal.Mass(math.Inf(-1), -RRound)
	return rb, nil
}

// deltaAt returns δ(x, ·): EvalBound's, or ProbsBound's for a categorical
// network.
func (m *Network) deltaAt(x float64) func(r float64) (float64, error) {
	if m.Categorical() {
		p := make([]float64, m.Outputs())
		return func(r float64) (float64, error) {
			_, d, err := m.ProbsBound(x, r, p)
			return d, err
		}
	}
	return func(r float64) (float64, error) {
		_, d, err := m.EvalBound(x, r)
		return d, err
	}
}

// roundCell integrates the mean rounding bound on cells (meanRounding).
type roundCell struct {
	at          func(r float64) (float64, error)
	lip, jitter float64
	budget      int // evaluations of at left for bisection
}

// integrate returns the bound on ∫_a^b δ*φ and the cell's sup bound, with
// da and db the values at the ends (times the jitter).
func (rc *roundCell) integrate(a, b, da, db float64, depth int) (sum, sup float64, err error) {
	slack := rc.lip * (b - a) / 2
	top := max(da, db)
	if slack > top/8 && depth < roundDepth && rc.budget > 0 {
		rc.budget--
		mid := a + (b-a)/2
		d, err := rc.at(mid)
		if err != nil {
			return 0, 0, err
		}
		dm := d * rc.jitter
		s1, p1, err := rc.integrate(a, mid, da, dm, depth+1)
		if err != nil {
			return 0, 0, err
		}
		s2, p2, err := rc.integrate(mid, b, dm, db, depth+1)
		return s1 + s2, max(p1, p2), err
	}
	v := top + slack
	return v * (stdnormal.Mass(a, b) + 4*u64), v, nil
}
