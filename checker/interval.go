package main

import (
	"math"
	"math/big"
)

// Interval arithmetic in float64 with outward rounding, for the numbers of
// a network that are not rational: the sigmoid, tanh, Φ and φ. Each sum,
// difference and product is rounded to nearest by the hardware and then
// moved one ulp outward, so the exact result of the same operation on any
// points of the operands lies inside. The elementary functions come from
// Go's math package (Exp, Erfc: correctly rounded to within one ulp, as
// their sources state and TestElementaryFunctions measures against
// 200-bit series) and are moved outward by the bounds given at each.

// fi is a closed interval [lo, hi] of reals.
type fi struct{ lo, hi float64 }

// up is the next float64 above x (math.Nextafter(x, +Inf), written out:
// it is the checker's most frequent operation), down the next below.
func up(x float64) float64 {
	switch {
	case x > 0 && x != math.Inf(1):
		return math.Float64frombits(math.Float64bits(x) + 1)
	case x < 0:
		return math.Float64frombits(math.Float64bits(x) - 1)
	case x == 0:
		return math.SmallestNonzeroFloat64
	}
	return x // NaN, +Inf
}

func down(x float64) float64 { return -up(-x) }

func pt(x float64) fi { return fi{x, x} }

// ratFI encloses a rational by the float64s next to it.
func ratFI(r *big.Rat) fi {
	f, exact := r.Float64()
	if exact {
		return pt(f)
	}
	return fi{down(f), up(f)}
}

func (a fi) add(b fi) fi        { return fi{down(a.lo + b.lo), up(a.hi + b.hi)} }
func (a fi) sub(b fi) fi        { return fi{down(a.lo - b.hi), up(a.hi - b.lo)} }
func (a fi) neg() fi            { return fi{-a.hi, -a.lo} }
func (a fi) scale(c float64) fi { return a.mul(pt(c)) }

func (a fi) mul(b fi) fi {
	if a.lo == a.hi && b.lo == b.hi && (a.lo == 0 || b.lo == 0) {
		return pt(0)
	}
	p := [4]float64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
	lo, hi := p[0], p[0]
	for _, v := range p[1:] {
		if v < lo || v != v {
			lo = v
		}
		if v > hi || v != v {
			hi = v
		}
	}
	return fi{down(lo), up(hi)}
}

// div divides by an interval that excludes 0.
func (a fi) div(b fi) fi {
	if b.lo <= 0 && b.hi >= 0 {
		panic("fi.div by an interval containing 0")
	}
	inv := fi{down(1 / b.hi), up(1 / b.lo)}
	return a.mul(inv)
}

// mag is sup |x| over the interval.
func (a fi) mag() float64 { return math.Max(math.Abs(a.lo), math.Abs(a.hi)) }

func (a fi) join(b fi) fi { return fi{math.Min(a.lo, b.lo), math.Max(a.hi, b.hi)} }

// widen moves both ends outward by k ulps of their magnitude and by abs
// (an overflowed lower end +Inf to the largest float64, whose true value is
// above it).
func (a fi) widen(rel, abs float64) fi {
	lo := math.Min(a.lo, math.MaxFloat64)
	if !math.IsInf(lo, -1) {
		lo = down(lo - math.Abs(lo)*rel - abs)
	}
	if math.IsInf(a.hi, 1) {
		return fi{lo, a.hi}
	}
	return fi{lo, up(a.hi + math.Abs(a.hi)*rel + abs)}
}

// ulp2 is two units in the last place, relative.
const ulp2 = 0x1p-51

// expFI encloses e^x: math.Exp within one ulp, moved out by two.
func expFI(x fi) fi {
	return fi{math.Exp(x.lo), math.Exp(x.hi)}.widen(ulp2, 0x1p-1074)
}

// sigmoidFI encloses 1/(1 + e^{−z}), increasing in z.
func sigmoidFI(z fi) fi {
	one := pt(1)
	e := expFI(z.neg())
	lo := one.div(one.add(fi{e.hi, e.hi}))
	hi := one.div(one.add(fi{e.lo, e.lo}))
	return fi{math.Max(0, lo.lo), math.Min(1, hi.hi)}
}

// tanhFI encloses tanh z = 1 − 2/(1 + e^{2z}), increasing in z.
func tanhFI(z fi) fi {
	one := pt(1)
	e := expFI(z.scale(2))
	lo := one.sub(pt(2).div(one.add(fi{e.lo, e.lo})))
	hi := one.sub(pt(2).div(one.add(fi{e.hi, e.hi})))
	return fi{math.Max(-1, lo.lo), math.Min(1, hi.hi)}
}

// Standard normal: φ(r) = e^{−r²/2}/√(2π), Φ(r) = erfc(−r/√2)/2.
const invSqrt2Pi = 0.3989422804014327 // 1/√(2π) to within one ulp

// phiFI encloses φ at every point of r.
func phiFI(r fi) fi {
	r2 := r.mul(r)
	if r.lo <= 0 && r.hi >= 0 {
		r2.lo = 0
	}
	e := expFI(r2.scale(-0.5))
	return e.mul(pt(invSqrt2Pi).widen(ulp2, 0))
}

// cdfFI encloses Φ at every point of r: erfc within one ulp, and its
// argument −r/√2 rounded, which moves Φ by at most φ(r)·|r|·2⁻⁵¹.
func cdfFI(r fi) fi {
	f := func(x float64) float64 { return 0.5 * math.Erfc(-x*math.Sqrt2/2) }
	lo, hi := f(r.lo), f(r.hi)
	slack := func(x float64) float64 {
		return 0x1p-50 * math.Exp(-x*x/2) * (math.Abs(x) + 1)
	}
	return fi{math.Max(0, down(lo-lo*ulp2-slack(r.lo)-0x1p-1074)), math.Min(1, up(hi+hi*ulp2+slack(r.hi)+0x1p-1074))}
}
