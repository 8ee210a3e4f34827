package model

import (
	"fmt"

	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// networkCertificate is the certificate of a network on a binary or finite
// model from its released channel's analysis r (or err): the losses, with
// the analysis's bound as Change. A forward error bound on P(F = 1 | x)
// above the tolerance is an error wrapping network.ErrPrecision; the bound
// itself is already in r.Bound.
func networkCertificate(r *privatizer.NetworkLosses, err error, o Options) (Certificate, error) {
	if err != nil {
		return Certificate{}, err
	}
	if r.Rounding > o.roundingTol() {
		what := "P(F = 1 | x) is"
		if r.Laws != nil {
			what = "law of F given x is (in ℓ1)"
		}
		return Certificate{}, fmt.Errorf("%w: the runtime's %s within %.3g of the certified one (forward error bound of the network's precision), above the tolerance %.3g", network.ErrPrecision, what, r.Rounding, o.roundingTol())
	}
	return Certificate{Losses: soundEnds(r.Losses, r.Bound), Change: r.Bound}, nil
}
