package network

import "errors"

// Box is the rectangle [X0, X1] × [R0, R1] of the (x, r) plane.
type Box struct {
	X0, X1, R0, R1 float64
}

// Face is a convex polygon of the (x, r) plane on which a network with
// identity and ReLU activations is affine: k(x, r) = C0 + Cx·x + Cr·r.
// X and R hold its vertices counter-clockwise.
type Face struct {
	X, R       []float64
	C0, Cx, Cr float64
}

// ErrTooComplex reports a network whose linear regions, units or kinks exceed
// a cost cap: certifying it would take unbounded work.
var ErrTooComplex = errors.New("network too complex to certify")
