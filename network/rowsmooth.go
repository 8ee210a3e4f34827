package network

import (
	"context"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/stdnormal"
)

// smoothRow is the state of ExpectRow for a network whose ReLU prefix is
// followed by sigmoid or tanh layers before the softmax: on a region the
// logits are smooth, not affine, in r.
type smoothRow struct {
	layers         []Layer   // the smooth layers and the softmax layer
	in, fw, sa, sb []float64 // scratch of the network's width
	s1, s2, t1, t2 []float64
	mag, e         []float64 // the prefix output's magnitude and error on a region
}

// expectSmooth integrates the row of a network with a smooth suffix (see
// ExpectRow) region by region.
func (ri *rowIntegrator) expectSmooth(ctx context.Context, w *walker) (Row, error) {
	m := ri.m
	wd := m.Width()
	sr := &smoothRow{layers: m.Layers[w.np:]}
	for _, p := range []*[]float64{&sr.in, &sr.fw, &sr.sa, &sr.sb, &sr.s1, &sr.s2, &sr.t1, &sr.t2, &sr.mag, &sr.e} {
		*p = make([]float64, wd)
	}
	ri.smooth = sr
	err := w.walk(ctx, ri.x, func(a, b float64, v, d []float64) error {
		return ri.smoothRegion(ctx, w, a, b, v, d)
	})
	if err != nil {
		return Row{}, err
	}
	return ri.finish(ctx)
}

// sampleSmooth writes the walk's law at r into s: the smooth layers and the
// softmax of the prefix output v + d·(r − r0), in float64.
func (sr *smoothRow) sampleSmooth(r, r0 float64, v, d, s []float64) {
	t := r - r0
	in := sr.in[:len(v)]
	for i := range v {
		in[i] = v[i] + d[i]*t
	}
	copy(s, forward(sr.layers, in, sr.fw))
}

// smoothRegion integrates the region (a, b), on which the prefix output is
// v + d·(r − a) with the walker's error bounds.
func (ri *rowIntegrator) smoothRegion(ctx context.Context, w *walker, a, b float64, v, d []float64) error {
	sr := ri.smooth
	ri.row.Pieces++
	ev, ed := w.outErr()
	for i := range v {
		sr.mag[i] = math.Abs(v[i]) + math.Abs(d[i])*(b-a)
		// r − a, d·t and v + d·t round: 3u of the magnitude.
		sr.e[i] = (ev[i] + ed[i]*(b-a) + 3*u64*sr.mag[i]) * (1 + 0x1p-40)
	}
	dz := smoothLogitError(sr.layers, sr.mag[:len(v)], sr.e[:len(v)], sr.t1, sr.t2)
	wp := (2*dz + softmaxRounding(Float64, len(ri.out.W))) * (1 + 0x1p-40)
	at := func(r float64, s []float64) { sr.sampleSmooth(r, a, v, d, s) }
	dmax, err := ri.crossCheck(a, b, wp, at)
	if err != nil {
		return err
	}
	ri.row.Walk = max(ri.row.Walk, wp+dmax)
	if a == -RWalk {
		at(a, ri.ends[0])
	}
	if b == RWalk {
		at(b, ri.ends[1])
	}
	k := softmaxCurvature(suffixDerivs(sr.layers, d, sr.s1, sr.s2, sr.t1, sr.t2))
	for lo := a; lo < b; {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(b, math.Floor(lo)+1)
		if err := ri.smoothPanel(lo, hi, a, v, d, k); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// softmaxCurvature bounds Σ_f |s_f″| for s = softmax(z(r)) from bounds
// |z_f′| ≤ d1_f and |z_f″| ≤ d2_f (see ExpectRow): Δ₁²/2 + Δ₂/2, Δ_k the
// sum of the two largest of d_k (a bound on the range of z^(k) over the
// labels).
func softmaxCurvature(d1, d2 []float64) float64 {
	top2 := func(d []float64) float64 {
		var x, y float64
		for _, v := range d {
			if v > x {
				x, y = v, x
			} else if v > y {
				y = v
			}
		}
		return x + y
	}
	r1, r2 := top2(d1), top2(d2)
	return (r1*r1/2 + r2/2) * (1 + 0x1p-40)
}

// smoothPanel integrates (lo, hi), part of the region that starts at r0,
// by linear interpolation of the softmax at the step its budget allows, k
// bounding Σ_f |s_f″| there. More than MaxSamples samples in the row is an
// error wrapping ErrTooComplex.
func (ri *rowIntegrator) smoothPanel(lo, hi, r0 float64, v, d []float64, k float64) error {
	sr := ri.smooth
	mass := stdnormal.Mass(lo, hi)
	n := 1
	if k > 0 && mass > 0 {
		budget := ri.tol * (mass + (hi-lo)/(2*RWalk)) / 2
		h := math.Sqrt(8 * budget / (k * mass))
		if c := math.Ceil((hi - lo) / h); c > 1 {
			n = int(min(c, maxPerPanel))
		}
	}
	if ri.row.Samples+n+1 > MaxSamples {
		return fmt.Errorf("%w: network %s: the law at x = %g needs more than %d samples of its softmax (a steep sigmoid or tanh)", ErrTooComplex, ri.m.Name, ri.x, MaxSamples)
	}
	step := (hi - lo) / float64(n)
	ri.bound += step * step / 8 * k * mass * (1 + 0x1p-40)
	sr.sampleSmooth(lo, r0, v, d, sr.sa)
	na := stdnormal.NewNode(lo)
	ri.rec.add(lo)
	for i := 1; i <= n; i++ {
		rb := lo + float64(i)*step
		if i == n {
			rb = hi
		}
		ri.rec.add(rb)
		sr.sampleSmooth(rb, r0, v, d, sr.sb)
		nb := stdnormal.NewNode(rb)
		ri.linear(na, nb, sr.sa, sr.sb)
		copy(sr.sa, sr.sb)
		na = nb
	}
	ri.row.Samples += n + 1
	return nil
}

// linear adds ∫ P(r)φ(r) dr over (a.R, b.R) to the row, P the line through
// sa at a.R and sb at b.R, P = sa + c·t with t = r − a.R: with M0 = ∫φ and
// M1 = ∫tφ = φ(a) − φ(b) − a.R·M0 (linearMoment's closed form, taken once
// for all labels), and bounds the rounding of the moments from the
// magnitudes of the terms that cancel in them, as quadratic does.
func (ri *rowIntegrator) linear(a, b stdnormal.Node, sa, sb []float64) {
	m0 := stdnormal.NodeMass(a, b)
	w := b.R - a.R
	if !(w > 0) {
		return
	}
	ta, pa := nodeErrors(a)
	tb, pb := nodeErrors(b)
	dphi := a.Phi - b.Phi
	ar := math.Abs(a.R)
	m1 := dphi - a.R*m0
	e0 := ta + tb + 2*u64*(m0+a.T+b.T)
	if a.R < 0 && b.R > 0 {
		e0 += 2 * u64 // 1 − T(a) − T(b)
	}
	e1 := pa + pb + u64*math.Abs(dphi) + ar*e0 + 2*u64*(math.Abs(dphi)+ar*m0)
	var sas, cs, ps, mag float64
	for f := range ri.row.P {
		c := (sb[f] - sa[f]) / w
		t0, t1 := sa[f]*m0, c*m1
		ri.row.P[f] += t0 + t1
		sas += math.Abs(sa[f])
		cs += math.Abs(c)
		ps += math.Abs(ri.row.P[f])
		mag += math.Abs(t0) + math.Abs(t1)
	}
	e := sas*e0 + cs*e1 + 5*u64*mag + u64*ps
	ri.bound += e * (1 + 0x1p-40)
}

// smoothLogitError bounds, over a region, the distance between the logits
// mmds computes from the walk's prefix output (magnitude at most mag_i,
// error at most e_i against the exact prefix, its own rounding included)
// and the exact logits: per layer |Δz_j| ≤ γ_{n+1}·(|b_j| + Σ|w_ji|(mag_i +
// e_i)) + Σ|w_ji|e_i (the rounding of the dot product, and the inputs'
// errors through |W|), then |Δg(z)| ≤ G1·|Δz| plus 4 ulps of g and the
// smallest normal (activationUlps); a sigmoid or tanh output has magnitude
// at most 1. It returns the largest logit bound; t and u are scratch.
func smoothLogitError(layers []Layer, mag, e, t, u []float64) float64 {
	_, _, tiny := Float64.roundoff()
	var out float64
	for _, ly := range layers {
		g := gamma(len(mag)+1, u64)
		g1, _ := ly.Act.derivBounds()
		t, u = t[:len(ly.W)], u[:len(ly.W)]
		for j, row := range ly.W {
			mj, pj := math.Abs(ly.B[j]), 0.0
			for i, wt := range row {
				aw := math.Abs(wt)
				mj += aw * (mag[i] + e[i])
				pj += aw * e[i]
			}
			dz := (g*mj + pj) * (1 + 0x1p-40)
			switch ly.Act {
			case Softmax:
				out = max(out, dz)
			case Sigmoid, Tanh:
				t[j], u[j] = 1, (g1*dz+activationUlps*u64*(1+g1*dz)+tiny)*(1+0x1p-40)
			default:
				t[j], u[j] = mj*(1+g), dz
			}
		}
		mag, e = append(mag[:0], t...), append(e[:0], u...)
	}
	return out
}

// roundingLip returns L, a bound on |∂δ*/∂r| for δ* the forward error
// bound of EvalBound with the magnitudes |a_i| exact (for a categorical
// network, of the largest logit error D*), in the network's precision
// (folds included); Z, a bound on |∂z_f/∂r| of the logits (categorical
// only); and the relative allowance J for the computed magnitudes. Per unit,
// |a_i| moves by at most L_i·|Δr| (L the Lipschitz bounds of lipschitzR,
// per unit) and the error bound e_i by E_i·|Δr|: E′_j = G1·(γ·Σ|w|(L_i +
// E_i) + Σ|w|E_i) plus the activation's allowance of 8 ulps (u + u') of L′_j
// + G1·(…), the input r contributing u (float32) to E. The computed |a_i|
// is within e_i of the exact one, which moves each layer's γ·Σ|w|(|a_i| +
// e_i) by at most γ·Σ|w|·2e_i ≤ 2γ·dz_j: δ*(r) ≤ Π_l(1 + 2γ_l)·δ(r) = J·δ(r)
// where δ was computed, and between two such points δ* ≤ J·max + L·gap/2.
// A layer with a folded batch normalization has its own (bnFold.lip,
// bnFold.k).
//
// head bounds the r-derivative of evalBound's headroom with exact
// magnitudes: each range check's magnitude |b| + Σ|w|(|a_i| + e_i) (times
// its fold's unscale) moves by Σ|w|(L_i + E_i), over its limit
// maxv/(1 + γ).
func (m *Network) roundingLip() (lip, z, jitter, head float64) {
	u, maxv, _ := m.Precision.roundoff()
	la := m.noiseColumn(make([]float64, len(m.Inputs)))
	le := make([]float64, len(la))
	for i, v := range la {
		if m.Precision == Float32 && v != 0 {
			le[i] = u
		}
	}
	jitter = 1
	for l, ly := range m.Layers {
		f := m.foldOf(l)
		g := gamma(len(la)+1+f.ops, u) + gamma(len(la)+1+f.ops, u64)
		jitter *= 1 + 2*g
		if f.bn != nil {
			jitter *= 1 + 3*f.bn.k(u, len(la))
		}
		g1, _ := ly.Act.derivBounds()
		na, ne := make([]float64, len(ly.W)), make([]float64, len(ly.W))
		for j, row := range ly.W {
			var sa, se float64
			for i, wt := range row {
				aw := math.Abs(wt)
				sa += aw * la[i]
				se += aw * le[i]
			}
			dz := (g*(sa+se) + se) * (1 + 0x1p-40)
			head = max(head, (sa+se)*max(1, f.unscale)*(1+g)/maxv)
			if f.bn != nil {
				var h float64
				dz, h = f.bn.lip(j, la, le, g, f.unscale, m.Precision)
				head = max(head, h)
			}
			if ly.Act == Softmax {
				lip, z = max(lip, dz), max(z, sa)
				continue
			}
			na[j], ne[j] = g1*sa, g1*dz
			if ly.Act == Sigmoid || ly.Act == Tanh {
				ne[j] += activationUlps * (u + u64) * (na[j] + g1*dz)
			}
		}
		la, le = na, ne
	}
	if !m.Categorical() {
		lip = le[0]
	}
	return lip * (1 + 0x1p-39), z * (1 + 0x1p-40), jitter * (1 + 0x1p-40), head * (1 + 0x1p-40)
}
