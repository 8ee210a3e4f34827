package network

import (
	"context"
	"fmt"
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
// 4u for the rounding of the mass). For a categorical network the same
// holds of the largest logit error D, and 1 − s_f*(r) of the exact logits,
// for the label f* on top at an end, moves by at most 2Z·|Δr| (|s_f′| ≤
// s_f·(max z′ − min z′)) and by a factor e^{2Z·|Δr|} at most (each ratio
// s_g/s_f* does; a saturated softmax stays so), so δ ≤ softmaxBound of
// those two sups
// (ProbsBound; mmds's logits are within D of the exact ones, which moves
// 1 − s_f* by a factor e^{2D} at most each way). Cells start at width
// 2·RRound/64 and are bisected while the slack is above an eighth of the
// value (the bound stays sound wherever refinement stops). Beyond ±RRound,
// 4Φ(−RRound) is added. Sup is the largest cell bound. The work is at most
// roundEvals evaluations per x, whatever the network.
//
// δ bounds the runtime's error only where its intermediate values stay in
// range, which evalBound checks at the points it evaluates; between them a
// runtime may overflow (a batch normalization or Gemm alpha that scales a
// huge product down hides it from δ). The check's magnitudes with exact
// values are H-Lipschitz in r over their limits (roundingLip's head) and
// within 1 + J of the computed ones at the ends (|a*| ≤ |a| + e, e* ≤ J·e),
// so on a cell the runtime stays in range where (1 + J)·max(head(a),
// head(b)) + H·h/2 ≤ 1; a cell where that fails is bisected, and at the
// last depth it is an error wrapping ErrPrecision.
func (m *Network) meanRounding(ctx context.Context, x float64, rec *nodes) (RoundingBound, error) {
	lip, z, jitter, head := m.roundingLip()
	state := m.stateAt(x)
	at := func(r float64) (roundState, error) {
		rec.add(r)
		return state(r)
	}
	rc := roundCell{at: at, lip: lip, tailLip: 2 * z, jitter: jitter, headLip: head, budget: roundEvals,
		categorical: m.Categorical(), prec: m.Precision, labels: m.Outputs(), name: m.Name, x: x}
	h := 2 * RRound / float64(roundCells)
	a := -float64(RRound)
	sa, err := rc.at(a)
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
		sb, err := rc.at(b)
		if err != nil {
			return RoundingBound{}, err
		}
		s, sup, err := rc.integrate(a, b, sa, sb, 0)
		if err != nil {
			return RoundingBound{}, err
		}
		rb.Mean += s
		rb.Sup = max(rb.Sup, sup)
		a, sa = b, sb
	}
	rb.Mean = rb.Mean*(1+0x1p-40) + 4*stdnormal.Mass(math.Inf(-1), -RRound)
	return rb, nil
}

// roundState is what meanRounding keeps of a point: δ (EvalBound), or for a
// categorical network the largest logit error D and the bound t on
// 1 − max_f s_f (probsState); and evalBound's headroom.
type roundState struct{ d, t, head float64 }

// stateAt returns the roundState of (x, ·).
func (m *Network) stateAt(x float64) func(r float64) (roundState, error) {
	out := make([]float64, m.Outputs())
	return func(r float64) (roundState, error) {
		z, d, head, err := m.outputBound(x, r, m.Precision, true, out)
		if err != nil {
			return roundState{}, err
		}
		st := roundState{d: d, head: head}
		if m.Categorical() {
			SoftmaxInPlace(z)
			st.t = restBound(z)
		}
		return st, nil
	}
}

// roundCell integrates the mean rounding bound on cells (meanRounding).
type roundCell struct {
	at                            func(r float64) (roundState, error)
	lip, tailLip, jitter, headLip float64
	budget                        int // evaluations of at left for bisection
	categorical                   bool
	prec                          Precision
	labels                        int
	name                          string  // the network's, for messages
	x                             float64 // the x of the row
}

// bound is the bound on δ* over a cell of width h with end states a and b;
// with h = 0, the same without the cell's slack.
func (rc *roundCell) bound(a, b roundState, h float64) float64 {
	d := rc.jitter*max(a.d, b.d) + rc.lip*h/2
	if !rc.categorical {
		return d
	}
	// t bounds 1 − s_f* of mmds's logits at an end; mmds's logits are
	// within D of the exact ones, so the exact softmax's is within e^{2D}
	// of it, moves by 2Z·h at most over the cell, and mmds's is again
	// within e^{2D} of that.
	t0 := min(a.t, b.t)
	t := min(1, math.Exp(4*d)*min(t0+rc.tailLip*h, t0*math.Exp(rc.tailLip*h)))
	return softmaxBound(rc.prec, rc.labels, d, t)
}

// head bounds the headroom over a cell of width h with end states a and b
// (meanRounding): above 1, a runtime may overflow there.
func (rc *roundCell) head(a, b roundState, h float64) float64 {
	return ((1+rc.jitter)*max(a.head, b.head) + rc.headLip*h/2) * (1 + 0x1p-40)
}

// integrate returns the bound on ∫_a^b δ*φ and the cell's sup bound, from
// the states sa and sb at its ends.
func (rc *roundCell) integrate(a, b float64, sa, sb roundState, depth int) (sum, sup float64, err error) {
	v := rc.bound(sa, sb, b-a)
	inRange := rc.head(sa, sb, b-a) <= 1
	if (!inRange || v > rc.bound(sa, sb, 0)*1.125) && depth < roundDepth && rc.budget > 0 {
		rc.budget--
		mid := a + (b-a)/2
		sm, err := rc.at(mid)
		if err != nil {
			return 0, 0, err
		}
		s1, p1, err := rc.integrate(a, mid, sa, sm, depth+1)
		if err != nil {
			return 0, 0, err
		}
		s2, p2, err := rc.integrate(mid, b, sm, sb, depth+1)
		return s1 + s2, max(p1, p2), err
	}
	if !inRange {
		return 0, 0, fmt.Errorf("%w: network %s at x = %g: for r in (%g, %g), between the points its rounding bound evaluates, a value its %v runtime computes may leave %v's range", ErrPrecision, rc.name, rc.x, a, b, rc.prec, rc.prec)
	}
	return v * (stdnormal.Mass(a, b) + 4*u64), v, nil
}
