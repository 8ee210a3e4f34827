package network

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/mmds-project/mmds/internal/stdnormal"
)

// DefaultTol is the default target for the error bound of E_R[k(x, R)]
// when k(x, ·) is sampled (a network with sigmoid or tanh layers): 1e-8,
// four orders of magnitude below the standard error of a 0-1 loss estimated
// on 10⁷ samples, so no verdict can hinge on it.
const DefaultTol = 1e-8

// maxPerPanel caps the samples of one panel (see Expect).
const maxPerPanel = 1 << 16

// MaxSamples caps the samples of one expectation (Expect, ExpectRow):
// beyond it the work is an error wrapping ErrTooComplex, which a
// certificate reports as "cannot certify", rather than minutes per x.
const MaxSamples = 1 << 24

// Expectation is E_R[k(x, R)], R ~ N(0, 1), with a bound on its error.
type Expectation struct {
	Mean float64 `json:"mean"`
	// Bound: |Mean − E_R[k(x, R)]| ≤ Bound, up to the rounding of the
	// closed forms' sum. It includes Walk.
	Bound float64 `json:"bound"`
	// Walk bounds |walk − k| on [−RWalk, RWalk], walk the region walk's
	// piecewise-affine k(x, ·) and k the exact one: the float64 rounding of
	// the walk's values and slopes, and every unit whose sign the walk could
	// not know (|z| within its rounding bound) counted as flipped.
	Walk float64 `json:"walk,omitempty"`
	// Exact: k(x, ·) is piecewise linear and Mean is a sum of closed forms;
	// Bound then covers only Walk and the continuation beyond ±RWalk:
	// 4·Lip·φ(16) ≈ 4e-56·Lip, Lip a bound on |∂k/∂r|.
	Exact bool `json:"exact"`
	// Pieces is the number of linear pieces (activation regions) walked on
	// [−RWalk, RWalk]; Samples the number of points at which k was sampled
	// (0 when exact).
	Pieces  int `json:"pieces"`
	Samples int `json:"samples"`
	// Min and Max are the smallest and largest value of k(x, ·) at the
	// breakpoints and samples.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Rounding bounds E_R[δ(x, R)], δ the forward error bound of
	// EvalBound in the network's precision (a float64 runtime may sum in
	// another order; meanRounding): the P(F = 1 | x) a runtime releases is
	// within it of the exact one. RoundingSup bounds δ(x, r) over |r| ≤
	// RRound, for reports.
	Rounding    float64 `json:"rounding,omitempty"`
	RoundingSup float64 `json:"rounding_sup,omitempty"`
}

// Expect returns E_R[k(x, R)] for R ~ N(0, 1) and a bound on its error.
//
// A piecewise-linear network (identity and ReLU only) is integrated exactly:
// on each activation region (a, b) of r, k = α + βr and
// ∫_a^b (α + βr)φ(r) dr = α(Φ(b) − Φ(a)) + β(φ(a) − φ(b)).
//
// Otherwise the network is a piecewise-linear prefix P (the layers before the
// first sigmoid or tanh layer, affine in r on each activation region) and a
// smooth suffix S, k = S(P(x, r)); a ReLU after a sigmoid or tanh layer is
// refused. On each region, cut at the integers into panels, k is sampled at
// step h and replaced by its linear interpolant, whose integral against φ
// is exact as above. The interpolation error is at most h²/8·sup|∂²k/∂r²|,
// and sup|∂²k/∂r²| on a region is bounded by propagating first- and
// second-derivative bounds through S (|g′| ≤ 1/4, |g″| ≤ 1/(6√3) for the
// sigmoid; 1 and 4/(3√3) for tanh). h is chosen per panel so that the bound
// summed over panels (weighted by each panel's probability) is at most tol;
// a panel never takes more than 65,536 samples, in which case the reported
// Bound is larger than tol. Beyond ±RWalk k is held at its end values,
// which adds at most 4·sup|k|·Φ(−RWalk) to Bound.
//
// Expect stops with ctx's error when ctx is done.
func (m *Network) Expect(ctx context.Context, x, tol float64) (Expectation, error) {
	return m.expect(ctx, x, tol, nil)
}

// ExpectNodes is Expect, and the points of r where it evaluated k(x, ·) or
// its rounding bound, sorted, from −RWalk to RWalk: the region walk's
// breakpoints, the samples of a smooth network and the cells of the mean
// rounding bound. They are the cells on which a checker re-derives the
// expectation (docs/check.md, "Networks").
func (m *Network) ExpectNodes(ctx context.Context, x, tol float64) (Expectation, []float64, error) {
	rec := &nodes{}
	e, err := m.expect(ctx, x, tol, rec)
	return e, rec.sorted(), err
}

// nodes records the points of r an expectation used (nil: none).
type nodes struct{ r []float64 }

func (n *nodes) add(r ...float64) {
	if n != nil {
		n.r = append(n.r, r...)
	}
}

// sorted returns the points with ±RWalk and ±RRound, sorted, each once.
func (n *nodes) sorted() []float64 {
	r := append(n.r, -RWalk, -RRound, RRound, RWalk)
	slices.Sort(r)
	return slices.Compact(r)
}

func (m *Network) expect(ctx context.Context, x, tol float64, rec *nodes) (Expectation, error) {
	if err := m.Validate(); err != nil {
		return Expectation{}, err
	}
	if !(tol > 0) {
		return Expectation{}, m.errorf("tolerance %g: must be > 0", tol)
	}
	if m.Categorical() {
		return Expectation{}, m.errorf("categorical (a softmax over %d labels): its expectation is a row of probabilities (ExpectRow)", m.Outputs())
	}
	w := newWalker(m)
	suffix := m.Layers[w.np:]
	for l, ly := range suffix {
		if ly.Act == ReLU {
			return Expectation{}, m.errorf("layer %d: relu after the %v of layer %d: k(x, ·) then has kinks at unknown points and the sampled expectation has no error bound; use relu layers before sigmoid/tanh layers only",
				w.np+l, suffix[0].Act, w.np)
		}
	}
	e := Expectation{Min: math.Inf(1), Max: math.Inf(-1)}
	if len(suffix) == 0 {
		return m.expectPL(ctx, w, x, e, rec)
	}
	return m.expectSampled(ctx, w, x, tol, e, rec)
}

// roundMean sets e's Rounding and RoundingSup (meanRounding).
func (m *Network) roundMean(ctx context.Context, e *Expectation, x float64, rec *nodes) error {
	rb, err := m.meanRounding(ctx, x, rec)
	e.Rounding, e.RoundingSup = rb.Mean, rb.Sup
	return err
}

// expectPL integrates a piecewise-linear network exactly.
func (m *Network) expectPL(ctx context.Context, w *walker, x float64, e Expectation, rec *nodes) (Expectation, error) {
	e.Exact = true
	var sum float64
	err := w.walk(ctx, x, func(a, b float64, v, d []float64) error {
		rec.add(a, b)
		ev, ed := w.outErr()
		wp := (ev[0] + ed[0]*(b-a)) * (1 + 0x1p-40)
		e.Walk = max(e.Walk, wp)
		at := func(r float64) float64 { return v[0] + d[0]*(r-a) }
		if _, err := m.crossCheck(x, a, b, wp, false, at); err != nil {
			return err
		}
		alpha, beta := v[0]-d[0]*a, d[0]
		lo, hi := a, b
		if a == -RWalk {
			lo = math.Inf(-1)
		}
		if b == RWalk {
			hi = math.Inf(1)
		}
		m0, m1, _ := stdnormal.Moments(lo, hi)
		sum += alpha*m0 + beta*m1
		fa, fb := v[0], v[0]+d[0]*(b-a)
		e.Min, e.Max = min(e.Min, fa, fb), max(e.Max, fa, fb)
		e.Pieces++
		return nil
	})
	if err != nil {
		return e, err
	}
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		return e, m.errorf("E_R[k(%g, R)] = %v: the network overflows", x, sum)
	}
	if err := m.roundMean(ctx, &e, x, rec); err != nil {
		return e, err
	}
	e.Mean = sum
	e.Bound = 4*m.lipschitzR()*stdnormal.Density(RWalk) + e.Walk
	return e, nil
}

// crossCheck compares the walk's k(x, ·) on the region (a, b), at(r), with
// the forward pass at the region's start (unless it is −RWalk) and
// midpoint: both are within their bounds (wp, and evalError's) of the exact
// k, so a larger difference means one bound is wrong, and the certificate
// cannot be made sound. at's own rounding is granted 4 ulps of its
// magnitude, and, when at evaluates a smooth suffix (sampled), evalError's
// bound once more for the suffix's float64 rounding. It returns the largest
// evalError bound met.
func (m *Network) crossCheck(x, a, b, wp float64, sampled bool, at func(r float64) float64) (float64, error) {
	var dmax float64
	for i, r := range [2]float64{a, a + (b-a)/2} {
		if i == 0 && a == -RWalk {
			continue
		}
		k, d, err := m.evalError(x, r)
		if err != nil {
			return 0, err
		}
		dmax = max(dmax, d)
		if sampled {
			d *= 2
		}
		wv := at(r)
		if tol := (wp + d + 4*u64*(math.Abs(wv)+math.Abs(k))) * (1 + 0x1p-40); !(math.Abs(wv-k) <= tol) {
			return 0, fmt.Errorf("%w: %v network %s: at (x, r) = (%g, %g) the region walk gives k = %.17g, the forward pass %.17g: more apart than their rounding bounds (%.3g)", ErrPrecision, m.Precision, m.Name, x, r, wv, k, tol)
		}
	}
	return dmax, nil
}

// lipschitzR bounds |∂k/∂r| over all (x, r): the r column of the first
// layer propagated through |W| and sup|g′| (1 for ReLU and identity).
// Beyond RWalk the true k and its affine continuation each move by at most
// Lip·(r − RWalk), and E[(R − RWalk)⁺] ≤ φ(RWalk): the continuation error
// is at most 2·2·Lip·φ(RWalk) for both tails.
func (m *Network) lipschitzR() float64 {
	d := m.noiseColumn(make([]float64, len(m.Inputs)))
	for _, ly := range m.Layers {
		g1, _ := ly.Act.derivBounds()
		nd := make([]float64, len(ly.W))
		for j, row := range ly.W {
			var s float64
			for i, wt := range row {
				s += math.Abs(wt) * d[i]
			}
			nd[j] = g1 * s
		}
		d = nd
	}
	return d[0]
}

// suffixBounds returns bounds on |k′| and |k″| in r on a region where the
// prefix output has r-derivative d (constant there): suffixDerivs' bound for
// the one output.
func suffixBounds(suffix []Layer, d []float64, s1, s2, t1, t2 []float64) float64 {
	_, d2 := suffixDerivs(suffix, d, s1, s2, t1, t2)
	return d2[0]
}

// suffixDerivs returns bounds on |∂/∂r| and |∂²/∂r²| of each output unit of
// suffix on a region where the prefix output has r-derivative d (constant
// there): the first suffix layer's pre-activation has derivative W·d exactly
// and no curvature; then for a = g(z): |a′| ≤ G1|z′|, |a″| ≤ G2 z′² + G1|z″|,
// and for z = W a + b: |z′| ≤ |W||a′|, |z″| ≤ |W||a″|. A softmax layer is
// taken as identity: the bounds are then its logits'. s1, s2, t1, t2 are
// scratch of the suffix's width; the results alias two of them.
func suffixDerivs(suffix []Layer, d []float64, s1, s2, t1, t2 []float64) (d1, d2 []float64) {
	for l, ly := range suffix {
		g1, g2 := ly.Act.derivBounds()
		for j, row := range ly.W {
			var z1, z2 float64
			if l == 0 {
				for i, wt := range row {
					z1 += wt * d[i]
				}
				z1 = math.Abs(z1)
			} else {
				for i, wt := range row {
					z1 += math.Abs(wt) * s1[i]
					z2 += math.Abs(wt) * s2[i]
				}
			}
			t1[j], t2[j] = g1*z1, g2*z1*z1+g1*z2
		}
		s1, s2, t1, t2 = t1, t2, s1, s2
	}
	n := len(suffix[len(suffix)-1].W)
	return s1[:n], s2[:n]
}

// suffixLip returns a bound on how far the suffix's output moves when its
// input moves by at most e_i in unit i: |Δz| ≤ |W|·|Δa| and |Δg(z)| ≤
// G1·|Δz|, layer by layer; t is scratch of the suffix's width.
func suffixLip(suffix []Layer, e, t []float64) float64 {
	cur := append([]float64(nil), e...)
	for _, ly := range suffix {
		g1, _ := ly.Act.derivBounds()
		t = t[:0]
		for _, row := range ly.W {
			var s float64
			for i, wt := range row {
				s += math.Abs(wt) * cur[i]
			}
			t = append(t, g1*s)
		}
		cur = append(cur[:0], t...)
	}
	return cur[0]
}

// suffixSup bounds sup|k| over all inputs: the first suffix layer's output
// lies in [0, 1] (sigmoid) or [−1, 1] (tanh), and |W a + b| ≤ |W||a| + |b|.
func suffixSup(suffix []Layer) float64 {
	a := make([]float64, len(suffix[0].W))
	for j := range a {
		a[j] = 1
	}
	for _, ly := range suffix[1:] {
		na := make([]float64, len(ly.W))
		for j, row := range ly.W {
			s := math.Abs(ly.B[j])
			for i, wt := range row {
				s += math.Abs(wt) * a[i]
			}
			if ly.Act != Identity {
				s = min(s, 1)
			}
			na[j] = s
		}
		a = na
	}
	return a[0]
}

// suffixEval returns S(v + d·t), with a and b scratch of the suffix's width.
func suffixEval(suffix []Layer, v, d []float64, t float64, a, b []float64) float64 {
	a = a[:len(v)]
	for i := range v {
		a[i] = v[i] + d[i]*t
	}
	return forward(suffix, a, b)[0]
}

// panel is part of an activation region: (a, b) inside one unit cell of r,
// with the prefix output v + d·(r − r0) there.
type panel struct {
	a, b, r0 float64
	v, d     []float64
	m2       float64 // bound on |k″| on the region
	mass     float64 // P(a < R < b)
}

// expectSampled integrates a network with a smooth suffix by piecewise-linear
// interpolation with a per-panel step (see Expect).
func (m *Network) expectSampled(ctx context.Context, w *walker, x, tol float64, e Expectation, rec *nodes) (Expectation, error) {
	suffix := m.Layers[w.np:]
	ps, err := m.samplePanels(ctx, w, x, &e)
	if err != nil {
		return e, err
	}
	wd := m.Width()
	sm := sampler{m: m, suffix: suffix, x: x, tp: tol / float64(len(ps)), a: make([]float64, wd), b: make([]float64, wd), rec: rec}
	for i, p := range ps {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return e, err
			}
		}
		if err := sm.panel(p, &e); err != nil {
			return e, err
		}
	}
	// Tails: k held at its end values beyond ±RWalk.
	a, b := sm.a, sm.b
	first, lastP := ps[0], ps[len(ps)-1]
	lo := suffixEval(suffix, first.v, first.d, first.a-first.r0, a, b)
	hi := suffixEval(suffix, lastP.v, lastP.d, lastP.b-lastP.r0, a, b)
	tail := stdnormal.Mass(math.Inf(-1), -RWalk)
	sum, bound := sm.sum, sm.bound
	sum += tail * (lo + hi)
	bound += 4 * suffixSup(suffix) * tail
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		return e, m.errorf("E_R[k(%g, R)] = %v: the network overflows", x, sum)
	}
	if err := m.roundMean(ctx, &e, x, rec); err != nil {
		return e, err
	}
	e.Mean, e.Bound = sum, bound+e.Walk
	return e, nil
}

// samplePanels walks the activation regions of the ReLU prefix at x and
// cuts each into panels at the integers of r, with the bound on |k″| of
// its smooth suffix there; it counts the pieces and takes the walk's error
// (the prefix's, carried through the suffix, and the cross-check's) into e.
func (m *Network) samplePanels(ctx context.Context, w *walker, x float64, e *Expectation) ([]panel, error) {
	suffix := m.Layers[w.np:]
	wd := m.Width()
	s1, s2, t1, t2 := make([]float64, wd), make([]float64, wd), make([]float64, wd), make([]float64, wd)
	var ps []panel
	ea, eb := make([]float64, wd), make([]float64, wd)
	err := w.walk(ctx, x, func(a, b float64, v, d []float64) error {
		e.Pieces++
		ev, ed := w.outErr()
		for i := range ev {
			t1[i] = ev[i] + ed[i]*(b-a)
		}
		// The prefix's error through the suffix (|g′| ≤ G1), and the
		// suffix's own float64 rounding as the forward bound's there.
		wp := suffixLip(suffix, t1[:len(ev)], s1) * (1 + 0x1p-40)
		at := func(r float64) float64 { return suffixEval(suffix, v, d, r-a, ea, eb) }
		dmax, err := m.crossCheck(x, a, b, wp, true, at)
		if err != nil {
			return err
		}
		e.Walk = max(e.Walk, wp+dmax)
		m2 := suffixBounds(suffix, d, s1, s2, t1, t2)
		vc, dc := append([]float64(nil), v...), append([]float64(nil), d...)
		for lo := a; lo < b; {
			hi := min(b, math.Floor(lo)+1)
			ps = append(ps, panel{a: lo, b: hi, r0: a, v: vc, d: dc, m2: m2, mass: stdnormal.Mass(lo, hi)})
			lo = hi
		}
		return nil
	})
	return ps, err
}

// sampler integrates the panels of expectSampled in order, each by the
// trapezoid rule against φ with a step for its share tp of the tolerance,
// into sum, and the rule's error bound into bound; a and b are scratch.
type sampler struct {
	m          *Network
	suffix     []Layer
	x, tp      float64
	a, b       []float64
	sum, bound float64
	rec        *nodes
}

// panel integrates p, checking the suffix's rounding at every sample and
// recording the samples and the range of k in e.
func (sm *sampler) panel(p panel, e *Expectation) error {
	suffix, a, b, m, x := sm.suffix, sm.a, sm.b, sm.m, sm.x
	n := 1
	if p.m2 > 0 && p.mass > 0 {
		h := math.Sqrt(8 * sm.tp / (p.m2 * p.mass))
		if c := math.Ceil((p.b - p.a) / h); c > 1 {
			n = int(min(c, maxPerPanel))
		}
	}
	if e.Samples+n+1 > MaxSamples {
		return fmt.Errorf("%w: network %s: E_R[k(%g, R)] needs more than %d samples (a steep sigmoid or tanh)", ErrTooComplex, m.Name, x, MaxSamples)
	}
	step := (p.b - p.a) / float64(n)
	sm.bound += step * step / 8 * p.m2 * p.mass
	ra := p.a
	sm.rec.add(ra)
	fa := suffixEval(suffix, p.v, p.d, ra-p.r0, a, b)
	na := stdnormal.NewNode(ra)
	e.Min, e.Max = min(e.Min, fa), max(e.Max, fa)
	for i := 1; i <= n; i++ {
		rb := p.a + float64(i)*step
		if i == n {
			rb = p.b
		}
		sm.rec.add(rb)
		fb := suffixEval(suffix, p.v, p.d, rb-p.r0, a, b)
		nb := stdnormal.NewNode(rb)
		sm.sum += linearMoment(na, nb, fa, fb)
		e.Min, e.Max = min(e.Min, fb), max(e.Max, fb)
		ra, fa, na = rb, fb, nb
	}
	e.Samples += n + 1
	return nil
}

// linearMoment is ∫ f(r)φ(r) dr over (a.r, b.r) for f linear from fa at a.r
// to fb at b.r: f = fa + β(r − a.r), ∫(r − a.r)φ = φ(a) − φ(b) − a.r·m0.
func linearMoment(a, b stdnormal.Node, fa, fb float64) float64 {
	m0 := stdnormal.NodeMass(a, b)
	if !(b.R > a.R) {
		return 0
	}
	beta := (fb - fa) / (b.R - a.R)
	return fa*m0 + beta*(a.Phi-b.Phi-a.R*m0)
}
