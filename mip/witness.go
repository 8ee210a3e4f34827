package mip

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/loss"
)

// Witnesses of optima (docs/check.md, "Optima"): the numbers that let a
// checker that trusts nothing of mmds confirm an optimum γ*(D) in exact
// rational arithmetic, from the model alone.
//
// The lower end is a privatizer that meets the distortion constraint
// exactly (its smallest adversary loss is ≤ γ*). The upper end is weak
// duality in its game form: for multipliers μ ≥ 0 (Σμ = 1) and ν ≥ 0 every
// feasible privatizer P has
//
//	min_i L_i(P) ≤ Σ_i μ_i L_i(P) − ν (L_R(P) − D),
//
// an adversary's loss Σ_z min_a ⟨·⟩ is at most that of any randomized
// estimate q(a | z) (a minimum is at most an average), and the
// reconstructor's loss is the smallest over its decision rules. Fixing a
// reconstructor rule (or only part of one) and adversary weights q makes the
// right side linear, so its maximum is read off at the vertices of the
// domain: the corners of [0, 1]² for Proposition 2, the unit columns of the
// simplex for the global optimum. The multipliers come from HiGHS's duals;
// they need not be accurate, since the bound holds for any of them.

// WitnessPrecision is the width, relative to the loss scale, to which a
// witness brackets the optimum it proves (upper − lower): mmds's LPs are
// solved to 1e-9, and the brackets measured on the committed examples are
// below 1e-9 (mip.TestWitnessBrackets).
const WitnessPrecision = 1e-8

// witnessMargin is how far below D a witness moves a privatizer whose
// reconstructor loss exceeds D in exact arithmetic (exactRiskAtMost): far
// above the rounding of a sum of a few hundred terms, far below
// WitnessPrecision.
const witnessMargin = 1e-13

// Prop2Witness proves Proposition 2's optimum at D (docs/check.md). S is a
// binary privatizer whose reconstructor loss is at most D exactly, Losses
// its losses (min_adv_loss the lower end). Every branch of L_R(s) ≤ D — a
// reconstructor decision rule on the four cells (f, y) — carries
// multipliers whose bound is at least the branch's optimum; Upper is the
// largest bound.
type Prop2Witness struct {
	D        float64       `json:"D"`
	S        [2]float64    `json:"s"`
	Losses   loss.Losses   `json:"losses"`
	Branches []Prop2Branch `json:"branches"`
	Upper    float64       `json:"upper"`
}

// Prop2Branch is one branch of Proposition 2's distortion constraint and
// its multipliers. Rule[c] is the reconstructor's estimate of X in cell
// c = 2f + y; the branch's distortion is Σ_c P(X ≠ Rule[c], F = f, Y = y),
// affine in (s0, s1), and every s with L_R(s) ≤ D meets it for some rule.
// Mu weighs the adversaries, Q[i][c] is adversary i's weight on estimate 1
// in cell c (1 − Q on estimate 0), and Nu prices the distortion. Values
// are, at the corners (s0, s1) = (0, 0), (0, 1), (1, 0), (1, 1),
//
//	Σ_i μ_i Σ_c (Q_ic·P(X=0, f, z) + (1−Q_ic)·P(X=1, f, z)) − ν·B(s),
//
// with μ normalized to sum 1, and Bound = ν·D + max Values bounds min_i
// L_i over the branch.
type Prop2Branch struct {
	Rule   [4]int       `json:"rule"`
	Mu     []float64    `json:"mu"`
	Q      [][4]float64 `json:"q"`
	Nu     float64      `json:"nu"`
	Values [4]float64   `json:"values"`
	Bound  float64      `json:"bound"`
}

// corners are the vertices of [0, 1]², where an affine function of (s0,
// s1) is largest.
var corners = [4]Privatizer{{0, 0}, {0, 1}, {1, 0}, {1, 1}}

// branchDistortion is B(s) of rule: the error terms it counts.
func (m Binary) branchDistortion(rule [4]int) affine {
	var b affine
	for c, est := range rule {
		t := m.cells(m.QY)[c][1-est]
		b = affine{b.c + t.c, b.a0 + t.a0, b.a1 + t.a1}
	}
	return b
}

// setBound sets the branch's corner values and its bound on min_i L_i
// over its feasible set at d (float64; the checker recomputes them
// exactly).
func (br *Prop2Branch) setBound(m Binary, d float64) {
	var sum float64
	for _, v := range br.Mu {
		sum += math.Max(v, 0)
	}
	b := m.branchDistortion(br.Rule)
	best := math.Inf(-1)
	for j, s := range corners {
		v := -br.Nu * b.at(s)
		for i, q := range m.QZ {
			mu := 1 / float64(len(m.QZ))
			if sum > 0 {
				mu = math.Max(br.Mu[i], 0) / sum
			}
			for c := range 4 {
				v += mu * (br.Q[i][c]*m.cells(q)[c][0].at(s) + (1-br.Q[i][c])*m.cells(q)[c][1].at(s))
			}
		}
		br.Values[j] = v
		best = math.Max(best, v)
	}
	br.Bound = br.Nu*d + best
}

// WitnessProp2 proves Proposition 2's optimum s at d: s moved, if need be,
// until its reconstructor loss is below d with a margin (along a branch
// that is active at s, toward the corner where that branch's distortion is
// least), and one LP per branch for the multipliers.
func (m Binary) WitnessProp2(ctx context.Context, d float64, s Privatizer, o SolverOptions) (Prop2Witness, error) {
	if err := m.Validate(); err != nil {
		return Prop2Witness{}, err
	}
	if err := checkD(d); err != nil {
		return Prop2Witness{}, err
	}
	s, err := m.feasibleBelow(d, s)
	if err != nil {
		return Prop2Witness{}, err
	}
	w := Prop2Witness{D: d, S: [2]float64{s.S0, s.S1}, Losses: loss.New(m.ReconLoss(s), m.AdvLosses(s)), Upper: math.Inf(-1)}
	for r := range 16 {
		rule := [4]int{r & 1, r >> 1 & 1, r >> 2 & 1, r >> 3 & 1}
		br, err := m.branchDuals(ctx, d, rule, w.Losses.MinAdv, o)
		if err != nil {
			return Prop2Witness{}, fmt.Errorf("proposition 2 witness at D = %g, branch %v: %w", d, rule, err)
		}
		br.setBound(m, d)
		w.Branches = append(w.Branches, br)
		w.Upper = math.Max(w.Upper, br.Bound)
	}
	return w, nil
}

// feasibleBelow returns s, or the nearest point toward a corner whose
// reconstructor loss is at most d − witnessMargin: L_R ≤ B for every
// branch B, B is affine, so on the segment from s to a corner c where
// B(c) is below the target, B falls linearly; the shortest such move over
// the 16 branches and 4 corners is taken (and checked exactly).
func (m Binary) feasibleBelow(d float64, s Privatizer) (Privatizer, error) {
	f := m.Finite()
	if f.exactRiskAtMost(f.Recon, s.Mechanism(), d) {
		return s, nil
	}
	target := d - witnessMargin
	best, found := math.Inf(1), false
	var to Privatizer
	for r := range 16 {
		b := m.branchDistortion([4]int{r & 1, r >> 1 & 1, r >> 2 & 1, r >> 3 & 1})
		for _, c := range corners {
			at, bc := b.at(s), b.at(c)
			if bc >= target {
				continue
			}
			if lam := math.Max(0, (at-target)/(at-bc)); lam < best {
				best, to, found = lam, c, true
			}
		}
	}
	if !found {
		return s, fmt.Errorf("D = %g: no binary privatizer has a distortion below it with a margin of %g", d, witnessMargin)
	}
	lam := best
	for range 8 {
		p := Privatizer{S0: s.S0 + lam*(to.S0-s.S0), S1: s.S1 + lam*(to.S1-s.S1)}
		if f.exactRiskAtMost(f.Recon, p.Mechanism(), d) {
			return p, nil
		}
		lam = math.Min(1, lam*1.5+1e-15)
	}
	return s, fmt.Errorf("D = %g: cannot move (%g, %g) below the distortion threshold", d, s.S0, s.S1)
}

// branchDuals solves branch rule's LP — max γ s.t. t_ic ≤ P(X=x, f, z) for
// x = 0, 1, γ ≤ Σ_c t_ic, B(s) ≤ d, s ∈ [0, 1]² — and reads its
// multipliers from the row duals. A branch no s meets gets the multipliers
// that price it below lower.
func (m Binary) branchDuals(ctx context.Context, d float64, rule [4]int, lower float64, o SolverOptions) (Prop2Branch, error) {
	k := len(m.QZ)
	mod := highsx.NewProblem(3 + 4*k) // s0, s1, γ and t of Prop2Model
	mod.Maximize = true
	mod.Upper[0], mod.Upper[1] = 1, 1
	for j := 2; j < 3+4*k; j++ {
		mod.Lower[j] = math.Inf(-1)
	}
	mod.Cost[2] = 1
	row := newRowBuilder(mod)
	m.adversaryRows(row, prop2Layout{k: k})
	b := m.branchDistortion(rule)
	row.add(math.Inf(-1), d-b.c, entry{0, b.a0}, entry{1, b.a1})
	br := Prop2Branch{Rule: rule, Mu: make([]float64, k), Q: make([][4]float64, k)}
	res, err := mod.Solve(ctx, o)
	if errors.Is(err, highsx.ErrInfeasible) || errors.Is(err, highsx.ErrUnbounded) {
		return m.infeasibleBranch(d, br, b, lower)
	}
	if err != nil {
		return br, err
	}
	if len(res.RowDual) != 9*k+1 {
		return br, fmt.Errorf("HiGHS returned %d row duals, want %d", len(res.RowDual), 9*k+1)
	}
	for i := range k {
		base := 9 * i
		for c := range 4 {
			y0, y1 := math.Max(0, res.RowDual[base+2*c]), math.Max(0, res.RowDual[base+2*c+1])
			br.Q[i][c] = 0.5
			if y0+y1 > 0 {
				br.Q[i][c] = y0 / (y0 + y1)
			}
		}
		br.Mu[i] = math.Max(0, res.RowDual[base+8])
	}
	br.Nu = math.Max(0, res.RowDual[9*k])
	normalizeOr(br.Mu)
	return br, nil
}

// normalizeOr divides v ≥ 0 by its sum, or makes it uniform when it sums to
// 0: multipliers that weigh the adversaries, a distribution.
func normalizeOr(v []float64) {
	s := sumOf(v)
	for i := range v {
		if s > 0 {
			v[i] /= s
		} else {
			v[i] = 1 / float64(len(v))
		}
	}
}

// infeasibleBranch prices a branch whose distortion exceeds d on the whole
// square: with B − d ≥ g > 0 at every corner, ν = (2 + |lower|)/g puts the
// bound below lower − 1 (every loss is in [0, 1]).
func (m Binary) infeasibleBranch(d float64, br Prop2Branch, b affine, lower float64) (Prop2Branch, error) {
	gap := math.Inf(1)
	for _, s := range corners {
		gap = math.Min(gap, b.at(s)-d)
	}
	if !(gap > 0) {
		return br, fmt.Errorf("HiGHS found the branch infeasible, but its distortion reaches %g at a corner", d+gap)
	}
	for i := range br.Mu {
		br.Mu[i] = 1 / float64(len(br.Mu))
		br.Q[i] = [4]float64{0.5, 0.5, 0.5, 0.5}
	}
	br.Nu = (2 + math.Abs(lower)) / gap
	return br, nil
}

// Duals are multipliers of the global optimum's LP (the ray LP's or column
// generation's master's, sanitized): Pi for the n row sums, Mu ≥ 0 summing
// to 1 for the adversaries, Nu ≥ 0 for the distortion.
type Duals struct {
	Pi []float64 `json:"pi"`
	Mu []float64 `json:"mu"`
	Nu float64   `json:"nu"`
}

// dualsOf sanitizes the row duals of the global LP (lpModel's rows: n row
// sums, K adversaries, the reconstructor) as column generation's master
// does.
func dualsOf(n, k int, rd []float64) Duals {
	du := Duals{Pi: make([]float64, n), Mu: make([]float64, k)}
	if len(rd) == n+k+1 {
		copy(du.Pi, rd[:n])
		for i := range du.Mu {
			du.Mu[i] = math.Max(0, -rd[n+i])
		}
		du.Nu = math.Max(0, rd[n+k])
	}
	normalizeOr(du.Mu)
	return du
}

// Duals solves the ray LP at d and returns its sanitized duals.
func (g *Global) Duals(d float64, o SolverOptions) (Duals, error) {
	_, rd, err := g.SolveWithDuals(d, o)
	if err != nil {
		return Duals{}, err
	}
	return dualsOf(g.model.N(), g.model.K(), rd), nil
}

// Multipliers returns the bound's multipliers; for a saturation proof
// (no multipliers), SaturationDuals.
func (c DualBound) Multipliers(m Finite) Duals {
	if c.Proof == ProofSaturation || len(c.Pi) != m.N() {
		return m.SaturationDuals()
	}
	return c.Duals
}

// SaturationDuals are the multipliers of the saturation bound: no
// privatizer raises an adversary's loss above its side-information-only
// loss. With μ on the adversary i whose saturation is least, ν = 0 and π =
// Σ_z k_{iz,a*(z)} for its Bayes estimates a*(z) without the release,
// rc(c) ≤ 0 on the simplex and Σ π is that saturation.
func (m Finite) SaturationDuals() Duals {
	du := Duals{Mu: make([]float64, m.K())}
	sat := m.AdvSaturation()
	i := slices.Index(sat, slices.Min(sat))
	du.Mu[i] = 1
	du.Pi = make([]float64, m.N())
	for _, ks := range lossVectors(m.Prior, m.Adv[i]) {
		best := 0
		for a, k := range ks {
			if sumOf(k) < sumOf(ks[best]) {
				best = a
			}
		}
		for x, v := range ks[best] {
			du.Pi[x] += v
		}
	}
	return du
}

func sumOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// GlobalWitness proves the global optimum at D, or brackets it
// (docs/check.md). Mechanism meets D exactly once its rows are divided by
// their sums; Losses are its losses (min_adv_loss the lower end). Dual
// proves the upper end; nil when the optimum is only a lower bound.
type GlobalWitness struct {
	D         float64     `json:"D"`
	Mechanism Mechanism   `json:"mechanism"`
	Losses    loss.Losses `json:"losses"`
	Dual      *GlobalDual `json:"dual,omitempty"`
}

// GlobalDual is the upper end of a GlobalWitness. The multipliers (Pi, Mu,
// Nu) bound every privatizer's smallest adversary loss by
//
//	Σ_x π_x + ν·D + n·max(0, r̄),  r̄ ≥ max over the simplex of rc(c) = Σ_i μ_i ρ_i(c) − ν ρ_R(c) − ⟨π, c⟩,
//
// and Pricing proves r̄ = MaxReducedCost: its leaves are partial
// reconstructor decision rules that cover every rule, each with adversary
// weights whose linear bound on rc is read off at the unit columns. Upper
// is that bound.
type GlobalDual struct {
	Duals
	Pricing        []PricingLeaf `json:"pricing"`
	MaxReducedCost float64       `json:"max_reduced_cost"`
	Upper          float64       `json:"upper"`
}

// PricingLeaf is a node of the pricing search: Rule fixes the
// reconstructor's estimate for its side values 0..len(Rule)−1 (the others
// are free), and Q[i][z][a] is adversary i's weight on estimate a at side
// value z (each Q[i][z] a distribution). With g = π + ν(Σ_{y fixed}
// k_{y,Rule[y]} + Σ_{y free} min_a k_ya), Coefficients[x] is
//
//	Σ_i μ_i Σ_z Σ_a Q[i][z][a]·k_iza[x] − g[x],
//
// k_va[x] = π(x)·W(v | x)·L(x, a) the observers' loss vectors, and its
// largest, Bound, bounds rc over the rules the leaf covers.
type PricingLeaf struct {
	Rule         []int         `json:"rule"`
	Q            [][][]float64 `json:"q"`
	Coefficients []float64     `json:"coefficients"`
	Bound        float64       `json:"bound"`
}

// MaxPricingNodes bounds the pricing search of a global witness (LPs
// solved), and MaxPricingLeaves its size: beyond either the witness gives
// the lower bound alone (the checker then says the upper bound is not
// covered). 20,000 leaves of a model with n = 6 and two adversaries are
// about 20 MB of JSON.
const (
	MaxPricingNodes  = 200_000
	MaxPricingLeaves = 20_000
)

// ErrWitnessTooLarge marks a pricing search beyond MaxPricingNodes.
var ErrWitnessTooLarge = errors.New("mip: pricing witness too large")

// pricer is the pricing search of a global witness: the pricing LP
// (pricingLP) over every estimate, whose row duals are the adversary
// weights.
type pricer struct {
	m     Finite
	du    Duals
	recon [][][]float64 // recon[y][a] = k_ya
	minK  [][]float64   // minK[y][x] = min_a k_ya[x]
	lp    *pricingLP
}

func (m Finite) newPricer(du Duals, o SolverOptions) (*pricer, error) {
	n := m.N()
	p := &pricer{m: m, du: du, recon: lossVectors(m.Prior, m.Recon)}
	var adv [][][][]float64
	for _, a := range m.Adv {
		adv = append(adv, lossVectors(m.Prior, a))
	}
	for _, ks := range p.recon {
		mk := make([]float64, n)
		for x := range mk {
			mk[x] = math.Inf(1)
			for _, k := range ks {
				mk[x] = math.Min(mk[x], k[x])
			}
		}
		p.minK = append(p.minK, mk)
	}
	var err error
	p.lp, err = newPricingLP(n, adv, o)
	return p, err
}

// cost is g of a node whose rule is prefix.
func (p *pricer) cost(prefix []int) []float64 {
	g := append([]float64(nil), p.du.Pi...)
	for y := range p.recon {
		k := p.minK[y]
		if y < len(prefix) {
			k = p.recon[y][prefix[y]]
		}
		for x, v := range k {
			g[x] += p.du.Nu * v
		}
	}
	return g
}

// leaf solves the node's LP and returns its adversary weights and bound.
func (p *pricer) leaf(ctx context.Context, prefix []int) (PricingLeaf, float64, error) {
	g := p.cost(prefix)
	res, err := p.lp.price(ctx, p.du.Mu, g)
	if err != nil {
		return PricingLeaf{}, 0, err
	}
	lf := PricingLeaf{Rule: append([]int{}, prefix...)}
	r := 1
	for _, ka := range p.lp.adv {
		qi := make([][]float64, len(ka))
		for z, ks := range ka {
			qi[z] = make([]float64, len(ks))
			for a := range ks {
				if r < len(res.RowDual) {
					qi[z][a] = math.Max(0, res.RowDual[r])
				}
				r++
			}
			normalizeOr(qi[z])
		}
		lf.Q = append(lf.Q, qi)
	}
	p.setBound(&lf, g)
	return lf, lf.Bound, nil
}

// setBound sets a leaf's coefficients and bound with cost g (PricingLeaf).
func (p *pricer) setBound(lf *PricingLeaf, g []float64) {
	lf.Bound = math.Inf(-1)
	lf.Coefficients = make([]float64, len(g))
	for x := range g {
		v := -g[x]
		for i, ka := range p.lp.adv {
			for z, ks := range ka {
				for a, k := range ks {
					v += p.du.Mu[i] * lf.Q[i][z][a] * k[x]
				}
			}
		}
		lf.Coefficients[x] = v
		lf.Bound = math.Max(lf.Bound, v)
	}
}

// search covers every reconstructor rule with leaves whose bound is at most
// target, or full rules: depth first, branching on the next side value's
// estimates that no other estimate dominates (a dominated estimate's rules
// are bounded by the dominating one's). It returns the leaves and the
// largest bound.
func (p *pricer) search(ctx context.Context, target float64) ([]PricingLeaf, float64, error) {
	var leaves []PricingLeaf
	best := math.Inf(-1)
	stack := [][]int{{}}
	for len(stack) > 0 {
		prefix := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.lp.solves >= MaxPricingNodes {
			return nil, 0, fmt.Errorf("%w: more than %d pricing LPs", ErrWitnessTooLarge, MaxPricingNodes)
		}
		lf, b, err := p.leaf(ctx, prefix)
		if err != nil {
			return nil, 0, err
		}
		if b <= target || len(prefix) == len(p.recon) {
			if len(leaves) == MaxPricingLeaves {
				return nil, 0, fmt.Errorf("%w: more than %d leaves", ErrWitnessTooLarge, MaxPricingLeaves)
			}
			leaves = append(leaves, lf)
			best = math.Max(best, b)
			continue
		}
		y := len(prefix)
		for a := len(p.recon[y]) - 1; a >= 0; a-- {
			if !dominated(p.recon[y], a) {
				stack = append(stack, append(append([]int{}, prefix...), a))
			}
		}
	}
	return leaves, best, nil
}

// WitnessGlobal proves (or brackets) the global optimum at d with the
// privatizer p and the multipliers du: p mixed, if need be, with F = X on
// outputs of its own until its distortion is below d with a margin, and the
// pricing search for r̄ with target (at least the share of WitnessPrecision
// that n·r̄ may take). du nil gives the lower bound alone.
func (m Finite) WitnessGlobal(ctx context.Context, d float64, p Mechanism, du *Duals, target float64, o SolverOptions) (GlobalWitness, error) {
	if err := m.Validate(); err != nil {
		return GlobalWitness{}, err
	}
	if err := m.checkShape(p); err != nil {
		return GlobalWitness{}, err
	}
	q, err := m.feasibleBelow(d, p)
	if err != nil {
		return GlobalWitness{}, err
	}
	w := GlobalWitness{D: d, Mechanism: q, Losses: loss.New(m.ReconLoss(q), m.AdvLosses(q))}
	if du == nil {
		return w, nil
	}
	pr, err := m.newPricer(*du, o)
	if err != nil {
		return GlobalWitness{}, err
	}
	n := float64(m.N())
	// Leaves need not bound rc below what the bracket can spare: half of
	// WitnessPrecision over the n columns' worth of r̄.
	base := du.Nu * d
	for _, v := range du.Pi {
		base += v
	}
	spare := (w.Losses.MinAdv + WitnessPrecision*m.lossScale()/2 - base) / n
	leaves, rbar, err := pr.search(ctx, math.Max(target, math.Max(spare, 0)))
	if err != nil {
		return GlobalWitness{}, fmt.Errorf("global witness at D = %g: %w", d, err)
	}
	u := du.Nu*d + n*math.Max(0, rbar)
	for _, v := range du.Pi {
		u += v
	}
	w.Dual = &GlobalDual{Duals: *du, Pricing: leaves, MaxReducedCost: rbar, Upper: u}
	return w, nil
}

// lossScale is the largest entry of any loss matrix (1 for 0-1 losses).
func (m Finite) lossScale() float64 {
	s := 0.0
	for _, o := range m.Observers() {
		s = math.Max(s, maxLoss(o.LossMatrix(m.N())))
	}
	if s == 0 {
		return 1
	}
	return s
}

// feasibleBelow returns p with its rows normalized, or, when its
// distortion exceeds d − witnessMargin, the mixture (1 − λ)·p ⊕ λ·(F = X)
// on n outputs of its own: risks add over outputs, so the distortion is
// (1 − λ)·L_R(p) + λ·D_min, linear in λ.
func (m Finite) feasibleBelow(d float64, p Mechanism) (Mechanism, error) {
	n, q := m.N(), p.Normalized()
	if m.exactRiskAtMost(m.Recon, q, d) {
		return q, nil
	}
	target := d - witnessMargin*m.lossScale()
	at, low := m.ReconLoss(q), m.DMin()
	if low >= target {
		return nil, fmt.Errorf("D = %g: no privatizer has a distortion below it with a margin (D_min = %g)", d, low)
	}
	lam := (at - target) / (at - low)
	for range 8 {
		r := make(Mechanism, n)
		for x := range r {
			r[x] = make([]float64, len(q[x])+n)
			for f, v := range q[x] {
				r[x][f] = (1 - lam) * v
			}
			r[x][len(q[x])+x] = lam
		}
		if m.exactRiskAtMost(m.Recon, r, d) {
			return r, nil
		}
		lam = math.Min(1, lam*1.5+1e-15)
	}
	return nil, fmt.Errorf("D = %g: cannot move the mechanism below the distortion threshold", d)
}

// exactRiskAtMost reports whether observer o's Bayes risk under p, rows
// divided by their sums, is at most d in exact rational arithmetic on the
// float64 values (as a checker computes it).
func (m Finite) exactRiskAtMost(o Observer, p Mechanism, d float64) bool {
	n := m.N()
	l := o.LossMatrix(n)
	rows := make([][]*big.Rat, n)
	for x := range p {
		sum := new(big.Rat)
		rows[x] = make([]*big.Rat, len(p[x]))
		for f, v := range p[x] {
			rows[x][f] = new(big.Rat).SetFloat64(v)
			sum.Add(sum, rows[x][f])
		}
		if sum.Sign() <= 0 {
			return false
		}
		for f := range rows[x] {
			rows[x][f].Quo(rows[x][f], sum)
		}
	}
	risk, t, term := new(big.Rat), new(big.Rat), new(big.Rat)
	for f := range p[0] {
		for v := range o.Channel[0] {
			var best *big.Rat
			for a := range l[0] {
				t.SetInt64(0)
				for x := range n {
					term.SetFloat64(m.Prior[x] * 1)
					term.Mul(term, new(big.Rat).SetFloat64(o.Channel[x][v]))
					term.Mul(term, new(big.Rat).SetFloat64(l[x][a]))
					term.Mul(term, rows[x][f])
					t.Add(t, term)
				}
				if best == nil || t.Cmp(best) < 0 {
					best = new(big.Rat).Set(t)
				}
			}
			risk.Add(risk, best)
		}
	}
	return risk.Cmp(new(big.Rat).SetFloat64(d)) <= 0
}
