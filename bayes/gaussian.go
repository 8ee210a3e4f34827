package bayes

import (
	"cmp"
	"fmt"
	"github.com/mmds-project/mmds/loss"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/gauss"
)

// GaussQuad sets the numerical integration of the Gaussian certificate (see
// the package documentation and docs/verify.md for the scheme). The zero value
// of a field means the default beside it.
type GaussQuad struct {
	// Levels is the number of refinement levels always computed: from one
	// level to the next both the bin width and the x step halve, the last
	// at (BinsPerNoise, XPerScale) (default 3; see also ExtraLevels).
	Levels int
	// BinsPerNoise is the number of bins per noise standard deviation
	// σ_n = √E[Var(F | X)] at the finest level (default 16: soft bins of
	// width h add about h²/6 to the noise variance, (1/16)²/6 ≈ 6.5e-4 of
	// it; the x step follows h through XPerBin, so the cost grows as
	// BinsPerNoise²).
	BinsPerNoise float64
	// XPerScale is the number of x grid steps per resolution scale
	// min(√Var[X|S], σ_n/√E[(∂k/∂x)²]) at the finest level (default 8).
	XPerScale float64
	// XPerBin is the number of x grid steps per h/G, the width in x over
	// which k(x, r) crosses one bin of width h at the steepest slope G =
	// max|∂k/∂x| seen (default 2). Where k(x, ·) is flat or nearly flat in
	// r, F | X = x has (near-)atoms and P(J = j | x) is a hat of width
	// 2h/G in x; a coarser grid aliases it and the binned loss falls below
	// the Bayes loss (measured: −0.23% at D = 0.005 with the x step
	// sized from the noise alone). A privatizer without noise keeps the
	// grid of XPerScale.
	XPerBin float64
	// MNodes is the number of Gauss–Hermite nodes over each observer's
	// sufficient statistic M = E[X | side] (default 32; fewer, at least 8,
	// for an observer whose M spreads over less than half its prior width
	// √Var[X | side]).
	MNodes int
	// RRow bounds the noise range integrated exactly for the binned
	// losses; the mass beyond goes with the end values (default 4.5:
	// P(|R| > 4.5) ≈ 6.8e-6).
	RRow float64
	// RStep is the noise grid step for privatizers that are not piecewise
	// linear (default 1/64).
	RStep float64
	// MaxBins and MaxX cap the number of bins (default 2^20) and of x grid
	// points (default 2^18); a capped grid is coarser and says so in Grid.
	MaxBins, MaxX int
	// Target and ExtraLevels: while the stated error (ErrorBound) exceeds
	// Target, up to ExtraLevels further levels halve the bins and the x
	// step again (defaults 0.005, the verdicts' DefaultQuadTol, and 2; −1:
	// none). A privatizer whose noise is much smaller in some range of x
	// than its RMS σ_n needs them; each costs about 4 times the last level.
	Target      float64
	ExtraLevels int
}

func (q GaussQuad) withDefaults() GaussQuad {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defI := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defI(&q.Levels, 3)
	def(&q.BinsPerNoise, 16)
	def(&q.XPerScale, 8)
	def(&q.XPerBin, 2)
	defI(&q.MNodes, 32)
	def(&q.RRow, 4.5)
	def(&q.RStep, 1.0/64)
	defI(&q.MaxBins, 1<<20)
	defI(&q.MaxX, 1<<18)
	def(&q.Target, 0.005)
	defI(&q.ExtraLevels, 2)
	return q
}

func (q GaussQuad) validate() error {
	switch {
	case q.Levels < 1 || q.Levels > 12:
		return fmt.Errorf("bayes: GaussQuad.Levels = %d: must be in [1, 12]", q.Levels)
	case !(q.BinsPerNoise >= 1) || math.IsInf(q.BinsPerNoise, 0):
		return fmt.Errorf("bayes: GaussQuad.BinsPerNoise = %g: must be finite and ≥ 1", q.BinsPerNoise)
	case !(q.XPerScale >= 1) || math.IsInf(q.XPerScale, 0):
		return fmt.Errorf("bayes: GaussQuad.XPerScale = %g: must be finite and ≥ 1", q.XPerScale)
	case !(q.XPerBin >= 0.25) || math.IsInf(q.XPerBin, 0):
		return fmt.Errorf("bayes: GaussQuad.XPerBin = %g: must be finite and ≥ 0.25", q.XPerBin)
	case q.MNodes < 1 || q.MNodes > 200:
		return fmt.Errorf("bayes: GaussQuad.MNodes = %d: must be in [1, 200]", q.MNodes)
	case !(q.RRow >= 3) || q.RRow > gridCut:
		return fmt.Errorf("bayes: GaussQuad.RRow = %g: must be in [3, %d]", q.RRow, gridCut)
	case !(q.RStep > 0) || q.RStep > 1:
		return fmt.Errorf("bayes: GaussQuad.RStep = %g: must be in (0, 1]", q.RStep)
	case !(q.Target > 0) || math.IsInf(q.Target, 0):
		return fmt.Errorf("bayes: GaussQuad.Target = %g: must be finite and > 0", q.Target)
	case q.ExtraLevels < -1 || q.ExtraLevels > 3:
		return fmt.Errorf("bayes: GaussQuad.ExtraLevels = %d: must be in [-1, 3]", q.ExtraLevels)
	case q.MaxBins < 1<<q.Levels || q.MaxX < 16:
		return fmt.Errorf("bayes: GaussQuad.MaxBins = %d, MaxX = %d: too small", q.MaxBins, q.MaxX)
	}
	return nil
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

// GaussLevel is one refinement of the binned Bayes losses: the losses of the
// Bayes estimators that see F only through its bin (upper bounds on the Bayes
// losses given F itself, up to the quadrature error).
type GaussLevel struct {
	BinWidth float64 `json:"bin_width"`
	Bins     int     `json:"bins"`
	DX       float64 `json:"dx"` // x grid step
	NX       int     `json:"nx"` // x grid points
	loss.Losses
}

// GaussGrid describes the integration grid of a Gaussian certificate.
type GaussGrid struct {
	NoiseSD  float64 `json:"noise_sd"`  // σ_n = √E[Var(F | X)]
	SlopeRMS float64 `json:"slope_rms"` // √E[(∂k/∂x)²], by central differences
	SlopeMax float64 `json:"slope_max"` // max|∂k/∂x| over the same points
	DX       float64 `json:"dx"`        // x grid step
	NX       int     `json:"nx"`        // x grid points
	MNodes   int     `json:"m_nodes"`   // Gauss–Hermite nodes over M per observer (at most; see GaussQuad.MNodes)
	Capped   bool    `json:"capped"`    // MaxX or MaxBins made the grid coarser than asked
}

// GaussCertificate holds the exact-loss analysis of a privatizer on a
// Gaussian model: the Bayes (MMSE) losses of the reconstructor and every
// adversary for the privatizer itself (finest refinement level), the
// refinement study, and the best linear-Gaussian fit.
type GaussCertificate struct {
	loss.Losses
	Levels []GaussLevel `json:"refinement"`
	// Change is the number verdicts compare with Tolerances.Quad: the
	// stated error ErrorBound (the raw losses of every level are in Levels).
	Change float64 `json:"change"`
	// ErrorBound is the stated relative error of every certified loss L:
	// the exact Bayes loss lies in [L·(1 − ErrorBound), L·(1 + ErrorTail)].
	// The binned losses decrease toward the exact loss as the bins halve
	// (data processing); ErrorBound extrapolates the last change between
	// levels, relative to max(L, 1e-6·Var[X]), assuming at least first
	// order convergence (see errorBound; measured against an exact-in-x
	// reference in docs/verify.md).
	ErrorBound float64 `json:"error_bound"`
	// ErrorTail bounds, relative, how far the certified loss may lie below
	// the exact one: the non-garbling parts of the scheme (x and M
	// quadrature, the noise mass beyond ±RRow moved to the end values),
	// measured against an exact-in-x reference at D = 0.005 and D = D_max.
	ErrorTail float64   `json:"error_tail"`
	Fit       LinearFit `json:"linear_fit"`
	Grid      GaussGrid `json:"grid"`
}

// window is the half-width, in standard deviations √Var[X | side], of the
// x window over which an observer's prior X | M is summed: the Gaussian
// weight beyond is below e^{−24.5} ≈ 2e-11.
const window = 7

// gaussErrorTail is GaussCertificate.ErrorTail: a bound on the shortfall of
// a certified loss below the exact one that the non-garbling approximations
// leave (x and M quadrature, noise tails beyond ±RRow). It is empirical, not
// proven: with the default grid no certified loss fell below the exact-in-x
// reference of the tests; it is 10 times the largest shortfall seen with a
// coarser x step (XPerBin 1.5 on a network whose F | X has an atom: 5e-5).
const gaussErrorTail = 5e-4

// scaleFloor is the absolute floor of relative changes, as a fraction of
// Var[X]: losses below it are compared on that scale.
const scaleFloor = 1e-6

// observer is one party: its side information enters only through
// M = E[X | side] ~ N(μ_X, σ_X² − v), with X | M ~ N(M, v), v = Var[X | side].
type observer struct {
	v      float64   // Var[X | side]
	nodes  []float64 // Gauss–Hermite nodes over M
	weight []float64 // their normalized weights
}

// CertifyGauss computes the Bayes losses of privatizer k on model m by
// numerical integration (the scheme of the package documentation), its
// refinement study, and its best linear-Gaussian fit.
func CertifyGauss(m *gauss.Model, k Privatizer, q GaussQuad) (*GaussCertificate, error) {
	q = q.withDefaults()
	if err := q.validate(); err != nil {
		return nil, err
	}
	if k.K == nil {
		return nil, fmt.Errorf("bayes: privatizer has no function K")
	}
	s, err := newGaussSetup(m, k, q)
	if err != nil {
		return nil, err
	}

	cert := &GaussCertificate{Grid: GaussGrid{NoiseSD: s.noise, SlopeRMS: s.slope, SlopeMax: s.slopeMax, MNodes: q.MNodes}}
	floor := scaleFloor * s.vx
	for l := 0; ; l++ {
		if l >= q.Levels && (l >= q.Levels+max(q.ExtraLevels, 0) || errorBound(cert.Levels, floor) <= q.Target) {
			break
		}
		f := math.Ldexp(1, l-(q.Levels-1)) // 2^−(levels−1−l)
		lev, fit, capped, err := s.level(q.BinsPerNoise*f, q.XPerScale*f, l == q.Levels-1)
		if err != nil {
			return nil, err
		}
		cert.Grid.Capped = cert.Grid.Capped || capped
		cert.Levels = append(cert.Levels, lev)
		if fit != nil {
			cert.Fit = *fit
		}
	}
	last := cert.Levels[len(cert.Levels)-1]
	cert.Losses = last.Losses
	cert.ErrorBound = errorBound(cert.Levels, floor)
	cert.Change, cert.ErrorTail = cert.ErrorBound, gaussErrorTail
	return cert, nil
}

// newGaussSetup prepares what every refinement level shares: the observers
// (reconstructor first, then the adversaries), the resolution scales and the
// x range.
func newGaussSetup(m *gauss.Model, k Privatizer, q GaussQuad) (*gaussSetup, error) {
	s := &gaussSetup{m: m, k: k, q: q, po: profileOpts{rRow: q.RRow, rStep: q.RStep}}
	s.mu, s.vx = m.Mean()[m.PrivateIndex()], m.VarX()
	s.sx = math.Sqrt(s.vx)

	// Observers: reconstructor first, then the adversaries.
	vs := append([]float64{m.VarRecon()}, m.VarAdv()...)
	for _, v := range vs {
		gx, gw := hermiteNormal(mNodes(q.MNodes, s.vx, v))
		s.obs = append(s.obs, newObserver(s.mu, s.vx, v, gx, gw))
	}

	// Resolution scales from a coarse Gauss–Hermite pass over (x, r).
	noise, slope, slopeMax, err := scales(k, s.mu, s.sx, s.po)
	if err != nil {
		return nil, err
	}
	s.noise, s.slope, s.slopeMax = noise, slope, slopeMax
	s.scale = math.Inf(1)
	for _, o := range s.obs {
		if o.v > 0 {
			s.scale = min(s.scale, math.Sqrt(o.v))
		}
	}
	if math.IsInf(s.scale, 1) { // every side set determines X: all losses 0
		s.scale = s.sx
	}
	// The x grid resolves noise/slope, the width over which F's
	// distribution given x moves by its own spread. A privatizer without
	// noise (F a function of X, possibly with jumps the slope estimate
	// misses) gets the finest grid; below 1/64 of the prior scale the grid
	// would only chase a (near-)deterministic privatizer's steps, and the
	// refinement study shows what stopping there costs.
	switch {
	case noise == 0:
		s.scale /= 64
	case slope > 0:
		s.scale = min(s.scale, max(noise/slope, s.scale/64))
	}
	// The x grid covers every observer's window M ± window·√v and X ± 8σ_X.
	s.lo, s.hi = s.mu-8*s.sx, s.mu+8*s.sx
	for _, o := range s.obs {
		w := window * math.Sqrt(o.v)
		for _, m := range o.nodes {
			s.lo, s.hi = min(s.lo, m-w), max(s.hi, m+w)
		}
	}

	return s, nil
}

// gaussSetup is what every refinement level of CertifyGauss shares.
type gaussSetup struct {
	m          *gauss.Model
	k          Privatizer
	q          GaussQuad
	po         profileOpts
	mu, vx, sx float64 // E[X], Var[X], √Var[X]
	obs        []observer
	noise      float64 // σ_n
	slope      float64 // √E[(∂k/∂x)²]
	slopeMax   float64 // max|∂k/∂x| at the scales points
	scale      float64 // the x resolution scale: min(√v_min, σ_n/slope)
	lo, hi     float64 // x grid range
}

// level computes the binned Bayes losses on the grid with bpn bins per noise
// standard deviation and xps x steps per resolution scale, and the linear fit
// when fit is set.
func (s *gaussSetup) level(bpn, xps float64, fit bool) (GaussLevel, *LinearFit, bool, error) {
	var lev GaussLevel
	capped := false
	step := s.scale / xps
	if s.noise > 0 && s.slopeMax > 0 && !math.IsInf(s.slopeMax, 0) {
		// Resolve the hats in x: P(J = j | x) varies over h/G where F | X
		// has (near-)atoms (see GaussQuad.XPerBin).
		step = min(step, s.noise/(bpn*s.q.XPerBin*s.slopeMax))
	}
	nx := int(math.Ceil((s.hi-s.lo)/step)) + 1
	if nx > s.q.MaxX {
		nx, capped = s.q.MaxX, true
	}
	lev.DX = (s.hi - s.lo) / float64(nx-1)
	lev.NX = nx
	xs := make([]float64, nx)
	for a := range xs {
		xs[a] = s.lo + float64(a)*lev.DX
	}

	// Profiles of k(x, ·) at every grid point, their exact r-moments and
	// the range of released values.
	profs := make([]profile, nx)
	var eK, eKR, vK []float64
	if fit {
		eK, eKR, vK = make([]float64, nx), make([]float64, nx), make([]float64, nx)
	}
	fmin, fmax := math.Inf(1), math.Inf(-1)
	var scratch []float64
	var err error
	for a, x := range xs {
		if scratch, err = s.k.build(x, s.po, &profs[a], scratch); err != nil {
			return lev, nil, capped, err
		}
		if fit {
			eK[a], eKR[a], vK[a] = profs[a].centered()
		}
		pr := &profs[a]
		for _, f := range pr.f[pr.lo : pr.hi+1] {
			fmin, fmax = min(fmin, f), max(fmax, f)
		}
	}
	var lf *LinearFit
	if fit {
		l, err := linearFit(s.m, xs, eK, eKR, vK, s.mu, s.sx)
		if err != nil {
			return lev, nil, capped, err
		}
		lf = &l
	}

	bn := binning{f0: fmin, h: 1, n: 1}
	if fr := fmax - fmin; fr > 0 {
		// Without noise (a deterministic privatizer) the bins are sized
		// from the range of F instead: 2·bpn of them.
		h := fr / (2 * bpn)
		if s.noise > 0 {
			h = s.noise / bpn
		}
		n := int(math.Ceil(fr / h))
		if n > s.q.MaxBins || n <= 0 {
			n, capped = s.q.MaxBins, true
		}
		bn = binning{f0: fmin, h: fr / float64(n), n: n}
	}
	lev.BinWidth, lev.Bins = bn.h, bn.n+1
	rows := make([]row, nx)
	for a := range profs {
		bn.fill(&profs[a], &rows[a])
	}
	// The observers share the rows and run concurrently, each with its own
	// scratch.
	losses := make([]float64, len(s.obs))
	var wg sync.WaitGroup
	for i, o := range s.obs {
		wg.Go(func() {
			A, B := make([]float64, bn.n+1), make([]float64, bn.n+1)
			losses[i] = o.mmse(xs, rows, A, B)
		})
	}
	wg.Wait()
	lev.Losses = loss.New(losses[0], losses[1:])
	return lev, lf, capped, nil
}

// errorBound returns the stated relative error of the finest level's losses
// (GaussCertificate.ErrorBound): for each loss, with Δ₁ and Δ₂ its last two
// changes between levels and ρ = |Δ₂|/|Δ₁| their ratio, the remainder of a
// geometric convergence |Δ₂|·ρ/(1 − ρ), and never less than |Δ₂| (the
// remainder at first order, ρ = 1/2); ρ ≥ 0.9 counts as not converging
// (9|Δ₂|). Two levels give |Δ₂| alone; one level states no error (1).
func errorBound(levels []GaussLevel, floor float64) float64 {
	n := len(levels)
	if n < 2 {
		return 1
	}
	loss := func(l GaussLevel, i int) float64 {
		if i == 0 {
			return l.Recon
		}
		return l.Adv[i-1]
	}
	var e float64
	for i := range 1 + len(levels[n-1].Adv) {
		last := loss(levels[n-1], i)
		d2 := math.Abs(last - loss(levels[n-2], i))
		factor := 1.0
		if n >= 3 {
			if d1 := math.Abs(loss(levels[n-2], i) - loss(levels[n-3], i)); d1 > 0 {
				rho := min(d2/d1, 0.9)
				factor = max(1, rho/(1-rho))
			}
		}
		e = max(e, factor*d2/max(math.Abs(last), floor))
	}
	return e
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

// mNodes is the number of Gauss–Hermite nodes over M for an observer with
// v = Var[X | side]: its loss given M = m varies over the prior width √v, and
// M's spread √(σ_X² − v) is that many standardized units, so an observer
// whose M spreads over less than √v/2 needs proportionally fewer nodes than
// n (at least 8, never more than n).
func mNodes(n int, vx, v float64) int {
	if v <= 0 {
		return n
	}
	r := 2 * math.Sqrt(max(vx-v, 0)/v)
	return min(n, max(8, int(math.Ceil(float64(n)*r))))
}

// newObserver places the Gauss–Hermite nodes over M ~ N(μ, σ_X² − v). The
// lightest nodes are dropped while their total weight stays below 1e-10
// (they change the loss by less than that fraction of v).
func newObserver(mu, vx, v float64, gx, gw []float64) observer {
	o := observer{v: max(v, 0)}
	sm := math.Sqrt(max(vx-v, 0))
	if sm == 0 {
		o.nodes, o.weight = []float64{mu}, []float64{1}
		return o
	}
	order := make([]int, len(gw))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(gw[a], gw[b]) })
	drop := make([]bool, len(gw))
	var dropped float64
	for _, i := range order[:len(order)-1] {
		if dropped+gw[i] > 1e-10 {
			break
		}
		dropped += gw[i]
		drop[i] = true
	}
	var sum float64
	for i, u := range gx {
		if !drop[i] {
			o.nodes = append(o.nodes, mu+sm*u)
			o.weight = append(o.weight, gw[i])
			sum += gw[i]
		}
	}
	for i := range o.weight {
		o.weight[i] /= sum
	}
	return o
}

// mmse returns E[Var(X | bin(F), M)] for the observer: for each node m of M,
// the prior X | M = m ~ N(m, v) is discretized on the x grid (trapezoid
// weights ω_a ∝ exp(−(x_a − m)²/2v), normalized over the window |x − m| ≤ 7√v)
// and, with W = X − m,
//
//	E[Var(X | bin, m)] = Σ_a ω_a w_a² − Σ_j B_j²/A_j,
//	A_j = Σ_a ω_a P(j | x_a),  B_j = Σ_a ω_a w_a P(j | x_a),
//
// which is ≥ 0 by Cauchy–Schwarz. A and B are scratch of length ≥ #bins,
// zero on entry and on return.
func (o observer) mmse(xs []float64, rows []row, A, B []float64) float64 {
	if o.v == 0 {
		return 0 // the side information determines X
	}
	s := math.Sqrt(o.v)
	x0, dx := xs[0], xs[1]-xs[0]
	var total float64
	for i, m := range o.nodes {
		ia := max(int(math.Ceil((m-window*s-x0)/dx)), 0)
		ib := min(int(math.Floor((m+window*s-x0)/dx)), len(xs)-1)
		var sw, s2 float64
		lo, hi := len(A), -1
		// ω_a by the recurrence ω_{a+1} = ω_a·c_a, c_{a+1} = c_a·q with
		// q = exp(−dx²/v): one exp per window instead of one per point.
		w0 := xs[ia] - m
		om := math.Exp(-0.5 * w0 * w0 / o.v)
		c := math.Exp(-(2*w0*dx + dx*dx) / (2 * o.v))
		q := math.Exp(-dx * dx / o.v)
		for a := ia; a <= ib; a, om, c = a+1, om*c, c*q {
			w := xs[a] - m
			sw += om
			s2 += om * w * w
			r := &rows[a]
			ow := om * w
			base := A[r.Lo : r.Lo+len(r.Mass)]
			baseB := B[r.Lo : r.Lo+len(r.Mass)]
			for t, pm := range r.Mass {
				base[t] += om * pm
				baseB[t] += ow * pm
			}
			lo, hi = min(lo, r.Lo), max(hi, r.Lo+len(r.Mass)-1)
		}
		if sw == 0 {
			continue
		}
		var expl float64
		for j := lo; j <= hi; j++ {
			if A[j] > 0 {
				expl += B[j] * B[j] / A[j]
			}
			A[j], B[j] = 0, 0
		}
		// Dividing by sw normalizes the weights: Σ_j B_j²/A_j scales like ω.
		total += o.weight[i] * max((s2-expl)/sw, 0)
	}
	return total
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

// scales estimates, from a 24×24 Gauss–Hermite pass over (X, R), the noise
// standard deviation σ_n = √E[Var(k(X, R) | X)] (exact r-moments of
// profiles) and the RMS slope √E[(∂k/∂x)²] (central differences), and the
// largest slope |∂k/∂x| at those x and at r on a grid of step 1/8 over
// [−RRow, RRow]. They only size the grids.
func scales(k Privatizer, mu, sx float64, po profileOpts) (noise, slope, slopeMax float64, err error) {
	u, w := hermiteNormal(24)
	var p profile
	var scratch []float64
	eps := 1e-6 * max(sx, 1)
	dk := func(x, r float64) float64 { return math.Abs(k.K(x+eps, r)-k.K(x-eps, r)) / (2 * eps) }
	for i, ui := range u {
		x := mu + sx*ui
		if scratch, err = k.build(x, po, &p, scratch); err != nil {
			return 0, 0, 0, err
		}
		_, _, v := p.centered()
		noise += w[i] * v
		for j, uj := range u {
			d := dk(x, uj)
			slope += w[i] * w[j] * d * d
			slopeMax = max(slopeMax, d)
		}
		for r := -po.rRow; r <= po.rRow; r += 0.125 {
			slopeMax = max(slopeMax, dk(x, r))
		}
	}
	if math.IsNaN(slope) || math.IsInf(slope, 0) || math.IsNaN(slopeMax) {
		slope, slopeMax = math.Inf(1), math.Inf(1)
	}
	return math.Sqrt(noise), math.Sqrt(slope), slopeMax, nil
}

// linearFit computes the least-squares linear-Gaussian fit of k from the
// per-x r-moments on the x grid (trapezoid weights of X ~ N(μ, σ_X²),
// normalized) and the exact losses of the fitted privatizer.
func linearFit(m *gauss.Model, xs, eK, eKR, vK []float64, mu, sx float64) (LinearFit, error) {
	var sw, xbar float64
	om := make([]float64, len(xs))
	for a, x := range xs {
		u := (x - mu) / sx
		om[a] = math.Exp(-0.5 * u * u)
		sw += om[a]
	}
	for a := range om {
		om[a] /= sw
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
