package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
)

// The certificates here are computed without the MIPs they certify, and
// re-derive every risk from the model's primitives (prior, channels,
// losses) rather than calling mip's risk code.

// binaryTerm is c + a0·s0 + a1·s1, one joint probability of the binary model.
type binaryTerm struct{ c, a0, a1 float64 }

func (t binaryTerm) at(s0, s1 float64) float64 { return t.c + t.a0*s0 + t.a1*s1 }

// binaryCells returns, for an observer behind BSC(q), the four cells
// (f, y) of its MAP loss Σ_{f,y} min_x P(X=x) P(F=f|X=x) P(Y=y|X=x)
// (paper, Appendix B) as pairs of affine terms in (s0, s1).
func binaryCells(p, q float64) [4][2]binaryTerm {
	pi := [2]float64{1 - p, p}
	w := func(x, y int) float64 {
		if x == y {
			return 1 - q
		}
		return q
	}
	var out [4][2]binaryTerm
	for f := range 2 {
		for y := range 2 {
			c := &out[2*f+y]
			// x = 0: P(F=0|X=0) = s0, P(F=1|X=0) = 1 − s0.
			k0 := pi[0] * w(0, y)
			if f == 0 {
				c[0] = binaryTerm{a0: k0}
			} else {
				c[0] = binaryTerm{c: k0, a0: -k0}
			}
			// x = 1: P(F=1|X=1) = s1, P(F=0|X=1) = 1 − s1.
			k1 := pi[1] * w(1, y)
			if f == 1 {
				c[1] = binaryTerm{a1: k1}
			} else {
				c[1] = binaryTerm{c: k1, a1: -k1}
			}
		}
	}
	return out
}

func binaryLoss(cells [4][2]binaryTerm, s0, s1 float64) float64 {
	var l float64
	for _, c := range cells {
		l += math.Min(c[0].at(s0, s1), c[1].at(s0, s1))
	}
	return l
}

// line is a·(s0, s1) = b.
type line struct{ a0, a1, b float64 }

// pieces returns the 16 affine pieces of a binary MAP loss: one per choice
// of the counted term in each cell.
func pieces(cells [4][2]binaryTerm) []binaryTerm {
	out := make([]binaryTerm, 0, 16)
	for mask := range 16 {
		var t binaryTerm
		for c := range 4 {
			u := cells[c][(mask>>c)&1]
			t.c += u.c
			t.a0 += u.a0
			t.a1 += u.a1
		}
		out = append(out, t)
	}
	return out
}

// BinaryOptimum computes Proposition 2's optimum γ* = max min_i L_adv,i(s)
// subject to L_recon(s) ≤ D over s ∈ [0,1]² by enumeration, without any
// solver. On each cell of the arrangement of the lines where a cell's two
// terms are equal, where two adversaries' pieces are equal and where a
// piece of L_recon equals D, every function is affine, so the maximum of
// the concave min over a polygon is attained at an intersection of two of
// those lines (or the box's edges). BinaryOptimum evaluates the exact
// losses at every such intersection that is feasible (within feasTol on
// L_recon) and returns the best value and the point attaining it.
func BinaryOptimum(m mip.Binary, d float64) (gamma, s0, s1 float64, err error) {
	if err := m.Validate(); err != nil {
		return 0, 0, 0, err
	}
	const feasTol = 1e-12
	recon := binaryCells(m.P, m.QY)
	adv := make([][4][2]binaryTerm, len(m.QZ))
	for i, q := range m.QZ {
		adv[i] = binaryCells(m.P, q)
	}
	lines := []line{{1, 0, 0}, {1, 0, 1}, {0, 1, 0}, {0, 1, 1}}
	addTerms := func(t, u binaryTerm) { // t = u
		lines = append(lines, line{t.a0 - u.a0, t.a1 - u.a1, u.c - t.c})
	}
	for _, cells := range append([][4][2]binaryTerm{recon}, adv...) {
		for _, c := range cells {
			addTerms(c[0], c[1])
		}
	}
	for _, t := range pieces(recon) {
		addTerms(t, binaryTerm{c: d})
	}
	for i := range adv {
		pi := pieces(adv[i])
		for j := i + 1; j < len(adv); j++ {
			for _, t := range pi {
				for _, u := range pieces(adv[j]) {
					addTerms(t, u)
				}
			}
		}
	}
	gamma = math.Inf(-1)
	advAt := make([]float64, len(adv))
	try := func(a, b float64) {
		if a < -1e-12 || a > 1+1e-12 || b < -1e-12 || b > 1+1e-12 {
			return
		}
		a, b = math.Min(1, math.Max(0, a)), math.Min(1, math.Max(0, b))
		if binaryLoss(recon, a, b) > d+feasTol {
			return
		}
		for i, c := range adv {
			advAt[i] = binaryLoss(c, a, b)
		}
		if v := loss.Min(advAt); v > gamma {
			gamma, s0, s1 = v, a, b
		}
	}
	for i, l := range lines {
		if l.a0 == 0 && l.a1 == 0 {
			continue
		}
		for _, k := range lines[i+1:] {
			det := l.a0*k.a1 - l.a1*k.a0
			scale := math.Hypot(l.a0, l.a1) * math.Hypot(k.a0, k.a1)
			if math.Abs(det) <= 1e-14*scale {
				continue
			}
			try((l.b*k.a1-l.a1*k.b)/det, (l.a0*k.b-l.b*k.a0)/det)
		}
	}
	if math.IsInf(gamma, -1) {
		return 0, 0, 0, fmt.Errorf("binary model at D = %g: no feasible vertex", d)
	}
	return gamma, s0, s1, nil
}

// risk is an observer's Bayes risk of one column c (an unnormalized
// conditional P(F=f|X=·)): ρ(c) = Σ_v min_a Σ_x π(x) c_x W(v|x) L(x, a)
// (docs/finite.md), with L the 0-1 loss when the observer gives none.
func risk(prior []float64, o mip.Observer, c []float64) float64 {
	n := len(prior)
	na := n
	if o.Loss != nil {
		na = len(o.Loss[0])
	}
	var total float64
	for v := range o.Channel[0] {
		best := math.Inf(1)
		for a := range na {
			var s float64
			for x := range n {
				l := 0.0
				switch {
				case o.Loss != nil:
					l = o.Loss[x][a]
				case x != a:
					l = 1
				}
				s += prior[x] * c[x] * o.Channel[x][v] * l
			}
			best = math.Min(best, s)
		}
		total += best
	}
	return total
}

// mechanismRisks returns the reconstructor's and each adversary's risk of
// the mechanism p (rows x, columns f): Σ_f ρ(P[·][f]).
func mechanismRisks(m mip.Finite, p mip.Mechanism) (recon float64, adv []float64) {
	adv = make([]float64, len(m.Adv))
	for f := range p.Outputs() {
		c := p.Column(f)
		recon += risk(m.Prior, m.Recon, c)
		for i, a := range m.Adv {
			adv[i] += risk(m.Prior, a, c)
		}
	}
	return recon, adv
}

// ReconTol is how far above D a certifying mechanism's reconstructor loss
// may be: HiGHS's primal feasibility tolerance.
const ReconTol = 1e-9

// Bracket is what is known of a finite model's global optimum γ_G at one
// threshold D (the optimum over every privatizer, any output alphabet):
// [Lower, Upper], proven by Method (CertifyGlobal, CertifyColGen), or
// nothing (Method 0) and Why.
type Bracket struct {
	Method CertMethod
	// Lower is min_i L_adv,i of Mechanism, recomputed here from the
	// model; Mechanism meets L_recon ≤ D + ReconTol (HiGHS's primal
	// feasibility tolerance is 1e-9; −Inf when it does not).
	Lower     float64
	Mechanism mip.Mechanism
	// Upper is the method's proven upper bound.
	Upper float64
	// Size is the proof's size: "%d rays" (global LP), "%d columns, %d
	// rules, proof by %s" (column generation).
	Size string
	Why  string // why there is no bracket, when there is none
}

// Gap is Upper − Lower.
func (c Bracket) Gap() float64 { return c.Upper - c.Lower }

// Certified reports whether the bracket is within its method's tolerance.
func (c Bracket) Certified() bool { return c.Gap() <= c.tol() }

// tol is the method's tolerance: CertTol, ColGenTol, NaN for none.
func (c Bracket) tol() float64 {
	switch c.Method {
	case CertGlobalLP:
		return CertTol
	case CertColGen:
		return ColGenTol
	}
	return math.NaN()
}

// CertifyGlobal solves g's LP at D once with HiGHS, taking the mechanism
// and the row duals from that one run, and turns the answer into a bracket
// that does not trust it. Neither HiGHS's objective nor its claim of
// optimality enters the bracket: the lower end is the mechanism's losses
// recomputed here, the upper end the duals repaired and evaluated here.
//
// The upper end is a weak-duality bound ν·D + Σ_x y_x, with the
// multipliers (μ, ν, y) read from the LP's row duals, made feasible here:
// the Lagrangian h(c) = Σ_i μ_i ρ_i(c) − ν ρ_recon(c) − ⟨y, c⟩ is
// positively homogeneous and linear on each cell of the arrangement of
// decision regions, so h ≤ 0 on c ≥ 0 holds once it holds at the cells'
// extreme rays; y is raised by the largest violation ε there (rays lie on
// the simplex, so this costs n·ε). The bound is exact up to the
// completeness of mip's ray enumeration (tested in package mip).
func CertifyGlobal(g *mip.Global, d float64) (Bracket, error) {
	m := g.Model()
	opt, rowDual, err := g.SolveWithDuals(d, mip.DefaultSolver())
	if err != nil {
		return Bracket{}, err
	}
	c := Bracket{Method: CertGlobalLP, Upper: math.Inf(1), Lower: math.Inf(-1), Mechanism: opt.Mechanism, Size: fmt.Sprintf("%d rays", len(g.Rays()))}
	recon, adv := mechanismRisks(m, opt.Mechanism)
	if recon <= d+ReconTol {
		c.Lower = loss.Min(adv)
	}
	n, k := m.N(), m.K()
	if len(rowDual) < n+k+1 {
		return c, errors.New("global LP: HiGHS returned no row duals")
	}
	rays := g.Rays()
	rho := make([][]float64, len(rays)) // rho[j] = (ρ_recon, ρ_adv,1..K) at ray j
	for j, v := range rays {
		rho[j] = append(rho[j], risk(m.Prior, m.Recon, v))
		for _, a := range m.Adv {
			rho[j] = append(rho[j], risk(m.Prior, a, v))
		}
	}
	mu := make([]float64, k)
	var sum float64
	for i := range k {
		mu[i] = math.Abs(rowDual[n+i])
		sum += mu[i]
	}
	if sum == 0 {
		return c, errors.New("global LP: zero adversary duals")
	}
	for i := range mu {
		mu[i] /= sum
	}
	nu := math.Abs(rowDual[n+k])
	// HiGHS's sign convention for the duals of a maximization is not
	// needed: both signs of y are tried and each is made feasible.
	for _, sign := range []float64{1, -1} {
		y := make([]float64, n)
		var ysum float64
		for x := range n {
			y[x] = sign * rowDual[x]
		}
		var eps float64
		for j, v := range rays {
			h := -nu * rho[j][0]
			for i := range k {
				h += mu[i] * rho[j][1+i]
			}
			var sv float64
			for x := range n {
				h -= y[x] * v[x]
				sv += v[x]
			}
			eps = math.Max(eps, h/sv)
		}
		for x := range n {
			ysum += y[x]
		}
		c.Upper = math.Min(c.Upper, nu*d+ysum+float64(n)*eps)
	}
	return c, nil
}

// ColGenTol is the widest bracket of column generation that counts as a
// certified optimal value. Its exact pricing adds a column only when it
// improves the reduced cost by more than 1e-9·max(1, |γ|)/n, so its proven
// bound keeps up to n times that, 1e-9·max(1, |γ|), above the master's
// value (mip's colGenRun.iterate): the bracket closes at CertTol plus
// rounding, never below. Twice CertTol covers it; γ ≤ 1 for 0-1 losses.
const ColGenTol = 2 * CertTol

// CertifyColGen runs column generation at d (HiGHS single-threaded, so the
// run is reproducible; limit bounds it, 0: none) and turns its answer into
// a bracket whose lower end does not trust it: the mechanism's losses are
// recomputed here. The upper end is the Lagrangian bound Σ π + ν·D +
// n·max(0, r̄) of the best master's multipliers, r̄ ≥ max over the simplex
// of the reduced cost as mip's pricing proved it (exact search over the
// decision rules when the run completed): exact up to the completeness of
// that search (tested in package mip against the global LP). It returns an
// error wrapping mip.ErrInterrupted when ctx ends; any other failure leaves
// the bracket unbounded (Upper = +Inf) with the reason.
func CertifyColGen(ctx context.Context, m mip.Finite, d float64, limit time.Duration) (Bracket, error) {
	c := Bracket{Method: CertColGen, Lower: math.Inf(-1), Upper: math.Inf(1)}
	so := mip.DefaultSolver()
	so.Threads = 1
	// A gap target below what the pricing can reach runs it to its end:
	// no improving column left, the bound proven by the exact search.
	res, err := m.SolveColGen(ctx, d, mip.ColGenOptions{TimeLimit: limit, GapTol: CertTol / 2, Solver: so})
	if errors.Is(err, mip.ErrInterrupted) {
		return c, err
	}
	if err != nil {
		return c, fmt.Errorf("column generation: %w", err)
	}
	c.Upper, c.Mechanism = res.Upper, res.Mechanism
	c.Size = fmt.Sprintf("%d columns, %d rules, proof by %s", res.Columns, res.Rules, res.DualBound.Proof)
	recon, adv := mechanismRisks(m, res.Mechanism)
	if recon <= d+ReconTol {
		c.Lower = loss.Min(adv)
	}
	return c, nil
}
