// Package learntest builds small privatizer networks with known mechanisms,
// in the JSON form of package learn, for the tests of bayes, model, verify,
// plot and the mmds command.
package learntest

import (
	"math"

	"github.com/mmds-project/mmds/learn"
)

// LinearNet returns a privatizer network (inputs x, r; identity output) that
// computes exactly a·x + b·r + c, through four ReLU units:
// a·(relu(x) − relu(−x)) + b·(relu(r) − relu(−r)) + c.
func LinearNet(a, b, c float64) learn.Network {
	return learn.Network{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []learn.Layer{
		{In: 2, Out: 4, Activation: "relu",
			Weights: []learn.Floats{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}, Bias: learn.Floats{0, 0, 0, 0}},
		{In: 4, Out: 1, Activation: "identity", Weights: []learn.Floats{{a, -a, b, -b}}, Bias: learn.Floats{c}},
	}}
}

// ConstantNet returns a binary privatizer network (inputs x, r; sigmoid
// output) that ignores r and releases F = 1 with probability 1 − s0 at x = 0
// and s1 at x = 1: sigmoid(b2 + w2·relu(x)) with b2 = logit(1 − s0) and
// w2 = logit(s1) − b2. s0 and s1 must lie in (0, 1).
func ConstantNet(s0, s1 float64) learn.Network {
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	b2 := logit(1 - s0)
	return learn.Network{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []learn.Layer{
		{In: 2, Out: 1, Activation: "relu", Weights: []learn.Floats{{1, 0}}, Bias: learn.Floats{0}},
		{In: 1, Out: 1, Activation: "sigmoid", Weights: []learn.Floats{{logit(s1) - b2}}, Bias: learn.Floats{b2}},
	}}
}
