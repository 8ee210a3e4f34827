package model

import (
	"fmt"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/privatizer"
)

// finiteOf returns the finite form of a model with a finite X: the
// binary model as a finite one (mip.Binary.Finite), or the finite model.
func finiteOf(m Model) (mip.Finite, bool) {
	switch m := m.(type) {
	case BinaryModel:
		return m.M.Finite(), true
	case FiniteModel:
		return m.M, true
	}
	return mip.Finite{}, false
}

// FiniteLaw returns the joint law of a model with a finite X as learn's
// labels method takes it (the reconstructor first, then the adversaries);
// ok is false for the Gaussian model.
func FiniteLaw(m Model) (law *learn.FiniteLaw, ok bool) {
	f, ok := finiteOf(m)
	if !ok {
		return nil, false
	}
	law = &learn.FiniteLaw{Prior: f.Prior}
	for _, o := range append([]mip.Observer{f.Recon}, f.Adv...) {
		law.Observers = append(law.Observers, learn.ObserverLaw{Channel: o.Channel, Loss: o.Loss})
	}
	return law, true
}

// CertifyChannel computes the exact Bayes losses of a privatizer given as
// its channel p[x][f] = P(F = f | X = x) on a model with a finite X: the
// finite sums of privatizer.Channel.FiniteLosses (exact; Change 0). name
// labels the channel in errors, which wrap privatizer.ErrInput.
func CertifyChannel(m Model, p [][]float64, name string) (Certificate, error) {
	f, ok := finiteOf(m)
	if !ok {
		return Certificate{}, fmt.Errorf("%w: a channel privatizer needs a finite X; the %s model's X is continuous", ErrUnsupported, m.Kind())
	}
	c := &privatizer.Channel{Name: name, P: p}
	l, err := c.FiniteLosses(f)
	if err != nil {
		return Certificate{}, err
	}
	return Certificate{Losses: l}, nil
}
