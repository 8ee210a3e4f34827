package gauss

import (
	"fmt"
	"math"

	"github.com/mmds-project/mmds/loss"
)

// The mechanism families (docs/gauss.md, "Binning mechanisms").
const (
	FamilyErasure   = "erasure"   // F = X with probability λ, else a constant
	FamilyLinear    = "linear"    // F = aX + bR, Proposition 1's class
	FamilyModulo    = "modulo"    // F = X mod Δ
	FamilyNested    = "nested"    // F = ⌊X/δ⌉ mod K
	FamilyQuantizer = "quantizer" // F = ⌊(X − μ_X − offset)/δ⌋
	FamilyMixture   = "mixture"   // time-sharing with the flag revealed
	FamilyKernel    = "kernel"    // optimized stochastic kernel on a cell grid (optional search)
)

// Mechanism describes a privatizer of one family with its parameters. The
// zero values of unused parameters are left out of JSON.
type Mechanism struct {
	Family string `json:"family"`
	// Delta is Δ for modulo and the cell width δ for nested and quantizer.
	Delta float64 `json:"delta,omitempty"`
	// Labels is K for nested (F takes K values).
	Labels int `json:"labels,omitempty"`
	// Offset is the quantizer's first threshold minus the mean of X.
	Offset *float64 `json:"offset,omitempty"`
	// Lambda is the erasure's probability of revealing X.
	Lambda *float64 `json:"lambda,omitempty"`
	// SNR is a²/b² of a linear mechanism (null with SNRInfinite for F = X).
	SNR         *float64 `json:"snr,omitempty"`
	SNRInfinite bool     `json:"snr_infinite,omitempty"`
	// Kernel is a kernel mechanism's cell grid and label probabilities
	// (Delta is then its cell width and Labels its number of labels).
	Kernel *Kernel `json:"kernel,omitempty"`
	// Parts are a mixture's components: with the probability Weight the
	// privatizer runs the part and reveals which one it ran.
	Parts []Part `json:"parts,omitempty"`
}

// Part is one component of a mixture with its exact losses.
type Part struct {
	Weight float64 `json:"weight"`
	Mechanism
	loss.Losses
}

// Achievable is a mechanism with its exact losses.
type Achievable struct {
	loss.Losses
	Mechanism Mechanism `json:"mechanism"`
}

// Erasure returns the erasure mechanism revealing X with probability lambda.
func Erasure(lambda float64) Mechanism { return Mechanism{Family: FamilyErasure, Lambda: &lambda} }

// Modulo returns F = X mod delta.
func Modulo(delta float64) Mechanism { return Mechanism{Family: FamilyModulo, Delta: delta} }

// Nested returns F = ⌊X/delta⌉ mod labels.
func Nested(delta float64, labels int) Mechanism {
	return Mechanism{Family: FamilyNested, Delta: delta, Labels: labels}
}

// Quantizer returns F = ⌊(X − μ_X − offset)/delta⌋.
func Quantizer(delta, offset float64) Mechanism {
	return Mechanism{Family: FamilyQuantizer, Delta: delta, Offset: &offset}
}

// LinearSNR returns F = aX + bR with a²/b² = snr (+Inf: F = X).
func LinearSNR(snr float64) Mechanism {
	if math.IsInf(snr, 1) {
		return Mechanism{Family: FamilyLinear, SNRInfinite: true}
	}
	return Mechanism{Family: FamilyLinear, SNR: &snr}
}

// MaxNestedLabels bounds K of a nested quantizer.
const MaxNestedLabels = 1 << 16

// Losses returns the exact losses of mech on the model: the reconstructor's
// E[Var(X | F, Y)] and every adversary's E[Var(X | F, Z_i)], each the MSE
// of the Bayes estimator with the exact posterior (docs/gauss.md).
func (m *Model) Losses(mech Mechanism) (loss.Losses, error) {
	if err := m.checkMechanism(mech, true); err != nil {
		return loss.Losses{}, err
	}
	if mech.Family == FamilyMixture {
		rec, adv := 0.0, make([]float64, m.K())
		for _, p := range mech.Parts {
			l := m.observe(p.Mechanism)
			rec += p.Weight * l.Recon
			for i := range adv {
				adv[i] += p.Weight * l.Adv[i]
			}
		}
		return loss.New(rec, adv), nil
	}
	return m.observe(mech), nil
}

// observe returns the exact losses of a checked non-mixture mechanism.
func (m *Model) observe(mech Mechanism) loss.Losses {
	g := m.lossFunc(mech)
	// No mechanism can raise an observer's loss above Var[X|W]; the clamp
	// removes rounding above it so ties with F ⊥ X resolve exactly.
	l := m.lossesBy(func(v float64) float64 { return math.Min(g(v), v) })
	l.Recon = m.reconLoss(mech, l.Recon)
	return l
}

// reconLoss rounds the reconstructor's computed loss l of mech upwards when
// it is 0 but cannot be. With V_Y > 0 the loss is 0 only if F determines X
// (UpperBound's D = 0 argument), which among the families only erasure with
// λ = 1 and linear with SNR = +Inf do. Any other mechanism's loss is
// positive, and a computed 0 is an underflow (X mod Δ with √V_Y/Δ ≲ 0.013
// has loss below e^{−745}) or cancellation to 0 (cell sums): the smallest
// positive float64 bounds it from above, so the constraint L_R ≤ D stays
// sound and such a mechanism is never taken for one meeting D = 0.
// Adversaries' losses are left as computed: rounding them down only
// understates what a mechanism achieves.
func (m *Model) reconLoss(mech Mechanism, l float64) float64 {
	if l > 0 || m.vRecon == 0 || mech.revealsX() {
		return l
	}
	return math.SmallestNonzeroFloat64
}

// revealsX reports whether F determines X: erasure with λ = 1 or linear with
// SNR = +Inf (F = X).
func (mech Mechanism) revealsX() bool {
	switch mech.Family {
	case FamilyErasure:
		return *mech.Lambda == 1
	case FamilyLinear:
		return mech.SNRInfinite
	}
	return false
}

// lossFunc returns v ↦ E[Var(X | F, W)] for an observer with Var[X|W] = v.
func (m *Model) lossFunc(mech Mechanism) func(v float64) float64 {
	mu, vx := m.mean[m.private], m.VarX()
	switch mech.Family {
	case FamilyErasure:
		lam := *mech.Lambda
		return func(v float64) float64 { return (1 - lam) * v }
	case FamilyLinear:
		if mech.SNRInfinite {
			return func(float64) float64 { return 0 }
		}
		snr := *mech.SNR
		return func(v float64) float64 {
			if v == 0 {
				return 0
			}
			if vs := v * snr; !math.IsInf(vs, 1) {
				return v / (1 + vs) // 1/(1/V + SNR), Appendix A
			}
			return 1 / (1/v + snr) // v·SNR overflows, so v is normal and 1/v finite
		}
	case FamilyModulo:
		return func(v float64) float64 { return ModuloLoss(v, mech.Delta) }
	case FamilyNested:
		g := cellGrid{delta: mech.Delta, origin: -mech.Delta / 2, labels: mech.Labels}
		return func(v float64) float64 { return g.loss(mu, v, vx-v) }
	case FamilyQuantizer:
		g := cellGrid{delta: mech.Delta, origin: mu + *mech.Offset}
		return func(v float64) float64 { return g.loss(mu, v, vx-v) }
	case FamilyKernel:
		return m.kernelLossFuncOf(mech.Kernel.Edges, mech.Kernel.dense(), KernelCertNodes)
	}
	panic("gauss: unchecked mechanism family " + mech.Family)
}

// checkMechanism validates the family and parameters.
func (m *Model) checkMechanism(mech Mechanism, allowMixture bool) error {
	pos := func(name string, x float64) error {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("gauss: %s mechanism: %s = %v: must be finite and > 0", mech.Family, name, x)
		}
		return nil
	}
	switch mech.Family {
	case FamilyErasure:
		if mech.Lambda == nil || !(*mech.Lambda >= 0 && *mech.Lambda <= 1) {
			return fmt.Errorf("gauss: erasure mechanism: lambda must be in [0, 1]")
		}
	case FamilyLinear:
		if !mech.SNRInfinite && (mech.SNR == nil || !(*mech.SNR >= 0) || math.IsInf(*mech.SNR, 0)) {
			return fmt.Errorf("gauss: linear mechanism: snr must be finite and ≥ 0 (or snr_infinite)")
		}
	case FamilyModulo:
		return pos("delta", mech.Delta)
	case FamilyNested:
		if mech.Labels < 2 || mech.Labels > MaxNestedLabels {
			return fmt.Errorf("gauss: nested mechanism: labels = %d: must be in [2, %d]", mech.Labels, MaxNestedLabels)
		}
		return pos("delta", mech.Delta)
	case FamilyQuantizer:
		if mech.Offset == nil || math.IsNaN(*mech.Offset) || math.IsInf(*mech.Offset, 0) {
			return fmt.Errorf("gauss: quantizer mechanism: offset must be finite")
		}
		return pos("delta", mech.Delta)
	case FamilyKernel:
		if mech.Kernel == nil {
			return fmt.Errorf("gauss: kernel mechanism without its kernel")
		}
		return mech.Kernel.Validate()
	case FamilyMixture:
		if !allowMixture {
			return fmt.Errorf("gauss: a mixture's part cannot be a mixture")
		}
		if len(mech.Parts) == 0 {
			return fmt.Errorf("gauss: mixture mechanism has no parts")
		}
		sum := 0.0
		for i, p := range mech.Parts {
			if !(p.Weight >= 0 && p.Weight <= 1) {
				return fmt.Errorf("gauss: mixture part %d: weight = %v: must be in [0, 1]", i, p.Weight)
			}
			if err := m.checkMechanism(p.Mechanism, false); err != nil {
				return fmt.Errorf("mixture part %d: %w", i, err)
			}
			sum += p.Weight
		}
		if math.Abs(sum-1) > 1e-9 {
			return fmt.Errorf("gauss: mixture weights sum to %v: must sum to 1", sum)
		}
	default:
		return fmt.Errorf("gauss: mechanism family %q: want one of erasure, linear, modulo, nested, quantizer, kernel, mixture", mech.Family)
	}
	return nil
}
