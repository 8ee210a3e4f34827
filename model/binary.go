package model

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/privatizer"
)

// BinaryModel is the binary model of Section III-B with 0-1 losses.
type BinaryModel struct{ M mip.Binary }

// NewBinary wraps m.
func NewBinary(m mip.Binary) BinaryModel { return BinaryModel{M: m} }

// Kind implements Model.
func (BinaryModel) Kind() Kind { return Binary }

// DMax implements Model: q_Y.
func (b BinaryModel) DMax() float64 { return b.M.DMax() }

// Adversaries implements Model.
func (b BinaryModel) Adversaries() int { return len(b.M.QZ) }

// SideWidths implements Model: one bit each.
func (b BinaryModel) SideWidths() []int { return slices.Repeat([]int{1}, 1+len(b.M.QZ)) }

// DefaultSweep implements Model.
func (b BinaryModel) DefaultSweep() sweep.Spec { return b.M.DefaultSweep() }

// LossScale implements Model.
func (BinaryModel) LossScale() float64 { return 1 }

// StdErr implements Model: √(l(1−l)/n), a mean of n Bernoulli(l) errors.
func (BinaryModel) StdErr(l float64, n int) float64 {
	if n < 1 {
		return math.Inf(1)
	}
	l = min(max(l, 0), 1)
	return math.Sqrt(l * (1 - l) / float64(n))
}

// Encode implements Model: the {"p", "q_y", "q_z"} JSON.
func (b BinaryModel) Encode() ([]byte, error) {
	m := b.M
	return json.Marshal(mip.BinaryConfig{P: &m.P, QY: &m.QY, QZ: m.QZ})
}

// Sample implements Sampler: mip.Binary.Sample, one column per observer.
func (b BinaryModel) Sample(rng *rand.Rand, n int) (x []float64, y [][]float64, z [][][]float64) {
	s := b.M.Sample(rng, n)
	for _, zi := range s.Z {
		z = append(z, [][]float64{zi})
	}
	return s.X, [][]float64{s.Y}, z
}

// FiniteLaw is the binary model as a finite one (mip.Binary.Finite).
func (b BinaryModel) FiniteLaw() *mip.Finite {
	f := b.M.Finite()
	return &f
}

// SideNames implements Model: the binary model's observers see one
// unnamed bit each.
func (BinaryModel) SideNames(int) []string { return nil }

// Optimum implements Model: Proposition 2 at d (HiGHS), exact over all
// binary-output privatizers, with the global optimum over all privatizers
// beside it.
func (b BinaryModel) Optimum(ctx context.Context, d float64, o Options) (Optimum, error) {
	opt, err := b.M.SolveProp2(d, o.solver())
	if err != nil {
		return Optimum{}, err
	}
	glob, err := NewFinite(b.M.Finite()).Optimum(ctx, d, o)
	if err != nil {
		return Optimum{}, err
	}
	det := &BinaryDetail{Global: glob.Losses, S0: opt.S.S0, S1: opt.S.S1, Gamma: opt.Gamma, Status: opt.Status.String()}
	res := Optimum{D: opt.D, Losses: loss.New(opt.Recon, opt.Adv), Class: BinaryOutput, Detail: det}
	if o.Witness {
		w, err := b.M.WitnessProp2(ctx, d, opt.S, o.solver())
		if err != nil {
			return Optimum{}, err
		}
		res.Witness = &Witness{Prop2: &w, Global: glob.Witness.Global}
	}
	return res, nil
}

// Certify implements Model with bayes.CertifyBinary.
func (b BinaryModel) Certify(_ context.Context, k bayes.Privatizer, o Options) (Analysis, error) {
	c, err := bayes.CertifyBinary(b.M, k, o.Binary)
	if err != nil {
		return Analysis{}, err
	}
	// A runtime's s0 and s1 are within sup δ of the certified ones, and
	// the 0-1 risks move by at most that (privatizer.RiskShift). The
	// quadrature's change is an estimate: the losses stay where they are.
	d, err := rounding(k)
	if err != nil {
		return Analysis{}, err
	}
	e := c.Change + d
	return Analysis{Losses: c.Losses, Interval: loss.Around(c.Losses, e).Within(noRelease(b.M.Finite())), Change: e, Rounding: d, Binary: c}, nil
}

// CheckPrivatizer implements Model: a channel must have two rows, x = 0
// and x = 1; a cell kernel needs a continuous X.
func (BinaryModel) CheckPrivatizer(f privatizer.File) error {
	return checkFinitePrivatizer(f, Binary, 2)
}

// CertifyFile implements Model: a channel's exact finite sums (Change: what
// renormalizing its rows may hide, privatizer.Channel.Bound), or the
// channel p_x = E_R[k(x, R)] a network releases (privatizer.NetworkBinaryLosses:
// exact per activation region for ReLU networks, sampled with a proven
// bound for smooth ones, the forward error bound of the network's precision
// included) and that channel's losses; Change is the bound, Binary the
// channel (s0, s1).
func (b BinaryModel) CertifyFile(ctx context.Context, f privatizer.File, o Options) (Analysis, error) {
	if err := b.CheckPrivatizer(f); err != nil {
		return Analysis{}, err
	}
	if f.Channel != nil {
		l, err := f.Channel.BinaryLosses(b.M)
		return bounded(b.M.Finite(), l, f.Channel.Bound(b.M.Finite())), err
	}
	losses := privatizer.NetworkBinaryLosses
	if o.Witness {
		losses = privatizer.NetworkBinaryLossesWitness
	}
	r, err := losses(ctx, f.Network, b.M, o.expectTol())
	c, err := networkAnalysis(b.M.Finite(), r, err)
	if err == nil && r.Laws == nil {
		// The binary channel of Section III-B, as mmds verify reports it.
		c.Binary = &bayes.BinaryAnalysis{S0: r.S0(), S1: r.S1(), Change: r.Bound, Losses: loss.New(r.Losses.Recon, r.Losses.Adv)}
	}
	return c, err
}

// parseBinary decodes a mip.BinaryConfig (ParseAs ignores the model with
// an error).
func parseBinary(b []byte) (Model, error) {
	m, err := mip.ParseBinaryConfig(bytes.NewReader(b))
	return NewBinary(m), err
}

var _ Model = BinaryModel{}
