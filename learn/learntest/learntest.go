// Package learntest builds small privatizer networks with known mechanisms,
// as results.json records them (network.Network), for the tests of bayes, model, verify,
// plot and the mmds command.
package learntest

import (
	"math"

	"github.com/mmds-project/mmds/network"
)

// LinearNet returns a privatizer network (inputs x, r; identity output) that
// computes exactly a·x + b·r + c, through four ReLU units:
// a·(relu(x) − relu(−x)) + b·(relu(r) − relu(−r)) + c.
func LinearNet(a, b, c float64) network.Network {
	return network.Network{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []network.Layer{
		{Act: network.ReLU,
			W: [][]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}, B: []float64{0, 0, 0, 0}},
		{Act: network.Identity, W: [][]float64{{a, -a, b, -b}}, B: []float64{c}},
	}}
}

// ConstantNet returns a binary privatizer network (inputs x, r; sigmoid
// output) that ignores r and releases F = 1 with probability 1 − s0 at x = 0
// and s1 at x = 1: sigmoid(b2 + w2·relu(x)) with b2 = logit(1 − s0) and
// w2 = logit(s1) − b2. s0 and s1 must lie in (0, 1).
func ConstantNet(s0, s1 float64) network.Network {
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	b2 := logit(1 - s0)
	return network.Network{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []network.Layer{
		{Act: network.ReLU, W: [][]float64{{1, 0}}, B: []float64{0}},
		{Act: network.Sigmoid, W: [][]float64{{logit(s1) - b2}}, B: []float64{b2}},
	}}
}
