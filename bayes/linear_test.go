package bayes

import "github.com/mmds-project/mmds/network"

// linear returns the linear-Gaussian privatizer F = a·x + b·r + c of
// Appendix A as a Privatizer (exactly piecewise linear, no kinks).
func linear(a, b, c float64) Privatizer {
	return Privatizer{K: func(x, r float64) float64 { return a*x + b*r + c }, PiecewiseLinear: true,
		Faces: func(box network.Box, _ int) ([]network.Face, error) { return boxFace(box, c, a, b), nil }}
}

// boxFace is the one face of an affine privatizer c0 + cx·x + cr·r.
func boxFace(box network.Box, c0, cx, cr float64) []network.Face {
	return []network.Face{{X: []float64{box.X0, box.X1, box.X1, box.X0}, R: []float64{box.R0, box.R0, box.R1, box.R1}, C0: c0, Cx: cx, Cr: cr}}
}
