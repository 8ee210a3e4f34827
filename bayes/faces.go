package bayes

import "github.com/mmds-project/mmds/network"

// boxFace is the one face of an affine privatizer c0 + cx·x + cr·r.
func boxFace(box network.Box, c0, cx, cr float64) []network.Face {
	return []network.Face{{X: []float64{box.X0, box.X1, box.X1, box.X0}, R: []float64{box.R0, box.R0, box.R1, box.R1}, C0: c0, Cx: cx, Cr: cr}}
}
