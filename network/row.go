package network

import (
	"context"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/stdnormal"
)

// Row is the law of a categorical network's release at one x,
// P(F = f | X = x) = E_R[softmax(z(x, R))_f] for R ~ N(0, 1), with its error
// bounds, all in ℓ1 over the labels (ExpectRow).
type Row struct {
	P []float64 `json:"p"`
	// Bound: Σ_f |P_f − E_R[softmax(z(x, R))_f]| ≤ Bound. It includes Walk.
	Bound float64 `json:"bound"`
	// Walk bounds the ℓ1 distance between the softmax of the region walk's
	// logits and of the exact ones, on [−RWalk, RWalk] (as
	// Expectation.Walk), with the float64 rounding of the softmax.
	Walk float64 `json:"walk,omitempty"`
	// Pieces is the number of activation regions walked on [−RWalk,
	// RWalk]; Samples the number of points at which the softmax was taken.
	Pieces  int `json:"pieces"`
	Samples int `json:"samples"`
	// Rounding bounds E_R[δ(x, R)], δ the ℓ1 forward error bound of
	// ProbsBound in the network's precision (meanRounding): the row a
	// runtime releases is within it of the exact one, in ℓ1. RoundingSup
	// bounds δ(x, r) over |r| ≤ RRound, for reports.
	Rounding    float64 `json:"rounding,omitempty"`
	RoundingSup float64 `json:"rounding_sup,omitempty"`
}

// rowK is the constant of ExpectRow's interpolation bound: Σ_f |s_f − P_f|
// ≤ rowK·(Δβ·h)³ on a step of width h with Δβ·h ≤ 1, rowK = √e/(36√3).
var rowK = math.Sqrt(math.E) / (36 * math.Sqrt(3))

// ExpectRow returns the law of a categorical network's release at x,
// E_R[softmax(z(x, R))], and bounds on its error. The network's hidden
// layers must be identity or ReLU (any depth): on each activation region of
// r the logits are affine, z(r) = α + βr, and s = softmax(z) is analytic,
// with s_f′ = s_f c_f, s_f″ = s_f(c_f² − V), s_f‴ = s_f(c_f³ − 3c_f V − T)
// for c_f = β_f − Σ_g s_g β_g, V and T its second and third moments under s.
// With Δβ = max β − min β, |c_f| ≤ Δβ, V ≤ Δβ²/4 and |T| ≤ Δβ·V, so
// |s_f‴| ≤ 2Δβ³·s_f; within h/2 of a point s_f grows by at most e^{Δβh/2}.
// On a step of width h ≤ 1/Δβ the quadratic interpolant P at the ends and
// the midpoint therefore satisfies
//
//	Σ_f |s_f − P_f| ≤ 2Δβ³·√e·h³/(72√3) = rowK·(Δβh)³,
//
// and ∫P φ is exact from the moments of φ on the step. Each region is cut
// at the integers into panels; panel p (mass μ_p, length ℓ_p) gets the
// budget tol·(μ_p + ℓ_p/(2·RWalk))/2 and the step that meets it (at most
// 65,536 steps per panel; Bound is then larger than tol), or the constant
// rule where Δβ·ℓ_p²·φ(0) alone is within its share (Δβ = 0, or a panel too
// short for the moments to be more than rounding). The moments' float64
// rounding is bounded from the magnitudes of the terms that cancel in them
// and added; beyond ±RWalk the softmax is held at its end values, which
// adds 4Φ(−RWalk). ExpectRow stops with ctx's error when ctx is done.
//
// Sigmoid and tanh layers may follow the ReLU layers (a ReLU after them is
// refused: its kinks are at unknown points). On a region z(r) is then
// smooth, and with c_f = z_f′ − Σ_g s_g z_g′ (so Σ_g s_g c_g = 0),
//
//	s_f′ = s_f c_f,  c_f′ = z_f″ − Σ_g s_g c_g z_g′ − Σ_g s_g z_g″ = z_f″ − V − z̄″,
//	s_f″ = s_f(c_f² − V + z_f″ − z̄″),
//
// V = Σ_g s_g c_g² = Var_s(z′) and z̄″ = Σ_g s_g z_g″ (Σ_g s_g c_g z_g′ = V
// because Σ_g s_g c_g = 0). Hence Σ_f |s_f″| ≤ Σ_f s_f(c_f² + V) +
// E_s|z″ − z̄″| = 2V + E_s|z″ − z̄″| ≤ Δ₁²/2 + Δ₂/2, by Popoviciu's
// Var ≤ range²/4 and E|Y − EY| ≤ √Var ≤ range/2, Δ_k bounding the range
// of z^(k) over the labels: the sum of the two largest bounds on |z_f^(k)|,
// which suffixDerivs propagates through the smooth layers (so Σ_f |s_f″|
// ≤ 2·max|z′|² + max|z″|). The linear interpolant P of s at the ends of a
// step of width h satisfies s_f − P_f = −∫G(r, t)s_f″(t)dt with G ≥ 0 and
// ∫G(r, t)dt ≤ h²/8, so Σ_f |s_f − P_f| ≤ h²/8·sup Σ_f |s_f″|; ∫Pφ is exact
// from M0 and M1 (linearMoment's closed form), with their rounding bounded
// as above. The panel budgets and caps are the same; Walk carries the
// walk's error and mmds's float64 rounding through the smooth layers to
// the logits (sup over the region) and doubles it for ℓ1, and Rounding
// takes ProbsBound at every sample in [−RRound, RRound] and adds a bound on
// its change between samples (roundingLip), the convexity argument not
// holding through a sigmoid or tanh.
func (m *Network) ExpectRow(ctx context.Context, x, tol float64) (Row, error) {
	return m.expectRow(ctx, x, tol, nil)
}

// ExpectRowNodes is ExpectRow with the points of r it used (as
// ExpectNodes): the ends of its interpolation steps and constant panels,
// the mean rounding bound's cells, and ±RWalk, ±RRound, sorted.
func (m *Network) ExpectRowNodes(ctx context.Context, x, tol float64) (Row, []float64, error) {
	rec := &nodes{}
	row, err := m.expectRow(ctx, x, tol, rec)
	return row, rec.sorted(), err
}

func (m *Network) expectRow(ctx context.Context, x, tol float64, rec *nodes) (Row, error) {
	if err := m.Validate(); err != nil {
		return Row{}, err
	}
	if !m.Categorical() {
		return Row{}, m.errorf("one output: ExpectRow is for a categorical network (Expect)")
	}
	if !(tol > 0) {
		return Row{}, m.errorf("tolerance %g: must be > 0", tol)
	}
	w := newWalker(m)
	for l := w.np + 1; l < len(m.Layers)-1; l++ {
		if m.Layers[l].Act == ReLU {
			return Row{}, m.errorf("layer %d: relu after the %v of layer %d: the logits then have kinks at unknown points and the row has no error bound; use relu layers before sigmoid/tanh layers only", l, m.Layers[w.np].Act, w.np)
		}
	}
	ri := rowIntegrator{m: m, x: x, tol: tol, out: m.Layers[len(m.Layers)-1], rec: rec}
	ri.init()
	if w.np < len(m.Layers)-1 {
		return ri.expectSmooth(ctx, w)
	}
	err := w.walk(ctx, x, func(a, b float64, v, d []float64) error {
		return ri.region(ctx, w, a, b, v, d)
	})
	if err != nil {
		return Row{}, err
	}
	return ri.finish(ctx)
}

// rowIntegrator integrates the softmax of a categorical network region by
// region (ExpectRow).
type rowIntegrator struct {
	m      *Network
	x, tol float64
	out    Layer // the softmax layer
	row    Row
	bound  float64 // the interpolation and moments' rounding bounds
	// alpha, beta: the logits α + β(r − a) on the current region; s and
	// the samples sa, sm, sb: softmax scratch.
	alpha, beta, s, sa, sm, sb []float64
	ends                       [2][]float64 // the softmax at −RWalk and RWalk
	smooth                     *smoothRow   // nil for identity and relu hidden layers
	rec                        *nodes       // the points used (nil: none)
}

func (ri *rowIntegrator) init() {
	k := len(ri.out.W)
	for _, p := range []*[]float64{&ri.alpha, &ri.beta, &ri.s, &ri.sa, &ri.sm, &ri.sb, &ri.ends[0], &ri.ends[1]} {
		*p = make([]float64, k)
	}
	ri.row.P = make([]float64, k)
}

// region integrates the region (a, b), on which the hidden output is
// v + d·(r − a) with the walker's error bounds.
func (ri *rowIntegrator) region(ctx context.Context, w *walker, a, b float64, v, d []float64) error {
	ri.row.Pieces++
	ev, ed := w.outErr()
	var walk float64
	g := gamma(len(v)+3, u64)
	for f, row := range ri.out.W {
		al, be, errW, mag := ri.out.B[f], 0.0, 0.0, math.Abs(ri.out.B[f])
		for j, wt := range row {
			al += wt * v[j]
			be += wt * d[j]
			aw := math.Abs(wt)
			errW += aw * (ev[j] + ed[j]*(b-a))
			mag += aw * (math.Abs(v[j]) + math.Abs(d[j])*(b-a))
		}
		ri.alpha[f], ri.beta[f] = al, be
		walk = max(walk, errW+g*mag)
	}
	// ‖s(z + Δ) − s(z)‖₁ ≤ 2 max|Δ_f|, and the softmax's own rounding.
	wp := (2*walk + softmaxRounding(Float64, len(ri.out.W))) * (1 + 0x1p-40)
	dmax, err := ri.crossCheck(a, b, wp, func(r float64, s []float64) { ri.softmaxAt(r, a, s) })
	if err != nil {
		return err
	}
	ri.row.Walk = max(ri.row.Walk, wp+dmax)
	if a == -RWalk {
		ri.softmaxAt(a, a, ri.ends[0])
	}
	if b == RWalk {
		ri.softmaxAt(b, a, ri.ends[1])
	}
	for lo := a; lo < b; {
		// A panel takes up to 2·maxPerPanel+1 softmaxes of m labels:
		// seconds for the largest networks, so ctx is checked per panel.
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(b, math.Floor(lo)+1)
		if err := ri.panel(lo, hi, a); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// softmaxAt writes softmax(α + β(r − r0)) into s.
func (ri *rowIntegrator) softmaxAt(r, r0 float64, s []float64) {
	for f := range s {
		s[f] = ri.alpha[f] + ri.beta[f]*(r-r0)
	}
	SoftmaxInPlace(s)
}

// crossCheck compares the walk's softmax (at writes it at r into its
// second argument) with the forward pass's at the region's start (unless
// −RWalk) and midpoint: both are within their bounds (wp, and the forward
// pass's float64 ProbsBound) of the exact law, so a larger ℓ1 distance
// means a bound is wrong. It returns the largest forward bound met.
func (ri *rowIntegrator) crossCheck(a, b, wp float64, at func(r float64, s []float64)) (float64, error) {
	m := ri.m
	var dmax float64
	for i, r := range [2]float64{a, a + (b-a)/2} {
		if i == 0 && a == -RWalk {
			continue
		}
		d, err := m.probsError(ri.x, r, ri.s)
		if err != nil {
			return 0, err
		}
		dmax = max(dmax, d)
		at(r, ri.sa)
		var l1 float64
		for f, p := range ri.s {
			l1 += math.Abs(p - ri.sa[f])
		}
		if tol := (wp + d + 8*u64*float64(len(ri.s))) * (1 + 0x1p-40); !(l1 <= tol) {
			return 0, fmt.Errorf("%w: %v network %s: at (x, r) = (%g, %g) the region walk's law and the forward pass's are %.3g apart in ℓ1, more than their rounding bounds (%.3g)", ErrPrecision, m.Precision, m.Name, ri.x, r, l1, tol)
		}
	}
	return dmax, nil
}

// probsError returns Probs(x, r) in p and a bound on its ℓ1 distance to the
// exact law of m's weights (ProbsBound for a float64 runtime that sums as
// mmds does, folds ignored).
func (m *Network) probsError(x, r float64, p []float64) (float64, error) {
	_, d, err := m.probsBound(x, r, Float64, false, p)
	return d, err
}

// panel integrates (lo, hi), part of the region that starts at r0, by
// quadratic interpolation with the step its budget allows, or by the
// constant rule where that alone meets the budget (constant). More than
// MaxSamples samples in the row is an error wrapping ErrTooComplex.
func (ri *rowIntegrator) panel(lo, hi, r0 float64) error {
	bmin, bmax := math.Inf(1), math.Inf(-1)
	for _, be := range ri.beta {
		bmin, bmax = min(bmin, be), max(bmax, be)
	}
	db := bmax - bmin
	if ri.constant(lo, hi, r0, db) {
		return nil
	}
	mass := stdnormal.Mass(lo, hi)
	n := 1
	if db > 0 && mass > 0 {
		budget := ri.tol * (mass + (hi-lo)/(2*RWalk)) / 2
		h := min(1, math.Cbrt(budget/(rowK*mass))) / db
		if c := math.Ceil((hi - lo) / h); c > 1 {
			n = int(min(c, maxPerPanel))
		}
	}
	if ri.row.Samples+2*n+1 > MaxSamples {
		return fmt.Errorf("%w: network %s: the law at x = %g needs more than %d samples of its softmax (logits that change by Δβ = %.3g per unit of r)", ErrTooComplex, ri.m.Name, ri.x, MaxSamples, db)
	}
	step := (hi - lo) / float64(n)
	if t := db * step; t > 1 {
		// Only where the cap bites: the e^{Δβh/2} growth is then bounded
		// by its value at this step.
		ri.bound += 2 * math.Pow(t, 3) * math.Exp(t/2) / (72 * math.Sqrt(3)) * mass
	} else {
		ri.bound += rowK * math.Pow(t, 3) * mass
	}
	ri.softmaxAt(lo, r0, ri.sa)
	na := stdnormal.NewNode(lo)
	ri.rec.add(lo)
	for i := 1; i <= n; i++ {
		rb := lo + float64(i)*step
		if i == n {
			rb = hi
		}
		ri.rec.add(rb)
		rm := na.R + (rb-na.R)/2
		ri.softmaxAt(rm, r0, ri.sm)
		ri.softmaxAt(rb, r0, ri.sb)
		nb := stdnormal.NewNode(rb)
		ri.quadratic(na, nb, rm, db)
		copy(ri.sa, ri.sb)
		na = nb
	}
	ri.row.Samples += 2*n + 1
	return nil
}

// constant integrates (lo, hi) as s(mid)·∫φ when its error bound,
// ‖s(r) − s(mid)‖₁ ≤ Δβ·|r − mid| (the softmax's ℓ1 Lipschitz constant in
// r: Σ_f s_f|c_f| ≤ Δβ) times the mass, at most Δβ·w²·φ(0) on a panel of
// width w, is within half the length share of its budget,
// tol·w/(4·RWalk), and reports whether it did: always where Δβ = 0 (the
// softmax is constant), and on a panel so short that the quadratic's
// moments would be all rounding.
func (ri *rowIntegrator) constant(lo, hi, r0, db float64) bool {
	w := hi - lo
	em := db * w * w * phi0 * (1 + 0x1p-40)
	if !(em <= ri.tol*w/(4*RWalk)) {
		return false
	}
	ri.softmaxAt(lo+w/2, r0, ri.sm)
	ri.rec.add(lo, hi)
	a, b := stdnormal.NewNode(lo), stdnormal.NewNode(hi)
	ta, _ := nodeErrors(a)
	tb, _ := nodeErrors(b)
	m0 := stdnormal.NodeMass(a, b)
	e0 := ta + tb + 2*u64*(m0+a.T+b.T)
	if a.R < 0 && b.R > 0 {
		e0 += 2 * u64
	}
	var sms, ps float64
	for f, v := range ri.sm {
		ri.row.P[f] += v * m0
		sms += math.Abs(v)
		ps += math.Abs(ri.row.P[f])
	}
	ri.bound += (em + sms*e0 + 2*u64*sms*m0 + u64*ps) * (1 + 0x1p-40)
	ri.row.Samples++
	return true
}

// phi0 is φ(0) = 1/√(2π) rounded up: the largest density.
const phi0 = 0.3989422804014328

// quadratic adds ∫ P(r)φ(r) dr over (a.R, b.R) to the row, P the quadratic
// through sa, sm, sb at a.R, rm, b.R in Newton form about rm, P = s_m +
// c1·t + c2·t², t = r − rm, and bounds the rounding of the moments
// M0 = ∫φ, M1 = ∫tφ, M2 = ∫t²φ. Each is a difference of node values (T, φ
// and rφ at a.R and b.R) that cancel on a short step, so its error is
// bounded by the terms' magnitudes and the node values' own errors
// (nodeErrors), not by its size: c2 carries the samples' rounding divided
// by s², and a step a few ulps wide would otherwise amplify it unseen. The
// midpoint rm may miss the exact midpoint by an ulp η, which moves the
// nodes P interpolates by η (ℓ1 ≤ Δβ·η at each, 1.25 times that after
// interpolation), and the running sums round by u·Σ_f P_f per step.
func (ri *rowIntegrator) quadratic(a, b stdnormal.Node, rm, db float64) {
	m0 := stdnormal.NodeMass(a, b)
	s := (b.R - a.R) / 2
	if !(s > 0) {
		return
	}
	ta, pa := nodeErrors(a)
	tb, pb := nodeErrors(b)
	dphi := a.Phi - b.Phi
	ra, rb := a.R*a.Phi, b.R*b.Phi
	r2 := m0 + ra - rb // ∫r²φ
	m1 := dphi - rm*m0
	m2 := r2 - 2*rm*dphi + rm*rm*m0
	arm := math.Abs(rm)
	e0 := ta + tb + 2*u64*(m0+a.T+b.T)
	if a.R < 0 && b.R > 0 {
		e0 += 2 * u64 // 1 − T(a) − T(b)
	}
	ed := pa + pb + u64*math.Abs(dphi)
	e1 := ed + arm*e0 + 2*u64*(math.Abs(dphi)+arm*m0)
	er2 := e0 + math.Abs(a.R)*pa + math.Abs(b.R)*pb + 3*u64*(m0+math.Abs(ra)+math.Abs(rb))
	e2 := er2 + 2*arm*ed + rm*rm*e0 + 4*u64*(math.Abs(r2)+2*math.Abs(rm*dphi)+rm*rm*m0)
	var c1s, c2s, ps, mag float64
	for f := range ri.row.P {
		c1 := (ri.sb[f] - ri.sa[f]) / (2 * s)
		c2 := (ri.sa[f] - 2*ri.sm[f] + ri.sb[f]) / (2 * s * s)
		t0, t1, t2 := ri.sm[f]*m0, c1*m1, c2*m2
		ri.row.P[f] += t0 + t1 + t2
		c1s += math.Abs(c1)
		c2s += math.Abs(c2)
		ps += math.Abs(ri.row.P[f])
		mag += math.Abs(t0) + math.Abs(t1) + math.Abs(t2)
	}
	var sms float64
	for _, v := range ri.sm {
		sms += math.Abs(v)
	}
	eta := 0x1p-51 * (math.Abs(a.R) + math.Abs(b.R))
	e := sms*e0 + c1s*e1 + c2s*e2 + 4*u64*mag + u64*ps + 1.25*db*eta*(m0+e0)
	ri.bound += e * (1 + 0x1p-40)
}

// nodeErrors bounds the errors of a node's T = Φ(−|r|) and φ(r) as
// stdnormal computes them: the rounding of r²/2 (or |r|/√2) moves the
// exponent of φ (of erfc's e^{−x²}) by up to r²/2·u (r²·u), on top of a few
// ulps of exp, erfc and the products.
func nodeErrors(n stdnormal.Node) (t, phi float64) {
	r2 := n.R * n.R
	return (2*r2 + 8) * u64 * n.T, (r2 + 8) * u64 * n.Phi
}

// finish adds the tails and the end rounding, and checks the result.
func (ri *rowIntegrator) finish(ctx context.Context) (Row, error) {
	m, row := ri.m, ri.row
	tail := stdnormal.Mass(math.Inf(-1), -RWalk)
	for f := range row.P {
		row.P[f] += tail * (ri.ends[0][f] + ri.ends[1][f])
		if math.IsNaN(row.P[f]) || math.IsInf(row.P[f], 0) {
			return row, m.errorf("E_R[softmax(z(%g, R))] = %v: the network overflows", ri.x, row.P[f])
		}
	}
	rb, err := m.meanRounding(ctx, ri.x, ri.rec)
	if err != nil {
		return row, err
	}
	row.Rounding, row.RoundingSup = rb.Mean, rb.Sup
	// The walk's error moves every sample by up to Walk in ℓ1, and the
	// quadratic through three samples is within 1.25 (its Lebesgue
	// constant) times that of the one through the exact samples.
	row.Bound = ri.bound + 4*tail + 1.25*row.Walk
	return row, nil
}
