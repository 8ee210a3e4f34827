package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/privatizer"
)

// FiniteModel is a finite model (mip.Finite): any finite alphabets, channels
// and loss matrices.
type FiniteModel struct{ M mip.Finite }

// NewFinite wraps m.
func NewFinite(m mip.Finite) FiniteModel { return FiniteModel{M: m} }

// Kind implements Model.
func (FiniteModel) Kind() Kind { return Finite }

// DMax implements Model.
func (f FiniteModel) DMax() float64 { return f.M.DMax() }

// Adversaries implements Model.
func (f FiniteModel) Adversaries() int { return f.M.K() }

// SideWidths implements Model: one symbol each.
func (f FiniteModel) SideWidths() []int { return slices.Repeat([]int{1}, 1+f.M.K()) }

// finiteSweepPoints is the default number of thresholds of a finite sweep.
const finiteSweepPoints = 10

// DefaultSweep implements Model: 10 thresholds from the smallest achievable
// distortion to D_max.
func (f FiniteModel) DefaultSweep() sweep.Spec {
	return sweep.Spec{D0: f.M.DMin(), D1: f.M.DMax(), N: finiteSweepPoints}
}

// LossScale implements Model: the largest entry of any loss matrix.
func (f FiniteModel) LossScale() float64 {
	s := 0.0
	for _, o := range append([]mip.Observer{f.M.Recon}, f.M.Adv...) {
		for _, row := range o.Loss {
			for _, v := range row {
				s = max(s, math.Abs(v))
			}
		}
	}
	if s == 0 {
		return 1 // 0-1 losses by default
	}
	return s
}

// StdErr implements Model: the bound √(l(s − l)/n) of a mean of n losses in
// [0, s], s = LossScale (Bhatia–Davis), which is √(l(1−l)/n) for 0-1 losses.
func (f FiniteModel) StdErr(l float64, n int) float64 {
	if n < 1 {
		return math.Inf(1)
	}
	s := f.LossScale()
	l = min(max(l, 0), s)
	return math.Sqrt(l * (s - l) / float64(n))
}

// Encode implements Model: the mip.FiniteConfig JSON.
func (f FiniteModel) Encode() ([]byte, error) { return json.Marshal(f.M.Config()) }

// Sample implements Sampler: n draws of X ~ π, then each observer's side
// symbol V ~ W(· | X) independently given X, as float64 symbols 0, 1, …
// (uniforms drawn per sample in the order X, Y, Z_1..Z_K).
func (f FiniteModel) Sample(rng *rand.Rand, n int) (x []float64, y [][]float64, z [][][]float64) {
	draw := func(p []float64) float64 {
		u, c := rng.Float64(), 0.0
		for k, v := range p {
			if c += v; u < c {
				return float64(k)
			}
		}
		return float64(len(p) - 1)
	}
	m := f.M
	x, y = make([]float64, n), [][]float64{make([]float64, n)}
	for range m.Adv {
		z = append(z, [][]float64{make([]float64, n)})
	}
	for r := range n {
		v := draw(m.Prior)
		x[r] = v
		y[0][r] = draw(m.Recon.Channel[int(v)])
		for i, a := range m.Adv {
			z[i][0][r] = draw(a.Channel[int(v)])
		}
	}
	return x, y, z
}

// FiniteLaw is the model's law, mip.Finite.
func (f FiniteModel) FiniteLaw() *mip.Finite {
	m := f.M
	return &m
}

// finiteTimeLimit bounds one finite optimum (mip.SolveFinite): the ray LP
// answers small models in milliseconds; column generation returns its
// certified bracket when the limit stops it.
const finiteTimeLimit = 60 * time.Second

// Optimum implements Model: the global optimum over all privatizers
// (mip.SolveFinite: the ray LP while the enumeration is small, column
// generation beyond). When it is only bracketed, the losses are those of the
// best privatizer found, Class says so and UpperBound is the proven bound.
func (f FiniteModel) Optimum(ctx context.Context, d float64, o Options) (Optimum, error) {
	sol, err := f.M.SolveFinite(ctx, []float64{d}, mip.FiniteSolveOptions{TimeLimit: finiteTimeLimit, Solver: o.solver()})
	if err != nil {
		return Optimum{}, err
	}
	p := sol.Points[0]
	if p.Mechanism == nil {
		return Optimum{}, fmt.Errorf("finite optimum at D = %g: %s", d, p.StatusText())
	}
	det := &FiniteDetail{Mechanism: p.Mechanism, Status: p.StatusText()}
	if !math.IsNaN(p.Upper) {
		u := p.Upper
		det.UpperBound = &u
	}
	res := Optimum{D: p.D, Losses: loss.New(p.Recon, p.Adv), Class: finiteClass(p), Detail: det}
	if o.Witness {
		w, err := f.witness(ctx, sol, p, o)
		if err != nil {
			return Optimum{}, err
		}
		res.Witness = &Witness{Global: &w}
	}
	return res, nil
}

// finiteClass is the class of the finite optimum p: the optimum over all
// privatizers, bracketed when its proven upper bound exceeds it, or a lower
// bound.
func finiteClass(p mip.FiniteOptimum) Class {
	switch {
	case p.LowerBound:
		return AllLowerBound
	case !math.IsNaN(p.Upper) && p.Upper > p.MinAdv*(1+1e-9)+1e-12:
		return AllBracketed
	}
	return All
}

// witness proves the optimum p of sol: with the ray LP's duals, or column
// generation's multipliers (whose reduced-cost bound the pricing search
// then proves again), or, for a lower bound, the privatizer alone.
func (f FiniteModel) witness(ctx context.Context, sol mip.FiniteSolution, p mip.FiniteOptimum, o Options) (mip.GlobalWitness, error) {
	var du *mip.Duals
	target := 0.0
	switch {
	case p.LowerBound:
	case sol.Global != nil:
		d, err := sol.Global.Duals(p.D, o.solver())
		if err != nil {
			return mip.GlobalWitness{}, err
		}
		du = &d
	case p.DualBound != nil:
		d := p.DualBound.Multipliers(f.M)
		du, target = &d, p.DualBound.MaxReducedCost
	}
	w, err := f.M.WitnessGlobal(ctx, p.D, p.Mechanism, du, target, o.solver())
	if errors.Is(err, mip.ErrWitnessTooLarge) {
		// The lower bound alone: the checker says the upper bound is not
		// covered.
		return f.M.WitnessGlobal(ctx, p.D, p.Mechanism, nil, 0, o.solver())
	}
	return w, err
}

// SideNames implements Model: a finite model's observers see one unnamed
// symbol each.
func (FiniteModel) SideNames(int) []string { return nil }

// Certify implements Model: a finite model's privatizer is a channel, not a
// network k(x, r).
func (FiniteModel) Certify(context.Context, bayes.Privatizer, Options) (Analysis, error) {
	return Analysis{}, fmt.Errorf("%w: finite models certify channels, not networks k(x, r)", ErrUnsupported)
}

// CheckPrivatizer implements Model: a channel must have one row per value
// of X; a cell kernel needs a continuous X.
func (f FiniteModel) CheckPrivatizer(p privatizer.File) error {
	return checkFinitePrivatizer(p, Finite, f.M.N())
}

// checkFinitePrivatizer checks that p fits a model of kind k whose X takes n
// values: a channel of n rows or a network of such an x; a cell kernel
// needs a continuous X.
func checkFinitePrivatizer(p privatizer.File, k Kind, n int) error {
	switch {
	case p.Kernel != nil:
		return kernelNeedsGauss(p.Kernel, k)
	case p.Channel != nil:
		return p.Channel.CheckRows(n)
	case p.Network != nil:
		return privatizer.CheckFiniteNetwork(p.Network, n)
	}
	return nil
}

// CertifyFile implements Model: a channel's exact finite sums, or the
// channel a network releases (privatizer.NetworkFiniteLosses; see
// BinaryModel.CertifyFile) and that channel's losses.
func (f FiniteModel) CertifyFile(ctx context.Context, p privatizer.File, o Options) (Analysis, error) {
	if err := f.CheckPrivatizer(p); err != nil {
		return Analysis{}, err
	}
	if p.Channel != nil {
		l, err := p.Channel.FiniteLosses(f.M)
		return bounded(f.M, l, p.Channel.Bound(f.M)), err
	}
	losses := privatizer.NetworkFiniteLosses
	if o.Witness {
		losses = privatizer.NetworkFiniteLossesWitness
	}
	r, err := losses(ctx, p.Network, f.M, o.expectTol())
	return networkAnalysis(f.M, r, err)
}

// parseFinite decodes a mip.FiniteConfig (ParseAs ignores the model with
// an error).
func parseFinite(b []byte) (Model, error) {
	m, err := mip.ParseFiniteConfig(bytes.NewReader(b))
	return NewFinite(m), err
}

var _ Model = FiniteModel{}
