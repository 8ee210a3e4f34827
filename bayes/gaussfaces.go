package bayes

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/mmds-project/mmds/internal/stdnormal"
	"github.com/mmds-project/mmds/network"
)

// cface is a face on which F = c0 + cx·x + cr·r with (cx, cr) ≠ 0 and a
// range [flo, fhi] of F that the f quadrature resolves; xlo, xhi is its
// range of x; fv holds F at its vertices, computed once (levelSegment
// needs them at every f node).
type cface struct {
	x, r, fv   []float64
	c0, cx, cr float64
	flo, fhi   float64
	xlo, xhi   float64
}

// discFace is a face whose release is handled as one point of F: an atom
// (k constant, lo = hi = c0) or a collapsed face, whose range [lo, hi] of F
// (widened by its rounding) is too narrow for the f quadrature. loGroup
// numbers the atoms of bitwise-equal value (the genie's partition; −1 for a
// collapsed face, whose X the genie reveals), hiGroup the clusters of the
// garbling (values within atomTol merged, collapsed ranges included).
type discFace struct {
	x, r      []float64
	lo, hi    float64
	collapsed bool
	loGroup   int
	hiGroup   int
	// over are the continuous faces whose range of F meets [lo, hi] (a
	// collapsed face only): the garbling merges their mass there too.
	over []int32
}

// Face classification tolerances (Section "Stated error" of docs/verify.md).
const (
	// collapseRel, collapseAbs: a non-constant face whose range of F is at
	// most collapseRel times the size of its affine form (or collapseAbs)
	// is collapsed: the f quadrature cannot resolve it.
	collapseRel = 1e-10
	collapseAbs = 1e-100
	// atomTol: the garbling merges discrete values within
	// atomTol·(1 + |c|) of each other (chained), covering affine forms of
	// the same value that differ by rounding.
	atomTol = 1e-12
	// cutTol: vertex values of F within cutTol times their affine forms'
	// size are one cut (the same vertex seen from different faces).
	cutTol = 64 * 0x1p-52
)

// addFaces checks and classifies the faces and lays out the cuts of F.
func (s *gaussSetup) addFaces(faces []network.Face) error {
	var area float64
	for i, f := range faces {
		if len(f.X) < 3 || len(f.X) != len(f.R) {
			return fmt.Errorf("bayes: face %d has %d x and %d r vertices: want ≥ 3 of each", i, len(f.X), len(f.R))
		}
		for _, c := range []float64{f.C0, f.Cx, f.Cr} {
			if math.IsNaN(c) || math.IsInf(c, 0) {
				return fmt.Errorf("bayes: face %d: k = %v + %v·x + %v·r: coefficients must be finite", i, f.C0, f.Cx, f.Cr)
			}
		}
		for v := range f.X {
			if math.IsNaN(f.X[v]) || math.IsNaN(f.R[v]) || f.X[v] < s.box.X0-1e-9*s.a || f.X[v] > s.box.X1+1e-9*s.a ||
				f.R[v] < s.box.R0-1e-9 || f.R[v] > s.box.R1+1e-9 {
				return fmt.Errorf("bayes: face %d: vertex (%v, %v) outside the box %+v", i, f.X[v], f.R[v], s.box)
			}
		}
		area += math.Abs(f.Area())
		if f.Cx == 0 && f.Cr == 0 {
			s.disc = append(s.disc, discFace{x: f.X, r: f.R, lo: f.C0, hi: f.C0})
			s.atomFaces++
			continue
		}
		c := cface{x: f.X, r: f.R, c0: f.C0, cx: f.Cx, cr: f.Cr, flo: math.Inf(1), fhi: math.Inf(-1), xlo: math.Inf(1), xhi: math.Inf(-1)}
		var size float64
		c.fv = make([]float64, len(f.X))
		for v := range f.X {
			fv := c.c0 + c.cx*f.X[v] + c.cr*f.R[v]
			c.fv[v] = fv
			c.flo, c.fhi = min(c.flo, fv), max(c.fhi, fv)
			c.xlo, c.xhi = min(c.xlo, f.X[v]), max(c.xhi, f.X[v])
			size = max(size, math.Abs(c.c0)+math.Abs(c.cx*f.X[v])+math.Abs(c.cr*f.R[v]))
		}
		if w := c.fhi - c.flo; !(w > collapseRel*size) || !(w > collapseAbs) {
			// The range of F is at rounding level: a point of F, widened
			// by the rounding of its affine form.
			e := 8 * 0x1p-52 * size
			s.disc = append(s.disc, discFace{x: f.X, r: f.R, lo: c.flo - e, hi: c.fhi + e, collapsed: true})
			continue
		}
		s.cont = append(s.cont, c)
	}
	// The faces must cover the box: a hole would drop probability mass.
	boxArea := (s.box.X1 - s.box.X0) * (s.box.R1 - s.box.R0)
	if math.Abs(area-boxArea) > 1e-9*boxArea {
		return fmt.Errorf("bayes: the faces cover an area %.10g of the box's %.10g: they must partition it", area, boxArea)
	}
	s.groupDiscrete()
	s.layCuts()
	return nil
}

// groupDiscrete numbers the discrete faces' two partitions. The genie's
// (loGroup): atoms of bitwise-equal value share a group, every other
// distinction is kept (revealing more than F only lowers a loss), and a
// collapsed face has none (the genie reveals X there). The garbling's
// (hiGroup): values and collapsed ranges within atomTol·(1 + |c|) of the
// cluster so far are merged, a function J = g(F) of the release, so its
// loss bounds F's from above.
func (s *gaussSetup) groupDiscrete() {
	order := make([]int, len(s.disc))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(s.disc[a].lo, s.disc[b].lo) })
	s.loGroups, s.hiGroups = 0, 0
	prevAtom := math.NaN()
	clusterHi := math.Inf(-1)
	for _, i := range order {
		d := &s.disc[i]
		d.loGroup = -1
		if !d.collapsed {
			if d.lo != prevAtom {
				s.loGroups++
				prevAtom = d.lo
			}
			d.loGroup = s.loGroups - 1
		}
		if s.hiGroups == 0 || d.lo-clusterHi > atomTol*(1+math.Abs(d.lo)) {
			s.hiGroups++
			clusterHi = d.hi
		}
		clusterHi = max(clusterHi, d.hi)
		d.hiGroup = s.hiGroups - 1
		if d.collapsed {
			for j := range s.cont {
				if s.cont[j].flo <= d.hi && s.cont[j].fhi >= d.lo {
					d.over = append(d.over, int32(j))
				}
			}
		}
	}
}

// layCuts collects the cuts of F: the values of k at the continuous faces'
// vertices (their range ends among them), where A, B, C are not analytic.
// Values within cutTol of their affine forms' size are one cut. A cut is a
// jump where a face's edge lies on the level line (its ends' values are
// one cut): the level set gains or loses a segment there, so A, B, C jump
// and the f rules evaluate only inside the panels beside it. Elsewhere the
// level set moves continuously through vertices and A, B, C are
// continuous.
func (s *gaussSetup) layCuts() {
	type cut struct {
		f, size float64
		jump    bool
	}
	var cuts []cut
	for _, c := range s.cont {
		n := len(c.x)
		for i := range c.x {
			j := (i + 1) % n
			fi, fj := c.c0+c.cx*c.x[i]+c.cr*c.r[i], c.c0+c.cx*c.x[j]+c.cr*c.r[j]
			si := math.Abs(c.c0) + math.Abs(c.cx*c.x[i]) + math.Abs(c.cr*c.r[i])
			sj := math.Abs(c.c0) + math.Abs(c.cx*c.x[j]) + math.Abs(c.cr*c.r[j])
			level := math.Abs(fi-fj) <= cutTol*max(si, sj)
			cuts = append(cuts, cut{fi, si, level})
			if level {
				cuts = append(cuts, cut{fj, sj, true})
			}
		}
	}
	slices.SortFunc(cuts, func(a, b cut) int { return cmp.Compare(a.f, b.f) })
	s.cuts, s.jumps = s.cuts[:0], s.jumps[:0]
	var last cut
	for i, c := range cuts {
		if i > 0 && c.f-last.f <= cutTol*max(c.size, last.size) {
			s.jumps[len(s.jumps)-1] = s.jumps[len(s.jumps)-1] || c.jump
			continue
		}
		s.cuts = append(s.cuts, c.f)
		s.jumps = append(s.jumps, c.jump)
		last = c
	}
}

// garbleBound bounds what the garbling's merged clusters lose beyond the
// computed sum for an observer with Var[X | side] = v: a collapsed range
// I also holds continuous faces' mass, at most |I|·Σ 1/√(2πD) over the
// faces meeting it (D = cr² + cx²v, the densities' sup); merging a mass p
// into a cluster adds at most p·(a² + (2a)²) (its own spread and its
// distance to the rest, w within the box's 2a).
func (s *gaussSetup) garbleBound(v float64) float64 {
	var p float64
	for _, d := range s.disc {
		for _, j := range d.over {
			c := &s.cont[j]
			p += (d.hi - d.lo) / math.Sqrt(2*math.Pi*(c.cr*c.cr+c.cx*c.cx*v))
		}
	}
	return 5 * s.a * s.a * p
}

// fPanel is a panel [a, b] of released values between consecutive cuts,
// with the faces whose range of F meets it, its integrals per M node of
// C − B²/A (k) and of A, B, C (mom, three per node) by its rule, and its
// estimated error Σ_n w_n·|rule_n − embedded_n| of the first.
type fPanel struct {
	a, b  float64
	faces []int32
	k     []float64
	mom   []float64
	err   float64
	nodes int // f nodes evaluated for it
	// jumpA, jumpB: A, B, C may jump at a (b), a cut where a face's edge
	// lies on the level line; the rule must not evaluate there.
	jumpA, jumpB bool
}

// fResult is the f integral of the continuous faces per M node: the loss
// part h(m) = ∫ (C − B²/A) df, the moments ∫A, ∫B, ∫C (w = x − m) that the
// conservation check compares with closed forms, the estimated error of
// Σ_n w_n h(m_n) and the number of f nodes.
type fResult struct {
	h      []float64
	mom    [3][]float64
	err    float64
	fNodes int
}

// fPlan is an observer's f quadrature before any evaluation: the M nodes
// and skip radius it runs over, the panels laid out (initialPanels) and
// their integrand evaluations.
type fPlan struct {
	v      float64
	nodes  []mNode
	kCut   cutRadii
	panels []fPanel
	work   float64
}

// planF lays out the f panels for these nodes (initialPanels).
func (s *gaussSetup) planF(v float64, nodes []mNode, kCut cutRadii) (fPlan, error) {
	p := fPlan{v: v, nodes: nodes, kCut: kCut}
	if len(s.cont) == 0 {
		return p, nil
	}
	var err error
	p.panels, p.work, err = s.initialPanels(v, nodes, kCut)
	return p, err
}

// fIntegral integrates the continuous faces over f for every M node of
// plan p, charging its integrand evaluations to budget. Panels end at
// every cut, so that A, B, C are analytic on each; they are at most 4
// widths √(cr² + cx²v) of the narrowest face over them (the width of a
// face's density in f given m) and are bisected, worst first, until the
// estimated error is below tau·max(loss, floor)/2.
func (s *gaussSetup) fIntegral(p fPlan, tau float64, budget *float64) (fResult, error) {
	v, nodes, panels := p.v, p.nodes, p.panels
	nm := len(nodes)
	res := fResult{h: make([]float64, nm)}
	for i := range res.mom {
		res.mom[i] = make([]float64, nm)
	}
	if len(s.cont) == 0 {
		return res, nil
	}
	if p.work > *budget {
		return res, fmt.Errorf("%w: the f quadrature needs more than %.3g integrand evaluations, beyond this loss's share %.3g of the cap %.3g (%d faces, %d panels, %d M nodes)",
			ErrCannotCertify, p.work, *budget, s.q.MaxWork, len(s.cont), len(panels), nm)
	}
	*budget -= p.work
	floor := scaleFloor * s.vx
	r := fRefiner{s: s, v: v, nodes: nodes, kCut: p.kCut, ev: newPanelEval(nodes, len(s.cont), p.kCut), budget: budget, stored: 4 * nm * len(panels)}
	for i := range panels {
		r.ev.eval(s, v, nodes, &panels[i])
		if err := s.panelDone(); err != nil {
			return res, err
		}
	}
	var err error
	for round := 0; round < 60; round++ {
		val, e := panelSums(panels, nodes)
		limit := tau / 2 * max(val, floor)
		if e <= limit {
			break
		}
		split := worstPanels(panels, e, limit)
		if len(split) == 0 {
			break
		}
		if panels, err = r.bisect(panels, split); err != nil {
			return res, err
		}
	}
	res.add(panels)
	return res, nil
}

// panelSums is the f integral of the loss part, Σ over panels and M nodes
// of w_n·k, and its estimated error, Σ over panels.
func panelSums(panels []fPanel, nodes []mNode) (val, e float64) {
	for i := range panels {
		for n, k := range panels[i].k {
			val += nodes[n].wk * k
		}
		e += panels[i].err
	}
	return val, e
}

// worstPanels picks the panels to bisect, worst first, until those left
// account for at most half the limit; a panel too narrow to resolve
// further keeps its error, stated.
func worstPanels(panels []fPanel, e, limit float64) []int {
	order := make([]int, len(panels))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(panels[b].err, panels[a].err) })
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
	return split
}

// fRefiner bisects the panels of one f integral within its budget of
// integrand evaluations and the cap on stored values.
type fRefiner struct {
	s      *gaussSetup
	v      float64
	nodes  []mNode
	kCut   cutRadii
	ev     *panelEval
	budget *float64 // integrand evaluations left
	stored int
}

// bisect replaces the panels split by their halves, evaluated; the halves
// follow the panels kept.
func (r *fRefiner) bisect(panels []fPanel, split []int) ([]fPanel, error) {
	s, nm := r.s, len(r.nodes)
	var next []fPanel
	for _, i := range split {
		p := &panels[i]
		mid := 0.5 * (p.a + p.b)
		for h, lr := range [2][2]float64{{p.a, mid}, {mid, p.b}} {
			c := fPanel{a: lr[0], b: lr[1], jumpA: h == 0 && p.jumpA, jumpB: h == 1 && p.jumpB}
			for _, j := range p.faces {
				if s.cont[j].flo < c.b && s.cont[j].fhi > c.a {
					c.faces = append(c.faces, j)
				}
			}
			w := s.panelWork(c.a, c.b, c.faces, r.v, r.nodes, r.kCut)
			if w > *r.budget {
				return nil, fmt.Errorf("%w: the f quadrature's refinement needs more integrand evaluations than this loss's share of the cap %.3g (%d faces, %d panels, %d M nodes)",
					ErrCannotCertify, s.q.MaxWork, len(s.cont), len(panels), nm)
			}
			if r.stored+4*nm > s.q.MaxStore {
				return nil, fmt.Errorf("%w: the f quadrature needs more than %d stored values (cap %d; %d panels, %d M nodes)",
					ErrCannotCertify, r.stored+4*nm, s.q.MaxStore, len(panels), nm)
			}
			*r.budget -= w
			r.stored += 4 * nm
			r.ev.eval(s, r.v, r.nodes, &c)
			if err := s.panelDone(); err != nil {
				return nil, err
			}
			next = append(next, c)
		}
		p.faces = nil // marks it replaced
	}
	keep := panels[:0]
	for _, p := range panels {
		if p.faces != nil {
			keep = append(keep, p)
		}
	}
	return append(keep, next...), nil
}

// add sums the panels' integrals, errors and node counts into res.
func (res *fResult) add(panels []fPanel) {
	for i := range panels {
		p := &panels[i]
		for n := range res.h {
			res.h[n] += p.k[n]
			for q := range 3 {
				res.mom[q][n] += p.mom[3*n+q]
			}
		}
		res.err += p.err
		res.fNodes += p.nodes
	}
}

// initialPanels covers the range of F with panels that end at every cut
// and are at most 4 widths √(cr² + cx²v) of the narrowest face over them
// (a panel never hides a density peak between its nodes) and at most 1/32
// of the range. The count, the memory and the work (the face × f node × M
// node triples within reach, mWindow) are checked against the caps before
// the panels are allocated.
func (s *gaussSetup) initialPanels(v float64, nodes []mNode, kCut cutRadii) ([]fPanel, float64, error) {
	nm := len(nodes)
	sweep := newFaceSweep(s.cont)
	cuts := s.cuts
	hmax := (cuts[len(cuts)-1] - cuts[0]) / 32
	var spans []panelSpan
	var faces []int32
	count := 0
	var work float64
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		act := sweep.advance(a, b)
		if len(act) == 0 {
			continue // a gap in the range of F
		}
		w := hmax
		for _, j := range act {
			c := &s.cont[j]
			w = min(w, 4*math.Sqrt(c.cr*c.cr+c.cx*c.cx*v))
		}
		n := math.Ceil((b - a) / w)
		if !(n >= 1) {
			n = 1
		}
		if (float64(count)+n)*float64(4*nm) > float64(s.q.MaxStore) {
			return nil, 0, fmt.Errorf("%w: more than %.3g f panels × %d M nodes, beyond the cap %d stored values (%d faces, %d cuts)",
				ErrCannotCertify, float64(count)+n, nm, s.q.MaxStore, len(s.cont), len(cuts))
		}
		for p := range int(n) {
			work += s.panelWork(a+(b-a)*float64(p)/n, a+(b-a)*float64(p+1)/n, act, v, nodes, kCut)
		}
		if work > s.q.MaxWork {
			return nil, 0, fmt.Errorf("%w: the f quadrature needs more than %.3g integrand evaluations, beyond the cap %.3g (%d faces, %d cuts, %d M nodes)",
				ErrCannotCertify, work, s.q.MaxWork, len(s.cont), len(cuts), nm)
		}
		spans = append(spans, panelSpan{a: a, b: b, n: int(n), from: len(faces), nf: len(act), jumpA: s.jumps[i], jumpB: s.jumps[i+1]})
		faces = append(faces, act...)
		count += int(n)
	}
	panels := make([]fPanel, 0, count)
	for _, sp := range spans {
		panels = sp.appendPanels(panels, faces)
	}
	return panels, work, nil
}

// panelSpan is the interval between two cuts, cut into n equal panels, and
// its faces: faces[from : from+nf] of initialPanels' list.
type panelSpan struct {
	a, b         float64
	n            int
	from         int
	nf           int
	jumpA, jumpB bool
}

// appendPanels appends the span's n panels, the last one ending exactly
// at b, each with the span's faces.
func (sp panelSpan) appendPanels(panels []fPanel, faces []int32) []fPanel {
	fs := faces[sp.from : sp.from+sp.nf : sp.from+sp.nf]
	for p := range sp.n {
		pa, pb := sp.a+(sp.b-sp.a)*float64(p)/float64(sp.n), sp.a+(sp.b-sp.a)*float64(p+1)/float64(sp.n)
		if p == sp.n-1 {
			pb = sp.b
		}
		panels = append(panels, fPanel{a: pa, b: pb, faces: fs, jumpA: p == 0 && sp.jumpA, jumpB: p == sp.n-1 && sp.jumpB})
	}
	return panels
}

// faceSweep walks the faces in order of their lowest F and keeps those
// whose range meets the interval it is advanced to.
type faceSweep struct {
	cont   []cface
	order  []int32
	active []int32
	next   int
}

func newFaceSweep(cont []cface) *faceSweep {
	order := make([]int32, len(cont))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(cont[a].flo, cont[b].flo) })
	return &faceSweep{cont: cont, order: order}
}

// advance moves the sweep to (a, b), which must not start below the
// previous interval, and returns the faces whose range meets it; the slice
// is reused by the next call.
func (w *faceSweep) advance(a, b float64) []int32 {
	keep := w.active[:0]
	for _, j := range w.active {
		if w.cont[j].fhi > a {
			keep = append(keep, j)
		}
	}
	w.active = keep
	for w.next < len(w.order) && w.cont[w.order[w.next]].flo < b {
		if w.cont[w.order[w.next]].fhi > a {
			w.active = append(w.active, w.order[w.next])
		}
		w.next++
	}
	return w.active
}

// panelWork is the integrand evaluations of a panel: f nodes × the M
// nodes within each face's reach.
func (s *gaussSetup) panelWork(a, b float64, faces []int32, v float64, nodes []mNode, kCut cutRadii) float64 {
	fn, _, _ := s.fRule(a, b, faces, v, true)
	var w int
	for _, j := range faces {
		n0, n1 := s.mWindow(&s.cont[j], a, b, v, nodes, kCut)
		w += n1 - n0
	}
	return float64(len(fn) * w)
}

// mWindow returns the M nodes [n0, n1) at which face c can contribute for
// some f in [a, b]: a point of the face's level segment within Mahalanobis
// distance √kCut of (m, 0) needs |x − m| ≤ √(kCut·v) and
// K = (f − c0 − cx·m)²/D ≤ kCut. The nodes are sorted by m.
func (s *gaussSetup) mWindow(c *cface, a, b, v float64, nodes []mNode, kCut cutRadii) (int, int) {
	r := math.Sqrt(kCut.max * v)
	lo, hi := c.xlo-r, c.xhi+r
	d := math.Sqrt(kCut.max * (c.cr*c.cr + c.cx*c.cx*v))
	switch {
	case c.cx > 0:
		lo, hi = max(lo, (a-c.c0-d)/c.cx), min(hi, (b-c.c0+d)/c.cx)
	case c.cx < 0:
		lo, hi = max(lo, (b-c.c0+d)/c.cx), min(hi, (a-c.c0-d)/c.cx)
	default:
		if a-c.c0 > d || c.c0-b > d {
			return 0, 0
		}
	}
	n0 := sort.Search(len(nodes), func(i int) bool { return nodes[i].m >= lo })
	n1 := sort.Search(len(nodes), func(i int) bool { return nodes[i].m > hi })
	return n0, max(n0, n1)
}

// fRule returns the f rule of panel [a, b] (nodes on [−1, 1], weights of
// the rule and of its embedded one): 15-point Gauss–Kronrod on a panel
// wider than 1/8 of the narrowest face's density width √D (few cuts: the
// estimate must be sharp there); the 3-point Gauss rule with the midpoint
// rule on one wider than 1/32 of √D or 1/8 of a face's zScale, or with an
// end at a jump (g3); on the narrowest, most of them, Simpson's rule with
// the same midpoint rule, whose end nodes the panels beside share (two
// evaluations per panel). The estimate |rule − midpoint| is the midpoint
// rule's error, h³g″/24, in both. Simpson's own error, h⁵g⁗/2880, is far
// below it on such panels; past either limit the moments' error shows in
// the conservation check (on the paper's D = 0.005 privatizer, whose units
// nearly along the level lines make zScale small: 1e-5 of the loss where
// the 3-point rule leaves 1e-6, and the same with the limits).
func (s *gaussSetup) fRule(a, b float64, faces []int32, v float64, g3 bool) (nodes, wk, wg []float64) {
	for _, j := range faces {
		c := &s.cont[j]
		d := math.Sqrt(c.cr*c.cr + c.cx*c.cx*v)
		if 8*(b-a) > d {
			return gkNodes[:], gkWeights[:], gWeights[:]
		}
		if !g3 && (32*(b-a) > d || 8*(b-a) > c.zScale(v, d, a, b)) {
			g3 = true
		}
	}
	if g3 {
		return g3Nodes[:], g3Weights[:], g1Weights[:]
	}
	return simpsonNodes[:], simpsonWeights[:], g1Weights[:]
}

// panelEval is the scratch of panel evaluations: A, B, C and the shift of
// w per M node at one f, the Gauss sums, and each face's window of M nodes;
// dm is the spacing of the (equispaced) M nodes and decay each continuous
// face's second-difference factors along them (gaussRun), filled on first
// use; end the values shared between consecutive panels.
type panelEval struct {
	A, B, C, shift, g []float64
	n0, n1            []int
	dm                float64
	kCut              cutRadii // contributions beyond Mahalanobis √kCut.k[n] are skipped at node n
	decay             []faceDecay
	// end holds A, B, C and the shift at f = endF, the right end of the
	// last panel evaluated by Simpson's rule (haveEnd): the next panel's
	// left end when it starts there.
	end     [4][]float64
	endF    float64
	haveEnd bool
	scratch faceScratch
}

// faceDecay is e^{−Δ²h/2} for a face's two exponents along the M nodes:
// end, of K + z² at a segment end, and k, of K alone.
type faceDecay struct {
	end, k float64
	ok     bool
}

// newPanelEval returns the scratch for the M nodes given (equispaced) and
// a gaussSetup with faces continuous faces.
func newPanelEval(nodes []mNode, faces int, kCut cutRadii) *panelEval {
	nm := len(nodes)
	ev := &panelEval{A: make([]float64, nm), B: make([]float64, nm), C: make([]float64, nm), shift: make([]float64, nm), g: make([]float64, nm),
		decay: make([]faceDecay, faces), kCut: kCut}
	for i := range ev.end {
		ev.end[i] = make([]float64, nm)
	}
	if nm > 1 {
		ev.dm = (nodes[nm-1].m - nodes[0].m) / float64(nm-1)
	}
	return ev
}

// eval fills p.k, p.mom and p.err. At each node f of the panel's rule
// (taking its left end from the panel evaluated before when that ended
// there), for every face
// the level set k = f is a segment; given M = m, X ~ N(m, v) and
// R ~ N(0, 1) are independent and the density of (W, F), W = X − m, on it
// is Gaussian in w: with D = cr² + cx²v, e = f − c0 − cx·m,
//
//	∫ w^j N(x; m, v) φ(r(x)) / |cr| dx = e^{−K/2}/√(2πD) · E[(d + s·Z)^j; z1 < Z < z2],
//
// K = e²/D, d = cx·v·e/D, s = √v·|cr|/√D and z = sgn(cr)(cr·w − cx·v·r)/√(vD)
// at the segment's ends (cr = 0 is the limit: F = c0 + cx·X on the face);
// K + z² is the squared Mahalanobis distance of the point from (m, 0), and
// a segment farther than √kCut is skipped (skipBound). Summed over faces
// they are A(f), B(f), C(f), and C − B²/A is accumulated about the first
// face's d (the same value, less cancellation).
func (ev *panelEval) eval(s *gaussSetup, v float64, nodes []mNode, p *fPanel) {
	nm := len(nodes)
	if p.k == nil {
		p.k = make([]float64, nm)
		p.mom = make([]float64, 3*nm)
	}
	clear(p.k)
	clear(p.mom)
	clear(ev.g)
	ev.n0, ev.n1 = ev.n0[:0], ev.n1[:0]
	for _, j := range p.faces {
		n0, n1 := s.mWindow(&s.cont[j], p.a, p.b, v, nodes, ev.kCut)
		ev.n0, ev.n1 = append(ev.n0, n0), append(ev.n1, n1)
	}
	sv := math.Sqrt(v)
	hw := (p.b - p.a) / 2
	mid := (p.a + p.b) / 2
	nodesU, wK, wG := s.fRule(p.a, p.b, p.faces, v, p.jumpA || p.jumpB)
	p.nodes = 0
	for t, u := range nodesU {
		f := mid + hw*u
		switch u {
		case -1:
			f = p.a
		case 1:
			f = p.b
		}
		if u == -1 && ev.haveEnd && ev.endF == f {
			// A, B, C are continuous at f (not a jump): the previous
			// panel's right end.
			for i, dst := range [4][]float64{ev.A, ev.B, ev.C, ev.shift} {
				copy(dst, ev.end[i])
			}
		} else {
			clear(ev.A)
			clear(ev.B)
			clear(ev.C)
			for fi, j := range p.faces {
				if ev.n0[fi] != ev.n1[fi] {
					ev.addFace(&s.cont[j], j, f, v, sv, nodes[ev.n0[fi]:ev.n1[fi]], ev.n0[fi])
				}
			}
			p.nodes++
		}
		if u == 1 {
			for i, src := range [4][]float64{ev.A, ev.B, ev.C, ev.shift} {
				copy(ev.end[i], src)
			}
			ev.endF, ev.haveEnd = f, true
		}
		ev.accumulate(p, hw*wK[t], hw*wG[t])
	}
	p.err = 0
	for n := range nm {
		p.err += nodes[n].wk * math.Abs(p.k[n]-ev.g[n])
	}
}

// addFace adds face c's (number j's) part of A, B and C at f for the M
// nodes given, consecutive and the first of which is node n0: the closed
// form of eval's comment on the face's level segment, skipped beyond the
// Mahalanobis distance √kCut. Along the nodes e and z are affine in m,
// so the exponents of the face weight and the segment ends are quadratics
// in the node index and their exponentials follow by gaussRun's
// recurrence: a few exponentials per face and f rather than three per node.
func (ev *panelEval) addFace(c *cface, j int32, f, v, sv float64, nodes []mNode, n0 int) {
	x0, r0, x1, r1, ok := levelSegment(c, f)
	if !ok {
		return
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
	if al0 > al1 {
		// z2 − z1 = al1 − al0 at every m: order the ends once.
		al0, al1 = al1, al0
	}
	beta := cr * inv
	pref := 1 / (2 * math.Pi * sq) // 1/√(2πD) · 1/√(2π)
	sd := sv * math.Abs(cr) / sq
	id2 := 1 / d2
	dv := cx * v * id2
	// Steps of e and z from one node to the next, and the second
	// differences' factors.
	de, dz := -cx*ev.dm, -beta*ev.dm
	dec := &ev.decay[j]
	if !dec.ok {
		*dec = faceDecay{end: math.Exp(-(de*de*id2 + dz*dz)), k: math.Exp(-de * de * id2), ok: true}
	}
	gEnd, gK := dec.end, dec.k
	kCut := ev.kCut.k[n0 : n0+len(nodes)]
	fc := f - c.c0 // e = f − c0 − cx·m, rounded as written
	// A node skipped adds +0 to A, B and C, which start at +0 and so are
	// never −0 (only −0 + −0 is), and leaves shift: the pass runs from the
	// first node the window keeps to the last, with the test it applies.
	skipped := func(m, kCut float64) bool {
		e := fc - cx*m
		K := e * e * id2
		z1, z2 := al0-beta*m, al1-beta*m
		var zm float64
		if z1 > 0 {
			zm = z1
		} else if z2 < 0 {
			zm = -z2
		}
		return K > kCut || K+zm*zm > kCut
	}
	for len(nodes) > 0 && skipped(nodes[0].m, kCut[0]) {
		nodes, kCut, n0 = nodes[1:], kCut[1:], n0+1
	}
	for len(nodes) > 0 && skipped(nodes[len(nodes)-1].m, kCut[len(kCut)-1]) {
		nodes, kCut = nodes[:len(nodes)-1], kCut[:len(kCut)-1]
	}
	nn := len(nodes)
	if nn == 0 {
		return
	}
	sc := &ev.scratch
	sc.grow(nn)
	A, B, C, shift := ev.A[n0:n0+nn], ev.B[n0:n0+nn], ev.C[n0:n0+nn], ev.shift[n0:n0+nn]
	base, p1, p2 := sc.base[:nn], sc.p1[:nn], sc.p2[:nn]
	e1s, e2s, z1s, z2s, ds := sc.e1[:nn], sc.e2[:nn], sc.z1[:nn], sc.z2[:nn], sc.d[:nn]
	u1, u2 := sc.u[:nn], sc.u[nn:][:nn]
	var run1, run2, runK gaussRun
	for i := range nodes {
		m := nodes[i].m
		e := fc - cx*m
		K := e * e * id2
		z1, z2 := al0-beta*m, al1-beta*m
		var zm float64
		if z1 > 0 {
			zm = z1
		} else if z2 < 0 {
			zm = -z2
		}
		if K > kCut[i] || K+zm*zm > kCut[i] {
			run1.left, run2.left, runK.left = 0, 0, 0
			// No contribution: every term below is +0.
			base[i], p1[i], p2[i], e1s[i], e2s[i], z1s[i], z2s[i], ds[i] = 0, 0, 0, 0, 0, 0, 0, 0
			u1[i], u2[i] = 0, 0
			continue
		}
		e1, ok := run1.next(gEnd)
		if !ok {
			dK := (2*e + de) * de * id2
			e1 = run1.start(K+z1*z1, dK+(2*z1+dz)*dz, gEnd)
		}
		e2, ok := run2.next(gEnd)
		if !ok {
			dK := (2*e + de) * de * id2
			e2 = run2.start(K+z2*z2, dK+(2*z2+dz)*dz, gEnd)
		}
		// t0, t1, t2 = √(2π)·e^{−K/2}·E[Z^j; z1 < Z < z2]: each end's
		// e^{−(K + z²)/2} carries its density and its tail
		// (√(2π)e^{−K/2}Q(|z|) = e^{−(K + z²)/2}·Mills(|z|)); t0 is the
		// difference of the ends' tails on one side of 0 and the whole line
		// less both tails across it. A tail below e^{−tailCut/2} of the
		// term it is subtracted from is not evaluated (its factor is 0).
		var t0, sg1, sg2 float64
		switch {
		case z1 >= 0:
			runK.left = 0
			sg1, sg2 = 1, -1
			if z2*z2-z1*z1 >= tailCut {
				sg2 = 0
			}
		case z2 <= 0:
			runK.left = 0
			sg1, sg2 = -1, 1
			if z1*z1-z2*z2 >= tailCut {
				sg1 = 0
			}
		default:
			ek, ok := runK.next(gK)
			if !ok {
				dK := (2*e + de) * de * id2
				ek = runK.start(K, dK, gK)
			}
			t0 = sqrt2Pi * ek
			sg1, sg2 = -1, -1
			if z1*z1 >= tailCut {
				sg1 = 0
			}
			if z2*z2 >= tailCut {
				sg2 = 0
			}
		}
		base[i], p1[i], p2[i] = t0, sg1*e1, sg2*e2
		// A tail not evaluated is Mills(0) times 0.
		u1[i], u2[i] = math.Abs(z1)*(sg1*sg1), math.Abs(z2)*(sg2*sg2) // |sg| = sg²
		e1s[i], e2s[i], z1s[i], z2s[i] = e1, e2, z1, z2
		d := dv * e
		if A[i] == 0 {
			shift[i] = d
		}
		ds[i] = d - shift[i]
	}
	// Both ends' ratios in one call, padded with zeros to whole blocks of
	// four (MillsSlice's vector kernel; each value is Mills's, bit for bit).
	n4 := (2*nn + 3) &^ 3
	clear(sc.u[2*nn : n4])
	mills := sc.mills[:n4]
	stdnormal.MillsSlice(mills, sc.u[:n4])
	faceTerms(A, B, C, base, p1, p2, mills[:nn], mills[nn:], e1s, e2s, z1s, z2s, ds, pref, sd)
}

// faceTerms adds a face's terms at the M nodes to A, B and C: with the
// ends' tails p·Mills (p = ±e^{−(K + z²)/2}, or 0 for a tail not
// evaluated), t0 = base + p1·M1 + p2·M2, t1 = e1 − e2 and
// t2 = t0 + z1·e1 − z2·e2 (both clamped at 0 against rounding), and the
// shifted d:
//
//	A += pref·t0, B += pref·(d·t0 + sd·t1), C += pref·(d²·t0 + 2d·sd·t1 + sd²·t2).
//
// A node whose inputs are all 0 adds +0.
func faceTerms(A, B, C, base, p1, p2, m1, m2, e1, e2, z1, z2, d []float64, pref, sd float64) {
	n := len(A)
	B, C, base, p1, p2 = B[:n], C[:n], base[:n], p1[:n], p2[:n]
	m1, m2, e1, e2, z1, z2, d = m1[:n], m2[:n], e1[:n], e2[:n], z1[:n], z2[:n], d[:n]
	lo := 0
	if termsVector && n >= 4 {
		lo = n &^ 3
		faceTerms4(&A[0], &B[0], &C[0], &base[0], &p1[0], &p2[0], &m1[0], &m2[0], &e1[0], &e2[0], &z1[0], &z2[0], &d[0], lo, pref, sd)
	}
	faceTermsScalar(A, B, C, base, p1, p2, m1, m2, e1, e2, z1, z2, d, pref, sd, lo)
}

// faceTermsScalar is faceTerms on nodes lo and on. The explicit
// conversions round every product, as faceTerms4 does: no GOAMD64 level
// fuses them.
func faceTermsScalar(A, B, C, base, p1, p2, m1, m2, e1, e2, z1, z2, d []float64, pref, sd float64, lo int) {
	n := len(A)
	B, C, base, p1, p2 = B[:n], C[:n], base[:n], p1[:n], p2[:n]
	m1, m2, e1, e2, z1, z2, d = m1[:n], m2[:n], e1[:n], e2[:n], z1[:n], z2[:n], d[:n]
	sd2 := sd * sd
	for i := lo; i < n; i++ {
		t0 := base[i] + float64(p1[i]*m1[i])
		t0 += float64(p2[i] * m2[i])
		if t0 < 0 {
			t0 = 0 // rounding
		}
		t1 := e1[i] - e2[i]
		t2 := t0 + float64(z1[i]*e1[i]) - float64(z2[i]*e2[i])
		if t2 < 0 {
			t2 = 0
		}
		di := d[i]
		A[i] += float64(pref * t0)
		B[i] += float64(pref * (float64(di*t0) + float64(sd*t1)))
		c := float64(float64(di*di)*t0) + float64(float64(2*di*sd)*t1) + float64(sd2*t2)
		C[i] += float64(pref * c)
	}
}

// faceScratch holds addFace's values per M node between its passes.
type faceScratch struct {
	base, p1, p2, e1, e2, z1, z2, d []float64
	u, mills                        []float64
}

// grow makes room for n nodes.
func (sc *faceScratch) grow(n int) {
	if len(sc.base) >= n {
		return
	}
	for _, p := range []*[]float64{&sc.base, &sc.p1, &sc.p2, &sc.e1, &sc.e2, &sc.z1, &sc.z2, &sc.d} {
		*p = make([]float64, n)
	}
	sc.u, sc.mills = make([]float64, 2*n+3), make([]float64, 2*n+3)
}

// tailCut: e^{−tailCut/2} ≈ 2e-19 is below the rounding of the term a
// tail is subtracted from.
const tailCut = 86

const sqrt2Pi = 2.5066282746310002 // √(2π)

// gaussRun evaluates e^{−h/2} at consecutive M nodes where h is a quadratic
// in the node index (second difference Δ²h): one exponential at a run's
// first node, then each value is the previous times ρ = e^{−Δh/2} and ρ is
// multiplied by g = e^{−Δ²h/2}. Rounding grows as the square of the run's
// length, so a run restarts after runLen nodes: the relative error stays
// below runLen² + h ulps (TestGaussRunMatchesExp), and a face's moments
// within 1e-12 of those of the whole level line through it
// (TestAddFaceMatchesDirect). A run starts only where
// h < hRun, so that ρ stays finite (h ≥ 0 at the next node); beyond hZero
// the value is below the smallest double and is 0. Past the vertex of h a
// value that underflows stays 0, which it is: h only grows there.
type gaussRun struct {
	e, rho float64
	left   int
}

const (
	runLen = 32
	hRun   = 1100
	hZero  = 1500
)

// next returns the run's value at this node and advances it; false where
// no run is under way (the caller calls start).
func (r *gaussRun) next(g float64) (float64, bool) {
	if r.left == 0 {
		return 0, false
	}
	r.left--
	v := r.e
	r.e *= r.rho
	r.rho *= g
	return v, true
}

// start returns e^{−h/2} at this node, given h, Δh = h(next) − h here and
// g, and starts a run where h < hRun; the caller resets left to 0 where it
// skips a node.
func (r *gaussRun) start(h, dh, g float64) float64 {
	if h > hZero {
		return 0
	}
	v := math.Exp(-0.5 * h)
	if h < hRun {
		rho := math.Exp(-0.5 * dh)
		r.e, r.rho, r.left = v*rho, rho*g, runLen-1
	}
	return v
}

// accumulate adds one f node's C − B²/A to p.k (Kronrod weight wk) and to
// the Gauss sums (wg), and its A, B, C, taken about w = 0, to p.mom.
func (ev *panelEval) accumulate(p *fPanel, wk, wg float64) {
	for n := range ev.A {
		a := ev.A[n]
		if !(a > 0) {
			continue
		}
		b, c, sh := ev.B[n], ev.C[n], ev.shift[n]
		g := max(c-b*b/a, 0)
		p.k[n] += wk * g
		ev.g[n] += wg * g
		// The moments about w = 0: B + shift·A, C + 2·shift·B + shift²·A.
		p.mom[3*n] += wk * a
		p.mom[3*n+1] += wk * (b + sh*a)
		p.mom[3*n+2] += wk * (c + sh*(2*b+sh*a))
	}
}

// zScale is the least change of F over which an end of the face's level
// segment moves by one in z (eval's coordinate along the segment; d =
// √(cr² + cx²v)) for F in (a, b): between cuts an end runs along one edge,
// one whose range of F covers (a, b), z affine in f there, and the face's
// moments vary as Φ(z) does, which on an edge nearly along the level lines
// is far faster than the density's width d.
func (c *cface) zScale(v, d, a, b float64) float64 {
	sv := math.Sqrt(v)
	scale := math.Inf(1)
	n := len(c.x)
	for i := range n {
		j := (i + 1) % n
		fi, fj := c.fv[i], c.fv[j]
		if min(fi, fj) >= b || max(fi, fj) <= a {
			continue
		}
		dx, dr := c.x[j]-c.x[i], c.r[j]-c.r[i]
		if dz := math.Abs(c.cr*dx-c.cx*v*dr) / (sv * d); dz > 0 {
			scale = min(scale, math.Abs(fj-fi)/dz)
		}
	}
	return scale
}

// levelSegment returns the ends of the segment {k = f} ∩ face.
func levelSegment(c *cface, f float64) (x0, r0, x1, r1 float64, ok bool) {
	nv := len(c.x)
	var px, pr [2]float64
	np := 0
	prev := c.fv[nv-1] - f
	for i := range nv {
		g := c.fv[i] - f
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
	p1, p2 := stdnormal.Density(z1), stdnormal.Density(z2)
	j1 = p1 - p2
	var t1, t2 float64
	if p1 > 0 {
		t1 = z1 * p1
	}
	if p2 > 0 {
		t2 = z2 * p2
	}
	j2 = j0 + t1 - t2
	return
}

// discMoment is the moments ∫ w^j over a discrete face (j = 0, 1, 2) and
// their estimated errors.
type discMoment struct{ k, e [3]float64 }

// discMoments returns, for M = m, every discrete face's moments of
// W = X − m: Kronrod sums in x between the face's vertices, on pieces at
// most √v wide within m ± 10√v, of N(x; m, v)·P(R in the face at x); the
// errors are the moments' |Kronrod − Gauss|.
func (s *gaussSetup) discMoments(v, m float64, out []discMoment) {
	sv := math.Sqrt(v)
	lo, hi := m-10*sv, m+10*sv
	var xs []float64
	for i, fc := range s.disc {
		xs = append(xs[:0], fc.x...)
		slices.Sort(xs)
		mm := &out[i]
		*mm = discMoment{}
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
}

// discLoss sums M2 − M1²/M0 over the groups of a partition of the discrete
// faces (group(i) < 0: left out) and its estimated error.
func discLoss(moms []discMoment, groups int, group func(i int) int) (l, e float64) {
	acc := make([]discMoment, groups)
	for i, mm := range moms {
		g := group(i)
		if g < 0 {
			continue
		}
		for q := range 3 {
			acc[g].k[q] += mm.k[q]
			acc[g].e[q] += mm.e[q]
		}
	}
	for _, mm := range acc {
		if mm.k[0] > 0 {
			mean := mm.k[1] / mm.k[0]
			l += max(mm.k[2]-mm.k[1]*mean, 0)
			e += mm.e[2] + 2*math.Abs(mean)*mm.e[1] + mean*mean*mm.e[0]
		}
	}
	return l, e
}

// boxMoments returns P(B | m), E[W; B | m] and E[W²; B | m] in closed form
// (X | m ~ N(m, v) and R ~ N(0, 1) independent): what the faces' moments,
// which tile the box, must add up to.
func (s *gaussSetup) boxMoments(v, m float64) [3]float64 {
	sv := math.Sqrt(v)
	j0, j1, j2 := truncMoments((s.box.X0-m)/sv, (s.box.X1-m)/sv)
	pr := stdnormal.Mass(s.box.R0, s.box.R1)
	return [3]float64{j0 * pr, sv * j1 * pr, v * j2 * pr}
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
