package bayes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/stdnormal"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/network"
)

// ErrCannotCertify reports a privatizer whose Bayes losses cannot be given
// with a sound error bound: a cost cap was hit, the privatizer is not
// piecewise affine, or the stated error exceeds the tolerance. Errors
// wrap it with the reason; the numbers behind a verdict would not be sound.
var ErrCannotCertify = errors.New("bayes: cannot certify")

// GaussQuad sets the Gaussian certificate's box, tolerance and caps (see the
// package documentation). The zero value of a field means the default beside
// it.
type GaussQuad struct {
	// BoxSD and RMax are the box B = [μ − a, μ + a] × [−RMax, RMax],
	// a = BoxSD·σ_X, over which the privatizer is integrated exactly
	// (defaults 8 and 8: P((X, R) ∉ B) ≈ 2.4e-15).
	BoxSD, RMax float64
	// Target is the largest stated relative error of a certified loss,
	// relative to max(L, 1e-6·Var[X]) (default 0.005, verify's
	// DefaultQuadTol); a larger one is ErrCannotCertify. The quadratures
	// refine until their own error is below Target/8.
	Target float64
	// MaxFaces caps the linear regions of the network in the box (default
	// 50 000).
	MaxFaces int
	// MaxWork caps the integrand evaluations (face × f node × M node) of
	// all the losses together (default 2e8, about four seconds of one
	// core); the first layout of every loss is checked against it before
	// any is evaluated.
	MaxWork float64
	// MaxStore caps the stored panel values (f panels × M nodes) per
	// observer (default 2^23, 64 MiB).
	MaxStore int
}

func (q GaussQuad) withDefaults() GaussQuad {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&q.BoxSD, 8)
	def(&q.RMax, 8)
	def(&q.Target, 0.005)
	def(&q.MaxWork, 2e8)
	if q.MaxFaces == 0 {
		q.MaxFaces = 50000
	}
	if q.MaxStore == 0 {
		q.MaxStore = 1 << 23
	}
	return q
}

func (q GaussQuad) validate() error {
	switch {
	case !(q.BoxSD >= 4) || q.BoxSD > 40:
		return fmt.Errorf("bayes: GaussQuad.BoxSD = %g: must be in [4, 40]", q.BoxSD)
	case !(q.RMax >= 4) || q.RMax > 40:
		return fmt.Errorf("bayes: GaussQuad.RMax = %g: must be in [4, 40]", q.RMax)
	case !(q.Target > 0) || q.Target > 1:
		return fmt.Errorf("bayes: GaussQuad.Target = %g: must be in (0, 1]", q.Target)
	case q.MaxFaces < 1:
		return fmt.Errorf("bayes: GaussQuad.MaxFaces = %d: must be ≥ 1", q.MaxFaces)
	case !(q.MaxWork >= 1) || math.IsInf(q.MaxWork, 0):
		return fmt.Errorf("bayes: GaussQuad.MaxWork = %g: must be finite and ≥ 1", q.MaxWork)
	case q.MaxStore < 1024:
		return fmt.Errorf("bayes: GaussQuad.MaxStore = %d: must be ≥ 1024", q.MaxStore)
	}
	return nil
}

// LossBound is the certified interval of one Bayes loss: the loss lies in
// [Lo, Hi]. Value is the genie's in-box loss E[Var(X | F, M, G); B] by
// quadrature (G reveals 1_B, and X on collapsed faces: a lower bound),
// Merge what the garbling J = g(F) adds (near-equal discrete values and
// collapsed faces merged: an upper bound), Quad the stated quadrature error
// (estimated; Conservation is its part from the conservation check) and
// Tail the closed-form bound of what the mass outside the box can add (all
// absolute): Lo = Value − Quad, Hi = Value + Merge + Quad + Tail.
type LossBound struct {
	Lo           float64 `json:"lo"`
	Hi           float64 `json:"hi"`
	Value        float64 `json:"value"`
	Merge        float64 `json:"merge"`
	Quad         float64 `json:"quad_error"`
	Conservation float64 `json:"conservation"`
	Tail         float64 `json:"tail"`
	// FNodes and MNodes are the f and M quadrature nodes used.
	FNodes int `json:"f_nodes"`
	MNodes int `json:"m_nodes"`
}

// GaussAnalysis holds the exact-loss analysis of a privatizer on a
// Gaussian model. Losses are the sound ends of the intervals: the
// reconstructor's upper end (the certified distortion D̂) and every
// adversary's lower end.
type GaussAnalysis struct {
	loss.Losses
	// Bounds are the intervals, the reconstructor's first.
	Bounds []LossBound `json:"bounds"`
	// Change is the stated relative error of the certificate, the number
	// verdicts compare with Tolerances.Quad: max over losses of
	// (Hi − Lo)/max(Value, 1e-6·Var[X]).
	Change float64     `json:"change"`
	Box    network.Box `json:"box"`
	Faces  int         `json:"faces"`
	// Atoms counts the faces where k is constant, Collapsed those whose
	// range of F is too narrow for the f quadrature (points of F).
	Atoms     int       `json:"atom_faces"`
	Collapsed int       `json:"collapsed_faces"`
	Fit       LinearFit `json:"linear_fit"`
}

// scaleFloor is the absolute floor of relative errors, as a fraction of
// Var[X]: losses below it are compared on that scale.
const scaleFloor = 1e-6

// A face's contribution at f for a node m is skipped when its level
// segment lies farther than √kCut (Mahalanobis) from (m, 0); skipBound
// bounds what that drops, and kCut is chosen per observer and M node
// (kCutsFor) in [kCutMin, kCutMax].
const (
	kCutMin = 16
	kCutMax = 80
)

// mSpan: the M integral runs over μ ± mSpan·σ_M.
const mSpan = 8

// CertifyGauss computes the Bayes losses of privatizer k on model m as
// certified intervals (the scheme of the package documentation) and its
// best linear-Gaussian fit. A privatizer without Faces, a cap exceeded or a
// stated error above q.Target is an error wrapping ErrCannotCertify. It
// stops with ctx's error within one quadrature panel of ctx's end (a panel
// is at most milliseconds), and counts the panels it integrates in ctx's
// progress.Steps, if any.
func CertifyGauss(ctx context.Context, m *gauss.Model, k Privatizer, q GaussQuad) (*GaussAnalysis, error) {
	q = q.withDefaults()
	if err := q.validate(); err != nil {
		return nil, err
	}
	if k.K == nil {
		return nil, fmt.Errorf("bayes: privatizer has no function K")
	}
	if k.Faces == nil {
		return nil, fmt.Errorf("%w: the Gaussian certificate needs identity/ReLU activations (a piecewise-affine network)", ErrCannotCertify)
	}
	mu, vx := m.Mean()[m.PrivateIndex()], m.VarX()
	sx := math.Sqrt(vx)
	a := q.BoxSD * sx
	box := network.Box{X0: mu - a, X1: mu + a, R0: -q.RMax, R1: q.RMax}
	faces, err := k.Faces(box, q.MaxFaces)
	if errors.Is(err, network.ErrTooComplex) {
		return nil, fmt.Errorf("%w: %w", ErrCannotCertify, err)
	}
	if err != nil {
		return nil, err
	}
	if len(faces) > q.MaxFaces {
		return nil, fmt.Errorf("%w: %d linear regions in the box, more than the cap %d", ErrCannotCertify, len(faces), q.MaxFaces)
	}
	s := &gaussSetup{q: q, mu: mu, vx: vx, sx: sx, a: a, box: box, ctx: ctx, steps: progress.StepsFrom(ctx)}
	if err := s.addFaces(faces); err != nil {
		return nil, err
	}

	// The linear fit's exact losses guess the losses, which sets how far
	// the M integral must reach and which far terms it skips
	// (observerLoss); the guess moves no bound.
	fit, fitErr := s.linearFit(m, k)
	vs := append([]float64{m.VarRecon()}, m.VarAdv()...)
	// Every observer's first quadratures are laid out, and their work
	// checked against the cap, before the first panel is evaluated; each
	// then refines within its own share of the cap (its first work and an
	// equal part of what is left), so that which one hits it does not
	// depend on scheduling.
	quads := make([]mQuad, len(vs))
	var work float64
	for i, v := range vs {
		if v <= 0 {
			continue
		}
		guess := 0.0
		if fitErr == nil {
			guess = fit.Recon
			if i > 0 {
				guess = fit.Adv[i-1]
			}
		}
		if quads[i], err = s.firstQuad(v, guess); err != nil {
			return nil, err
		}
		work += quads[i].f.work
	}
	if work > q.MaxWork {
		return nil, fmt.Errorf("%w: the f quadratures need %.3g integrand evaluations, beyond the cap %.3g (%d faces, %d cuts)",
			ErrCannotCertify, work, q.MaxWork, len(s.cont), len(s.cuts))
	}
	bounds := make([]LossBound, len(vs))
	errs := make([]error, len(vs))
	var wg sync.WaitGroup
	for i, v := range vs {
		if v <= 0 {
			continue // the side information determines X: loss 0
		}
		budget := quads[i].f.work + (q.MaxWork-work)/float64(len(vs))
		wg.Go(func() { bounds[i], errs[i] = s.observerLoss(v, quads[i], budget) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	cert := &GaussAnalysis{Bounds: bounds, Box: box, Faces: len(s.cont) + len(s.disc), Atoms: s.atomFaces, Collapsed: len(s.disc) - s.atomFaces}
	floor := scaleFloor * vx
	adv := make([]float64, len(vs)-1)
	for i, b := range bounds {
		rel := (b.Hi - b.Lo) / max(b.Value, floor)
		cert.Change = max(cert.Change, rel)
		if i > 0 {
			adv[i-1] = b.Lo
		}
	}
	cert.Losses = loss.New(bounds[0].Hi, adv)
	if !(cert.Change <= q.Target) {
		worst := 0
		for i, b := range bounds {
			if (b.Hi-b.Lo)/max(b.Value, floor) >= (bounds[worst].Hi-bounds[worst].Lo)/max(bounds[worst].Value, floor) {
				worst = i
			}
		}
		b := bounds[worst]
		return nil, fmt.Errorf("%w: loss %d lies in [%.6g, %.6g], a stated relative error %.2g above the tolerance %.2g (quadrature %.2g, tails %.2g; %d faces, %d f nodes, %d M nodes)",
			ErrCannotCertify, worst, b.Lo, b.Hi, cert.Change, q.Target, b.Quad, b.Tail, cert.Faces, b.FNodes, b.MNodes)
	}
	if fitErr != nil {
		return nil, fitErr
	}
	cert.Fit = fit
	return cert, nil
}

// gaussSetup is what every observer shares: the box, the faces and the
// cuts of F.
type gaussSetup struct {
	q          GaussQuad
	mu, vx, sx float64
	a          float64 // the box half-width in x
	box        network.Box
	cont       []cface    // faces the f quadrature integrates
	disc       []discFace // atoms and collapsed faces: points of F
	atomFaces  int        // faces where k is constant
	loGroups   int        // the genie's distinct atom values
	hiGroups   int        // the garbling's clusters
	cuts       []float64  // values of F at the continuous faces' vertices
	jumps      []bool     // cuts where A, B, C may jump (layCuts)
	// ctx stops the quadratures between panels; steps counts the panels.
	ctx   context.Context
	steps *progress.Steps
}

// panelDone counts a panel integrated and reports ctx's error once it has
// ended.
func (s *gaussSetup) panelDone() error {
	s.steps.Add(1)
	if s.ctx == nil {
		return nil
	}
	return s.ctx.Err()
}

// mNode is a node of an observer's M quadrature: m and its Kronrod and
// Gauss weights against the density of M.
type mNode struct{ m, wk, wg float64 }

// mQuad is an observer's M quadrature (the trapezoid rule's steps over
// μ ± mSpan·σ_M, evaluated within reach·σ_M), its skip radii and its f
// quadrature laid out on them, before any evaluation.
type mQuad struct {
	steps      int
	reach      float64
	skipBudget float64 // what the skipped terms may change the loss by (kCutsFor)
	kCut       cutRadii
	nodes      []mNode
	outK, outG float64 // the weights of the trapezoid nodes beyond reach
	f          fPlan
}

// observerQuad lays out an observer's quadratures for these choices.
func (s *gaussSetup) observerQuad(v float64, steps int, reach, skipBudget float64) (mQuad, error) {
	q := mQuad{steps: steps, reach: reach, skipBudget: skipBudget, nodes: []mNode{{m: s.mu, wk: 1, wg: 1}}}
	if sm := math.Sqrt(max(s.vx-v, 0)); sm > 0 {
		q.nodes, q.outK, q.outG = mNodesTrapezoid(s.mu, sm, steps, reach)
	}
	q.kCut = s.kCutsFor(q.nodes, skipBudget)
	var err error
	q.f, err = s.planF(v, q.nodes, q.kCut)
	return q, err
}

// firstQuad is observerQuad with the choices made from guess, a rough value
// of the loss (the linear fit's): M steps of at most √v/2 (the loss given
// M = m varies over the prior width √v: no feature hides between nodes)
// and c·σ_M/2 (mSteps), the reach for v·P(|U| > reach) ≤ tau/16 of it and
// the skip radii for a skip bound of tau/32 of it: proven bounds, which
// cost M nodes and skip radius at every face where they are tighter.
//
// Where the limits ask for more steps than maxMSteps allows, the rule of
// twice the step could not see the loss given M = m alias at the nodes'
// spacing (a privatizer periodic in x at that spacing makes T_h and T_2h
// agree at any error), so that is ErrCannotCertify.
func (s *gaussSetup) firstQuad(v, guess float64) (mQuad, error) {
	tau, floor := s.q.Target/8, scaleFloor*s.vx
	sm := math.Sqrt(max(s.vx-v, 0))
	steps, ok := mSteps(sm, v, tau, s.maxMSteps())
	if !ok {
		return mQuad{}, fmt.Errorf("%w: the M rule needs more than %d steps to step at most √v = %.3g over M ∈ μ ± %d·σ_M (σ_M = %.3g): the side information is too precise for the quadrature",
			ErrCannotCertify, s.maxMSteps(), math.Sqrt(v), mSpan, sm)
	}
	return s.observerQuad(v, steps, mReach(v, tau/16*max(guess, floor)), tau/32*max(guess, floor))
}

// maxMSteps caps the M rule's steps: one panel stores four values per M
// node (MaxStore), so a rule beyond it could not run a single panel.
func (s *gaussSetup) maxMSteps() int { return max(1024, s.q.MaxStore/4) }

// observerLoss certifies E[Var(X | F, M)] for an observer with
// v = Var[X | side] > 0, starting from the quadratures q and within budget
// integrand evaluations: the genie's in-box loss (Value) and the garbling's
// (Value + Merge) by the same quadratures, their stated error (Quad: the
// quadratures' estimates, the skipped terms and the conservation defect)
// and the tails. The M step is halved while the M rule's error is above
// tau/2 of the loss; the nodes beyond reach, whose loss given m lies in
// [0, v], are not evaluated, and reach and kCut grow while what they leave
// out is above tau/8 of the loss found.
func (s *gaussSetup) observerLoss(v float64, q mQuad, budget float64) (LossBound, error) {
	sm := math.Sqrt(max(s.vx-v, 0))
	floor := scaleFloor * s.vx
	tail := s.tailBound(v, sm)
	garble := s.garbleBound(v)
	tau := s.q.Target / 8
	moms := make([]discMoment, len(s.disc))
	var lb LossBound
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			var err error
			if q, err = s.observerQuad(v, q.steps, q.reach, q.skipBudget); err != nil {
				return LossBound{}, err
			}
		}
		fr, err := s.fIntegral(q.f, tau, &budget)
		if err != nil {
			return LossBound{}, err
		}
		hLo, hHi, discErr, cons := s.nodeLosses(v, q.nodes, fr, moms)
		value, valueHi, mErr := mSums(q.nodes, hLo, hHi, sm > 0)
		// The nodes left out add T_h's part in [0, v·outK] (Tail) and move
		// |T_h − T_2h| by at most v·max(outK, outG) (Quad).
		mErr += v * max(q.outK, q.outG)
		cut := v * q.outK
		lb = LossBound{Value: value, Merge: max(valueHi-value, 0) + garble, FNodes: fr.fNodes, MNodes: len(q.nodes)}
		lb.Conservation = cons
		skip := s.skipBound(q.nodes, q.kCut)
		lb.Quad = fr.err + discErr + mErr + cons + skip
		lb.Tail = tail + cut
		// The choices made from the guess must hold for the value found.
		okM := mErr <= tau/2*max(value, floor)
		okCut := cut <= tau/8*max(value, floor) && skip <= tau/8*max(value, floor)
		if (okM && okCut) || attempt == 5 {
			break
		}
		if !okM {
			if q.steps*2 > s.maxMSteps() {
				break // the stated error stands: the rule already steps within √v
			}
			q.steps *= 2
		}
		if !okCut {
			q.reach = max(q.reach, mReach(v, tau/16*max(value, floor)))
			q.skipBudget = min(q.skipBudget, tau/32*max(value, floor))
		}
	}
	lb.Lo = max(lb.Value-lb.Quad, 0)
	lb.Hi = lb.Value + lb.Merge + lb.Quad + lb.Tail
	return lb, nil
}

// nodeLosses is, per M node, the genie's (hLo) and the garbling's (hHi)
// loss given M = m: the f integral of the continuous faces plus the
// discrete faces' part; and, weighted over the nodes, the discrete faces'
// stated error and the conservation defect. moms is scratch.
func (s *gaussSetup) nodeLosses(v float64, nodes []mNode, fr fResult, moms []discMoment) (hLo, hHi []float64, discErr, cons float64) {
	hLo, hHi = make([]float64, len(nodes)), make([]float64, len(nodes))
	for n, nd := range nodes {
		s.discMoments(v, nd.m, moms)
		lo, eLo := discLoss(moms, s.loGroups, func(i int) int { return s.disc[i].loGroup })
		hi, eHi := discLoss(moms, s.hiGroups, func(i int) int { return s.disc[i].hiGroup })
		hLo[n], hHi[n] = fr.h[n]+lo, fr.h[n]+hi
		discErr += nd.wk * max(eLo, eHi)
		got := [3]float64{fr.mom[0][n], fr.mom[1][n], fr.mom[2][n]}
		var discE [3]float64
		for _, mm := range moms {
			for q := range 3 {
				got[q] += mm.k[q]
				discE[q] += mm.e[q]
			}
		}
		cons += nd.wk * conservationDefect(got, discE, s.boxMoments(v, nd.m))
	}
	return hLo, hHi, discErr, cons
}

// mSums integrates hLo and hHi over M by the nodes' weights (wk) and, when
// M varies (spread), estimates the rule's error by the rule of twice the
// step (wg): |T_h − T_2h|, the error of the coarser rule, a pessimistic
// estimate of the finer one's.
func mSums(nodes []mNode, hLo, hHi []float64, spread bool) (value, valueHi, mErr float64) {
	var gLo, gHi float64
	for n, nd := range nodes {
		value += nd.wk * hLo[n]
		valueHi += nd.wk * hHi[n]
		gLo += nd.wg * hLo[n]
		gHi += nd.wg * hHi[n]
	}
	if spread {
		mErr = max(math.Abs(value-gLo), math.Abs(valueHi-gHi))
	}
	return value, valueHi, mErr
}

// conservationDefect weighs the mismatch between the computed moments of
// the faces (f integrals and discrete faces) and the closed forms of the
// box: |ΔC| + 2s|ΔB| + s²|ΔA| with s² = E[W²; B]/P(B), the first-order
// change of C − B²/A under a change of the measure (posterior means of
// size s). What the discrete faces' own quadrature states (discE) is
// allowed for. It is an estimate that checks the f quadrature, not a proof:
// a panel layout that misses or overstates part of F's density shows here.
func conservationDefect(got, discE, want [3]float64) float64 {
	if !(want[0] > 0) {
		return 0
	}
	s2 := want[2] / want[0]
	var d [3]float64
	for q := range 3 {
		d[q] = max(math.Abs(got[q]-want[q])-discE[q], 0)
	}
	return d[2] + 2*math.Sqrt(s2)*d[1] + s2*d[0]
}

// mSteps is the initial number of trapezoid steps over M ∈ μ ± mSpan·σ_M
// for the tolerance tau: the smallest even number (the coarser rule's
// nodes are every other node from both ends) for which the rule of twice
// the step, whose difference states the error, steps at most √v (the
// scale of the loss given M = m: a Gaussian smoothing over √v leaves
// e^{−2π²} ≈ 3e-9 of it at that step's frequency) and c·σ_M, where on M's
// density alone that rule errs by 2e^{−2π²/c²} (Poisson summation) =
// tau/64: c = π·√(2/ln(128/tau)), 1.27 at the default tau. ok is false
// when that number is above maxSteps: the √v limit is what makes
// |T_h − T_2h| an error estimate at all, so it is never relaxed.
func mSteps(sm, v, tau float64, maxSteps int) (steps int, ok bool) {
	c := math.Pi * math.Sqrt(2/math.Log(128/tau))
	n := 4 * mSpan / c
	if need := 4 * mSpan * sm / math.Sqrt(v); need > n {
		n = need
	}
	if !(n <= float64(maxSteps)) {
		return 0, false
	}
	steps = int(math.Ceil(n))
	steps += steps % 2
	for 4*mSpan*sm/float64(steps) > math.Sqrt(v) || 4*mSpan/float64(steps) > c {
		steps += 2 // rounding
	}
	return steps, steps <= maxSteps
}

// mReach is how far, in σ_M, the M nodes must reach for the loss given
// M = m, which lies in [0, v], to add at most budget beyond: the smallest
// multiple of 1/4 in [3, mSpan] with v·P(|U| > reach) ≤ budget.
func mReach(v, budget float64) float64 {
	r := 3.0
	for r < mSpan && v*math.Erfc(r/math.Sqrt2) > budget {
		r += 0.25
	}
	return r
}

// mNodesTrapezoid places the trapezoid rule's steps+1 equispaced nodes over
// M ∈ μ ± mSpan·σ_M, weighted by M's normal density (wk), with the weights
// of the rule of twice the step on the even nodes (wg), and returns those
// within μ ± reach·σ_M and the weights of the others (outK, outG). For an
// analytic integrand decaying like M's density the trapezoid rule converges
// exponentially in 1/step (its error is the integrand's Fourier transform
// at 2π/step), so |T_h − T_2h| is the error of T_2h, far above T_h's. The
// panel evaluation relies on the nodes being equispaced (panelEval's
// exponential recurrences).
func mNodesTrapezoid(mu, sm float64, steps int, reach float64) (nodes []mNode, outK, outG float64) {
	h := 2 * mSpan / float64(steps)
	for i := range steps + 1 {
		z := -mSpan + h*float64(i)
		d := stdnormal.Density(z)
		nd := mNode{m: mu + sm*z, wk: h * d}
		if i%2 == 0 {
			nd.wg = 2 * h * d
		}
		if i == 0 || i == steps {
			nd.wk /= 2
			nd.wg /= 2
		}
		if math.Abs(z) > reach {
			outK += nd.wk
			outG += nd.wg
			continue
		}
		nodes = append(nodes, nd)
	}
	return nodes, outK, outG
}

// tailBound bounds what the mass outside the box B (and M beyond
// μ ± mSpan·σ_M) can add to an observer's loss: the estimator that
// returns the in-box posterior mean, in [μ − a, μ + a], loses at most
// 2(X − μ)² + 2a² there, so the loss exceeds the in-box value by at most
// 2E[(X − μ)²; ∉B] + 2a²·P(∉B) (X and R independent, normal tails in
// closed form); beyond |M − μ| > mSpan·σ_M the loss given M is at most
// Var[X | M] = v.
func (s *gaussSetup) tailBound(v, sm float64) float64 {
	u := s.a / s.sx
	qx := math.Erfc(u / math.Sqrt2)          // P(|X − μ| > a)
	qr := math.Erfc(s.q.RMax / math.Sqrt2)   // P(|R| > ρ)
	out := qx + qr - qx*qr                   // P(∉B)
	inX := 1 - qx - 2*u*stdnormal.Density(u) // E[Z²; |Z| ≤ u], Z = (X − μ)/σ_X
	e2 := s.vx * (1 - inX + inX*qr)          // E[(X − μ)²; ∉B]
	t := 2*e2 + 2*s.a*s.a*out
	if sm > 0 {
		// The loss given M = m is at most Var[X | M] = v.
		t += v * math.Erfc(mSpan/math.Sqrt2)
	}
	return t
}

// skipBound bounds the change of a loss from the contributions skipped
// where a level segment lies farther than √kCut (Mahalanobis) from (m, 0),
// and from the discrete faces' x beyond m ± 10√v. The faces are disjoint,
// so the mass skipped at a node is at most P(χ²₂ > kCut) = e^{−kCut/2} in
// all (each discrete face drops at most P(|N| > 10)); leaving out a part K
// of the faces at f lowers C − B²/A by at most K's E[(w − s)²] (C − B²/A is
// concave and homogeneous in (A, B, C)), s the posterior mean of the rest,
// and |w − s| ≤ 2a in the box. The loss is the nodes' weighted sum, so
// each node's bound counts with its weight.
func (s *gaussSetup) skipBound(nodes []mNode, kCut cutRadii) float64 {
	disc := float64(len(s.disc)) * math.Erfc(10/math.Sqrt2)
	var b float64
	for n, nd := range nodes {
		b += nd.wk * (math.Exp(-kCut.k[n]/2) + disc)
	}
	return b * 4 * s.a * s.a
}

// cutRadii are the squared skip radii kCut of the M nodes, k[n] for node
// n, and their largest.
type cutRadii struct {
	k   []float64
	max float64
}

// uniformCut is kCut at each of n nodes.
func uniformCut(n int, kCut float64) cutRadii {
	k := make([]float64, n)
	for i := range k {
		k[i] = kCut
	}
	return cutRadii{k: k, max: kCut}
}

// kCutsFor chooses each node's kCut in [kCutMin, kCutMax] for a skipBound
// of at most budget: each node's term w·(2a)²e^{−kCut/2} is budget/N (N
// nodes), which, the work at a node growing with kCut, spends least for the
// total; a node of small weight (far out in M) skips more of its own mass.
func (s *gaussSetup) kCutsFor(nodes []mNode, budget float64) cutRadii {
	r := cutRadii{k: make([]float64, len(nodes))}
	share := max(budget, 1e-300) / float64(len(nodes))
	for n, nd := range nodes {
		k := 2 * math.Log(nd.wk*4*s.a*s.a/share)
		r.k[n] = min(max(k, kCutMin), kCutMax)
		r.max = max(r.max, r.k[n])
	}
	return r
}

// LinearFit is the best linear-Gaussian approximation F ≈ aX + bR + c of a
// privatizer in L²(P_X ⊗ P_R) (least squares over the model's X and the noise
// R): a = Cov(k, X)/Var[X], b = E[k·R], c = E[k] − a·E[X]. Residual is the
// mean squared error of the fit and Nonlinearity = Residual/Var[F], the share
// of F's variance that no linear-Gaussian privatizer explains (0 for an
// exactly linear privatizer). Losses are the exact losses of the fitted
// privatizer (gauss.LinearLosses, Appendix A), not of the learned one.
type LinearFit struct {
	A            float64 `json:"a"`
	B            float64 `json:"b"`
	C            float64 `json:"c"`
	VarF         float64 `json:"var_f"`
	Residual     float64 `json:"residual"`
	Nonlinearity float64 `json:"nonlinearity"`
	loss.Losses
}

// hermiteNormal returns n Gauss–Hermite nodes and weights for E[g(U)],
// U ~ N(0,1): u = √2·t and w/√π for the nodes t and weights w of ∫e^{−t²}.
func hermiteNormal(n int) (u, w []float64) {
	u, w = make([]float64, n), make([]float64, n)
	quad.Hermite{}.FixedLocations(u, w, math.Inf(-1), math.Inf(1))
	for i := range u {
		u[i] *= math.Sqrt2
		w[i] /= math.Sqrt(math.Pi)
	}
	return u, w
}

// centered returns E_r[k], E_r[k·R] and Var_r(k) for the profile, exactly;
// the variance is computed about the mean on each piece, so it keeps its
// precision when the mean is large.
func (p *profile) centered() (e, er, v float64) {
	e, er, _ = p.moments()
	p.segments(func(ra, rb, a, b float64) {
		m0, m1, m2 := stdnormal.Moments(ra, rb)
		c := a - e
		v += c*c*m0 + 2*c*b*m1 + b*b*m2
	})
	return e, er, max(v, 0)
}

// linearFit computes the least-squares linear-Gaussian fit of k from its
// exact r-moments (profiles of k(x, ·)) at 64 Gauss–Hermite nodes over X
// and the exact losses of the fitted privatizer. It is informative only.
func (s *gaussSetup) linearFit(m *gauss.Model, k Privatizer) (LinearFit, error) {
	u, om := hermiteNormal(64)
	xs := make([]float64, len(u))
	eK, eKR, vK := make([]float64, len(u)), make([]float64, len(u)), make([]float64, len(u))
	var p profile
	var scratch []float64
	var err error
	po := profileOpts{rRow: 4.5, rStep: 1.0 / 64}
	for a, ua := range u {
		xs[a] = s.mu + s.sx*ua
		if scratch, err = k.build(xs[a], po, &p, scratch); err != nil {
			return LinearFit{}, err
		}
		eK[a], eKR[a], vK[a] = p.centered()
	}
	var xbar float64
	for a := range om {
		xbar += om[a] * xs[a]
	}
	var ek, b, varX, covKX, meanVar float64
	for a, x := range xs {
		ek += om[a] * eK[a]
		b += om[a] * eKR[a]
		varX += om[a] * (x - xbar) * (x - xbar)
		meanVar += om[a] * vK[a]
	}
	var varMean float64
	for a, x := range xs {
		d := eK[a] - ek
		covKX += om[a] * d * (x - xbar)
		varMean += om[a] * d * d
	}
	fit := LinearFit{A: covKX / varX, B: b}
	fit.C = ek - fit.A*xbar
	// Var[k] = E[Var_r k] + Var_x(E_r k); the fit explains a²Var[X] + b²
	// (X and R are independent), the rest is the residual.
	fit.VarF = meanVar + varMean
	fit.Residual = max(fit.VarF-fit.A*fit.A*varX-fit.B*fit.B, 0)
	if fit.VarF > 0 {
		fit.Nonlinearity = fit.Residual / fit.VarF
	}
	l, err := m.LinearLosses(gauss.Linear{A: fit.A, B: fit.B, C: fit.C})
	if err != nil {
		return fit, fmt.Errorf("bayes: losses of the linear fit: %w", err)
	}
	fit.Losses = l
	return fit, nil
}
