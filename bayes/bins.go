package bayes

import "math"

// binning is a soft partition of the released values f: hat functions
// ψ_0..ψ_n on the knots t_j = f0 + j·h. ψ_j is 1 at t_j, falls linearly to 0
// at t_{j±1}; ψ_0 stays 1 below f0 and ψ_n stays 1 above t_n, so
// Σ_j ψ_j(f) = 1 for every f.
//
// Observing the soft bin J, drawn with P(J = j | F = f) = ψ_j(f), is a
// garbling of observing F, so the Bayes loss given J is an upper bound on the
// Bayes loss given F; halving h refines the hats (each coarse hat is
// ψ_{2j} + (ψ_{2j−1} + ψ_{2j+1})/2 of the fine ones), so the bound never rises
// as bins refine. Unlike hard bins, a value moving continuously moves its
// weight continuously between neighbouring knots, so P(J = j | X = x) is a
// continuous function of x even where F | X = x has atoms (a ReLU privatizer
// that ignores r over a range of r), which keeps the x quadrature accurate.
type binning struct {
	f0, h float64
	n     int
}

// locate returns the knot interval of f: −1 below t_0, n at or above t_n,
// else i with t_i ≤ f < t_{i+1}, and the offset f − t_i (0 outside).
func (b binning) locate(f float64) (int, float64) {
	if f < b.f0 {
		return -1, 0
	}
	t := (f - b.f0) / b.h
	if t >= float64(b.n) {
		return b.n, 0
	}
	i := int(t)
	return i, f - b.knot(i)
}

func (b binning) knot(i int) float64 { return b.f0 + float64(i)*b.h }

// span returns the first and last knot whose hat is positive at f.
func (b binning) span(f float64) (int, int) {
	i, off := b.locate(f)
	switch {
	case i < 0:
		return 0, 0
	case i >= b.n:
		return b.n, b.n
	case off == 0:
		return i, i
	}
	return i, i + 1
}

// row is P(J = j | X = x) for one x: Mass[t] is the probability of knot Lo+t.
// A continuous profile's values fill an interval, so the knots it reaches are
// contiguous.
type row struct {
	Lo   int
	Mass []float64
}

// fill sets r to P(J = j | X = x) for the profile p of k(x, ·). On each linear
// piece of p in [−rRow, rRow], f = k(x, r) crosses the knots at known r;
// between crossings only two hats are positive and each is affine in r, so
// its integral against φ is α·m0 + β·m1 (segMoments), exactly. The tail
// masses P(R < −rRow) and P(R > rRow) (≈ 3.4e-6 each for rRow = 4.5) go
// with the end values f(∓rRow), so a row spans only the values k(x, ·) takes
// on [−rRow, rRow]: moving that little mass changes a Bayes loss by at most
// its share of the prior variance, far below the refinement tolerance.
func (b binning) fill(p *profile, r *row) {
	lo, hi := math.MaxInt, math.MinInt
	for _, f := range p.f[p.lo : p.hi+1] {
		l, h := b.span(f)
		lo, hi = min(lo, l), max(hi, h)
	}
	r.Lo = lo
	r.Mass = r.Mass[:0]
	for range hi - lo + 1 {
		r.Mass = append(r.Mass, 0)
	}
	first, last := newNode(p.r[p.lo]), newNode(p.r[p.hi])
	b.point(p.f[p.lo], mass(newNode(math.Inf(-1)), first), r)
	b.point(p.f[p.hi], mass(last, newNode(math.Inf(1))), r)
	cur := first
	for k := p.lo; k < p.hi; k++ {
		ra, rb, fa, fb := p.r[k], p.r[k+1], p.f[k], p.f[k+1]
		end := last
		if k+1 < p.hi {
			end = newNode(rb)
		}
		if fa == fb {
			b.point(fa, mass(cur, end), r)
			cur = end
			continue
		}
		beta := (fb - fa) / (rb - ra)
		// Knots strictly between fa and fb, in the direction of travel.
		flo, fhi := min(fa, fb), max(fa, fb)
		j0 := max(int(math.Floor((flo-b.f0)/b.h)), -1)
		for j0 < 0 || (j0 <= b.n && !(b.knot(j0) > flo)) {
			j0++
		}
		j1 := min(int(math.Ceil((fhi-b.f0)/b.h)), b.n+1)
		for j1 > b.n || (j1 >= 0 && !(b.knot(j1) < fhi)) {
			j1--
		}
		fcur := fa
		step := func(next node, fn float64) {
			i, _ := b.locate(0.5 * (fcur + fn))
			b.piece(i, cur, next, fcur, beta, r)
			cur, fcur = next, fn
		}
		if beta > 0 {
			for j := j0; j <= j1; j++ {
				step(newNode(min(max(ra+(b.knot(j)-fa)/beta, cur.R), rb)), b.knot(j))
			}
		} else {
			for j := j1; j >= j0; j-- {
				step(newNode(min(max(ra+(b.knot(j)-fa)/beta, cur.R), rb)), b.knot(j))
			}
		}
		step(end, fb)
	}
}

// point adds mass w at the value f, split linearly between its two knots.
func (b binning) point(f, w float64, r *row) {
	i, off := b.locate(f)
	switch {
	case i < 0:
		r.Mass[0-r.Lo] += w
	case i >= b.n:
		r.Mass[b.n-r.Lo] += w
	default:
		u := off / b.h
		r.Mass[i-r.Lo] += w * (1 - u)
		if u > 0 {
			r.Mass[i+1-r.Lo] += w * u
		}
	}
}

// piece adds the integral over r in (a.r, b.r), where f = fa + beta(r − a.r)
// stays in knot interval i, of the two positive hats against φ.
func (b binning) piece(i int, a, e node, fa, beta float64, r *row) {
	m0 := mass(a, e)
	switch {
	case m0 == 0:
		return
	case i < 0:
		r.Mass[0-r.Lo] += m0
		return
	case i >= b.n:
		r.Mass[b.n-r.Lo] += m0
		return
	}
	// ψ_{i+1}(f) = (f − t_i)/h with f − t_i = c + beta(r − a.r), c = fa − t_i,
	// and ∫(r − a.r)φ = φ(a) − φ(e) − a.r·m0.
	m1 := a.Phi - e.Phi - a.R*m0
	up := ((fa-b.knot(i))*m0 + beta*m1) / b.h
	up = min(max(up, 0), m0)
	r.Mass[i-r.Lo] += m0 - up
	if i+1-r.Lo < len(r.Mass) {
		r.Mass[i+1-r.Lo] += up
	}
}
