package gauss

import (
	"fmt"
	"math"
	"slices"

	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/loss"
)

// Prop1Optimum is the optimum of problem (1) at one distortion threshold
// D among privatizers F = aX + bR with R ~ N(0,1) independent of
// everything (the class of Proposition 1's proof, Appendix A).
type Prop1Optimum struct {
	D    float64 // the distortion threshold asked for
	DEff float64 // D' = min(D, V_Y): the distortion the reconstructor actually gets
	// SNR = a²/b² = 1/D' − 1/V_Y (Appendix A); +Inf at D' = 0 (F = X), 0
	// when D ≥ V_Y (F independent of X).
	SNR float64
	// A, B are one privatizer achieving SNR: B = 1, A = √SNR, or A = 1, B = 0
	// when D' = 0 (F = X). When Var[F] = SNR·σ_X² + 1 would overflow (D'
	// below about σ_X²/MaxFloat64; SNR itself rounds to +Inf below
	// 1/MaxFloat64 while F ≠ X) A = 1, B = √(D'/(1 − D'/V_Y)) = 1/√SNR
	// instead. Any (ta, tb), t ≠ 0, is equally optimal.
	A, B float64
	// Recon = E[Var[X|F,Y]] = D'; Adv[i] = E[Var[X|F,Z_i]] = D'/(1 + Q_i D');
	// MinAdv = min_i Adv[i], the objective of (1).
	loss.Losses
	MinAdvIndex int // the first adversary attaining MinAdv
}

// Privatizer returns the linear privatizer F = A·X + B·R of the point.
func (p Prop1Optimum) Privatizer() Linear { return Linear{A: p.A, B: p.B} }

// Q returns Q_i = 1/V_i − 1/V_Y for each adversary (Proposition 1; for scalar
// side information this equals (ρ_XZi² − ρ_XY²)/(σ_X²(1−ρ_XZi²)(1−ρ_XY²))).
// It is +Inf when V_i = 0 < V_Y, −Inf when V_Y = 0 < V_i (both by IEEE
// rules) and 0 when V_i = V_Y, including V_i = V_Y = 0 (equal information;
// computeVariances decides equality within rounding).
func (m *Model) Q() []float64 {
	out := make([]float64, len(m.vAdv))
	for i, v := range m.vAdv {
		if v != m.vRecon {
			out[i] = inv(v) - inv(m.vRecon)
		}
	}
	return out
}

// observers returns V_Y, then V_1, …, V_K: the conditional variances of
// the reconstructor and the adversaries, in the order of loss.Losses.
func (m *Model) observers() []float64 { return append([]float64{m.vRecon}, m.vAdv...) }

// lossesBy returns the losses of the observers whose loss, as a function
// of Var[X|W] = v, is f.
func (m *Model) lossesBy(f func(v float64) float64) loss.Losses {
	adv := make([]float64, m.K())
	for i, v := range m.vAdv {
		adv[i] = f(v)
	}
	return loss.New(f(m.vRecon), adv)
}

// inv returns 1/v with 1/0 = +Inf.
func inv(v float64) float64 {
	if v == 0 {
		return math.Inf(1)
	}
	return 1 / v
}

// Optimum returns the optimum at threshold D ≥ 0 (D = +Inf is allowed and
// means no constraint). Proposition 1, generalized to K adversaries and vector
// side information: conditioning on F = aX + bR adds SNR = a²/b² to the
// precision of X given any side set S, so E[Var[X|F,S]] = 1/(1/V_S + SNR).
// Every loss falls as SNR grows, so the optimum takes the smallest SNR that
// meets the constraint, 1/D' − 1/V_Y, giving adversary losses
// 1/(1/V_i + 1/D' − 1/V_Y) = D'/(1 + Q_i D').
func (m *Model) Optimum(d float64) (Prop1Optimum, error) {
	if math.IsNaN(d) || d < 0 {
		return Prop1Optimum{}, fmt.Errorf("gauss: distortion threshold D = %g: must be ≥ 0", d)
	}
	p := Prop1Optimum{D: d}
	recon, adv := 0.0, make([]float64, len(m.vAdv))
	switch vy := m.vRecon; {
	case d >= vy:
		// The side information alone meets the constraint: F independent
		// of X (a = 0), every party keeps only its side information. This
		// branch also covers V_Y = 0 (Y determines X) for every D ≥ 0.
		p.DEff, p.SNR, p.A, p.B, recon = vy, 0, 0, 1, vy
		copy(adv, m.vAdv)
	case d == 0:
		// Appendix A's corner case: b = 0, F = X, every adversary recovers X.
		p.DEff, p.SNR, p.A, p.B, recon = 0, math.Inf(1), 1, 0, 0
	default:
		p.DEff, recon = d, d
		p.SNR = 1/d - 1/vy
		p.A, p.B = math.Sqrt(p.SNR), 1
		if math.IsInf(p.SNR*m.VarX(), 1) {
			p.A, p.B = 1, math.Sqrt(d/(1-d/vy))
		}
		for i, vi := range m.vAdv {
			adv[i] = advLoss(d, vy, vi)
		}
	}
	p.Losses = loss.New(recon, adv)
	p.MinAdvIndex = slices.Index(p.Adv, p.MinAdv)
	return p, nil
}

// advLoss is D'/(1 + Q_i D') for 0 < D' < V_Y, written as
// D'/(D'/V_i + (1 − D'/V_Y)): both terms of the denominator are ≥ 0 and the
// second is > 0, so it is finite and exact in the limits V_i → 0 (loss 0)
// and Q_i < 0 (an adversary whose side information is weaker than Y's).
func advLoss(d, vy, vi float64) float64 {
	if vi == 0 {
		return 0
	}
	return d / (d/vi + (1 - d/vy))
}

// DefaultSweepStart is the paper's first threshold D_0 (Section V-A).
const DefaultSweepStart = 0.005

// DefaultSweepPoints is the paper's number of thresholds (Section V-A).
const DefaultSweepPoints = 30

// DefaultSweep is the paper's grid: 30 evenly spaced thresholds from 0.005 to
// D_max = V_Y (Section V-A). When V_Y ≤ 0.005 it starts at 0 instead, and
// when V_Y = 0 it is the single threshold 0.
func (m *Model) DefaultSweep() sweep.Spec {
	vy := m.vRecon
	switch {
	case vy == 0:
		return sweep.Spec{D0: 0, D1: 0, N: 1}
	case vy <= DefaultSweepStart:
		return sweep.Spec{D0: 0, D1: vy, N: DefaultSweepPoints}
	}
	return sweep.Spec{D0: DefaultSweepStart, D1: vy, N: DefaultSweepPoints}
}
