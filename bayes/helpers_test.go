package bayes

import (
	"math/rand/v2"

	"github.com/mmds-project/mmds/learn"
)

// randomNet returns a freshly initialized two-input privatizer network (the
// paper's 50 hidden units, PyTorch's initialization): far from linear, with
// ranges of r where k(x, ·) is flat, the hard case for the quadrature.
func randomNet(seed uint64) *learn.MLP {
	return learn.NewMLP(2, 50, learn.Identity, rand.New(rand.NewPCG(seed, 9)))
}

// testQuadTol is the refinement change the tests accept (verify's default).
const testQuadTol = 5e-3

// fromMLP is FromNetwork of a trained network with inputs (x, r).
func fromMLP(m *learn.MLP) (Privatizer, error) {
	return FromNetwork(m.Network([]string{"x", "r"}))
}
