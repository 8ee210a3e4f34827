package privatizer

import "math"

// Standard normal helpers for the noise r ~ N(0, 1). They are the minimal
// math of verify/normal.go (unexported there), copied so that this package
// does not depend on verify.

const invSqrt2Pi = 0.3989422804014327 // 1/√(2π)

// phi is the standard normal density; phi(±Inf) = 0.
func phi(r float64) float64 {
	if math.IsInf(r, 0) {
		return 0
	}
	return invSqrt2Pi * math.Exp(-0.5*r*r)
}

// normMass is P(a < R < b) for R ~ N(0,1), a ≤ b (either may be infinite),
// from the smaller tails so that tail masses keep their relative precision.
func normMass(a, b float64) float64 {
	if !(a < b) {
		return 0
	}
	if a >= 0 {
		return 0.5 * (math.Erfc(a/math.Sqrt2) - math.Erfc(b/math.Sqrt2))
	}
	if b <= 0 {
		return 0.5 * (math.Erfc(-b/math.Sqrt2) - math.Erfc(-a/math.Sqrt2))
	}
	return 1 - 0.5*(math.Erfc(-a/math.Sqrt2)+math.Erfc(b/math.Sqrt2))
}

// segMoments returns ∫_a^b g(r)φ(r) dr for g = 1, r and r² (infinite ends
// allowed): m0 = Φ(b) − Φ(a), m1 = φ(a) − φ(b), m2 = m0 + aφ(a) − bφ(b).
func segMoments(a, b float64) (m0, m1, m2 float64) {
	rphi := func(r float64) float64 {
		if math.IsInf(r, 0) {
			return 0
		}
		return r * phi(r)
	}
	m0 = normMass(a, b)
	m1 = phi(a) - phi(b)
	m2 = m0 + rphi(a) - rphi(b)
	return
}

// node caches, for one end r of a piece, the smaller tail probability
// t = min(Φ(r), 1 − Φ(r)) and φ(r): a chain of pieces evaluates each end
// once.
type node struct {
	r, t, phi float64
}

func newNode(r float64) node {
	if math.IsInf(r, 0) {
		return node{r: r}
	}
	return node{r: r, t: 0.5 * math.Erfc(math.Abs(r)/math.Sqrt2), phi: invSqrt2Pi * math.Exp(-0.5*r*r)}
}

// mass returns P(a.r < R < b.r) for a.r ≤ b.r, with the precision of
// normMass.
func mass(a, b node) float64 {
	switch {
	case !(a.r < b.r):
		return 0
	case a.r >= 0:
		return a.t - b.t
	case b.r <= 0:
		return b.t - a.t
	}
	return 1 - a.t - b.t
}
