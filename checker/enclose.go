package main

import (
	"fmt"
	"math"
	"math/big"
)

// The enclosure of p_rt,x = E_R[c(k_rt(x, R))], c the clamp to [0, 1] that
// a runtime's Bernoulli draw applies (docs/check.md, "Networks").
// The witness gives, per x, cells of r from −16 to 16 (with −8 and 8 among
// their ends); the checker cuts them further at the kinks of the ReLU
// prefix, found exactly, and on each piece (s, e):
//
//   - piecewise-linear networks: k = α + βr exactly, and
//     ∫_s^e kφ = α(Φ(e) − Φ(s)) + β(φ(s) − φ(e));
//   - networks with sigmoid or tanh layers: k = S(u(r)), u affine, and
//     ∫_s^e kφ lies within (e − s)²/8 · sup|k″| · P(s < R < e) of the
//     integral of the chord through k(s) and k(e), sup|k″| by interval
//     arithmetic on (S, S′, S″) over the piece;
//   - the runtime's rounding: δ(r), the bound of docs/certify.md's rounding
//     model on |k_rt − k| (without mmds's own float64 term), is at most a
//     function convex on the piece — sums of |α + βr| and of constants
//     (the sups of the smooth units over the piece) with nonnegative
//     weights — so the piece's part of E[δ] is at most
//     max(δ(s), δ(e))·P(s < R < e), for pieces in [−8, 8].
//
// Beyond ±16, |k(r)| ≤ |k(±16)| + Lip·(|r| − 16) (Lip the r-column of the
// first layer through |W|), so the tails add at most
// 2(max|k(±16)|·Φ(−16) + Lip·φ(16) + Φ(−16)), the last for the clamp;
// beyond ±8 the runtime's and the exact
// k are both probabilities (within 1e-6), so the rounding adds at most
// P(|R| > 8)·(1 + 2e-6) (mmds's model, docs/certify.md).

const probSlack = 1e-6 // how far k may stray outside [0, 1] (mmds's ProbSlack)

// enclose returns an enclosure of E_R[k_rt(x, R)] on the cells.
func (n *network) enclose(path string, x int, cells []float64) fi {
	n.checkCells(path, cells)
	regions := n.walk(x, exact(-16), exact(16))
	real, rnd := pt(0), 0.0
	var kEnds []fi
	ri := 0
	for ci := 0; ci+1 < len(cells); ci++ {
		cs, ce := exact(cells[ci]), exact(cells[ci+1])
		for s := cs; s.Cmp(ce) < 0; {
			for regions[ri].e.Cmp(s) <= 0 {
				ri++
			}
			g := &regions[ri]
			e := minRat(ce, g.e)
			pr, dr, ks, ke := n.piece(path, x, g, s, e, cells[ci] >= -8 && cells[ci+1] <= 8)
			real, rnd = real.add(pr), up(rnd+dr)
			if s.Cmp(exact(-16)) == 0 {
				kEnds = append(kEnds, ks)
			}
			if e.Cmp(exact(16)) == 0 {
				kEnds = append(kEnds, ke)
			}
			s = e
		}
	}
	kmax := math.Max(kEnds[0].mag(), kEnds[1].mag())
	tail := up(2 * up(up(up(kmax*7e-58)+up(n.lipR()*1.1e-56))+7e-58)) // and the clamp's, ≤ P(|R| > 16)
	rnd = up(rnd + up(2*cdfFI(pt(-8)).hi*(1+2*probSlack)))
	return fi{down(down(real.lo-tail) - rnd), up(up(real.hi+tail) + rnd)}
}

// checkCells requires increasing cells from −16 to 16 through −8 and 8.
func (n *network) checkCells(path string, cells []float64) {
	has := map[float64]bool{}
	for i, c := range cells {
		if i > 0 && !(c > cells[i-1]) {
			reject("%s.cells: not increasing at %d", path, i)
		}
		has[c] = true
	}
	if len(cells) < 2 || cells[0] != -16 || cells[len(cells)-1] != 16 || !has[-8] || !has[8] {
		reject("%s.cells: want increasing ends from -16 to 16 through -8 and 8", path)
	}
}

// piece returns the piece (s, e)'s enclosure of ∫ kφ, its part of the mean
// rounding bound (when inRound) and k at its ends.
func (n *network) piece(path string, x int, g *region, s, e *big.Rat, inRound bool) (real fi, rnd float64, ks, ke fi) {
	sf, ef := ratFI(s), ratFI(e)
	var kOver fi // k over the piece (smooth networks)
	m0 := cdfFI(ef).sub(cdfFI(sf))
	m0.lo = math.Max(m0.lo, 0)
	m1 := phiFI(sf).sub(phiFI(ef)) // ∫ rφ over the piece
	var sups [][]float64
	if n.np == len(n.layers) {
		a, b := g.alpha[n.np][0], g.beta[n.np][0]
		real = ratFI(a).mul(m0).add(ratFI(b).mul(m1))
		ks, ke = ratFI(g.at(n.np, 0, s)), ratFI(g.at(n.np, 0, e))
	} else {
		in := func(r fi) []ad {
			u := make([]ad, len(g.alpha[n.np]))
			for j := range u {
				u[j] = ad{v: g.atFI(n.np, j, r)}
			}
			return u
		}
		ka, _ := n.suffix(in(sf))
		kb, _ := n.suffix(in(ef))
		over := make([]ad, len(g.alpha[n.np]))
		for j := range over {
			over[j] = ad{v: g.atFI(n.np, j, sf.join(ef)), d1: g.bf[n.np][j]}
		}
		k, sp := n.suffix(over)
		sups, ks, ke, kOver = sp, ka.v, kb.v, k.v
		// The chord's integral: mean·m0 + slope·∫(r − mid)φ, and
		// |∫(r − mid)φ| ≤ (e − s)/2·m0 when e − s is below float64's
		// resolution.
		h := ratFI(sub(e, s))
		mid := ratFI(quo(add(s, e), ratInt(2)))
		mean := ks.add(ke).scale(0.5)
		real = mean.mul(m0)
		if h.lo > 0 {
			real = real.add(ke.sub(ks).div(h).mul(m1.sub(mid.mul(m0))))
		} else {
			w := up(ke.sub(ks).mag() * m0.hi / 2)
			real = fi{down(real.lo - w), up(real.hi + w)}
		}
		curv := up(up(up(h.hi*h.hi)/8) * up(k.d2.mag()*m0.hi))
		real = fi{down(real.lo - curv), up(real.hi + curv)}
	}
	for _, k := range []fi{ks, ke} {
		if k.lo < -probSlack || k.hi > 1+probSlack {
			reject("%s: k(%d, r) = %v at a cell's end: on a binary or finite model k must lie in [0, 1]", path, x, k.hi)
		}
	}
	// The release is Bernoulli(c(k_rt)), c the clamp to [0, 1]: c(k) is
	// within dist(k, [0, 1]) of k, and |c(k_rt) − c(k)| ≤ |k_rt − k|.
	kr := ks.join(ke)
	if sups != nil {
		kr = kOver
	}
	if out := math.Max(0, math.Max(kr.hi-1, -kr.lo)); out > 0 {
		rnd = up(out * m0.hi)
	}
	if inRound {
		d := math.Max(n.roundingAt(path, x, g, s, sups), n.roundingAt(path, x, g, e, sups))
		rnd = up(rnd + up(d*m0.hi))
	}
	return real, rnd, ks, ke
}

// ad is a value with its first two derivatives in r, each an interval.
type ad struct{ v, d1, d2 fi }

// sq is x² over the interval.
func sq(x fi) fi {
	p := x.mul(x)
	if x.lo <= 0 && x.hi >= 0 {
		p.lo = 0
	}
	return p
}

// clampFI intersects x with [lo, hi], a global bound.
func clampFI(x fi, lo, hi float64) fi { return fi{math.Max(x.lo, lo), math.Min(x.hi, hi)} }

// suffix evaluates the layers after the prefix on in, with derivatives,
// and returns the output and the sup |activation| of every suffix unit.
// The derivative bounds of the activations are capped by their global
// maxima: |σ′| ≤ 1/4, |σ″| ≤ 1/(6√3) < 0.0963, |tanh′| ≤ 1,
// |tanh″| ≤ 4/(3√3) < 0.7699.
func (n *network) suffix(in []ad) (ad, [][]float64) {
	var sups [][]float64
	for _, ly := range n.layers[n.np:] {
		out := make([]ad, len(ly.w))
		sup := make([]float64, len(ly.w))
		for j, row := range ly.w {
			z := ad{v: pt(ly.b[j])}
			for i, w := range row {
				if w != 0 {
					wi := pt(w)
					z.v, z.d1, z.d2 = z.v.add(wi.mul(in[i].v)), z.d1.add(wi.mul(in[i].d1)), z.d2.add(wi.mul(in[i].d2))
				}
			}
			a := z
			var g1, g2 fi
			switch ly.act {
			case "sigmoid":
				a.v = sigmoidFI(z.v)
				g1 = clampFI(a.v.mul(pt(1).sub(a.v)), 0, 0.25)
				g2 = clampFI(g1.mul(pt(1).sub(a.v.scale(2))), -0.0963, 0.0963)
			case "tanh":
				a.v = tanhFI(z.v)
				g1 = clampFI(pt(1).sub(sq(a.v)), 0, 1)
				g2 = clampFI(a.v.mul(g1).scale(-2), -0.7699, 0.7699)
			}
			if ly.act == "sigmoid" || ly.act == "tanh" {
				a.d1, a.d2 = g1.mul(z.d1), g2.mul(sq(z.d1)).add(g1.mul(z.d2))
			}
			out[j], sup[j] = a, a.v.mag()
		}
		in = out
		sups = append(sups, sup)
	}
	return in[0], sups
}

// Unit roundoff, smallest normal and half the smallest subnormal (the
// error of an underflowing operation) of a precision, and its largest
// finite number.
func (n *network) roundoff() (u, tiny, under, maxv float64) {
	if n.f32 {
		return 0x1p-24, 0x1p-126, 0x1p-150, math.MaxFloat32
	}
	return 0x1p-53, 0x1p-1022, 0x1p-1075, math.MaxFloat64
}

// gammaUp is an upper bound of γ_k = k·u/(1 − k·u).
func gammaUp(k int, u float64) float64 {
	ku := up(float64(k) * u)
	return up(ku / down(1-ku))
}

// roundingAt bounds δ(x, r) at r = p on region g (docs/certify.md's
// rounding model): inputs rounded to float32 in a float32 network (error
// u·|v|); per unit, with n nonzero weights, f folded additions and e_i the
// inputs' bounds,
//
//	|z_rt − z| ≤ γ_{n+1+f}(u)·(Σ|b parts| + Σ|w_i|(|a_i| + e_i)) + Σ|w_i|e_i + 2(n+1+f)·under,
//
// ReLU and identity pass it on, the sigmoid as ¼·dz + 8u(|σ| + ¼·dz) + u +
// tiny and tanh as dz + 8u(|tanh| + dz) + u + tiny. |a_i| is exact in the
// prefix and the sup over the piece after it (sups). Every operation
// rounds up. A magnitude beyond the precision's range is a false claim:
// the runtime overflows there.
func (n *network) roundingAt(path string, x int, g *region, p *big.Rat, sups [][]float64) float64 {
	u, tiny, under, maxv := n.roundoff()
	mags, errs := make([]float64, len(n.inputs)), make([]float64, len(n.inputs))
	for i := range mags {
		mags[i] = ratFI(g.at(0, i, p)).mag()
		if n.f32 {
			errs[i] = up(u * mags[i])
		}
	}
	for l, ly := range n.layers {
		nm, ne := make([]float64, len(ly.w)), make([]float64, len(ly.w))
		for j, row := range ly.w {
			// A zero weight's product is an exact 0, and adding it is
			// exact: only the nonzero weights' terms round.
			k := 1 + ly.ops
			for _, w := range row {
				if w != 0 {
					k++
				}
			}
			gam := gammaUp(k, u)
			mag, prop := ly.bmag[j], 0.0
			for i, w := range row {
				aw := math.Abs(w)
				mag = up(mag + up(aw*up(mags[i]+errs[i])))
				prop = up(prop + up(aw*errs[i]))
			}
			alpha := ly.alpha
			if alpha == 0 {
				alpha = 1
			}
			if ly.virtual {
				gam, k = 0, 0
			} else if !(up(up(mag*(1+gam))/math.Min(alpha, 1)) <= maxv) {
				fail("%s: at (x, r) = (%d, %.6g) layer %d unit %d may reach %.3g, beyond the precision's range: the runtime overflows", path, x, fl(p), l, j, mag)
			}
			dz := up(up(up(gam*mag)+prop) + up(up(float64(2*k)*under)*math.Max(alpha, 1)))
			v := 0.0
			if l < n.np {
				v = g.atFI(l+1, j, ratFI(p)).mag()
			} else {
				v = sups[l-n.np][j]
			}
			switch ly.act {
			case "sigmoid":
				dz = up(up(up(dz/4)+up(8*u*up(v+dz/4))) + u + tiny)
			case "tanh":
				dz = up(up(dz+up(8*u*up(v+dz))) + u + tiny)
			}
			nm[j], ne[j] = v, dz
		}
		mags, errs = nm, ne
	}
	return errs[0]
}

// lipR bounds |∂k/∂r|: the r column of the inputs through |W|, times the
// activations' slopes (1/4 for the sigmoid, 1 otherwise).
func (n *network) lipR() float64 {
	d := make([]float64, len(n.inputs))
	for i, s := range n.inputs {
		if s == "r" {
			d[i] = 1
		}
	}
	for _, ly := range n.layers {
		nd := make([]float64, len(ly.w))
		for j, row := range ly.w {
			for i, w := range row {
				nd[j] = up(nd[j] + up(math.Abs(w)*d[i]))
			}
			if ly.act == "sigmoid" {
				nd[j] = up(nd[j] / 4)
			}
		}
		d = nd
	}
	return d[0]
}

// networkIntervals checks a network point's witness (w.privatizer: per x
// the mean, its bounds and the cells) and returns each observer's
// interval of its loss, the stated error and its rounding part, recomputed
// from the rows: the channel P(F = 1 | x) = mean_x, the error
// riskShift(2(bound_x + rounding_x)), the rounding riskShift(2·rounding_x).
func (c *checker) networkIntervals(path string, n *network, w *object) ([]interval, *big.Rat, *big.Rat) {
	m := c.m
	if v := n.oneHot(); v != 0 && v != m.n {
		reject("%s: the network takes x one-hot over %d values, the model's X has %d", path, v, m.n)
	}
	wp := path + ".witness.privatizer"
	rows := w.obj("privatizer").list("rows")
	if len(rows) != m.n {
		reject("%s.rows: want one per value of X (%d)", wp, m.n)
	}
	p := make([][]*big.Rat, m.n)
	all, rnd := make([]*big.Rat, m.n), make([]*big.Rat, m.n)
	for x, rv := range rows {
		rp := fmt.Sprintf("%s.rows[%d]", wp, x)
		row := asObject(rp, rv)
		mean, bound, rounding := row.num("mean"), row.num("bound"), row.num("rounding")
		cells := numbers(rp+".cells", row.get("cells"))
		row.done()
		if !(mean >= 0 && mean <= 1 && bound >= 0 && rounding >= 0) {
			reject("%s: want mean in [0, 1], bound and rounding ≥ 0", rp)
		}
		// The mean is a float64 sum of closed forms, good to the value
		// precision: the claim is p_rt,x ∈ mean ± (bound + rounding), to it.
		enc := n.enclose(rp, x, cells)
		half := add(exact(bound), exact(rounding))
		if tol := add(half, c.prec.value); exact(enc.lo).Cmp(sub(exact(mean), tol)) < 0 || exact(enc.hi).Cmp(add(exact(mean), tol)) > 0 {
			fail("%s: the runtime's P(F = 1 | X = %d) lies in [%.17g, %.17g], not within %v ± %v", rp, x, enc.lo, enc.hi, mean, fl(tol))
		}
		c.claims++
		p[x] = []*big.Rat{sub(ratInt(1), exact(mean)), exact(mean)}
		all[x], rnd[x] = mul(ratInt(2), half), mul(ratInt(2), exact(rounding))
	}
	e := m.riskShift(all)
	return m.around(m.losses(p), e), e, m.riskShift(rnd)
}
