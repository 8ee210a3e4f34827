// Package vexp evaluates exp over slices. On amd64 with AVX2 and FMA it
// runs four values at a time with exactly the operations of the Go
// runtime's math.Exp on such CPUs (math/exp_amd64.s, its FMA path: the
// reduction x − k·ln2 in two fused steps, a degree-8 Taylor polynomial in
// x/16 by Horner's rule with fused multiply-adds, four squarings, and
// 2^k built from its bits), so every result is math.Exp's, bit for bit;
// a block of four with a value outside the range where that path ends in
// a normal 2^k (x < −708, x > 709, NaN) is left to math.Exp. Elsewhere, and with
// -tags purego, it calls math.Exp.
package vexp

import "math"

// Exp sets dst[i] = math.Exp(src[i]) for every i < len(src); dst may be
// src. It panics when dst is shorter than src.
func Exp(dst, src []float64) {
	if len(dst) < len(src) {
		panic("vexp: dst shorter than src")
	}
	n := len(src)
	lo := 0
	if vector && n >= 4 {
		n4 := n &^ 3
		for lo < n4 {
			// the kernel stops before a block with a value out of its
			// range, which math.Exp computes (src is still intact there)
			lo += exp4(&dst[lo], &src[lo], n4-lo)
			if lo < n4 {
				for i := lo; i < lo+4; i++ {
					dst[i] = math.Exp(src[i])
				}
				lo += 4
			}
		}
	}
	for i := lo; i < n; i++ {
		dst[i] = math.Exp(src[i])
	}
}

// Sigmoid sets dst[i] to the logistic function of z = src[i], computed as
// 1/(1 + math.Exp(−z)) for z ≥ 0 and e/(1 + e), e = math.Exp(z),
// otherwise (no exponential overflows), bit for bit, through the vector
// kernel where Exp uses it. dst may be src.
func Sigmoid(dst, src []float64) {
	if len(dst) < len(src) {
		panic("vexp: dst shorter than src")
	}
	n := len(src)
	lo := 0
	if vector && n >= 4 {
		n4 := n &^ 3
		for lo < n4 {
			lo += sigm4(&dst[lo], &src[lo], n4-lo)
			if lo < n4 {
				for i := lo; i < lo+4; i++ {
					dst[i] = sigmoid(src[i])
				}
				lo += 4
			}
		}
	}
	for i := lo; i < n; i++ {
		dst[i] = sigmoid(src[i])
	}
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}
