package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/privatizer"
)

// finiteLaw is a model with a finite X: the binary and finite models.
type finiteLaw interface{ FiniteLaw() *mip.Finite }

// FiniteLaw returns the joint law of a model with a finite X (the binary
// model as a finite one, mip.Binary.Finite); ok is false for the Gaussian
// model.
func FiniteLaw(m Law) (law *mip.Finite, ok bool) {
	f, ok := m.(finiteLaw)
	if !ok {
		return nil, false
	}
	return f.FiniteLaw(), true
}

// CertifyChannel computes the exact Bayes losses of a privatizer given as
// its channel p[x][f] = P(F = f | X = x) on a model with a finite X: the
// finite sums of privatizer.Channel.FiniteLosses (exact for the renormalized
// rows; Change is what renormalizing may hide, privatizer.Channel.Bound). name
// labels the channel in errors, which wrap privatizer.ErrInput.
func CertifyChannel(m Law, p [][]float64, name string) (Analysis, error) {
	f, ok := FiniteLaw(m)
	if !ok {
		return Analysis{}, fmt.Errorf("%w: a channel privatizer needs a finite X; the %s model's X is continuous", ErrUnsupported, m.Kind())
	}
	c := &privatizer.Channel{Name: name, P: p}
	l, err := c.FiniteLosses(*f)
	if err != nil {
		return Analysis{}, err
	}
	return bounded(*f, l, c.Bound(*f)), nil
}

// CertifyKernel computes the exact losses of a cell kernel on the Gaussian
// model (gauss.Model.KernelLosses: Gauss–Hermite quadrature of order 256
// over m(W), the tails being cells), time-shared with F = X with
// probability k.Reveal = λ: revealing X costs every observer 0, so each
// loss, and the quadrature error with it, is exactly (1 − λ) times the
// kernel's. Change is the quadrature error estimate (the change against
// order 128) relative to the smallest nonzero loss, the Gaussian
// analyses' relative measure (unchanged by the factor 1 − λ). name
// labels the kernel in errors, which wrap privatizer.ErrInput (a λ outside
// [0, 1) is one), or bayes.ErrCannotCertify where the model's quadrature
// cannot resolve an observer (gauss.ErrUnresolved).
func CertifyKernel(m Law, k privatizer.Kernel, name string) (Analysis, error) {
	g, ok := m.(GaussModel)
	if !ok {
		return Analysis{}, fmt.Errorf("%w: a cell kernel needs the Gaussian model; the %s model's privatizers are channels", ErrUnsupported, m.Kind())
	}
	if !(k.Reveal >= 0 && k.Reveal < 1) {
		return Analysis{}, fmt.Errorf("%w: %s: reveal = %g: must be in [0, 1)", privatizer.ErrInput, name, k.Reveal)
	}
	l, qe, err := g.M.KernelLosses(k.Kernel)
	if errors.Is(err, gauss.ErrUnresolved) {
		return Analysis{}, fmt.Errorf("%w: %s: %w", bayes.ErrCannotCertify, name, err)
	}
	if err != nil {
		return Analysis{}, fmt.Errorf("%w: %s: %w", privatizer.ErrInput, name, err)
	}
	if k.Reveal > 0 {
		s := 1 - k.Reveal
		adv := make([]float64, len(l.Adv))
		for i, v := range l.Adv {
			adv[i] = s * v
		}
		l, qe = loss.New(s*l.Recon, adv), s*qe
	}
	scale := math.Inf(1)
	for _, v := range append([]float64{l.Recon}, l.Adv...) {
		if v > 0 {
			scale = min(scale, v)
		}
	}
	change := 0.0
	if qe > 0 {
		change = qe / scale
	}
	// The estimate's interval: every loss within qe (absolute).
	return Analysis{Losses: l, Interval: loss.Around(l, qe), Change: change}, nil
}

// CheckKernelChange reports an error wrapping bayes.ErrCannotCertify when
// a kernel analysis's quadrature error estimate c.Change exceeds tol:
// the losses are sound only to that estimate.
func CheckKernelChange(c Analysis, tol float64) error {
	if !(c.Change <= tol) {
		return fmt.Errorf("%w: the kernel's quadrature error estimate is %.2g of its smallest loss, above the tolerance %.2g", bayes.ErrCannotCertify, c.Change, tol)
	}
	return nil
}

// kernelNeedsGauss is the error for a cell kernel given to a model with a
// finite X, whose privatizers are channels.
func kernelNeedsGauss(k *privatizer.Kernel, kind Kind) error {
	return fmt.Errorf("%w: privatizer %s is a cell kernel of the Gaussian model, but the model is %s: certify a channel P(F | X) or a network k(x, r) instead", privatizer.ErrInput, k.Name, kind)
}
