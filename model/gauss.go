package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/privatizer"
)

// GaussModel is a jointly Gaussian model (Section III-A) with MSE losses.
type GaussModel struct{ M *gauss.Model }

// NewGauss wraps m.
func NewGauss(m *gauss.Model) GaussModel { return GaussModel{M: m} }

// Kind implements Model.
func (GaussModel) Kind() Kind { return Gauss }

// DMax implements Model: Var[X | Y].
func (g GaussModel) DMax() float64 { return g.M.VarRecon() }

// Adversaries implements Model.
func (g GaussModel) Adversaries() int { return g.M.K() }

// SideWidths implements Model.
func (g GaussModel) SideWidths() []int {
	w := []int{len(g.M.Reconstructor())}
	for i := range g.M.K() {
		w = append(w, len(g.M.Adversary(i)))
	}
	return w
}

// DefaultSweep implements Model.
func (g GaussModel) DefaultSweep() sweep.Spec { return g.M.DefaultSweep() }

// LossScale implements Model: Var[X].
func (g GaussModel) LossScale() float64 { return g.M.VarX() }

// StdErr implements Model: l·√(2/n), the standard error of a mean of n
// squared Gaussian errors of variance l (Var[e²] = 2l²).
func (GaussModel) StdErr(l float64, n int) float64 {
	if n < 1 {
		return math.Inf(1)
	}
	return max(l, 0) * math.Sqrt(2/float64(n))
}

// Encode implements Model: the gauss.Config JSON.
func (g GaussModel) Encode() ([]byte, error) { return json.Marshal(g.M.Config()) }

// Sample implements Sampler: the private column, the reconstructor's
// columns and each adversary's columns of n joint samples.
func (g GaussModel) Sample(rng *rand.Rand, n int) (x []float64, y [][]float64, z [][][]float64) {
	s := g.M.Sample(rng, n)
	for i := range g.M.K() {
		z = append(z, s.Adversary(i))
	}
	return s.Private(), s.Reconstructor(), z
}

// GaussLaw is the model's law, gauss.Model.
func (g GaussModel) GaussLaw() *gauss.Model { return g.M }

// SideNames implements Model: the variables of the observer's columns.
func (g GaussModel) SideNames(i int) []string {
	if i == 0 {
		return g.M.Reconstructor()
	}
	return g.M.Adversary(i - 1)
}

// Optimum implements Model: Proposition 1 at d, with the bracket of the
// optimum over all privatizers (best achievable mechanism, upper bound).
func (g GaussModel) Optimum(ctx context.Context, d float64, o Options) (Optimum, error) {
	b, err := g.M.Bracket(d)
	if err != nil {
		return Optimum{}, err
	}
	if o.GaussOptimum != nil {
		if err := g.M.ImproveBracketOptimum(ctx, &b, *o.GaussOptimum); err != nil {
			return Optimum{}, err
		}
	}
	p := b.Prop1Optimum
	det := &GaussDetail{DEff: p.DEff, Best: b.Achievable.Losses, BestFamily: b.Achievable.Mechanism.Family, UpperBound: b.UpperBound}
	if _, hi, ok := b.Numerical(); ok {
		det.Estimate = &hi
	}
	if !math.IsInf(p.SNR, 0) {
		snr := p.SNR
		det.SNR = &snr
	}
	return Optimum{D: p.D, Losses: p.Losses, Class: LinearGaussian, Detail: det}, nil
}

// BestKnown implements KnownMechanisms: gauss.Model.BestKnown over the
// committed mechanisms and, with search, the kernel search at d.
func (g GaussModel) BestKnown(ctx context.Context, d float64, search bool) (gauss.Known, error) {
	pts := g.M.Committed()
	if search {
		ks, err := g.M.SearchKnown(ctx, d)
		if err != nil {
			return gauss.Known{}, err
		}
		pts = append(pts, ks...)
	}
	return g.M.BestKnown(d, pts)
}

var _ KnownMechanisms = GaussModel{}

// Certify implements Model with bayes.CertifyGauss: the intervals of the
// real function's losses, each widened by ρ·max(value, 1e-6·Var[X]) for the
// runtime's rounding, ρ = sup δ / √Var[F] (Change grows by 2ρ): the
// rounding measured against the spread over which F carries information,
// never against |F| or a floor, since a release offset far from 0 (F =
// 10⁷ + 0.01X + …) or varying below its own rounding (F = 0.03 + 5e-10·1{X >
// 4}) rounds to a release that carries none, however small δ/|F| is. A
// release of no spread (√Var[F] = 0) with δ > 0 is ErrCannotCertify. This
// widening is a stated model, not a proof: no pointwise bound on
// |F_rt − F| bounds an MMSE in general (an observer may read the low-order
// bits of a real-valued release, and a fine feature under a coarse one is
// measured against the coarse spread), see docs/certify.md, "Real-valued
// releases". It stops within a quadrature panel of ctx's end
// (bayes.CertifyGauss).
func (g GaussModel) Certify(ctx context.Context, k bayes.Privatizer, o Options) (Analysis, error) {
	c, err := bayes.CertifyGauss(ctx, g.M, k, o.Gauss)
	if err != nil {
		return Analysis{}, err
	}
	d, err := rounding(k)
	if err != nil {
		return Analysis{}, err
	}
	rho := 0.0
	if d > 0 {
		spread := math.Sqrt(c.Fit.VarF)
		if !(spread > 0) {
			return Analysis{}, fmt.Errorf("%w: the release has no spread (Var[F] = %g) against the runtime's rounding bound %.3g: its rounded values may differ where the real ones do not", bayes.ErrCannotCertify, c.Fit.VarF, d)
		}
		rho = d / spread * (1 + 0x1p-40)
	}
	floor := 1e-6 * g.M.VarX()
	widen := func(b bayes.LossBound) loss.Interval {
		w := rho * max(b.Value, floor)
		return loss.Interval{max(b.Lo-w, 0), b.Hi + w}
	}
	adv := make([]loss.Interval, len(c.Bounds)-1)
	for i, b := range c.Bounds[1:] {
		adv[i] = widen(b)
	}
	// No release raises a loss above the observer's Var[X | side].
	iv := loss.NewIntervals(widen(c.Bounds[0]), adv).Within(loss.New(g.M.VarRecon(), g.M.VarAdv()))
	return Analysis{Losses: iv.SoundEnds(), Interval: iv, Change: c.Change + 2*rho, Rounding: 2 * rho, Gauss: c}, nil
}

// CheckPrivatizer implements Model: the Gaussian model certifies networks
// k(x, r) and cell kernels; a channel P(F | X) needs a finite X.
func (GaussModel) CheckPrivatizer(f privatizer.File) error {
	if f.Channel != nil {
		// ErrInput reads "invalid privatizer": the name follows it directly.
		return fmt.Errorf("%w: %s is a channel P(F | X), but the model is Gaussian: certify a network k(x, r) or a cell kernel instead", privatizer.ErrInput, f.Channel.Name)
	}
	if n := f.Network; n != nil && (n.XValues() > 0 || n.Categorical()) {
		return fmt.Errorf("%w: network %s takes x one-hot or releases one of %d labels (a finite X's privatizer), but the model is Gaussian: certify a network F = k(x, r) of a real x", privatizer.ErrInput, n.Name, n.Outputs())
	}
	return nil
}

// CertifyFile implements Model: a network's release F = k(X, R) certified
// by Certify on the faces of its linear regions (identity and ReLU
// activations; others cannot be certified: an error wrapping
// bayes.ErrCannotCertify), as the function a runtime in the network's
// precision computes; a cell kernel by CertifyKernel, whose quadrature
// error estimate must be within o.Gauss.Target (else
// bayes.ErrCannotCertify), as mmds verify requires of a trained one.
func (g GaussModel) CertifyFile(ctx context.Context, f privatizer.File, o Options) (Analysis, error) {
	if err := g.CheckPrivatizer(f); err != nil {
		return Analysis{}, err
	}
	if f.Kernel != nil {
		c, err := CertifyKernel(g, *f.Kernel, f.Kernel.Name)
		if err != nil {
			return c, err
		}
		tol := o.Gauss.Target
		if tol == 0 {
			tol = 0.005 // bayes.GaussQuad's default Target
		}
		return c, CheckKernelChange(c, tol)
	}
	k, err := bayes.FromNetwork(f.Network)
	if err != nil {
		return Analysis{}, err
	}
	return g.Certify(ctx, k, o)
}

// parseGauss decodes a gauss.Config.
func parseGauss(b []byte) (Model, error) {
	c, err := gauss.ParseConfig(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	m, err := gauss.New(c)
	return NewGauss(m), err
}

var _ Model = GaussModel{}

// errorf wraps ErrConfig.
func errorf(format string, args ...any) error {
	return &configError{fmt.Errorf(format, args...)}
}
