package gauss

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mmds-project/mmds/loss"
)

// The achievable envelope (docs/gauss.md, "The achievable envelope").
//
// Every family contributes exactly evaluated points (L_R, min_i L_i). Running
// mechanism A with probability λ and B otherwise, and revealing which one ran
// (F' = (J, F_J), J independent of everything), gives every observer the loss
// λ·L^A + (1 − λ)·L^B exactly: the Bayes estimator conditions on J. With K
// adversaries the objective of the mixture is min_i (λL_i^A + (1−λ)L_i^B) ≥
// λ·min_i L_i^A + (1−λ)·min_i L_i^B, so the upper concave envelope of the
// points (L_R, min_i L_i) is achievable, and the mixture realizing it may do
// better still (At reports its exact losses).

// Grid sizes of the family searches (default envelope).
const (
	envModuloPoints = 480
	envLinearPoints = 48
	envNestedDeltas = 20
	envQuantDeltas  = 24
	envMaxCells     = 100 // cells per standard deviation of the least informed observer
)

// envNestedLabels are the K searched for nested quantizers.
var envNestedLabels = [...]int{2, 3, 4, 6, 8, 12, 16}

// Envelope is the upper concave envelope of the exactly evaluated points of
// every family, with each family's own Pareto points for reports.
type Envelope struct {
	m        *Model
	vy       float64
	hull     []Achievable            // vertices, L_R increasing, from (0, 0) to (V_Y, min V_i)
	silent   Achievable              // erasure λ = 0 (F independent of X): the optimum for D ≥ V_Y
	families map[string][]Achievable // each family's points, L_R increasing
}

// Envelope returns the model's achievable envelope, computed once (a few
// hundred milliseconds at most) and cached; safe for concurrent use.
func (m *Model) Envelope() *Envelope {
	return m.env()
}

// BestAchievable returns the best mechanism known for threshold D ≥ 0: the
// point of the achievable envelope at L_R = min(D, V_Y), the mechanism that
// attains it (a family member, or a mixture of two with the flag revealed)
// and its exact losses. See Envelope.
func (m *Model) BestAchievable(d float64) (Achievable, error) { return m.Envelope().At(d) }

// UpperBound returns an upper bound on the optimum of problem (1) at
// threshold D ≥ 0 (docs/gauss.md, "Upper bounds"): min_i U_i with
// U_i = Var[X | Z_i] (adversary i can ignore F) when Q_i < 0, and
// U_i = D'/(1 + Q_i D'), D' = min(D, V_Y), when Q_i ≥ 0: an adversary at
// least as well informed as the reconstructor never loses more than
// Proposition 1's value (the I-MMSE argument of docs/gauss.md). If every
// Q_i ≥ 0 the bound equals Proposition 1's objective, which is then the
// exact optimum. Q_i = 0 is decided with the rounding bound of the Schur
// complements (computeVariances).
// At D = 0 < V_Y the optimum is 0: the reconstructor's posterior can be a
// point mass only if F determines X.
func (m *Model) UpperBound(d float64) float64 {
	dp := math.Min(d, m.vRecon)
	if dp == 0 && m.vRecon > 0 {
		return 0
	}
	u := make([]float64, len(m.vAdv))
	for i, v := range m.vAdv {
		u[i] = v
		if q := inv(v) - inv(m.vRecon); q >= 0 && m.vRecon > 0 {
			u[i] = math.Min(v, advLoss(dp, m.vRecon, v))
		}
	}
	return loss.Min(u)
}

// Family returns the Pareto points (L_R increasing, min adversary loss
// increasing) of one family's search, without time-sharing.
func (e *Envelope) Family(name string) []Achievable { return e.families[name] }

// Vertices returns the envelope's vertices.
func (e *Envelope) Vertices() []Achievable { return append([]Achievable(nil), e.hull...) }

// At returns the envelope at threshold D ≥ 0.
func (e *Envelope) At(d float64) (Achievable, error) {
	if math.IsNaN(d) || d < 0 {
		return Achievable{}, fmt.Errorf("gauss: distortion threshold D = %g: must be ≥ 0", d)
	}
	if d >= e.vy {
		return e.silent, nil
	}
	best := e.hullAt(d)
	// Proposition 1's mechanism at exactly D: where an adversary is stronger
	// than the reconstructor its curve is concave and can lie above the
	// chords between the grid's linear points, and above a vertex at D.
	if d > 0 {
		if lin := e.linear(d); lin.MinAdv > best.MinAdv {
			return lin, nil
		}
	}
	return best, nil
}

// hullAt returns the hull's point at L_R = d < V_Y: a vertex, or the
// time-sharing of the two around d (or the single modulo step between them
// when that is better).
func (e *Envelope) hullAt(d float64) Achievable {
	h := e.hull
	j := sort.Search(len(h), func(j int) bool { return h[j].Recon >= d })
	switch {
	case j == len(h):
		return h[len(h)-1]
	case h[j].Recon == d || j == 0:
		return h[j]
	}
	a, b := h[j-1], h[j]
	best := mixAt(a, b, d)
	if s, ok := e.moduloBetween(a, b, d); ok && s.MinAdv >= best.MinAdv {
		best = s
	}
	return best
}

// moduloBetween refines a hull segment between two modulo points: the
// single lattice step Δ between theirs whose reconstructor loss is exactly d
// (bisection; L_R is continuous in Δ and the ends bracket d), which often
// beats time-sharing the two grid points.
func (e *Envelope) moduloBetween(a, b Achievable, d float64) (Achievable, bool) {
	if a.Mechanism.Family != FamilyModulo || b.Mechanism.Family != FamilyModulo {
		return Achievable{}, false
	}
	lo, hi := a.Mechanism.Delta, b.Mechanism.Delta // L_R(lo) < d < L_R(hi)
	for range 60 {
		mid := (lo + hi) / 2
		if ModuloLoss(e.vy, mid) <= d {
			lo = mid
		} else {
			hi = mid
		}
	}
	mech := Modulo(lo) // L_R ≤ d
	return Achievable{Losses: e.m.observe(mech), Mechanism: mech}, true
}

// linear returns Proposition 1's mechanism at 0 < D < V_Y with its losses.
func (e *Envelope) linear(d float64) Achievable {
	mech := LinearSNR(1/d - 1/e.vy)
	return Achievable{Losses: e.m.observe(mech), Mechanism: mech}
}

// mixAt returns the time-sharing of the hull vertices a and b (a.Recon <
// d < b.Recon) whose reconstructor loss is d, with the flag revealed. The
// smaller weight is computed from its own distance and the larger as its
// complement: 1 − w for a w near 1 would carry an absolute error of u, i.e.
// a relative error u·b.Recon/d in the reconstructor's loss, which breaks
// L_R ≤ D for small D. The weights are then moved towards a by ulps until
// the mixture's reconstructor loss, computed as Losses computes it, is at
// most d.
func mixAt(a, b Achievable, d float64) Achievable {
	span := b.Recon - a.Recon
	wa, wb := (b.Recon-d)/span, (d-a.Recon)/span
	if wa < wb {
		wb = 1 - wa
	} else {
		wa = 1 - wb
	}
	out := mix(a, b, wa, wb)
	for i := 0; i < 64 && out.Recon > d && wb > 0; i++ {
		wb = math.Nextafter(wb, 0)
		wa = 1 - wb
		out = mix(a, b, wa, wb)
	}
	return out
}

// mix returns the time-sharing of a (probability wa) and b (wb = 1 − wa),
// with the flag revealed. Two erasures make an erasure.
func mix(a, b Achievable, wa, wb float64) Achievable {
	adv := make([]float64, len(a.Adv))
	for i := range adv {
		adv[i] = wa*a.Adv[i] + wb*b.Adv[i]
	}
	out := Achievable{Losses: loss.New(wa*a.Recon+wb*b.Recon, adv)}
	if a.Mechanism.Family == FamilyErasure && b.Mechanism.Family == FamilyErasure {
		out.Mechanism = Erasure(wa**a.Mechanism.Lambda + wb**b.Mechanism.Lambda)
		return out
	}
	out.Mechanism = Mechanism{Family: FamilyMixture, Parts: []Part{
		{Weight: wa, Mechanism: a.Mechanism, Losses: a.Losses},
		{Weight: wb, Mechanism: b.Mechanism, Losses: b.Losses},
	}}
	return out
}

// candidates returns the mechanisms searched for the envelope.
func (m *Model) candidates() []Mechanism {
	out := []Mechanism{Erasure(1), Erasure(0)}
	vy := m.vRecon
	if vy == 0 {
		return out
	}
	for i := 1; i < envLinearPoints; i++ {
		d := vy * float64(i) / envLinearPoints
		out = append(out, LinearSNR(1/d-1/vy))
	}
	// Scales: the standard deviations of X given each side set.
	lo, hi := math.Sqrt(vy), math.Sqrt(vy)
	for _, v := range m.vAdv {
		if v > 0 {
			lo, hi = math.Min(lo, math.Sqrt(v)), math.Max(hi, math.Sqrt(v))
		}
	}
	// Modulo: s = √v/Δ from 0.04 (loss ~e^{-78}·v) to 4 (loss ≈ v).
	for _, d := range logGrid(lo/4, hi/0.04, envModuloPoints) {
		out = append(out, Modulo(d))
	}
	sy := math.Sqrt(vy)
	// Cell mechanisms cost O(√v/δ) per observer and node; cells narrower
	// than hi/envMaxCells are left out of the search (only the search
	// shrinks: every point kept is still exact).
	for _, d := range logGrid(0.04*sy, 2*sy, envNestedDeltas) {
		for _, k := range envNestedLabels {
			if d >= hi/envMaxCells {
				out = append(out, Nested(d, k))
			}
		}
	}
	for _, d := range logGrid(0.2*sy, 12*sy, envQuantDeltas) {
		if d >= hi/envMaxCells {
			out = append(out, Quantizer(d, 0), Quantizer(d, d/2))
		}
	}
	return out
}

// logGrid returns n ≥ 2 log-spaced values from a to b.
func logGrid(a, b float64, n int) []float64 {
	out := make([]float64, n)
	r := math.Log(b / a)
	for i := range out {
		out[i] = a * math.Exp(r*float64(i)/float64(n-1))
	}
	return out
}

// buildEnvelope takes the candidates' losses from the table when it holds
// the model (precomputed.go: the paper's, on the builds that compute them
// bit for bit as the table says), else evaluates every candidate (in
// parallel; each result lands in its own slot, so the envelope does not
// depend on scheduling), and takes the upper concave hull.
func (m *Model) buildEnvelope() *Envelope {
	cands := m.candidates()
	pts, ok := m.tabulatedPoints(cands)
	if !ok {
		pts = m.evaluate(cands)
	}
	e := &Envelope{m: m, vy: m.vRecon, families: map[string][]Achievable{}}
	byFam := map[string][]Achievable{}
	for _, p := range pts {
		byFam[p.Mechanism.Family] = append(byFam[p.Mechanism.Family], p)
	}
	for f, ps := range byFam {
		e.families[f] = pareto(ps)
	}
	e.hull = upperHull(pts)
	e.silent = pts[1] // candidates()[1] is Erasure(0)
	return e
}

// evaluate returns each candidate with its exact losses.
func (m *Model) evaluate(cands []Mechanism) []Achievable {
	pts := make([]Achievable, len(cands))
	parallel(len(cands), 0, nil, func(i int) {
		pts[i] = Achievable{Losses: m.observe(cands[i]), Mechanism: cands[i]}
	})
	return pts
}

// pareto returns the points not dominated (lower or equal L_R and higher
// min adversary loss), L_R increasing.
func pareto(ps []Achievable) []Achievable {
	s := append([]Achievable(nil), ps...)
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Recon != s[j].Recon {
			return s[i].Recon < s[j].Recon
		}
		return s[i].MinAdv > s[j].MinAdv
	})
	var out []Achievable
	for _, p := range s {
		if len(out) == 0 || p.MinAdv > out[len(out)-1].MinAdv {
			out = append(out, p)
		}
	}
	return out
}

// upperHull returns the vertices of the upper concave envelope of the
// points (L_R, min L_i) over [0, max L_R], by Andrew's monotone chain on the
// Pareto points.
func upperHull(ps []Achievable) []Achievable {
	var h []Achievable
	for _, p := range pareto(ps) {
		for len(h) >= 2 {
			a, b := h[len(h)-2], h[len(h)-1]
			// drop b if it lies on or below the chord from a to p
			if (b.MinAdv-a.MinAdv)*(p.Recon-a.Recon) <= (p.MinAdv-a.MinAdv)*(b.Recon-a.Recon) {
				h = h[:len(h)-1]
				continue
			}
			break
		}
		h = append(h, p)
	}
	return h
}

// Bracket is one threshold's row of the comparison: Proposition 1's point
// (the linear-Gaussian class, the paper's reference), the best achievable
// mechanism known and the upper bound on the optimum. The exact optimum lies
// in [Achievable.MinAdv, UpperBound]. Optimum, when the optimum search ran,
// holds its numerical estimate (never a bound) and its mechanism.
type Bracket struct {
	Prop1Optimum
	Achievable Achievable
	UpperBound float64
	Optimum    *OptimumEstimate `json:"optimum,omitempty"`
}

// Numerical returns the numerical bracket of the optimum search:
// [best achievable, min(estimate, upper bound)], and false when the search
// did not run. Its upper end is a numerical estimate, not a bound.
func (b Bracket) Numerical() (lo, hi float64, ok bool) {
	if b.Optimum == nil {
		return 0, 0, false
	}
	return b.Achievable.MinAdv, math.Min(b.Optimum.Estimate, b.UpperBound), true
}

// offer replaces the bracket's achievable mechanism by a when a is better,
// and reports whether it did; an a above the upper bound is an error
// wrapping ErrBracketInconsistent.
func (b *Bracket) offer(a Achievable) (bool, error) {
	if !(a.MinAdv > b.Achievable.MinAdv) {
		return false, nil
	}
	nb := *b
	nb.Achievable = a
	if err := nb.check(); err != nil {
		return false, err
	}
	*b = nb
	return true, nil
}

// withPoints returns the envelope with extra, exactly evaluated mechanisms
// among its points (the hull recomputed; the families unchanged).
func (e *Envelope) withPoints(extra []Achievable) *Envelope {
	ne := *e
	ne.hull = upperHull(append(append([]Achievable(nil), e.hull...), extra...))
	return &ne
}

// Bracket returns the comparison row at threshold D ≥ 0. It is an error
// wrapping ErrBracketInconsistent when the best achievable value exceeds the
// upper bound beyond BracketTol (Bracket.State).
func (m *Model) Bracket(d float64) (Bracket, error) {
	p, err := m.Optimum(d)
	if err != nil {
		return Bracket{}, err
	}
	a, err := m.BestAchievable(d)
	if err != nil {
		return Bracket{}, err
	}
	b := Bracket{Prop1Optimum: p, Achievable: a, UpperBound: m.UpperBound(d)}
	if err := b.check(); err != nil {
		return Bracket{}, err
	}
	return b, nil
}

// String is a short description such as "modulo Δ=3.1" or
// "0.37×modulo Δ=6.1 + 0.63×erasure λ=0".
func (mech Mechanism) String() string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	switch mech.Family {
	case FamilyErasure:
		return "erasure λ=" + g(*mech.Lambda)
	case FamilyLinear:
		if mech.SNRInfinite {
			return "linear F=X"
		}
		return "linear SNR=" + g(*mech.SNR)
	case FamilyModulo:
		return "modulo Δ=" + g(mech.Delta)
	case FamilyNested:
		return fmt.Sprintf("nested δ=%s K=%d", g(mech.Delta), mech.Labels)
	case FamilyQuantizer:
		return fmt.Sprintf("quantizer δ=%s offset=%s", g(mech.Delta), g(*mech.Offset))
	case FamilyKernel:
		return fmt.Sprintf("kernel cells %s wide, %d labels", g(mech.Delta), mech.Labels)
	case FamilyMixture:
		parts := make([]string, len(mech.Parts))
		for i, p := range mech.Parts {
			parts[i] = g(p.Weight) + "×" + p.Mechanism.String()
		}
		return strings.Join(parts, " + ")
	}
	return mech.Family
}
