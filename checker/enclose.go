package main

import (
	"fmt"
	"math"
	"math/big"
	"slices"
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
	real, rnd := pt(0), 0.0
	var kEnds []fi
	// A piece that starts where the last one ended, on its region, starts
	// with the outputs the last one ended with.
	var last struct {
		g *region
		e *big.Rat
		k []ad
	}
	n.pieces(path, x, cells, func(g *region, s, e *big.Rat, inRound bool) {
		var ka []ad
		if g == last.g && s.Cmp(last.e) == 0 {
			ka = last.k
		}
		pr, dr, ks, ke, kb := n.piece(path, x, g, s, e, inRound, ka)
		last.g, last.e, last.k = g, e, kb
		real, rnd = real.add(pr), up(rnd+dr)
		if s.Cmp(exact(-16)) == 0 {
			kEnds = append(kEnds, ks)
		}
		if e.Cmp(exact(16)) == 0 {
			kEnds = append(kEnds, ke)
		}
	})
	kmax := math.Max(kEnds[0].mag(), kEnds[1].mag())
	tail := up(2 * up(up(up(kmax*7e-58)+up(n.lipR()*1.1e-56))+7e-58)) // and the clamp's, ≤ P(|R| > 16)
	rnd = up(rnd + up(2*cdfFI(pt(-8)).hi*(1+2*probSlack)))
	return fi{down(down(real.lo-tail) - rnd), up(up(real.hi+tail) + rnd)}
}

// pieces calls do for every piece (s, e) of the cells cut at the kinks of
// the prefix at x, with its region and whether it lies in [−8, 8].
func (n *network) pieces(path string, x int, cells []float64, do func(g *region, s, e *big.Rat, inRound bool)) {
	n.checkCells(path, cells)
	regions := n.walk(x, exact(-16), exact(16))
	ri := 0
	for ci := 0; ci+1 < len(cells); ci++ {
		cs, ce := exact(cells[ci]), exact(cells[ci+1])
		for s := cs; s.Cmp(ce) < 0; {
			for regions[ri].e.Cmp(s) <= 0 {
				ri++
			}
			e := minRat(ce, regions[ri].e)
			do(&regions[ri], s, e, cells[ci] >= -8 && cells[ci+1] <= 8)
			s = e
		}
	}
}

// checkCells requires increasing cells from −16 to 16 through −8 and 8.
func (n *network) checkCells(path string, cells []float64) {
	has := map[float64]bool{}
	for i, c := range cells {
		rejectIf(i > 0 && !(c > cells[i-1]), "%s.cells: not increasing at %d", path, i)
		has[c] = true
	}
	rejectIf(len(cells) < 2 || cells[0] != -16 || cells[len(cells)-1] != 16 || !has[-8] || !has[8], "%s.cells: want increasing ends from -16 to 16 through -8 and 8", path)
}

// piece returns the piece (s, e)'s enclosure of ∫ kφ, its part of the mean
// rounding bound (when inRound), k at its ends and the outputs at e; ka
// are the outputs at s on g when known (nil: evaluated here).
func (n *network) piece(path string, x int, g *region, s, e *big.Rat, inRound bool, ka []ad) (real fi, rnd float64, ks, ke fi, kb []ad) {
	sf, ef, h, mid, m0, m1 := n.moments(s, e)
	if ka == nil {
		ka, _ = n.outputs(g, sf)
	}
	kb, _ = n.outputs(g, ef)
	over, sups := n.outputs(g, sf.join(ef))
	ks, ke = ka[0].v, kb[0].v
	kr := over[0].v
	if n.np == len(n.layers) {
		a, b := g.alpha[n.np][0], g.beta[n.np][0]
		real = ratFI(a).mul(m0).add(ratFI(b).mul(m1))
		ks, ke = ratFI(g.at(n.np, 0, s)), ratFI(g.at(n.np, 0, e))
		kr = ks.join(ke)
	} else {
		curv := up(up(up(h.hi*h.hi)/8) * up(over[0].d2.mag()*m0.hi))
		real = chord(ks, ke, h, mid, m0, m1).widen(0, curv)
	}
	for _, k := range []fi{ks, ke} {
		rejectIf(k.lo < -probSlack || k.hi > 1+probSlack, "%s: k(%d, r) = %v at a cell's end: on a binary or finite model k must lie in [0, 1]", path, x, k.hi)
	}
	// The release is Bernoulli(c(k_rt)), c the clamp to [0, 1]: c(k) is
	// within dist(k, [0, 1]) of k, and |c(k_rt) − c(k)| ≤ |k_rt − k|.
	if out := math.Max(0, math.Max(kr.hi-1, -kr.lo)); out > 0 {
		rnd = up(out * m0.hi)
	}
	if inRound {
		d := math.Max(n.roundingAt(path, x, g, s, sups), n.roundingAt(path, x, g, e, sups))
		rnd = up(rnd + up(d*m0.hi))
	}
	return real, rnd, ks, ke, kb
}

// moments returns the piece (s, e) as intervals (its ends, length and
// midpoint) and m0 = ∫φ, m1 = ∫rφ over it.
func (n *network) moments(s, e *big.Rat) (sf, ef, h, mid, m0, m1 fi) {
	sf, ef = ratFI(s), ratFI(e)
	m0 = cdfFI(ef).sub(cdfFI(sf))
	m0.lo = math.Max(m0.lo, 0)
	return sf, ef, ratFI(sub(e, s)), ratFI(quo(add(s, e), ratInt(2))), m0, phiFI(sf).sub(phiFI(ef))
}

// outputs encloses the network's outputs (a categorical network's logits)
// at every r of rf on region g, with their derivatives in r, and returns
// the sup |activation| of every suffix unit.
func (n *network) outputs(g *region, rf fi) ([]ad, [][]float64) {
	in := make([]ad, len(g.alpha[n.np]))
	for j := range in {
		in[j] = ad{v: g.atFI(n.np, j, rf), d1: g.bf[n.np][j]}
	}
	return n.suffix(in)
}

// chord encloses ∫_s^e Pφ, P the line through ka at s and kb at e: its
// mean·m0 + slope·∫(r − mid)φ, and |∫(r − mid)φ| ≤ (e − s)/2·m0 when
// e − s is below float64's resolution.
func chord(ka, kb, h, mid, m0, m1 fi) fi {
	real := ka.add(kb).scale(0.5).mul(m0)
	if h.lo > 0 {
		return real.add(kb.sub(ka).div(h).mul(m1.sub(mid.mul(m0))))
	}
	return real.widen(0, up(kb.sub(ka).mag()*m0.hi/2))
}

// encloseLaw encloses a categorical network's law at x on the cells
// (docs/check.md, "Categorical networks"): per label f an enclosure of
// ∫ Q_f φ, Q the interpolant of the exact softmax on every piece, Q within
// rem of the softmax in ℓ1 (integrated), and rnd, a bound on the ℓ1 mean
// rounding of the runtime's softmax.
func (n *network) encloseLaw(path string, x int, cells []float64) (p []fi, rem, rnd float64) {
	p = make([]fi, len(n.layers[len(n.layers)-1].w))
	n.pieces(path, x, cells, func(g *region, s, e *big.Rat, inRound bool) {
		pr, dr := n.lawPiece(path, x, g, s, e, inRound, p)
		rem, rnd = up(rem+pr), up(rnd+dr)
	})
	for f := range p { // beyond ±16, s_f ∈ [0, 1]: P(|R| > 16) < 1.3e-57
		if p[f].hi = up(p[f].hi + 1.3e-57); !(math.Abs(p[f].lo)+p[f].hi+rem+rnd < math.Inf(1)) {
			reject("%s: the law's enclosure overflows float64", path)
		}
	}
	return p, rem, up(rnd + 4*cdfFI(pt(-8)).hi)
}

// lawPiece adds the piece (s, e)'s enclosures of ∫ Q_f φ to p and returns
// the interpolation's ℓ1 remainder and the piece's part of the mean
// rounding bound (when inRound).
func (n *network) lawPiece(path string, x int, g *region, s, e *big.Rat, inRound bool, p []fi) (rem, rnd float64) {
	sf, ef, h, mid, m0, m1 := n.moments(s, e)
	zo, sups := n.outputs(g, sf.join(ef))
	sa, sb, so := n.softmaxAt(g, sf), n.softmaxAt(g, ef), softmaxFI(zo)
	r1, r2 := spread(zo, func(z ad) fi { return z.d1 }), spread(zo, func(z ad) fi { return z.d2 })
	q := make([]fi, len(p))
	if n.np == len(n.layers) {
		// Affine logits: the quadratic through s, mid, e, within
		// (Δβh)³/(36√3) < (Δβh)³/62 in ℓ1; ∫Qφ from m0, m1 and
		// ∫r²φ = m0 + sφ(s) − eφ(e).
		sm := n.softmaxAt(g, mid)
		dh := up(r1 * h.hi)
		rem = up(up(up(dh*dh)*dh) / 62 * m0.hi)
		m2 := m0.add(sf.mul(phiFI(sf))).sub(ef.mul(phiFI(ef)))
		n1 := m1.sub(mid.mul(m0))
		n2 := m2.sub(mid.mul(m1).scale(2)).add(sq(mid).mul(m0))
		for f := range q {
			q[f] = sm[f].mul(m0)
			if h.lo > 0 {
				a := sb[f].sub(sa[f]).div(h)
				b := sa[f].add(sb[f]).sub(sm[f].scale(2)).scale(2).div(sq(h))
				q[f] = q[f].add(a.mul(n1)).add(b.mul(n2))
			} else {
				q[f] = fi{math.Inf(-1), math.Inf(1)}
			}
		}
	} else {
		// The chord, within h²/8·(R₁²/2 + R₂/2) in ℓ1, R_k the range of
		// the logits' k-th derivative over the labels.
		rem = up(up(up(h.hi*h.hi)/8) * up(up(up(r1*r1)/2+r2/2)*m0.hi))
		for f := range q {
			q[f] = chord(sa[f], sb[f], h, mid, m0, m1)
		}
	}
	// Or the softmax's range over the piece times m0, where that is
	// narrower in ℓ1.
	wq, wc := 2*rem, 0.0
	for f := range q {
		wq, wc = up(wq+up(q[f].hi-q[f].lo)), up(wc+up(so[f].mul(m0).hi-so[f].mul(m0).lo))
	}
	if !(wq < wc) {
		rem = 0
		for f := range q {
			q[f] = so[f].mul(m0)
		}
	}
	top := 0.0
	for f := range p {
		p[f] = p[f].add(q[f])
		top = math.Max(top, so[f].lo)
	}
	if inRound {
		d := math.Max(n.roundingAt(path, x, g, s, sups), n.roundingAt(path, x, g, e, sups))
		rnd = up(n.softmaxRounding(d, up(1-top)) * m0.hi)
	}
	return rem, rnd
}

// softmaxAt encloses the softmax of the logits at every r of rf.
func (n *network) softmaxAt(g *region, rf fi) []fi {
	z, _ := n.outputs(g, rf)
	return softmaxFI(z)
}

// softmaxFI encloses softmax(z) at every z of the intervals:
// s_f = 1/(1 + Σ_{g≠f} e^{z_g − z_f}).
func softmaxFI(z []ad) []fi {
	s := make([]fi, len(z))
	for f := range z {
		den := pt(1)
		for g := range z {
			if g != f {
				den = den.add(expFI(z[g].v.sub(z[f].v)))
			}
		}
		s[f] = clampFI(pt(1).div(den), 0, 1)
	}
	return s
}

// spread bounds the range over the labels of d(z_f): max_f sup − min_f inf.
func spread(z []ad, d func(ad) fi) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range z {
		lo, hi = math.Min(lo, d(v).lo), math.Max(hi, d(v).hi)
	}
	return up(hi - lo)
}

// softmaxRounding bounds ‖s_rt − s‖₁ for logits within d of the exact ones,
// whose softmax has 1 − max_f s_f ≤ t: the logits' part min(2d, 4d·e^{2d}·t)
// (2d for d ≥ 1) and the runtime's own rounding of exp(z_f − max z)/Σ over
// m labels, 1.001·(9u + γ_{m−1} + 2u·min(ln m, m/e) + 2m·tiny).
func (n *network) softmaxRounding(d, t float64) float64 {
	u, tiny, _, _ := n.roundoff()
	m := float64(len(n.layers[len(n.layers)-1].w))
	shift := up(2 * d)
	if d < 1 {
		shift = math.Min(shift, up(up(4*d*expFI(pt(2*d)).hi)*t))
	}
	own := up(up(up(9*u+gammaUp(int(m)-1, u))+up(2*u*math.Min(math.Log(m), m/math.E))+2*m*tiny) * 1.001)
	return up(shift + own)
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
// and returns the outputs and the sup |activation| of every suffix unit.
// The derivative bounds of the activations are capped by their global
// maxima: |σ′| ≤ 1/4, |σ″| ≤ 1/(6√3) < 0.0963, |tanh′| ≤ 1,
// |tanh″| ≤ 4/(3√3) < 0.7699.
func (n *network) suffix(in []ad) ([]ad, [][]float64) {
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
	return in, sups
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

// roundingTerms sets n.terms and n.gammas (roundingAt): per unit, k = 1 +
// its folded additions + its nonzero weights (a zero weight's product is
// an exact 0, and adding it is exact: only the nonzero weights' terms
// round), and γ_k(u).
func (n *network) roundingTerms(u float64) {
	n.terms, n.gammas = make([][]int, len(n.layers)), make([][]float64, len(n.layers))
	for l, ly := range n.layers {
		n.terms[l], n.gammas[l] = make([]int, len(ly.w)), make([]float64, len(ly.w))
		for j, row := range ly.w {
			if ly.bn != nil { // the runtime's map before the normalization
				row = ly.bn[j].w
			}
			k := 1 + ly.ops
			for _, w := range row {
				if w != 0 {
					k++
				}
			}
			n.terms[l][j], n.gammas[l][j] = k, gammaUp(k, u)
		}
	}
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
	if n.terms == nil {
		n.roundingTerms(u)
	}
	pf := ratFI(p) // once: converting the rational p rounds by division
	mags, errs := n.scratch(0, len(n.inputs))
	for i := range mags {
		mags[i] = ratFI(g.at(0, i, p)).mag()
		if n.f32 {
			errs[i] = up(u * mags[i])
		}
	}
	for l, ly := range n.layers {
		nm, ne := n.scratch(l+1, len(ly.w))
		for j, row := range ly.w {
			bmag := ly.bmag[j]
			if ly.bn != nil { // the runtime's map before the normalization
				row, bmag = ly.bn[j].w, ly.bn[j].bmag
			}
			k, gam := n.terms[l][j], n.gammas[l][j]
			mag, prop := bmag, 0.0
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
			if ly.bn != nil {
				dz = n.normalized(path, x, p, ly.bn[j], dz, mag, gam, k, mags, errs)
			}
			if ly.berr != nil {
				dz = up(dz + ly.berr[j])
			}
			v := 0.0
			if l < n.np {
				v = g.atFI(l+1, j, pf).mag()
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
	return slices.Max(errs) // a categorical network's logits: the largest
}

// scratch returns roundingAt's zeroed magnitudes and errors of level l,
// of n units, reused between calls (the checker runs on one goroutine).
func (n *network) scratch(l, units int) (mags, errs []float64) {
	for len(n.buf) <= l {
		n.buf = append(n.buf, [2][]float64{})
	}
	b := &n.buf[l]
	if cap(b[0]) < units {
		b[0], b[1] = make([]float64, units), make([]float64, units)
	}
	mags, errs = b[0][:units], b[1][:units]
	clear(mags)
	clear(errs)
	return mags, errs
}

// normalized bounds |y_rt − y| for a unit with a folded batch
// normalization y = s·(z − μ) + β (docs/check.md, "Batch normalization"),
// given the bound D on |z_rt − z| of its map before the fold (its bias
// sum's rounding added), mag ≥ |z_rt| − D, that map's γ_k, and the inputs'
// magnitudes and errors: with M = |s|(mag + D + |μ|) + |β|,
//
//	|s|·D + 8u·M + γ_k(|s||μ| + |β|) + (8(1 + |γ|) + 2k + 1 + Σ(|a_i| + e_i))·under
//	  + Σ own_i·|a_i| + own_b,
//
// the runtime's normalization, then the checker's fold's distance to the
// exact one. A magnitude beyond the precision's range is a false claim.
func (n *network) normalized(path string, x int, p *big.Rat, bn bnUnit, d, mag, gam float64, k int, mags, errs []float64) float64 {
	u, _, under, maxv := n.roundoff()
	d = up(d + bn.berr)
	m := up(up(bn.s*up(up(mag+d)+bn.mu)) + bn.beta)
	if !(up(m*up(1+up(8*u+gam))) <= maxv) {
		fail("%s: at (x, r) = (%d, %.6g) a batch normalization may reach %.3g, beyond the precision's range: the runtime overflows", path, x, fl(p), m)
	}
	sub := up(up(8*(1+bn.gam)) + float64(2*k+1))
	own := bn.ob
	for i, a := range mags {
		sub = up(sub + up(a+errs[i]))
		own = up(own + up(bn.own[i]*a))
	}
	rt := up(up(bn.s*d) + up(up(8*u)*m))
	rt = up(rt + up(gam*up(up(bn.s*bn.mu)+bn.beta)))
	return up(up(rt+up(sub*under)) + own)
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

// networkIntervals checks a network point's witness and returns each
// observer's interval of its loss, the stated error and its rounding part,
// recomputed from the rows: with one output (w.privatizer.rows: per x the
// mean, its bounds and the cells), the channel P(F = 1 | x) = mean_x, the
// error riskShift(2(bound_x + rounding_x)), the rounding
// riskShift(2·rounding_x); a categorical network's (w.privatizer.laws: per
// x the row p, its bounds and the cells) is p_x divided by its exact sum,
// the error riskShift(2·bound_x + rounding_x), the rounding
// riskShift(rounding_x).
func (c *checker) networkIntervals(path string, n *network, w *object) ([]interval, *big.Rat, *big.Rat) {
	m := c.m
	if v := n.oneHot(); v != 0 && v != m.n {
		reject("%s: the network takes x one-hot over %d values, the model's X has %d", path, v, m.n)
	}
	key := map[bool]string{false: "rows", true: "laws"}[n.categorical()]
	wp := path + ".witness.privatizer." + key
	rows := w.obj("privatizer").list(key)
	rejectIf(len(rows) != m.n, "%s: want one per value of X (%d)", wp, m.n)
	p := make([][]*big.Rat, m.n)
	all, rnd := make([]*big.Rat, m.n), make([]*big.Rat, m.n)
	for x, rv := range rows {
		rp := fmt.Sprintf("%s[%d]", wp, x)
		row := asObject(rp, rv)
		bound, rounding := row.rat("bound"), row.rat("rounding")
		cells := numbers(rp+".cells", row.get("cells"))
		rejectIf(bound.Sign() < 0 || rounding.Sign() < 0, "%s: want bound and rounding ≥ 0", rp)
		if n.categorical() {
			p[x] = c.law(rp, n, x, numbers(rp+".p", row.get("p")), bound, rounding, cells)
			all[x], rnd[x] = add(add(bound, bound), rounding), rounding
		} else {
			mean := row.num("mean")
			rejectIf(!(mean >= 0 && mean <= 1), "%s: want mean in [0, 1]", rp)
			// The mean is a float64 sum of closed forms, good to the value
			// precision: the claim is p_rt,x ∈ mean ± (bound + rounding), to it.
			enc := finite(rp, n.enclose(rp, x, cells))
			half := add(bound, rounding)
			if tol := add(half, c.prec.value); exact(enc.lo).Cmp(sub(exact(mean), tol)) < 0 || exact(enc.hi).Cmp(add(exact(mean), tol)) > 0 {
				fail("%s: the runtime's P(F = 1 | X = %d) lies in [%.17g, %.17g], not within %v ± %v", rp, x, enc.lo, enc.hi, mean, fl(tol))
			}
			p[x] = []*big.Rat{sub(ratInt(1), exact(mean)), exact(mean)}
			all[x], rnd[x] = add(half, half), add(rounding, rounding)
		}
		row.done()
		c.claims++
	}
	e := m.riskShift(all)
	return m.around(m.losses(p), e), e, m.riskShift(rnd)
}

// law checks a categorical network's row at x against its enclosure of the
// runtime's law: the row is within bound + rounding of it in ℓ1, and the
// row divided by its sum (which it returns) within 2·bound + rounding
// (what the stated error assumes), each to the value precision.
func (c *checker) law(path string, n *network, x int, row []float64, bound, rounding *big.Rat, cells []float64) []*big.Rat {
	enc, rem, rt := n.encloseLaw(path, x, cells)
	rejectIf(len(row) != len(enc), "%s.p: want %d probabilities", path, len(enc))
	norm, _ := normalizeRows(path+".p", [][]float64{row})
	for i, q := range [][]*big.Rat{ratMatrix([][]float64{row})[0], norm[0]} {
		d := exact(up(rem + rt)) // Σ_f sup |q_f − P_f| + rem + rt ≥ ‖q − P_rt‖₁
		for f, v := range q {
			d = add(d, maxRat(sub(v, exact(enc[f].lo)), sub(exact(enc[f].hi), v)))
		}
		if want := add(mul(ratInt(int64(i+1)), bound), rounding); d.Cmp(add(want, c.prec.value)) > 0 {
			fail("%s: the row (normalized: %v) is %.3g from the runtime's law in ℓ1, not within %d·bound + rounding = %.3g", path, i == 1, fl(d), i+1, fl(want))
		}
	}
	return norm[0]
}

// finite refuses an enclosure that is not finite: weights so large that
// the checker's float64 intervals overflow (∞, or 0·∞ in a derivative)
// bound nothing. (encloseLaw refuses its own.)
func finite(path string, x fi) fi {
	notCoveredIf(!(x.lo >= -math.MaxFloat64 && x.hi <= math.MaxFloat64), "%s: the enclosure of the runtime's P(F = 1 | x) is not finite: weights beyond the range of the checker's float64 interval arithmetic", path)
	return x
}
