package privatizer

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
)

// DefaultTol is network.DefaultTol, the default target for the error bound
// of E_R[k(x, R)].
const DefaultTol = network.DefaultTol

// ProbSlack is how far outside [0, 1] a network's output may stray on a
// binary or finite model before it is refused as not a probability: float32
// weights exported from PyTorch round a probability of exactly 1 (a clamp
// built from ReLUs, an affine k) by a few float32 ulp (6e-8 each). A
// runtime then draws F = 1 with probability clamp(k_rt) (a uniform U < k_rt),
// whose mean is not the clamped mean where k crosses 0 or 1: networkChannel
// states the difference (outsideBound).
const ProbSlack = 1e-6

// NetworkLosses is the certified analysis of a network k(x, r) on a finite
// model (the binary model included): the channel it releases and that
// channel's exact Bayes losses.
type NetworkLosses struct {
	// Channel is P(F | X = x) = [1 − p_x, p_x], p_x = E_R[k(x, R)], for
	// x = 0..n−1; for a categorical network, P(F = f | X = x) =
	// E_R[softmax(z(x, R))_f].
	Channel *Channel `json:"-"`
	// Rows are the expectations p_x with their error bounds (covering the
	// clamp of k to [0, 1], outsideBound); Laws, for a
	// categorical network instead, the rows of its channel with their ℓ1
	// bounds.
	Rows   []network.Expectation `json:"rows,omitempty"`
	Laws   []network.Row         `json:"laws,omitempty"`
	Losses loss.Losses           `json:"losses"`
	// Bound: every certified loss is within Bound of the exact Bayes loss
	// of the network as a runtime in its precision computes it.
	Bound float64 `json:"bound"`
	Exact bool    `json:"exact"`
	// Rounding is the part of Bound that the runtime's rounding accounts
	// for: RiskShift of the rows' mean forward error bounds
	// (network.Expectation.Rounding, Row.Rounding).
	Rounding float64 `json:"rounding,omitempty"`
	// Witness proves the channel to a checker (NetworkFiniteLossesWitness).
	Witness *NetworkWitness `json:"-"`
}

// S0 and S1 are the binary channel of Section III-B, s0 = P(F=0 | X=0) and
// s1 = P(F=1 | X=1), for a two-row result.
func (r *NetworkLosses) S0() float64 { return 1 - r.Rows[0].Mean }

// S1 is P(F=1 | X=1); see S0.
func (r *NetworkLosses) S1() float64 { return r.Rows[1].Mean }

// networkChannel returns the channel that the network releases on a finite model
// whose X takes the values 0..n−1: the release is F ~ Bernoulli(k(x, R)),
// and since R is independent of X and of every side variable,
// P(F = 1 | X = x, side) = E_R[k(x, R)] (Section III-B; docs/verify.md).
// Each expectation comes with its error bound (network.Network.Expect, with tolerance tol);
// it stops with ctx's error when ctx is done.
// A value of k outside [−ProbSlack, 1 + ProbSlack] is an error naming x, the
// value and the file.
// With nodes set, each expectation's cells (network.Network.ExpectNodes)
// come with it.
func networkChannel(ctx context.Context, m *network.Network, n int, tol float64, nodes bool) (*Channel, []network.Expectation, [][]float64, error) {
	if err := CheckFiniteNetwork(m, n); err != nil {
		return nil, nil, nil, err
	}
	if m.Categorical() {
		return nil, nil, nil, fmt.Errorf("%w: network %s is categorical (CategoricalChannel)", ErrInput, m.Name)
	}
	c := &Channel{Name: m.Name}
	rows := make([]network.Expectation, n)
	var cells [][]float64
	for x := range n {
		var e network.Expectation
		var err error
		if nodes {
			var r []float64
			e, r, err = m.ExpectNodes(ctx, float64(x), tol)
			cells = append(cells, r)
		} else {
			e, err = m.Expect(ctx, float64(x), tol)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if e.Min < -ProbSlack || e.Max > 1+ProbSlack {
			return nil, nil, nil, fmt.Errorf("%w: network %s: k(%d, r) ranges over [%.6g, %.6g]: on a binary or finite model the output is P(F = 1 | x, r) and must lie in [0, 1] (end the network with a sigmoid)", ErrInput, m.Name, x, e.Min, e.Max)
		}
		e.Mean = min(max(e.Mean, 0), 1)
		e.Bound += outsideBound(m, e)
		rows[x] = e
		c.P = append(c.P, []float64{1 - e.Mean, e.Mean})
	}
	return c, rows, cells, nil
}

// NetworkWitness is what lets a checker re-derive the channel a network
// with one output releases on a binary or finite model (docs/check.md,
// "Networks"): per x, p_x = E_R[k(x, R)] with its bound and its mean
// rounding bound, and the cells of r on which it was computed (the region
// walk's breakpoints, the samples, the rounding bound's cells).
//
// A categorical network's witness has Laws instead: per x the row
// P(F = · | X = x) with its ℓ1 bounds (network.Row) and its cells.
type NetworkWitness struct {
	Rows []NetworkWitnessRow `json:"rows,omitempty"`
	Laws []NetworkWitnessLaw `json:"laws,omitempty"`
}

// NetworkWitnessLaw is one x of a categorical network's NetworkWitness.
type NetworkWitnessLaw struct {
	P        []float64 `json:"p"`
	Bound    float64   `json:"bound"`
	Rounding float64   `json:"rounding"`
	Cells    []float64 `json:"cells"`
}

// NetworkWitnessRow is one x of a NetworkWitness.
type NetworkWitnessRow struct {
	Mean     float64   `json:"mean"`
	Bound    float64   `json:"bound"`
	Rounding float64   `json:"rounding"`
	Cells    []float64 `json:"cells"`
}

// outsideBound bounds |E_R[c(k(x, R))] − E_R[k(x, R)]| beyond Bound, c the
// clamp to [0, 1], for the expectation e of a network m on a binary or
// finite model: with P the function e integrates (E_R[P] = Mean, E|k − P|
// ≤ Bound), E|c(k) − P| ≤ E|k − P| + E|c(P) − P| (c is 1-Lipschitz), so
// the clamped mean moves by at most Bound + E dist(P, [0, 1]) from Mean,
// and a runtime's E_R[c(k_rt)] by the rounding more (|c(k_rt) − c(k)| ≤
// |k_rt − k|). P lies within out = max(0, Max − 1, −Min) of [0, 1] on
// [−RWalk, RWalk]: it interpolates the breakpoints and samples. Beyond, a
// sampled P holds its end values, and an exact (piecewise-linear) P is
// affine, straying by at most 2·Lip·φ(RWalk), half the continuation term
// of Bound. So: 0 for a sigmoid output (k in [0, 1], c(k) = k) or a sampled
// P within [0, 1]; out + Bound otherwise.
func outsideBound(m *network.Network, e network.Expectation) float64 {
	out := max(0, e.Max-1, -e.Min)
	if m.Layers[len(m.Layers)-1].Act == network.Sigmoid || out == 0 && !e.Exact {
		return 0
	}
	return (out + e.Bound) * (1 + 0x1p-40)
}

// CheckFiniteNetwork reports a network that cannot be a privatizer on a
// finite model whose X takes n values: a one-hot x over another number of
// values. Errors wrap ErrInput.
func CheckFiniteNetwork(m *network.Network, n int) error {
	if n < 1 || n > MaxAlphabet {
		return fmt.Errorf("privatizer: %d values of X: want between 1 and %d", n, MaxAlphabet)
	}
	if v := m.XValues(); v > 0 && v != n {
		return fmt.Errorf("%w: network %s takes x one-hot over %d values (inputs %q…), but the model's X has %d", ErrInput, m.Name, v, m.Inputs[0], n)
	}
	return nil
}

// CategoricalChannel returns the channel a categorical network releases
// on a finite model whose X takes the values 0..n−1, P(F = f | X = x) =
// E_R[softmax(z(x, R))_f] (R is independent of X and of every side
// variable, as for networkChannel), each row with its ℓ1 error bounds
// (network.Network.ExpectRow, with tolerance tol); it stops with ctx's error
// when ctx is done.
func CategoricalChannel(ctx context.Context, m *network.Network, n int, tol float64) (*Channel, []network.Row, error) {
	c, rows, _, err := categoricalChannel(ctx, m, n, tol, false)
	return c, rows, err
}

// categoricalChannel is CategoricalChannel, with each row's cells
// (network.Network.ExpectRowNodes) when nodes is set.
func categoricalChannel(ctx context.Context, m *network.Network, n int, tol float64, nodes bool) (*Channel, []network.Row, [][]float64, error) {
	if err := CheckFiniteNetwork(m, n); err != nil {
		return nil, nil, nil, err
	}
	if !m.Categorical() {
		return nil, nil, nil, fmt.Errorf("%w: network %s has one output (NetworkChannel)", ErrInput, m.Name)
	}
	c := &Channel{Name: m.Name}
	rows := make([]network.Row, n)
	var cells [][]float64
	for x := range n {
		var row network.Row
		var err error
		if nodes {
			var r []float64
			row, r, err = m.ExpectRowNodes(ctx, float64(x), tol)
			cells = append(cells, r)
		} else {
			row, err = m.ExpectRow(ctx, float64(x), tol)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		rows[x] = row
		c.P = append(c.P, append([]float64(nil), row.P...))
	}
	return c, rows, cells, nil
}

// NetworkFiniteLosses returns the certified Bayes losses of the network on
// the finite model m, whose X takes the values 0..n−1 (the network's x
// input): the exact losses of its channel (Channel.FiniteLosses). Row x of
// the channel a runtime releases, P_rt(· | x), and the certified row P̂_x
// both sum to 1, and
//
//	‖P_rt(· | x) − P̂_x‖₁ ≤ 2(ε_x + δ_x)  (two labels: |p_rt − p̂| ≤ ε_x + δ_x),
//	‖P_rt(· | x) − P̂_x‖₁ ≤ 2ε_x + δ_x    (a categorical row, renormalized),
//
// ε_x the quadrature's bound (network.Expectation.Bound, Row.Bound: the
// renormalization moves a row by |Σ_f P_f − 1| ≤ ε_x more) and δ_x the mean
// forward error bound of the network's precision (Expectation.Rounding,
// Row.Rounding). Bound is RiskShift of these distances.
func NetworkFiniteLosses(ctx context.Context, m *network.Network, fm mip.Finite, tol float64) (*NetworkLosses, error) {
	return finiteLosses(ctx, m, fm, tol, false)
}

// NetworkFiniteLossesWitness is NetworkFiniteLosses with the result's
// Witness.
func NetworkFiniteLossesWitness(ctx context.Context, m *network.Network, fm mip.Finite, tol float64) (*NetworkLosses, error) {
	return finiteLosses(ctx, m, fm, tol, true)
}

// finiteLosses is NetworkFiniteLosses, with the result's Witness when
// witness is set.
func finiteLosses(ctx context.Context, m *network.Network, fm mip.Finite, tol float64, witness bool) (*NetworkLosses, error) {
	if err := fm.Validate(); err != nil {
		return nil, fmt.Errorf("privatizer: finite model: %w", err)
	}
	if m.Categorical() {
		return categoricalLosses(ctx, m, fm, tol, witness)
	}
	return networkFiniteLosses(ctx, m, fm, tol, witness)
}

func networkFiniteLosses(ctx context.Context, m *network.Network, fm mip.Finite, tol float64, witness bool) (*NetworkLosses, error) {
	c, rows, cells, err := networkChannel(ctx, m, fm.N(), tol, witness)
	if err != nil {
		return nil, err
	}
	l, err := c.FiniteLosses(fm)
	if err != nil {
		return nil, err
	}
	r := &NetworkLosses{Channel: c, Rows: rows, Losses: l, Exact: true}
	if witness {
		r.Witness = &NetworkWitness{}
		for x, e := range rows {
			r.Witness.Rows = append(r.Witness.Rows, NetworkWitnessRow{Mean: e.Mean, Bound: e.Bound, Rounding: e.Rounding, Cells: cells[x]})
		}
	}
	all, rnd := make([]float64, len(rows)), make([]float64, len(rows))
	for x, e := range rows {
		all[x], rnd[x] = 2*(e.Bound+e.Rounding), 2*e.Rounding
		r.Exact = r.Exact && e.Exact
	}
	r.Bound, r.Rounding = RiskShift(fm, all), RiskShift(fm, rnd)
	return r, nil
}

// categoricalLosses is NetworkFiniteLosses for a categorical network.
func categoricalLosses(ctx context.Context, m *network.Network, fm mip.Finite, tol float64, witness bool) (*NetworkLosses, error) {
	c, rows, cells, err := categoricalChannel(ctx, m, fm.N(), tol, witness)
	if err != nil {
		return nil, err
	}
	l, err := c.FiniteLosses(fm)
	if err != nil {
		return nil, err
	}
	r := &NetworkLosses{Channel: c, Laws: rows, Losses: l}
	if witness {
		r.Witness = &NetworkWitness{}
		for x, row := range rows {
			r.Witness.Laws = append(r.Witness.Laws, NetworkWitnessLaw{P: row.P, Bound: row.Bound, Rounding: row.Rounding, Cells: cells[x]})
		}
	}
	all, rnd := make([]float64, len(rows)), make([]float64, len(rows))
	for x, row := range rows {
		all[x], rnd[x] = 2*row.Bound+row.Rounding, row.Rounding
	}
	r.Bound, r.Rounding = RiskShift(fm, all), RiskShift(fm, rnd)
	return r, nil
}

// RiskShift bounds how far any observer's Bayes risk on m moves when each
// row x of a channel moves by at most l1[x] in ℓ1 between two laws (both
// rows summing to 1): max over observers of
//
//	Σ_x π(x)·l1[x]·(max_a L(x, a) − min_a L(x, a))/2.
//
// For P′ = P + Δ the risk Σ_{f,v} min_a Σ_x π(x)P′(f|x)W(v|x)L(x, a) is at
// most its value at P's minimizers a*_{fv}, R(P) + Σ_x π(x) Σ_f Δ(f|x)c_x(f)
// with c_x(f) = Σ_v W(v|x)L(x, a*_{fv}) in [min_a L(x, a), max_a L(x, a)];
// since Σ_f Δ(f|x) = 0, Σ_f Δ(f|x)c_x(f) ≤ ‖Δ_x‖₁·(max − min)/2, and the
// same from P′'s minimizers bounds the other side. With 0-1 losses the
// factor is 1/2: a row moved by ε in ℓ1 moves a risk by at most π(x)·ε/2.
// A row count other than |X|, or a loss matrix short of a row or of an
// estimate (an unvalidated model), returns +Inf: no number, no verdict.
func RiskShift(m mip.Finite, l1 []float64) float64 {
	if len(l1) != len(m.Prior) {
		return math.Inf(1)
	}
	var shift float64
	for _, o := range m.Observers() {
		l := o.LossMatrix(len(m.Prior))
		var s float64
		for x, e := range l1 {
			if x >= len(l) || len(l[x]) == 0 { // an unvalidated model: no number
				return math.Inf(1)
			}
			s += m.Prior[x] * e * (slices.Max(l[x]) - slices.Min(l[x])) / 2
		}
		shift = max(shift, s)
	}
	return shift * (1 + 0x1p-40)
}

// BinaryLosses returns the certified MAP 0-1 losses of the network on the
// binary model (Section III-B, Appendix B): the binary channel
// s0 = 1 − E_R[k(0, R)], s1 = E_R[k(1, R)] and its exact losses
// (mip.Binary.MAPLoss), with the error bound of FiniteLosses (max L = 1).
func NetworkBinaryLosses(ctx context.Context, m *network.Network, b mip.Binary, tol float64) (*NetworkLosses, error) {
	return networkBinaryLosses(ctx, m, b, tol, false)
}

// NetworkBinaryLossesWitness is NetworkBinaryLosses with the result's
// Witness (NetworkFiniteLossesWitness).
func NetworkBinaryLossesWitness(ctx context.Context, m *network.Network, b mip.Binary, tol float64) (*NetworkLosses, error) {
	return networkBinaryLosses(ctx, m, b, tol, true)
}

func networkBinaryLosses(ctx context.Context, m *network.Network, b mip.Binary, tol float64, witness bool) (*NetworkLosses, error) {
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("privatizer: binary model: %w", err)
	}
	r, err := finiteLosses(ctx, m, b.Finite(), tol, witness)
	if err != nil || m.Categorical() {
		// A release of more than two labels has no s0, s1: its losses
		// are the finite sums.
		return r, err
	}
	// Appendix B's closed form of the same channel: equal to the finite
	// sums up to rounding, and the form mmds verify reports.
	s := mip.Privatizer{S0: r.S0(), S1: r.S1()}
	r.Losses = loss.New(b.ReconLoss(s), b.AdvLosses(s))
	return r, nil
}
