package bayes

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
)

// This file is an independent reference for CertifyGauss on ReLU networks:
// it shares no code with the certificate (no profiles, bins, x grid or
// Gauss–Hermite nodes) and integrates over x exactly.
//
// A ReLU network with identity output is affine on each face of the
// arrangement of its hidden units' lines b1_j + wx_j x + wr_j r = 0 in the
// (x, r) plane: k = c0 + cx·x + cr·r there. Given the observer's M = m, X ~
// N(m, v) and R ~ N(0, 1) are independent, and the joint density of (X, F)
// restricted to a face is carried by the segment of the level line k = f
// inside it, where r = (f − c0 − cx·x)/cr. Its x-moments
//
//	∫ w^k N(x; m, v) φ(r(x)) / |cr| dx,   w = x − m, k = 0, 1, 2,
//
// are Gaussian integrals over an interval: with D = cr² + cx²v they equal
// e^{−K/2}/√(2πD) · E[(d + s·Z)^k; z1 < Z < z2] for K = (f − c0 − cx·m)²/D,
// d = cx·v·(f − c0 − cx·m)/D, s = √v·|cr|/√D and z = sgn(cr)(cr·w − cx·v·r)/√(vD)
// at the segment's ends (the limit cr → 0 is the face where F = c0 + cx·X
// ignores r). Summed over faces they give A(f), B(f), C(f) = the density of F
// and its first two w-moments, and the observer's loss given M = m is
//
//	∫ (C(f) − B(f)²/A(f)) df  +  Σ_atoms (M2 − M1²/M0),
//
// the atoms being faces where k is constant (cx = cr = 0) with their
// w-moments M_k. The f integral is Gauss–Legendre on panels that end at the
// values of k at the arrangement's vertices (between them A, B, C are
// analytic) and are at most fStep wide; the m integral is Gauss–Legendre on
// μ ± 8√(σ_X² − v) against the normal density of M.

// refFace is a convex face of the arrangement, counter-clockwise, with the
// network's affine form on it.
type refFace struct {
	x, r       []float64
	c0, cx, cr float64
}

// refQuad sets the reference's resolution.
type refQuad struct {
	fNodes int     // Gauss–Legendre nodes per f panel
	fStep  float64 // largest f panel width
	mNodes int     // Gauss–Legendre nodes over M
	rMax   float64 // the r range of the arrangement: ±rMax
}

// refNet is a 2-input ReLU network with identity output.
type refNet struct {
	wx, wr, b1, w2 []float64
	b2             float64
}

func newRefNet(m *learn.MLP) refNet {
	w1, b1, w2, b2 := m.Layers()
	h := m.Hidden
	return refNet{wx: w1[:h], wr: w1[h : 2*h], b1: b1, w2: w2, b2: b2}
}

// affine returns the network's affine form at (x, r).
func (n refNet) affine(x, r float64) (c0, cx, cr float64) {
	c0 = n.b2
	for j := range n.wx {
		if n.b1[j]+n.wx[j]*x+n.wr[j]*r > 0 {
			c0 += n.w2[j] * n.b1[j]
			cx += n.w2[j] * n.wx[j]
			cr += n.w2[j] * n.wr[j]
		}
	}
	return
}

// faces splits the box [xlo, xhi] × [−rMax, rMax] by every hidden unit's
// line and returns the faces with their affine forms.
func (n refNet) faces(xlo, xhi, rMax float64) []refFace {
	fs := []refFace{{x: []float64{xlo, xhi, xhi, xlo}, r: []float64{-rMax, -rMax, rMax, rMax}}}
	for j := range n.wx {
		var next []refFace
		for _, f := range fs {
			a, b := splitFace(f, n.b1[j], n.wx[j], n.wr[j])
			for _, g := range []refFace{a, b} {
				if len(g.x) >= 3 && faceArea(g) > 1e-14 {
					next = append(next, g)
				}
			}
		}
		fs = next
	}
	for i := range fs {
		var xc, rc float64
		for v := range fs[i].x {
			xc += fs[i].x[v]
			rc += fs[i].r[v]
		}
		k := float64(len(fs[i].x))
		fs[i].c0, fs[i].cx, fs[i].cr = n.affine(xc/k, rc/k)
	}
	return fs
}

// splitFace cuts a convex polygon by the line b + wx·x + wr·r = 0 into the
// parts where it is ≤ 0 and ≥ 0 (Sutherland–Hodgman against each side).
func splitFace(f refFace, b, wx, wr float64) (neg, pos refFace) {
	nv := len(f.x)
	val := make([]float64, nv)
	for i := range nv {
		val[i] = b + wx*f.x[i] + wr*f.r[i]
	}
	for i := range nv {
		j := (i + 1) % nv
		if val[i] <= 0 {
			neg.x, neg.r = append(neg.x, f.x[i]), append(neg.r, f.r[i])
		}
		if val[i] >= 0 {
			pos.x, pos.r = append(pos.x, f.x[i]), append(pos.r, f.r[i])
		}
		if (val[i] < 0 && val[j] > 0) || (val[i] > 0 && val[j] < 0) {
			t := val[i] / (val[i] - val[j])
			x, r := f.x[i]+t*(f.x[j]-f.x[i]), f.r[i]+t*(f.r[j]-f.r[i])
			neg.x, neg.r = append(neg.x, x), append(neg.r, r)
			pos.x, pos.r = append(pos.x, x), append(pos.r, r)
		}
	}
	return neg, pos
}

func faceArea(f refFace) float64 {
	var a float64
	for i := range f.x {
		j := (i + 1) % len(f.x)
		a += f.x[i]*f.r[j] - f.x[j]*f.r[i]
	}
	return math.Abs(a) / 2
}

// refObs is one observer's (m, weight) nodes over M and its v = Var[X | side].
type refObs struct {
	v     float64
	m, wm []float64
}

// refTailMoments returns P(z1 < Z < z2), E[Z; z1 < Z < z2] and
// E[Z²; z1 < Z < z2] for Z ~ N(0, 1), z1 ≤ z2, keeping tail precision.
func refTailMoments(z1, z2 float64) (j0, j1, j2 float64) {
	cdf := func(a, b float64) float64 { // P(a < Z < b)
		switch {
		case a >= 0:
			return 0.5 * (math.Erfc(a/math.Sqrt2) - math.Erfc(b/math.Sqrt2))
		case b <= 0:
			return 0.5 * (math.Erfc(-b/math.Sqrt2) - math.Erfc(-a/math.Sqrt2))
		}
		return 0.5 * (math.Erf(-a/math.Sqrt2) + math.Erf(b/math.Sqrt2))
	}
	pdf := func(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
	p1, p2 := pdf(z1), pdf(z2)
	j0 = cdf(z1, z2)
	j1 = p1 - p2
	j2 = j0 + z1*p1 - z2*p2
	return
}

// refLosses returns the Bayes losses E[Var(X | F, M)] of the reconstructor
// and each adversary of m for the ReLU network k (identity output).
func refLosses(m *gauss.Model, k *learn.MLP, q refQuad) []float64 {
	net := newRefNet(k)
	mu, vx := m.Mean()[m.PrivateIndex()], m.VarX()
	vs := append([]float64{m.VarRecon()}, m.VarAdv()...)
	gx, gw := make([]float64, q.mNodes), make([]float64, q.mNodes)
	var obs []refObs
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		o := refObs{v: v}
		sm := math.Sqrt(vx - v)
		if sm == 0 {
			o.m, o.wm = []float64{mu}, []float64{1}
		} else {
			quad.Legendre{}.FixedLocations(gx, gw, mu-8*sm, mu+8*sm)
			for i, x := range gx {
				u := (x - mu) / sm
				o.m = append(o.m, x)
				o.wm = append(o.wm, gw[i]*math.Exp(-u*u/2)/(sm*math.Sqrt(2*math.Pi)))
			}
		}
		for _, x := range o.m {
			xlo, xhi = min(xlo, x-12*math.Sqrt(v)), max(xhi, x+12*math.Sqrt(v))
		}
		obs = append(obs, o)
	}
	faces := net.faces(xlo, xhi, q.rMax)

	// Panels in f: the values of k at every vertex, refined to fStep.
	var cuts []float64
	var atoms []refFace
	for _, f := range faces {
		if f.cx == 0 && f.cr == 0 {
			atoms = append(atoms, f)
			continue
		}
		for v := range f.x {
			cuts = append(cuts, f.c0+f.cx*f.x[v]+f.cr*f.r[v])
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var panels [][2]float64
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		n := int(math.Ceil((b - a) / q.fStep))
		for p := range n {
			panels = append(panels, [2]float64{a + (b-a)*float64(p)/float64(n), a + (b-a)*float64(p+1)/float64(n)})
		}
	}

	// Workers take panels in turn; each sums its losses per (observer,
	// node), combined in worker order.
	workers := runtime.GOMAXPROCS(0)
	parts := make([][][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			loss := make([][]float64, len(obs))
			for i, o := range obs {
				loss[i] = make([]float64, len(o.m))
			}
			acc := newRefAcc(obs)
			fx, fw := make([]float64, q.fNodes), make([]float64, q.fNodes)
			for p := w; p < len(panels); p += workers {
				quad.Legendre{}.FixedLocations(fx, fw, panels[p][0], panels[p][1])
				for t, f := range fx {
					acc.reset()
					for i := range faces {
						acc.addSegment(&faces[i], f)
					}
					acc.flush(loss, fw[t])
				}
			}
			parts[w] = loss
		})
	}
	wg.Wait()

	out := make([]float64, len(obs))
	for i, o := range obs {
		for n := range o.m {
			var l float64
			for w := range workers {
				l += parts[w][i][n]
			}
			l += atomLoss(atoms, o.m[n], o.v)
			out[i] += o.wm[n] * l
		}
	}
	return out
}

// refAcc accumulates A, B, C at one f for every (observer, node).
type refAcc struct {
	obs     []refObs
	a, b, c [][]float64
}

func newRefAcc(obs []refObs) *refAcc {
	r := &refAcc{obs: obs}
	for _, o := range obs {
		r.a = append(r.a, make([]float64, len(o.m)))
		r.b = append(r.b, make([]float64, len(o.m)))
		r.c = append(r.c, make([]float64, len(o.m)))
	}
	return r
}

func (r *refAcc) reset() {
	for i := range r.a {
		clear(r.a[i])
		clear(r.b[i])
		clear(r.c[i])
	}
}

// flush adds weight·(C − B²/A) to loss.
func (r *refAcc) flush(loss [][]float64, weight float64) {
	for i := range r.a {
		for n, a := range r.a[i] {
			if a > 0 {
				loss[i][n] += weight * max(r.c[i][n]-r.b[i][n]*r.b[i][n]/a, 0)
			}
		}
	}
}

// addSegment adds the level set k = f inside face fc.
func (r *refAcc) addSegment(fc *refFace, f float64) {
	if fc.cx == 0 && fc.cr == 0 {
		return
	}
	nv := len(fc.x)
	var px, pr [2]float64
	np := 0
	prev := fc.c0 + fc.cx*fc.x[nv-1] + fc.cr*fc.r[nv-1] - f
	for i := range nv {
		g := fc.c0 + fc.cx*fc.x[i] + fc.cr*fc.r[i] - f
		if (prev < 0) != (g < 0) && np < 2 {
			j := (i + nv - 1) % nv
			t := prev / (prev - g)
			px[np], pr[np] = fc.x[j]+t*(fc.x[i]-fc.x[j]), fc.r[j]+t*(fc.r[i]-fc.r[j])
			np++
		}
		prev = g
	}
	if np < 2 {
		return
	}
	cx, cr := fc.cx, fc.cr
	sg := 1.0
	if cr < 0 {
		sg = -1
	}
	for i, o := range r.obs {
		v := o.v
		if v == 0 {
			continue
		}
		d2 := cr*cr + cx*cx*v
		sq := math.Sqrt(d2)
		for n, m := range o.m {
			e := f - fc.c0 - cx*m
			K := e * e / d2
			if K > 140 {
				continue
			}
			z1 := sg * (cr*(px[0]-m) - cx*v*pr[0]) / (math.Sqrt(v) * sq)
			z2 := sg * (cr*(px[1]-m) - cx*v*pr[1]) / (math.Sqrt(v) * sq)
			if z1 > z2 {
				z1, z2 = z2, z1
			}
			j0, j1, j2 := refTailMoments(z1, z2)
			pref := math.Exp(-K/2) / math.Sqrt(2*math.Pi*d2)
			d := cx * v * e / d2
			s := math.Sqrt(v) * math.Abs(cr) / sq
			r.a[i][n] += pref * j0
			r.b[i][n] += pref * (d*j0 + s*j1)
			r.c[i][n] += pref * (d*d*j0 + 2*d*s*j1 + s*s*j2)
		}
	}
}

// atomLoss is Σ over the values c of constant faces of P(F = c | m)·
// Var(X | F = c, m): the w-moments of N(m, v) ⊗ N(0, 1) over those faces, by
// Gauss–Legendre in x between the faces' vertices (where the face's r range
// is affine in x) on pieces at most √v/4 wide.
func atomLoss(atoms []refFace, m, v float64) float64 {
	if v == 0 || len(atoms) == 0 {
		return 0
	}
	type mom struct{ m0, m1, m2 float64 }
	byValue := map[float64]*mom{}
	gx, gw := make([]float64, 24), make([]float64, 24)
	sd := math.Sqrt(v)
	for _, fc := range atoms {
		xs := slices.Clone(fc.x)
		slices.Sort(xs)
		mm := byValue[fc.c0]
		if mm == nil {
			mm = &mom{}
			byValue[fc.c0] = mm
		}
		for i := 0; i+1 < len(xs); i++ {
			a, b := max(xs[i], m-14*sd), min(xs[i+1], m+14*sd)
			n := int(math.Ceil((b - a) / (sd / 4)))
			for p := range n {
				lo, hi := a+(b-a)*float64(p)/float64(n), a+(b-a)*float64(p+1)/float64(n)
				quad.Legendre{}.FixedLocations(gx, gw, lo, hi)
				for t, x := range gx {
					rlo, rhi := faceRange(fc, x)
					if !(rlo < rhi) {
						continue
					}
					j0, _, _ := refTailMoments(rlo, rhi)
					w := x - m
					dens := gw[t] * math.Exp(-w*w/(2*v)) / math.Sqrt(2*math.Pi*v) * j0
					mm.m0 += dens
					mm.m1 += dens * w
					mm.m2 += dens * w * w
				}
			}
		}
	}
	var l float64
	for _, mm := range byValue {
		if mm.m0 > 0 {
			l += max(mm.m2-mm.m1*mm.m1/mm.m0, 0)
		}
	}
	return l
}

// faceRange returns the r range of a convex face at x.
func faceRange(fc refFace, x float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range fc.x {
		j := (i + 1) % len(fc.x)
		x0, x1 := fc.x[i], fc.x[j]
		if (x0 <= x && x <= x1) || (x1 <= x && x <= x0) {
			if x0 == x1 {
				lo, hi = min(lo, fc.r[i], fc.r[j]), max(hi, fc.r[i], fc.r[j])
				continue
			}
			r := fc.r[i] + (x-x0)/(x1-x0)*(fc.r[j]-fc.r[i])
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	return lo, hi
}
