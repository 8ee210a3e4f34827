package network

import "github.com/mmds-project/mmds/internal/stdnormal"

// The standard normal closed forms the integrals over the noise r ~ N(0,1)
// are sums of (package stdnormal), under this package's short names.

type node = stdnormal.Node

func phi(r float64) float64                        { return stdnormal.Density(r) }
func normMass(a, b float64) float64                { return stdnormal.Mass(a, b) }
func segMoments(a, b float64) (m0, m1, m2 float64) { return stdnormal.Moments(a, b) }
func newNode(r float64) node                       { return stdnormal.NewNode(r) }
func mass(a, b node) float64                       { return stdnormal.NodeMass(a, b) }
