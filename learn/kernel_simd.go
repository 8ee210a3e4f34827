//go:build goexperiment.simd && amd64

package learn

import (
	"math"
	"simd/archsimd"
)

// The vector kernels: AVX2 + FMA, four float64 lanes, eight rows (two
// vectors) per block, in the canonical order of kernel.go; rows past the last
// full block go to the scalar kernels.
//
// Go's scalar floating-point code is SSE-encoded. Running it while the upper
// halves of the vector registers are dirty is very slow on some CPUs (on the
// build host, scalar code after a vector kernel without VZEROUPPER ran up to
// 80× slower), so the vector loops contain no scalar floating-point
// instruction: parameters are broadcast straight from memory (bcastAt),
// partial sums leave through vector stores, and every vector kernel starts and
// ends with VZEROUPPER (archsimd.ClearAVXUpperBits). Starting with it also
// cleans up after an asynchronous preemption, which restores the full vector
// registers.

// hasVector is fixed at program start by the CPU's features.
var hasVector = archsimd.X86.AVX2() && archsimd.X86.FMA()

// simdKernels reports whether the vector kernels are in use.
func simdKernels() bool { return hasVector }

type vec = archsimd.Float64x4

func load(s []float64) vec { return archsimd.LoadFloat64x4Slice(s) }

// bcastAt returns s[k] in every lane, loading s[k:k+2] with a vector load (so
// k+1 must be an index of s): no scalar instruction is involved.
func bcastAt(s []float64, k int) vec {
	return archsimd.LoadFloat64x2Slice(s[k : k+2]).Broadcast1To4()
}

// dzVec is dzOut on eight rows; one holds 1 in every lane.
func dzVec(sig bool, one vec, dy, y []float64) (vec, vec) {
	d0, d1 := load(dy[:4]), load(dy[4:8])
	if sig {
		y0, y1 := load(y[:4]), load(y[4:8])
		d0 = d0.Mul(y0).Mul(one.Sub(y0))
		d1 = d1.Mul(y1).Mul(one.Sub(y1))
	}
	return d0, d1
}

func forwardKernel(p []float64, I, H int, in []float64, n int, h, out []float64) {
	w1, b1, w2, b2 := layers(p, I, H)
	lo := 0
	if hasVector && n >= 8 {
		lo = forwardVec(p, I, H, in, n, h, out)
		for r := range out[:lo] {
			out[r] += b2 // acc + b2, as forwardRows
		}
	}
	forwardRows(in, n, lo, I, H, w1, b1, w2, b2, h, out)
}

// forwardVec runs forwardRows on the full eight-row blocks, leaving acc (the
// output pre-activation less b2) in out, and returns the number of rows done.
func forwardVec(p []float64, I, H int, in []float64, n int, h, out []float64) int {
	archsimd.ClearAVXUpperBits()
	n8 := n - n%8
	ob1, ow2 := I*H, I*H+H
	var zero vec
	for r := 0; r < n8; r += 8 {
		acc0, acc1 := zero, zero
		for j := 0; j < H; j++ {
			p0 := bcastAt(p, ob1+j)
			p1 := p0
			for i := 0; i < I; i++ {
				w := bcastAt(p, i*H+j)
				x := in[i*n+r : i*n+r+8]
				p0 = load(x[:4]).MulAdd(w, p0)
				p1 = load(x[4:]).MulAdd(w, p1)
			}
			p0 = p0.Masked(p0.Greater(zero))
			p1 = p1.Masked(p1.Greater(zero))
			hj := h[j*n+r : j*n+r+8]
			p0.StoreSlice(hj[:4])
			p1.StoreSlice(hj[4:])
			w := bcastAt(p, ow2+j)
			acc0 = p0.MulAdd(w, acc0)
			acc1 = p1.MulAdd(w, acc1)
		}
		o := out[r : r+8]
		acc0.StoreSlice(o[:4])
		acc1.StoreSlice(o[4:])
	}
	archsimd.ClearAVXUpperBits()
	return n8
}

func inputGradKernel(sig bool, p []float64, I, H, col int, h, out, dOut []float64, n int, v, d []float64) {
	lo := 0
	if hasVector && n >= 8 {
		lo = inputGradVec(sig, p, I, H, col, h, out, dOut, n, d)
	}
	inputGradRows(sig, h, out, dOut, n, lo, H, v, d)
}

// inputGradVec runs inputGradRows on the full eight-row blocks, forming
// v_j = w2_j·W1_col,j itself (the same product), and returns the rows done.
func inputGradVec(sig bool, p []float64, I, H, col int, h, out, dOut []float64, n int, d []float64) int {
	archsimd.ClearAVXUpperBits()
	one := archsimd.BroadcastFloat64x4(1)
	n8 := n - n%8
	ow2, oc := I*H+H, col*H
	var zero vec
	for r := 0; r < n8; r += 8 {
		s0, s1 := zero, zero
		for j := 0; j < H; j++ {
			v := bcastAt(p, ow2+j).Mul(bcastAt(p, oc+j))
			hj := h[j*n+r : j*n+r+8]
			s0 = s0.Add(v.Masked(load(hj[:4]).Greater(zero)))
			s1 = s1.Add(v.Masked(load(hj[4:]).Greater(zero)))
		}
		d0, d1 := dzVec(sig, one, dOut[r:r+8], out[r:r+8])
		o := d[r : r+8]
		d0.Mul(s0).StoreSlice(o[:4])
		d1.Mul(s1).StoreSlice(o[4:])
	}
	archsimd.ClearAVXUpperBits()
	return n8
}

// gradChunk is the number of hidden units whose partial sums paramGradVec
// leaves in its scratch per call.
const gradChunk = 32

func paramGradKernel(sig bool, p []float64, I, H int, in, h, out, dOut []float64, n int, grad []float64) {
	_, _, w2, _ := layers(p, I, H)
	if !hasVector || n < 8 {
		paramGradRows(sig, in, h, out, dOut, n, I, H, w2, grad)
		return
	}
	n8 := n - n%8
	gw1 := grad[:I*H]
	gb1, gw2 := grad[I*H:I*H+H], grad[I*H+H:I*H+2*H]
	// part holds, per hidden unit, four 4-lane vectors (acc for rows ≡ k and
	// k+4 mod 8 already added): gw2, gb1, gW1 input 0, gW1 input 1.
	var part [gradChunk * 16]float64
	c4 := func(v []float64) float64 { return (v[0] + v[2]) + (v[1] + v[3]) }
	for j0 := 0; j0 < H; j0 += gradChunk {
		j1 := min(j0+gradChunk, H)
		paramGradVec(sig, p, I, H, in, h, out, dOut, n, j0, j1, part[:])
		for j := j0; j < j1; j++ {
			q := part[16*(j-j0):]
			hj, w2j := h[j*n:j*n+n], w2[j]
			sw2, sb1, sx, sy := c4(q[0:4]), c4(q[4:8]), c4(q[8:12]), c4(q[12:16])
			for r := n8; r < n; r++ {
				dz := dzOut(sig, dOut[r], out[r])
				g := gate(float64(dz*w2j), hj[r])
				sw2 = math.FMA(dz, hj[r], sw2)
				sb1 += g
				sx = math.FMA(in[r], g, sx)
				if I > 1 {
					sy = math.FMA(in[n+r], g, sy)
				}
			}
			gw2[j], gb1[j], gw1[j] = sw2, sb1, sx
			if I > 1 {
				gw1[H+j] = sy
			}
			for i := 2; i < I; i++ {
				gw1[i*H+j] = inputWeightGrad(sig, in[i*n:i*n+n], hj, out, dOut, n, w2j)
			}
		}
	}
	dzSumVec(sig, dOut, out, n8, part[:4])
	s := c4(part[:4])
	for r := n8; r < n; r++ {
		s += dzOut(sig, dOut[r], out[r])
	}
	grad[I*H+2*H] = s
}

// paramGradVec accumulates, for hidden units j0 ≤ j < j1 over the full
// eight-row blocks, the lane partials of paramGradRows' sums and stores each
// as acc(rows ≡ 0…3) + acc(rows ≡ 4…7) into part[16(j−j0):]: gw2, gb1, then
// gW1 of inputs 0 and 1 (zeros when I = 1).
func paramGradVec(sig bool, p []float64, I, H int, in, h, out, dOut []float64, n, j0, j1 int, part []float64) {
	archsimd.ClearAVXUpperBits()
	one := archsimd.BroadcastFloat64x4(1)
	n8 := n - n%8
	ow2 := I*H + H
	x0 := in[:n]
	x1 := x0
	if I > 1 {
		x1 = in[n : 2*n]
	}
	var zero vec
	for j := j0; j < j1; j++ {
		hj := h[j*n : j*n+n]
		w := bcastAt(p, ow2+j)
		aw0, aw1, ab0, ab1 := zero, zero, zero, zero
		ax0, ax1, ay0, ay1 := zero, zero, zero, zero
		for r := 0; r < n8; r += 8 {
			d0, d1 := dzVec(sig, one, dOut[r:r+8], out[r:r+8])
			h0, h1 := load(hj[r:r+4]), load(hj[r+4:r+8])
			g0 := d0.Mul(w).Masked(h0.Greater(zero))
			g1 := d1.Mul(w).Masked(h1.Greater(zero))
			aw0, aw1 = d0.MulAdd(h0, aw0), d1.MulAdd(h1, aw1)
			ab0, ab1 = ab0.Add(g0), ab1.Add(g1)
			ax0, ax1 = load(x0[r:r+4]).MulAdd(g0, ax0), load(x0[r+4:r+8]).MulAdd(g1, ax1)
			ay0, ay1 = load(x1[r:r+4]).MulAdd(g0, ay0), load(x1[r+4:r+8]).MulAdd(g1, ay1)
		}
		q := part[16*(j-j0) : 16*(j-j0)+16]
		aw0.Add(aw1).StoreSlice(q[0:4])
		ab0.Add(ab1).StoreSlice(q[4:8])
		ax0.Add(ax1).StoreSlice(q[8:12])
		ay0.Add(ay1).StoreSlice(q[12:16])
	}
	archsimd.ClearAVXUpperBits()
}

// dzSumVec stores the lane partials of Σ_r dz_r over the first n8 rows (a
// multiple of 8) into part[:4], added as in paramGradVec.
func dzSumVec(sig bool, dOut, out []float64, n8 int, part []float64) {
	archsimd.ClearAVXUpperBits()
	one := archsimd.BroadcastFloat64x4(1)
	var s0, s1 vec
	for r := 0; r < n8; r += 8 {
		d0, d1 := dzVec(sig, one, dOut[r:r+8], out[r:r+8])
		s0, s1 = s0.Add(d0), s1.Add(d1)
	}
	s0.Add(s1).StoreSlice(part[:4])
	archsimd.ClearAVXUpperBits()
}
