package bayes

import "github.com/mmds-project/mmds/network"

// linear returns the linear-Gaussian privatizer F = a·x + b·r + c of
// Appendix A as a Privatizer (exactly piecewise linear, no kinks).
func linear(a, b, c float64) Privatizer {
	return Privatizer{K: func(x, r float64) float64 { return a*x + b*r + c }, PiecewiseLinear: true,
		Faces: func(box network.Box, _ int) ([]network.Face, error) { return boxFace(box, c, a, b), nil }}
}
