// Package stdnormal holds the closed forms of the standard normal law that
// the exact integrals over a privatizer's noise r ~ N(0,1) are sums of
// (packages bayes and privatizer): the density, interval masses that keep
// the relative precision of tail probabilities, and the first moments over
// an interval.
package stdnormal

import "math"

const invSqrt2Pi = 0.3989422804014327 // 1/√(2π)

// Density is the standard normal density φ; φ(±Inf) = 0.
func Density(r float64) float64 {
	if math.IsInf(r, 0) {
		return 0
	}
	return invSqrt2Pi * math.Exp(-0.5*r*r)
}

// rDensity is r·φ(r), with the limit 0 at ±Inf.
func rDensity(r float64) float64 {
	if math.IsInf(r, 0) {
		return 0
	}
	return r * Density(r)
}

// Mills returns the Mills ratio Q(z)/φ(z) of the standard normal upper
// tail Q(z) = P(R > z), for z ≥ 0 (NaN below): Q(z) = φ(z)·Mills(z), so a
// tail shares the exponential of the density, and e^{−c}·Q(z) is
// e^{−c − z²/2}·Mills(z)/√(2π) with one exponential. On [0, 12) it is a
// polynomial of degree 9 on each interval of width 1/4 (mills_table.go, from
// mpmath by scripts/mills-table.py), beyond it the continued fraction
// 1/(z + 1/(z + 2/(z + …))) to ten terms; within 4 ulps of mpmath's values
// (TestMills).
func Mills(z float64) float64 {
	if z < 12 && z >= 0 {
		i := int(z * 4)
		// Exact subtraction (Sterbenz): t ∈ [−1, 1).
		return millsPoly[i&63].eval((z-0.25*float64(i))*8 - 1)
	}
	return millsFar(z)
}

// millsFar is Mills beyond the table: the continued fraction, 0 at +Inf,
// NaN below 0.
func millsFar(z float64) float64 {
	if !(z >= 0) {
		return math.NaN()
	}
	if math.IsInf(z, 1) {
		return 0
	}
	var r float64
	for k := 10; k > 0; k-- {
		r = float64(k) / (z + r)
	}
	return 1 / (z + r)
}

// eval is the polynomial at t, by Horner in t² on its even and odd halves
// (two shorter dependency chains). The explicit conversions round every
// product, so that no GOAMD64 level fuses them: mills4 computes the same
// operations, bit for bit.
func (c *millsCoef) eval(t float64) float64 {
	t2 := t * t
	even := float64(c[8]*t2) + c[6]
	even = float64(even*t2) + c[4]
	even = float64(even*t2) + c[2]
	even = float64(even*t2) + c[0]
	odd := float64(c[9]*t2) + c[7]
	odd = float64(odd*t2) + c[5]
	odd = float64(odd*t2) + c[3]
	odd = float64(odd*t2) + c[1]
	return even + float64(t*odd)
}

// Mass is P(a < R < b) for R ~ N(0,1), a ≤ b (either may be infinite). It
// subtracts upper-tail probabilities when both ends are positive and
// lower-tail ones otherwise, so tail masses keep their relative precision.
func Mass(a, b float64) float64 {
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

// Moments returns ∫_a^b g(r)φ(r) dr for g = 1, r and r² over a ≤ b
// (infinite ends allowed):
//
//	m0 = Φ(b) − Φ(a),  m1 = φ(a) − φ(b),  m2 = m0 + aφ(a) − bφ(b).
func Moments(a, b float64) (m0, m1, m2 float64) {
	m0 = Mass(a, b)
	m1 = Density(a) - Density(b)
	m2 = m0 + rDensity(a) - rDensity(b)
	return
}

// Node caches what the integrals over a piece need at one end R: the
// smaller tail probability T = min(Φ(R), 1 − Φ(R)), on the side of sign(R),
// and Phi = φ(R). A chain of pieces evaluates each end once.
type Node struct {
	R, T, Phi float64
}

// NewNode returns the Node at r.
func NewNode(r float64) Node {
	if math.IsInf(r, 0) {
		return Node{R: r}
	}
	return Node{R: r, T: 0.5 * math.Erfc(math.Abs(r)/math.Sqrt2), Phi: invSqrt2Pi * math.Exp(-0.5*r*r)}
}

// NodeMass returns P(a.R < R < b.R) for a.R ≤ b.R, with the precision of
// Mass.
func NodeMass(a, b Node) float64 {
	switch {
	case !(a.R < b.R):
		return 0
	case a.R >= 0: // both upper tails
		return a.T - b.T
	case b.R <= 0: // both lower tails
		return b.T - a.T
	}
	return 1 - a.T - b.T
}
