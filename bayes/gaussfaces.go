package bayes

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// fPanel is a panel [a, b] of released values with the faces whose range
// of F meets it, its Kronrod integrals of C − B²/A per M node and its
// validated error Σ_n w_n·|Kronrod_n − Gauss_n|.
type fPanel struct {
	a, b  float64
	faces []int32
	k     []float64
	err   float64
}

// fIntegral returns, for every M node m, h(m) = ∫ (C − B²/A) df plus the
// atoms' Σ (M2 − M1²/M0): the in-box loss given M = m; and the validated
// error of Σ_n w_n h(m_n), and the number of f nodes. Panels start at the
// values of F at the faces' vertices (between them A, B, C are analytic in
// f), at most 4 widths √(cr² + cx²v) of the narrowest face over them (the
// width of a face's density in f given m), and are bisected, worst first,
// until the error is below tau·max(loss, floor)/2.
func (s *gaussSetup) fIntegral(v float64, nodes []mNode, tau float64) (h []float64, fErr float64, fNodes int, err error) {
	nm := len(nodes)
	h = make([]float64, nm)
	floor := scaleFloor * s.vx
	var work float64
	if len(s.cont) > 0 {
		panels, cuts, err := s.initialPanels(v, nm)
		if err != nil {
			return nil, 0, 0, err
		}
		ev := newPanelEval(nm)
		stored := 0
		for i := range panels {
			work += 15 * float64(len(panels[i].faces)) * float64(nm)
			ev.eval(s, v, nodes, &panels[i])
			stored += nm
		}
		total := func() (val, e float64) {
			for i := range panels {
				for n, k := range panels[i].k {
					val += nodes[n].wk * k
				}
				e += panels[i].err
			}
			return val, e
		}
		for round := 0; ; round++ {
			val, e := total()
			limit := tau / 2 * max(val, floor)
			if e <= limit || round == 60 {
				break
			}
			// Bisect the worst panels until those left account for at
			// most half the limit.
			order := make([]int, len(panels))
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(a, b int) int { return cmp.Compare(panels[b].err, panels[a].err) })
			var next []fPanel
			rest := e
			var split []int
			for _, i := range order {
				if rest <= limit/2 {
					break
				}
				p := &panels[i]
				if !(p.b-p.a > 1e-13*max(math.Abs(p.a), math.Abs(p.b), 1e-300)) {
					continue // cannot be resolved further: its error stays stated
				}
				rest -= p.err
				split = append(split, i)
			}
			if len(split) == 0 {
				break
			}
			for _, i := range split {
				p := &panels[i]
				w := 2 * 15 * float64(len(p.faces)) * float64(nm)
				if work+w > s.q.MaxWork {
					return nil, 0, 0, fmt.Errorf("%w: the f quadrature needs more than %.3g integrand evaluations (cap %.3g; %d faces, %d panels, %d M nodes)",
						ErrCannotCertify, work+w, s.q.MaxWork, len(s.cont), len(panels), nm)
				}
				if stored+nm > s.q.MaxStore {
					return nil, 0, 0, fmt.Errorf("%w: the f quadrature needs more than %d stored values (cap %d; %d panels, %d M nodes)",
						ErrCannotCertify, stored+nm, s.q.MaxStore, len(panels), nm)
				}
				work += w
				stored += nm
				mid := splitPoint(p.a, p.b, cuts)
				for _, lr := range [2][2]float64{{p.a, mid}, {mid, p.b}} {
					c := fPanel{a: lr[0], b: lr[1]}
					for _, j := range p.faces {
						if s.cont[j].flo < c.b && s.cont[j].fhi > c.a {
							c.faces = append(c.faces, j)
						}
					}
					ev.eval(s, v, nodes, &c)
					next = append(next, c)
				}
				p.faces = nil // marks it replaced
			}
			keep := panels[:0]
			for _, p := range panels {
				if p.faces != nil || p.k == nil {
					keep = append(keep, p)
				}
			}
			panels = append(keep, next...)
		}
		for i := range panels {
			for n, k := range panels[i].k {
				h[n] += k
			}
			fErr += panels[i].err
		}
		fNodes = 15 * len(panels)
	}
	if len(s.atoms) > 0 {
		for n, nd := range nodes {
			l, e := s.atomLoss(v, nd.m)
			h[n] += l
			fErr += nd.wk * e
		}
	}
	return h, fErr, fNodes, nil
}

// initialPanels covers the range of F with panels at most 4 widths
// √(cr² + cx²v) of the narrowest face over them (the width of a face's
// density in f given m: a panel never hides a peak between its nodes) and
// at most 1/32 of the range. The values of F at the faces' vertices, where
// A, B, C are not analytic, are kept in cuts: bisection splits a panel at
// the interior cut nearest its middle, so refinement isolates the kinks
// that matter. The count and the work are checked against the caps before
// the panels are allocated.
func (s *gaussSetup) initialPanels(v float64, nm int) ([]fPanel, []float64, error) {
	var cuts []float64
	for _, c := range s.cont {
		for i := range c.x {
			cuts = append(cuts, c.c0+c.cx*c.x[i]+c.cr*c.r[i])
		}
		cuts = append(cuts, c.flo, c.fhi)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	order := make([]int32, len(s.cont))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(s.cont[a].flo, s.cont[b].flo) })
	// active sweeps intervals [a, b] in increasing order with the faces
	// whose range meets them.
	type sweeper struct {
		active []int32
		next   int
	}
	advance := func(sw *sweeper, a, b float64) []int32 {
		keep := sw.active[:0]
		for _, j := range sw.active {
			if s.cont[j].fhi > a {
				keep = append(keep, j)
			}
		}
		sw.active = keep
		for sw.next < len(order) && s.cont[order[sw.next]].flo < b {
			if s.cont[order[sw.next]].fhi > a {
				sw.active = append(sw.active, order[sw.next])
			}
			sw.next++
		}
		return sw.active
	}
	// Panel ends: merge cut intervals while the panel stays under its cap.
	hmax := (cuts[len(cuts)-1] - cuts[0]) / 32
	var ends []float64
	var sw sweeper
	start, capW := cuts[0], hmax
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		w := math.Inf(1)
		for _, j := range advance(&sw, a, b) {
			c := &s.cont[j]
			w = min(w, 4*math.Sqrt(c.cr*c.cr+c.cx*c.cx*v))
		}
		if math.IsInf(w, 1) { // no face: a gap in the range of F
			if a > start {
				ends = append(ends, start, a)
			}
			start, capW = b, hmax
			continue
		}
		if b-start > min(capW, w) && a > start {
			ends = append(ends, start, a)
			start, capW = a, hmax
		}
		capW = min(capW, w)
		if b-start > capW { // one interval wider than its cap
			n := math.Ceil((b - start) / capW)
			if n*float64(nm) > float64(s.q.MaxStore) {
				return nil, nil, fmt.Errorf("%w: %.3g f panels × %d M nodes exceed the cap %d stored values (%d faces)", ErrCannotCertify, n, nm, s.q.MaxStore, len(s.cont))
			}
			for p := range int(n) {
				ends = append(ends, start+(b-start)*float64(p)/n, start+(b-start)*float64(p+1)/n)
			}
			start, capW = b, hmax
		}
		if len(ends)/2*nm > s.q.MaxStore {
			return nil, nil, fmt.Errorf("%w: more than %d f panels × %d M nodes, the cap %d stored values (%d faces)", ErrCannotCertify, len(ends)/2, nm, s.q.MaxStore, len(s.cont))
		}
	}
	if last := cuts[len(cuts)-1]; last > start {
		ends = append(ends, start, last)
	}
	var work float64
	sw = sweeper{}
	for i := 0; i < len(ends); i += 2 {
		work += 15 * float64(len(advance(&sw, ends[i], ends[i+1]))) * float64(nm)
	}
	if work > s.q.MaxWork {
		return nil, nil, fmt.Errorf("%w: the f quadrature needs %.3g integrand evaluations, more than the cap %.3g (%d faces, %d panels, %d M nodes)", ErrCannotCertify, work, s.q.MaxWork, len(s.cont), len(ends)/2, nm)
	}
	panels := make([]fPanel, 0, len(ends)/2)
	sw = sweeper{}
	for i := 0; i < len(ends); i += 2 {
		panels = append(panels, fPanel{a: ends[i], b: ends[i+1], faces: slices.Clone(advance(&sw, ends[i], ends[i+1]))})
	}
	return panels, cuts, nil
}

// splitPoint is where a panel is bisected: the cut strictly inside it
// nearest its middle, else the middle.
func splitPoint(a, b float64, cuts []float64) float64 {
	mid := 0.5 * (a + b)
	i, _ := slices.BinarySearch(cuts, mid)
	best := mid
	bd := math.Inf(1)
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(cuts) && cuts[j] > a && cuts[j] < b {
			// Only cuts that leave each part at least 1/8 of the panel,
			// so the panels shrink geometrically.
			if d := math.Abs(cuts[j] - mid); d < bd && d <= 3*(b-a)/8 {
				best, bd = cuts[j], d
			}
		}
	}
	return best
}

// panelEval is the scratch of panel evaluations: A, B, C and the shift of
// w per M node at one f, and the Gauss sums.
type panelEval struct {
	A, B, C, shift, g []float64
}

func newPanelEval(nm int) *panelEval {
	return &panelEval{A: make([]float64, nm), B: make([]float64, nm), C: make([]float64, nm), shift: make([]float64, nm), g: make([]float64, nm)}
}

// eval fills p.k and p.err. At each Kronrod node f, for every face the
// level set k = f is a segment; given M = m, X ~ N(m, v) and R ~ N(0, 1)
// are independent and the density of (W, F), W = X − m, on it is Gaussian
// in w: with D = cr² + cx²v, e = f − c0 − cx·m,
//
//	∫ w^j N(x; m, v) φ(r(x)) / |cr| dx = e^{−K/2}/√(2πD) · E[(d + s·Z)^j; z1 < Z < z2],
//
// K = e²/D, d = cx·v·e/D, s = √v·|cr|/√D and z = sgn(cr)(cr·w − cx·v·r)/√(vD)
// at the segment's ends (cr = 0 is the limit: F = c0 + cx·X on the face).
// Summed over faces they are A(f), B(f), C(f), and C − B²/A is accumulated
// about the first face's d (the same value, less cancellation).
func (ev *panelEval) eval(s *gaussSetup, v float64, nodes []mNode, p *fPanel) {
	nm := len(nodes)
	if p.k == nil {
		p.k = make([]float64, nm)
	}
	clear(p.k)
	clear(ev.g)
	sv := math.Sqrt(v)
	hw := (p.b - p.a) / 2
	mid := (p.a + p.b) / 2
	for t, u := range gkNodes {
		f := mid + hw*u
		clear(ev.A)
		clear(ev.B)
		clear(ev.C)
		for _, j := range p.faces {
			c := &s.cont[j]
			x0, r0, x1, r1, ok := levelSegment(c, f)
			if !ok {
				continue
			}
			cx, cr := c.cx, c.cr
			d2 := cr*cr + cx*cx*v
			sq := math.Sqrt(d2)
			sg := 1.0
			if cr < 0 {
				sg = -1
			}
			inv := sg / (sv * sq)
			al0 := (cr*x0 - cx*v*r0) * inv
			al1 := (cr*x1 - cx*v*r1) * inv
			beta := cr * inv
			pref0 := 1 / math.Sqrt(2*math.Pi*d2)
			sd := sv * math.Abs(cr) / sq
			dv := cx * v / d2
			for n := range nm {
				m := nodes[n].m
				e := f - c.c0 - cx*m
				K := e * e / d2
				if K > kCut {
					continue
				}
				z1, z2 := al0-beta*m, al1-beta*m
				if z1 > z2 {
					z1, z2 = z2, z1
				}
				j0, j1, j2 := truncMoments(z1, z2)
				if j0 == 0 && j1 == 0 {
					continue
				}
				pref := pref0 * math.Exp(-K/2)
				d := dv * e
				if ev.A[n] == 0 {
					ev.shift[n] = d
				}
				d -= ev.shift[n]
				ev.A[n] += pref * j0
				ev.B[n] += pref * (d*j0 + sd*j1)
				ev.C[n] += pref * (d*d*j0 + 2*d*sd*j1 + sd*sd*j2)
			}
		}
		wk, wg := hw*gkWeights[t], hw*gWeights[t]
		for n := range nm {
			if a := ev.A[n]; a > 0 {
				g := max(ev.C[n]-ev.B[n]*ev.B[n]/a, 0)
				p.k[n] += wk * g
				ev.g[n] += wg * g
			}
		}
	}
	p.err = 0
	for n := range nm {
		p.err += nodes[n].wk * math.Abs(p.k[n]-ev.g[n])
	}
}

// levelSegment returns the ends of the segment {k = f} ∩ face.
func levelSegment(c *cface, f float64) (x0, r0, x1, r1 float64, ok bool) {
	nv := len(c.x)
	var px, pr [2]float64
	np := 0
	prev := c.c0 + c.cx*c.x[nv-1] + c.cr*c.r[nv-1] - f
	for i := range nv {
		g := c.c0 + c.cx*c.x[i] + c.cr*c.r[i] - f
		if (prev < 0) != (g < 0) && np < 2 {
			j := (i + nv - 1) % nv
			t := prev / (prev - g)
			px[np], pr[np] = c.x[j]+t*(c.x[i]-c.x[j]), c.r[j]+t*(c.r[i]-c.r[j])
			np++
		}
		prev = g
	}
	return px[0], pr[0], px[1], pr[1], np == 2
}

// truncMoments returns P(z1 < Z < z2), E[Z; z1 < Z < z2] and
// E[Z²; z1 < Z < z2] for Z ~ N(0, 1), z1 ≤ z2, keeping tail precision.
func truncMoments(z1, z2 float64) (j0, j1, j2 float64) {
	switch {
	case z1 >= 0:
		j0 = 0.5 * (math.Erfc(z1/math.Sqrt2) - math.Erfc(z2/math.Sqrt2))
	case z2 <= 0:
		j0 = 0.5 * (math.Erfc(-z2/math.Sqrt2) - math.Erfc(-z1/math.Sqrt2))
	default:
		j0 = 0.5 * (math.Erf(-z1/math.Sqrt2) + math.Erf(z2/math.Sqrt2))
	}
	p1, p2 := phi(z1), phi(z2)
	j1 = p1 - p2
	j2 = j0 + z1*p1 - z2*p2
	return
}

// atomLoss returns Σ over atom values c of P(F = c | m)·Var(X | F = c, m)
// (unnormalized: M2 − M1²/M0 of W = X − m over the faces where k = c) and
// its validated error. The moments are Kronrod sums in x between the
// faces' vertices, on pieces at most √v wide within m ± 10√v, of
// N(x; m, v)·P(R in the face at x); the error of M2 − M1²/M0 follows
// from the moments' |Kronrod − Gauss|.
func (s *gaussSetup) atomLoss(v, m float64) (float64, float64) {
	type mom struct{ k, e [3]float64 }
	moms := make([]mom, s.atomValues)
	sv := math.Sqrt(v)
	lo, hi := m-10*sv, m+10*sv
	for _, fc := range s.atoms {
		xs := slices.Clone(fc.x)
		slices.Sort(xs)
		mm := &moms[fc.group]
		for i := 0; i+1 < len(xs); i++ {
			a, b := max(xs[i], lo), min(xs[i+1], hi)
			if !(b > a) {
				continue
			}
			n := int(math.Ceil((b - a) / sv))
			for p := range n {
				pa, pb := a+(b-a)*float64(p)/float64(n), a+(b-a)*float64(p+1)/float64(n)
				hw, mid := (pb-pa)/2, (pa+pb)/2
				var kk, gg [3]float64
				for t, u := range gkNodes {
					x := mid + hw*u
					rlo, rhi := polyRange(fc.x, fc.r, x)
					if !(rlo < rhi) {
						continue
					}
					j0, _, _ := truncMoments(rlo, rhi)
					w := x - m
					dens := math.Exp(-w*w/(2*v)) / math.Sqrt(2*math.Pi*v) * j0
					for q, val := range [3]float64{dens, dens * w, dens * w * w} {
						kk[q] += hw * gkWeights[t] * val
						gg[q] += hw * gWeights[t] * val
					}
				}
				for q := range 3 {
					mm.k[q] += kk[q]
					mm.e[q] += math.Abs(kk[q] - gg[q])
				}
			}
		}
	}
	var l, e float64
	for _, mm := range moms {
		if mm.k[0] > 0 {
			mean := mm.k[1] / mm.k[0]
			l += max(mm.k[2]-mm.k[1]*mean, 0)
			e += mm.e[2] + 2*math.Abs(mean)*mm.e[1] + mean*mean*mm.e[0]
		}
	}
	return l, e
}

// polyRange returns the r range of a convex polygon at x.
func polyRange(px, pr []float64, x float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range px {
		j := (i + 1) % len(px)
		x0, x1 := px[i], px[j]
		if (x0 <= x && x <= x1) || (x1 <= x && x <= x0) {
			if x0 == x1 {
				lo, hi = min(lo, pr[i], pr[j]), max(hi, pr[i], pr[j])
				continue
			}
			r := pr[i] + (x-x0)/(x1-x0)*(pr[j]-pr[i])
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	return lo, hi
}
