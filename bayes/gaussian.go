package bayes

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/network"
)

// ErrCannotCertify reports a privatizer whose Bayes losses cannot be given
// with a sound error bound: a cost cap was hit, the privatizer is not
// piecewise affine, or the validated error exceeds the tolerance. Errors
// wrap it with the reason; the numbers behind a verdict would not be sound.
var ErrCannotCertify = errors.New("cannot certify")

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
	// MaxWork caps the integrand evaluations (face × f node × M node) per
	// observer (default 4e8, about a minute of one core).
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
	def(&q.MaxWork, 4e8)
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
// [Lo, Hi]. Value is the in-box loss E[Var(X | F, M, 1_B); B] by
// quadrature, Quad its validated quadrature error (absolute) and Tail the
// closed-form bound of what the mass outside the box can add (absolute):
// Lo = Value − Quad, Hi = Value + Quad + Tail.
type LossBound struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Value float64 `json:"value"`
	Quad  float64 `json:"quad_error"`
	Tail  float64 `json:"tail"`
	// FNodes and MNodes are the f and M quadrature nodes used.
	FNodes int `json:"f_nodes"`
	MNodes int `json:"m_nodes"`
}

// GaussCertificate holds the exact-loss analysis of a privatizer on a
// Gaussian model. Losses are the sound ends of the intervals: the
// reconstructor's upper end (the certified distortion D̂) and every
// adversary's lower end.
type GaussCertificate struct {
	loss.Losses
	// Bounds are the intervals, the reconstructor's first.
	Bounds []LossBound `json:"bounds"`
	// Change is the stated relative error of the certificate, the number
	// verdicts compare with Tolerances.Quad: max over losses of
	// (Hi − Lo)/max(Value, 1e-6·Var[X]).
	Change float64     `json:"change"`
	Box    network.Box `json:"box"`
	Faces  int         `json:"faces"`
	Atoms  int         `json:"atom_faces"`
	Fit    LinearFit   `json:"linear_fit"`
}

// scaleFloor is the absolute floor of relative errors, as a fraction of
// Var[X]: losses below it are compared on that scale.
const scaleFloor = 1e-6

// kCut: a face's contribution at f for a node m is skipped when its
// Gaussian factor e^{−K/2} is below e^{−40}; skipBound bounds what that
// drops (see observerLoss).
const kCut = 80

// mSpan: the M integral runs over μ ± mSpan·σ_M.
const mSpan = 8

// CertifyGauss computes the Bayes losses of privatizer k on model m as
// certified intervals (the scheme of the package documentation) and its
// best linear-Gaussian fit. A privatizer without Faces, a cap exceeded or a
// stated error above q.Target is an error wrapping ErrCannotCertify.
func CertifyGauss(m *gauss.Model, k Privatizer, q GaussQuad) (*GaussCertificate, error) {
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
	s := &gaussSetup{q: q, mu: mu, vx: vx, sx: sx, a: a, box: box}
	if err := s.addFaces(faces); err != nil {
		return nil, err
	}

	vs := append([]float64{m.VarRecon()}, m.VarAdv()...)
	bounds := make([]LossBound, len(vs))
	errs := make([]error, len(vs))
	var wg sync.WaitGroup
	for i, v := range vs {
		wg.Go(func() { bounds[i], errs[i] = s.observerLoss(v) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	cert := &GaussCertificate{Bounds: bounds, Box: box, Faces: len(s.cont) + len(s.atoms), Atoms: len(s.atoms)}
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
	fit, err := s.linearFit(m, k)
	if err != nil {
		return nil, err
	}
	cert.Fit = fit
	return cert, nil
}

// gaussSetup is what every observer shares: the box and the faces.
type gaussSetup struct {
	q          GaussQuad
	mu, vx, sx float64
	a          float64 // the box half-width in x
	box        network.Box
	cont       []cface    // faces where k is not constant
	atoms      []atomFace // faces where k is constant, by value
	atomValues int        // distinct atom values
}

// cface is a face on which F = c0 + cx·x + cr·r with (cx, cr) ≠ 0, and the
// range [flo, fhi] of F over it.
type cface struct {
	x, r       []float64
	c0, cx, cr float64
	flo, fhi   float64
}

// atomFace is a face on which F = c0; group numbers faces of equal value.
type atomFace struct {
	x, r  []float64
	c0    float64
	group int
}

// addFaces checks and classifies the faces.
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
		area += polyArea(f.X, f.R)
		if f.Cx == 0 && f.Cr == 0 {
			s.atoms = append(s.atoms, atomFace{x: f.X, r: f.R, c0: f.C0})
			continue
		}
		c := cface{x: f.X, r: f.R, c0: f.C0, cx: f.Cx, cr: f.Cr, flo: math.Inf(1), fhi: math.Inf(-1)}
		for v := range f.X {
			fv := c.c0 + c.cx*f.X[v] + c.cr*f.R[v]
			c.flo, c.fhi = min(c.flo, fv), max(c.fhi, fv)
		}
		s.cont = append(s.cont, c)
	}
	// The faces must cover the box: a hole would drop probability mass.
	boxArea := (s.box.X1 - s.box.X0) * (s.box.R1 - s.box.R0)
	if math.Abs(area-boxArea) > 1e-9*boxArea {
		return fmt.Errorf("bayes: the faces cover an area %.10g of the box's %.10g: they must partition it", area, boxArea)
	}
	// Atoms of equal value (up to rounding of the affine forms) are one
	// value of F: the posterior mixes them.
	slices.SortFunc(s.atoms, func(a, b atomFace) int { return cmp.Compare(a.c0, b.c0) })
	for i := range s.atoms {
		if i > 0 && s.atoms[i].c0-s.atoms[i-1].c0 > 1e-12*(1+math.Abs(s.atoms[i].c0)) {
			s.atomValues++
		}
		s.atoms[i].group = s.atomValues
	}
	if len(s.atoms) > 0 {
		s.atomValues++
	}
	return nil
}

// mNode is a node of an observer's M quadrature: m and its Kronrod and
// Gauss weights against the density of M.
type mNode struct{ m, wk, wg float64 }

// observerLoss certifies E[Var(X | F, M)] for an observer with
// v = Var[X | side].
func (s *gaussSetup) observerLoss(v float64) (LossBound, error) {
	if v <= 0 {
		return LossBound{}, nil // the side information determines X
	}
	sm := math.Sqrt(max(s.vx-v, 0))
	floor := scaleFloor * s.vx
	tail := s.tailBound(v, sm)
	tau := s.q.Target / 8
	// M panels: two, doubled while the M rule's error is above tau/2 (the
	// loss given M = m varies over the prior width √v).
	panels := 2
	var lb LossBound
	for attempt := 0; ; attempt++ {
		var nodes []mNode
		if sm == 0 {
			nodes = []mNode{{m: s.mu, wk: 1, wg: 1}}
		} else {
			nodes = mNodesKronrod(s.mu, sm, panels)
		}
		h, fErr, fNodes, err := s.fIntegral(v, nodes, tau)
		if err != nil {
			return LossBound{}, err
		}
		var value, mErr float64
		for p := 0; p < len(nodes); p += 15 {
			var k, g float64
			for n := p; n < min(p+15, len(nodes)); n++ {
				k += nodes[n].wk * h[n]
				g += nodes[n].wg * h[n]
			}
			value += k
			if sm > 0 {
				mErr += math.Abs(k - g)
			}
		}
		lb = LossBound{Value: value, FNodes: fNodes, MNodes: len(nodes)}
		lb.Quad = fErr + mErr + s.skipBound(v)
		lb.Tail = tail
		if mErr <= tau/2*max(value, floor) || attempt == 5 || sm == 0 {
			break
		}
		panels *= 2
	}
	lb.Lo = max(lb.Value-lb.Quad, 0)
	lb.Hi = lb.Value + lb.Quad + lb.Tail
	return lb, nil
}

// mNodesKronrod places Gauss–Kronrod panels over M ∈ μ ± mSpan·σ_M,
// weighted by M's normal density.
func mNodesKronrod(mu, sm float64, panels int) []mNode {
	var out []mNode
	h := 2 * mSpan / float64(panels)
	for p := range panels {
		c := -mSpan + h*(float64(p)+0.5)
		for t, u := range gkNodes {
			z := c + h/2*u
			d := phi(z) * h / 2
			out = append(out, mNode{m: mu + sm*z, wk: d * gkWeights[t], wg: d * gWeights[t]})
		}
	}
	return out
}

// tailBound bounds what the mass outside the box B (and M beyond
// μ ± mSpan·σ_M) can add to an observer's loss: the estimator that
// returns the in-box posterior mean, in [μ − a, μ + a], loses at most
// 2(X − μ)² + 2a² there, so the loss exceeds the in-box value by at most
// 2E[(X − μ)²; ∉B] + 2a²·P(∉B) (X and R independent, normal tails in
// closed form); the M truncation adds the same bound over |M − μ| > mSpan·σ_M
// with E[(X − μ)² | M] = v + (M − μ)².
func (s *gaussSetup) tailBound(v, sm float64) float64 {
	u := s.a / s.sx
	qx := math.Erfc(u / math.Sqrt2)        // P(|X − μ| > a)
	qr := math.Erfc(s.q.RMax / math.Sqrt2) // P(|R| > ρ)
	out := qx + qr - qx*qr                 // P(∉B)
	inX := 1 - qx - 2*u*phi(u)             // E[Z²; |Z| ≤ u], Z = (X − μ)/σ_X
	e2 := s.vx * (1 - inX + inX*qr)        // E[(X − μ)²; ∉B]
	t := 2*e2 + 2*s.a*s.a*out
	if sm > 0 {
		qm := math.Erfc(mSpan / math.Sqrt2)
		em := qm + 2*mSpan*phi(mSpan) // E[U²; |U| > mSpan]
		t += 2*(v*qm+sm*sm*em) + 2*s.a*s.a*qm
	}
	return t
}

// skipBound bounds the change of an observer's loss from the face
// contributions skipped where K > kCut: each drops at most its density
// mass P(|N| > √kCut) times the largest squared distance (2a)², per face.
func (s *gaussSetup) skipBound(v float64) float64 {
	return float64(len(s.cont)) * math.Erfc(math.Sqrt(kCut/2)) * 4 * s.a * s.a
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
		m0, m1, m2 := segMoments(ra, rb)
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
