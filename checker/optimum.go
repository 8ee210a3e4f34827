package main

import (
	"fmt"
	"math/big"
	"slices"
)

// Optima (docs/check.md, "Optima"). An optimum γ*(D) — the largest
// smallest-adversary loss of a privatizer whose reconstructor loss is at
// most D — is bracketed by its witness:
//
//   - below, by a privatizer whose reconstructor loss the checker finds ≤ D
//     exactly: its smallest adversary loss is ≤ γ*(D);
//   - above, by weak duality. For μ ≥ 0 with Σμ = 1 and ν ≥ 0, every
//     feasible P has min_i L_i(P) ≤ Σ_i μ_i L_i(P) − ν(L_R(P) − D). An
//     adversary's Bayes loss is at most that of any randomized estimate
//     q(a | side) (a minimum is at most an average), and the
//     reconstructor's is the smallest over its decision rules; fixing a
//     reconstructor rule (or part of one) and the weights q makes the bound
//     linear in P, so its largest value is read off at the vertices of the
//     privatizers' domain. Every rule is covered, so the largest of these
//     bounds holds for every privatizer.
//
// The multipliers need not be optimal or accurate: any values give a valid
// bound, so the checker only computes it, exactly.

// prop2Bracket checks the witness of Proposition 2's optimum at d (the
// largest smallest-adversary loss among binary-output privatizers, s0 =
// P(F=0 | X=0), s1 = P(F=1 | X=1)) and returns its bracket.
func (c *checker) prop2Bracket(path string, w *object, d float64) interval {
	failIf(w.num("D") != d, "%s.D = %v: the witness is for another threshold than %v", path, w.num("D"), d)
	lower := c.privatizerLosses(path, w, readS(path+".s", w.get("s")), d)
	var bounds []*big.Rat
	covered := map[int]bool{}
	for i, b := range w.list("branches") {
		bp := fmt.Sprintf("%s.branches[%d]", path, i)
		rule, bound := c.prop2Branch(bp, asObject(bp, b), d)
		covered[rule], bounds = true, append(bounds, bound)
	}
	failIf(len(covered) != 16, "%s.branches cover %d of the 16 reconstructor rules on the cells (f, y): every rule needs a bound", path, len(covered))
	upper := slices.MaxFunc(bounds, (*big.Rat).Cmp)
	c.equal(path+".upper", w.num("upper"), upper)
	w.done()
	return interval{lower, upper}
}

// privatizerLosses checks the losses a witness states for its privatizer
// p, and that p meets d exactly; it returns the smallest adversary loss.
func (c *checker) privatizerLosses(path string, w *object, p [][]*big.Rat, d float64) *big.Rat {
	loss := c.m.losses(p)
	failIf(loss[0].Cmp(exact(d)) > 0, "%s: the witness's privatizer has reconstructor loss %.17g > D = %v", path, fl(loss[0]), d)
	lo := w.obj("losses")
	c.lossesEqual(path+".losses", lo, loss)
	lo.done()
	return minOf(loss[1:])
}

// lossesEqual checks the losses {recon_loss, adv_loss, min_adv_loss}
// that o states against exact ones (the reconstructor's first) and returns
// the stated smallest adversary loss.
func (c *checker) lossesEqual(path string, o *object, loss []*big.Rat) float64 {
	c.equal(path+".recon_loss", o.num("recon_loss"), loss[0])
	adv := numbers(path+".adv_loss", o.get("adv_loss"))
	rejectIf(len(adv) != len(loss)-1, "%s.adv_loss: want %d losses", path, len(loss)-1)
	minAdv := adv[0]
	for i, a := range adv {
		c.equal(fmt.Sprintf("%s.adv_loss[%d]", path, i), a, loss[1+i])
		minAdv = min(minAdv, a)
	}
	if v := o.num("min_adv_loss"); v != minAdv {
		fail("%s.min_adv_loss = %v, but the smallest adv_loss is %v", path, v, minAdv)
	}
	return minAdv
}

// prop2Branch checks one branch: rule[c] is the reconstructor's estimate in
// cell c = 2f + y, mu and nu the multipliers, q[i][c] adversary i's weight
// on estimate 1 in cell c = 2f + z. Its bound is
//
//	ν·D + max over (s0, s1) ∈ {0, 1}² of Σ_i μ_i Σ_c E_q[loss of adversary i in c] − ν·Σ_c P(X ≠ rule[c], c),
//
// every term affine in (s0, s1), so the corners give the maximum over the
// square.
func (c *checker) prop2Branch(path string, b *object, d float64) (int, *big.Rat) {
	m := c.m
	k := len(m.adv())
	ruleF := numbers(path+".rule", b.get("rule"))
	rejectIf(len(ruleF) != 4, "%s.rule: want 4 estimates", path)
	var rule [4]int
	key := 0
	for i, v := range ruleF {
		rejectIf(v != 0 && v != 1, "%s.rule[%d]: want 0 or 1", path, i)
		rule[i] = int(v)
		key |= rule[i] << i
	}
	mu := c.weights(path+".mu", numbers(path+".mu", b.get("mu")), k)
	q := matrix(path+".q", b.get("q"))
	rejectIf(len(q) != k, "%s.q: want one row per adversary", path)
	for i, qi := range q {
		rejectIf(len(qi) != 4 || slices.ContainsFunc(qi, func(w float64) bool { return !(w >= 0 && w <= 1) }), "%s.q[%d]: want 4 weights in [0, 1]", path, i)
	}
	nu := b.rat("nu")
	rejectIf(nu.Sign() < 0, "%s.nu < 0", path)
	values := numbers(path+".values", b.get("values"))
	rejectIf(len(values) != 4, "%s.values: want the 4 corners' values", path)
	var corners []*big.Rat
	j := 0
	for _, s0 := range []int64{0, 1} {
		for _, s1 := range []int64{0, 1} {
			p := binaryChannel(ratInt(s0), ratInt(s1))
			// The reconstructor's weight is 1 on rule[cell] (a, rule[cell] ∈ {0, 1}).
			v := neg(mul(nu, cellLoss(m.recon(), p, func(cell, a int) *big.Rat { return ratInt(int64(1 ^ a ^ rule[cell])) })))
			for i, o := range m.adv() {
				qi := q[i]
				addTo(v, mu[i], cellLoss(o, p, func(cell, a int) *big.Rat {
					if a == 1 {
						return exact(qi[cell])
					}
					return sub(ratInt(1), exact(qi[cell]))
				}))
			}
			c.equal(fmt.Sprintf("%s.values[%d]", path, j), values[j], v)
			j, corners = j+1, append(corners, v)
		}
	}
	bound := add(mul(nu, exact(d)), slices.MaxFunc(corners, (*big.Rat).Cmp))
	c.equal(path+".bound", b.num("bound"), bound)
	b.done()
	return key, bound
}

// cellLoss is an observer's expected loss under the two-output channel p
// when in cell c = 2f + v it picks estimate a with probability
// weight(c, a): Σ_c Σ_a weight(c, a)·⟨k_va, P(f | ·)⟩.
func cellLoss(o observer, p [][]*big.Rat, weight func(cell, a int) *big.Rat) *big.Rat {
	s := new(big.Rat)
	for f := range 2 {
		col := []*big.Rat{p[0][f], p[1][f]}
		for v := range 2 {
			for a := range 2 {
				addTo(s, weight(2*f+v, a), dot(o.k[v][a], col))
			}
		}
	}
	return s
}

// weights reads k multipliers ≥ 0 that sum to 1 within 1e-9 (as float64
// numbers do) and divides them by their sum, so that they sum to 1
// exactly.
func (c *checker) weights(path string, v []float64, k int) []*big.Rat {
	rejectIf(len(v) != k, "%s: want %d entries, got %d", path, k, len(v))
	r := make([]*big.Rat, k)
	for i, x := range v {
		rejectIf(!(x >= 0), "%s[%d] = %v: want ≥ 0", path, i, x)
		r[i] = exact(x)
	}
	s := sum(r)
	rejectIf(abs(sub(s, ratInt(1))).Cmp(exact(1e-9)) > 0, "%s sums to %v: want a distribution (1 within 1e-9)", path, fl(s))
	for i := range r {
		r[i] = quo(r[i], s)
	}
	return r
}

func minOf(v []*big.Rat) *big.Rat { return slices.MinFunc(v, (*big.Rat).Cmp) }

// globalBracket checks the witness of the optimum over all privatizers (any
// output alphabet) at d and returns its bracket; the upper end is nil when
// the witness proves only the lower one.
func (c *checker) globalBracket(path string, w *object, d float64) interval {
	m := c.m
	failIf(w.num("D") != d, "%s.D = %v: the witness is for another threshold than %v", path, w.num("D"), d)
	lower := c.privatizerLosses(path, w, readMechanism(path+".mechanism", w.get("mechanism"), m.n), d)
	w.used["dual"] = true
	if !w.has("dual") {
		w.done()
		return interval{lower, nil}
	}
	w.done()
	path += ".dual"
	w = w.obj("dual")
	pi := numbers(path+".pi", w.get("pi"))
	rejectIf(len(pi) != m.n, "%s.pi: want %d entries", path, m.n)
	mu := c.weights(path+".mu", numbers(path+".mu", w.get("mu")), len(m.adv()))
	nu := w.rat("nu")
	rejectIf(nu.Sign() < 0, "%s.nu < 0", path)
	pr := &pricing{c: c, path: path + ".pricing", mu: mu, nu: nu, leaves: map[string]bool{}}
	for _, v := range pi {
		pr.pi = append(pr.pi, exact(v))
	}
	var bounds []*big.Rat
	for i, l := range w.list("pricing") {
		bounds = append(bounds, pr.leaf(fmt.Sprintf("%s.pricing[%d]", path, i), asObject(path, l)))
	}
	rejectIf(len(bounds) == 0, "%s.pricing is empty", path)
	rbar := slices.MaxFunc(bounds, (*big.Rat).Cmp)
	if miss := pr.uncovered(nil); miss != nil {
		fail("%s.pricing covers no node of the reconstructor's decision rule %v", path, miss)
	}
	c.equal(path+".max_reduced_cost", w.num("max_reduced_cost"), rbar)
	upper := add(sum(pr.pi), mul(nu, exact(d)))
	upper.Add(upper, mul(ratInt(int64(m.n)), maxRat(rbar, new(big.Rat))))
	c.equal(path+".upper", w.num("upper"), upper)
	w.done()
	return interval{lower, upper}
}

// pricing checks the leaves of a global witness's pricing search.
type pricing struct {
	c      *checker
	path   string
	pi, mu []*big.Rat
	nu     *big.Rat
	leaves map[string]bool // the rules of the leaves, as keys
}

// leaf checks one leaf and returns its bound on the reduced cost
//
//	rc(c) = Σ_i μ_i ρ_i(c) − ν ρ_R(c) − ⟨π, c⟩
//
// over the columns c of the simplex whose Bayes reconstructor rule starts
// with the leaf's rule: with the weights q and g = π + ν(Σ_{y fixed} k_{y,rule[y]}
// + Σ_{y free} min_a k_ya) (for c ≥ 0, min_a ⟨k_ya, c⟩ ≥ ⟨min_a k_ya, c⟩),
// rc(c) ≤ Σ_i μ_i Σ_z Σ_a q_iz(a) ⟨k_iza, c⟩ − ⟨g, c⟩, linear, so at most
// its largest coefficient.
func (pr *pricing) leaf(path string, l *object) *big.Rat {
	m := pr.c.m
	rec := m.recon()
	ruleF := numbers(path+".rule", l.get("rule"))
	rejectIf(len(ruleF) > rec.sides(), "%s.rule: longer than the reconstructor's %d side values", path, rec.sides())
	rule := make([]int, len(ruleF))
	for y, v := range ruleF {
		rejectIf(v != float64(int(v)) || v < 0 || int(v) >= rec.estimates(), "%s.rule[%d] = %v: not an estimate", path, y, v)
		rule[y] = int(v)
	}
	pr.leaves[fmt.Sprint(rule)] = true
	qs, ok := l.get("q").([]any)
	rejectIf(!ok || len(qs) != len(m.adv()), "%s.q: want one entry per adversary", path)
	coef := make([]*big.Rat, m.n) // the linear bound's coefficients
	for x := range coef {
		coef[x] = neg(pr.pi[x])
	}
	for y := range rec.sides() {
		for x := range coef {
			k := minOf(column(rec.k[y], x))
			if y < len(rule) {
				k = rec.k[y][rule[y]][x]
			}
			coef[x].Sub(coef[x], mul(pr.nu, k))
		}
	}
	for i, o := range m.adv() {
		qi := matrix(fmt.Sprintf("%s.q[%d]", path, i), qs[i])
		rejectIf(len(qi) != o.sides(), "%s.q[%d]: want one row per side value", path, i)
		for z, row := range qi {
			wz := pr.c.weights(fmt.Sprintf("%s.q[%d][%d]", path, i, z), row, o.estimates())
			for a, w := range wz {
				for x := range coef {
					addTo(coef[x], mul(pr.mu[i], w), o.k[z][a][x])
				}
			}
		}
	}
	stated := numbers(path+".coefficients", l.get("coefficients"))
	rejectIf(len(stated) != m.n, "%s.coefficients: want %d", path, m.n)
	for x, v := range coef {
		pr.c.equal(fmt.Sprintf("%s.coefficients[%d]", path, x), stated[x], v)
	}
	bound := slices.MaxFunc(coef, (*big.Rat).Cmp)
	pr.c.equal(path+".bound", l.num("bound"), bound)
	l.done()
	return bound
}

// column is the x-th entry of each vector.
func column(ks [][]*big.Rat, x int) []*big.Rat {
	out := make([]*big.Rat, len(ks))
	for a, k := range ks {
		out[a] = k[x]
	}
	return out
}

// uncovered returns a reconstructor rule prefix no leaf covers, or nil. A
// node is covered when it is a leaf, or when every estimate of its next
// side value that no other estimate dominates is covered: an estimate whose
// loss vector is entrywise ≥ another's (strictly somewhere, or equal and
// listed later) only lowers ν·ρ_R's bound, so the dominating estimate's
// leaves bound its rules too.
func (pr *pricing) uncovered(prefix []int) []int {
	if pr.leaves[fmt.Sprint(prefix)] {
		return nil
	}
	rec := pr.c.m.recon()
	y := len(prefix)
	if y == rec.sides() {
		return prefix
	}
	for a := range rec.estimates() {
		if dominated(rec.k[y], a) {
			continue
		}
		if miss := pr.uncovered(append(append([]int{}, prefix...), a)); miss != nil {
			return miss
		}
	}
	return nil
}

// dominated reports whether some other vector is entrywise ≤ ks[a],
// strictly somewhere or equal with a smaller index.
func dominated(ks [][]*big.Rat, a int) bool {
	for b := range ks {
		if b == a {
			continue
		}
		le, eq := true, true
		for x := range ks[a] {
			switch ks[b][x].Cmp(ks[a][x]) {
			case 1:
				le = false
			case -1:
				eq = false
			}
		}
		if le && (!eq || b < a) {
			return true
		}
	}
	return false
}

// optimum checks the claim that v is the optimum at d of the given class,
// as the witness proves it (w: {"prop2", "global"}): v lies within the
// optimum precision of the witness's bracket, and a class that claims the
// optimum itself has a bracket at most that wide. An empty class claims
// what the witness proves (the certificate states the class at D̂ only).
// It returns the bracket, and the global optimum's when a binary model's
// witness has one beside Proposition 2's.
func (c *checker) optimum(path, class string, d, v float64, w *object) (interval, *interval) {
	var br interval
	var global *interval
	if class == "" {
		class = "binary-output"
		if c.m.kind == "finite" {
			class = "all (lower bound)"
			if w.obj("global").has("dual") {
				class = "all (bracketed)"
			}
		}
	}
	switch {
	case c.m.kind == "binary" && class == "binary-output":
		br = c.prop2Bracket(path+".prop2", w.obj("prop2"), d)
		w.used["global"] = true
		if w.has("global") {
			g := c.globalBracket(path+".global", w.obj("global"), d)
			global = &g
		}
	case c.m.kind == "finite" && (class == "all" || class == "all (bracketed)" || class == "all (lower bound)"):
		br = c.globalBracket(path+".global", w.obj("global"), d)
	default:
		notCovered("%s: optimum class %s on a %s model", path, quote(class), c.m.kind)
	}
	w.done()
	c.inBracket(path, class, v, br)
	return br, global
}

// inBracket checks that v is within the optimum precision of the bracket,
// and that a class claiming the optimum itself has a bracket at most that
// wide.
func (c *checker) inBracket(path, class string, v float64, br interval) {
	p := c.prec.optimum
	switch {
	case br.hi == nil && class != "all (lower bound)":
		notCovered("%s: class %s, but the witness proves the lower end only (mmds writes no upper end when its pricing search is too large)", path, quote(class))
	case br.hi == nil:
		failIf(exact(v).Cmp(sub(br.lo, p)) < 0, "%s: %v is below the witnessed lower bound %.17g by more than %v", path, v, fl(br.lo), fl(p))
	case !br.near(v, p):
		fail("%s: %v lies outside the witnessed bracket [%.17g, %.17g] widened by %v", path, v, fl(br.lo), fl(br.hi), fl(p))
	case class != "all (bracketed)" && sub(br.hi, br.lo).Cmp(p) > 0:
		fail("%s: class %s claims the optimum, but the witnessed bracket [%.17g, %.17g] is wider than %v", path, quote(class), fl(br.lo), fl(br.hi), fl(p))
	}
	c.claims++
}

// binaryChannel is P(f | x) of (s0, s1): rows x = 0, 1, columns f = 0, 1.
func binaryChannel(s0, s1 *big.Rat) [][]*big.Rat {
	one := ratInt(1)
	return [][]*big.Rat{{s0, sub(one, s0)}, {sub(one, s1), s1}}
}
