package model

import (
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/privatizer"
)

// networkAnalysis is the exact analysis of a network on a binary or finite
// model from its released channel's analysis r (or err): the losses within
// r.Bound, which carries the quadrature's bounds and the runtime's rounding
// (the network's precision) alike. No separate rounding tolerance applies:
// the verdict compares the whole stated error with its limit.
func networkAnalysis(f mip.Finite, r *privatizer.NetworkLosses, err error) (Analysis, error) {
	if err != nil {
		return Analysis{}, err
	}
	c := bounded(f, r.Losses, r.Bound)
	c.Rounding, c.Witness = r.Rounding, r.Witness
	return c, nil
}
