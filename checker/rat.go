package main

import (
	"math/big"
	"slices"
)

// Exact arithmetic. Every number a file states is a float64 (JSON's
// shortest decimal of it); the checker takes its exact value as a rational
// and computes with rationals from there, so a sum of products is exact.
// The one irrational operation, the square root in a standard error, is
// enclosed between two rationals (sqrtBounds).

func exact(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }

func ratInt(n int64) *big.Rat { return new(big.Rat).SetInt64(n) }

func add(a, b *big.Rat) *big.Rat { return new(big.Rat).Add(a, b) }
func sub(a, b *big.Rat) *big.Rat { return new(big.Rat).Sub(a, b) }
func mul(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
func quo(a, b *big.Rat) *big.Rat { return new(big.Rat).Quo(a, b) }
func neg(a *big.Rat) *big.Rat    { return new(big.Rat).Neg(a) }
func abs(a *big.Rat) *big.Rat    { return new(big.Rat).Abs(a) }

// addTo sets *acc += a·b.
func addTo(acc, a, b *big.Rat) { acc.Add(acc, new(big.Rat).Mul(a, b)) }

// minRat and maxRat return the smaller and the larger (a when equal).
func minRat(a, b *big.Rat) *big.Rat { return slices.MinFunc([]*big.Rat{a, b}, (*big.Rat).Cmp) }
func maxRat(a, b *big.Rat) *big.Rat { return slices.MaxFunc([]*big.Rat{a, b}, (*big.Rat).Cmp) }

func sum(v []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range v {
		s.Add(s, x)
	}
	return s
}

// fl is a rational as the nearest float64, for messages.
func fl(a *big.Rat) float64 { f, _ := a.Float64(); return f }

// sqrtBounds returns rationals lo ≤ √v ≤ hi, hi − lo ≤ 2⁻²⁰⁰·√v: a 256-bit
// square root, moved by 2⁻²⁰⁰ relative on each side and checked by
// squaring (big.Float's Sqrt is not promised to round correctly).
func sqrtBounds(v *big.Rat) (lo, hi *big.Rat) {
	if v.Sign() <= 0 {
		return new(big.Rat), new(big.Rat)
	}
	f := new(big.Float).SetPrec(256).SetRat(v)
	s, _ := new(big.Float).SetPrec(256).Sqrt(f).Rat(nil)
	eps := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 200))
	lo = mul(s, sub(ratInt(1), eps))
	hi = mul(s, add(ratInt(1), eps))
	if mul(lo, lo).Cmp(v) > 0 || mul(hi, hi).Cmp(v) < 0 {
		panic("sqrtBounds: the 256-bit square root is off by more than 2⁻²⁰⁰")
	}
	return lo, hi
}

// interval is a closed interval [lo, hi] of rationals.
type interval struct{ lo, hi *big.Rat }

// near reports whether the float64 x lies within tol of the interval.
func (i interval) near(x float64, tol *big.Rat) bool {
	r := exact(x)
	return r.Cmp(sub(i.lo, tol)) >= 0 && r.Cmp(add(i.hi, tol)) <= 0
}
