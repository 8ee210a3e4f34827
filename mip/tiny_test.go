package mip

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tiny probabilities (down to 1e-12) make coefficients and optima of the
// same size, below HiGHS's absolute tolerances; highsx then solves the
// model scaled. These tests compare with exact rational computations.

// ratAffine is c + a0·s0 + a1·s1 in exact arithmetic.
type ratAffine struct{ c, a0, a1 *big.Rat }

func (t ratAffine) at(s0, s1 *big.Rat) *big.Rat {
	v := new(big.Rat).Mul(t.a0, s0)
	v.Add(v, new(big.Rat).Mul(t.a1, s1))
	return v.Add(v, t.c)
}

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

// ratCells are the four (f, v) cells of an observer of the binary model
// whose side channel is BSC(q): the terms P(X=x) P(F=f|X=x) P(V=v|X=x) for
// x = 0 and x = 1, with P(F=0|X=0) = s0 and P(F=1|X=1) = s1.
func ratCells(p, q float64) [4][2]ratAffine {
	one := big.NewRat(1, 1)
	pr := rat(p)
	p0 := new(big.Rat).Sub(one, pr)
	qr := rat(q)
	q0 := new(big.Rat).Sub(one, qr)
	side := [2][2]*big.Rat{{q0, qr}, {qr, q0}} // side[x][v]
	neg := func(r *big.Rat) *big.Rat { return new(big.Rat).Neg(r) }
	zero := new(big.Rat)
	var cells [4][2]ratAffine
	for f := range 2 {
		for v := range 2 {
			w0 := new(big.Rat).Mul(p0, side[0][v])
			w1 := new(big.Rat).Mul(pr, side[1][v])
			if f == 0 { // s0 for x = 0, 1 − s1 for x = 1
				cells[2*f+v] = [2]ratAffine{{zero, w0, zero}, {w1, zero, neg(w1)}}
			} else { // 1 − s0 for x = 0, s1 for x = 1
				cells[2*f+v] = [2]ratAffine{{w0, neg(w0), zero}, {zero, zero, w1}}
			}
		}
	}
	return cells
}

func ratLoss(cells [4][2]ratAffine, s0, s1 *big.Rat) *big.Rat {
	sum := new(big.Rat)
	for _, cl := range cells {
		a, b := cl[0].at(s0, s1), cl[1].at(s0, s1)
		if a.Cmp(b) < 0 {
			sum.Add(sum, a)
		} else {
			sum.Add(sum, b)
		}
	}
	return sum
}

// exactProp2 is Proposition 2's optimum for one adversary, exactly: the
// objective and the constraint are piecewise linear in s, so the optimum is
// at a vertex of the arrangement of the box's sides, every cell's switch
// line (its two terms equal) and every level line Σ_c chosen term = D of
// the reconstructor; it returns the best feasible vertex's L_adv.
func exactProp2(p, qy, qz, d float64) float64 {
	type line struct{ a, b, c *big.Rat } // a·s0 + b·s1 = c
	r := func(x int64) *big.Rat { return big.NewRat(x, 1) }
	lines := []line{{r(1), r(0), r(0)}, {r(1), r(0), r(1)}, {r(0), r(1), r(0)}, {r(0), r(1), r(1)}}
	rc, ac := ratCells(p, qy), ratCells(p, qz)
	for _, cells := range [][4][2]ratAffine{rc, ac} {
		for _, cl := range cells {
			lines = append(lines, line{new(big.Rat).Sub(cl[0].a0, cl[1].a0), new(big.Rat).Sub(cl[0].a1, cl[1].a1), new(big.Rat).Sub(cl[1].c, cl[0].c)})
		}
	}
	dr := rat(d)
	for branch := range 16 {
		a, b, c := new(big.Rat), new(big.Rat), new(big.Rat).Set(dr)
		for k, cl := range rc {
			t := cl[branch>>k&1]
			a.Add(a, t.a0)
			b.Add(b, t.a1)
			c.Sub(c, t.c)
		}
		lines = append(lines, line{a, b, c})
	}
	best := new(big.Rat).SetInt64(-1)
	zero, one := new(big.Rat), big.NewRat(1, 1)
	for i, l1 := range lines {
		for _, l2 := range lines[i+1:] {
			det := new(big.Rat).Sub(new(big.Rat).Mul(l1.a, l2.b), new(big.Rat).Mul(l2.a, l1.b))
			if det.Sign() == 0 {
				continue
			}
			s0 := new(big.Rat).Sub(new(big.Rat).Mul(l1.c, l2.b), new(big.Rat).Mul(l2.c, l1.b))
			s0.Quo(s0, det)
			s1 := new(big.Rat).Sub(new(big.Rat).Mul(l1.a, l2.c), new(big.Rat).Mul(l2.a, l1.c))
			s1.Quo(s1, det)
			if s0.Cmp(zero) < 0 || s0.Cmp(one) > 0 || s1.Cmp(zero) < 0 || s1.Cmp(one) > 0 {
				continue
			}
			if ratLoss(rc, s0, s1).Cmp(dr) > 0 {
				continue
			}
			if v := ratLoss(ac, s0, s1); v.Cmp(best) > 0 {
				best = v
			}
		}
	}
	f, _ := best.Float64()
	return f
}

// tinyProb draws a probability that is tiny, near 1, or ordinary.
func tinyProb(rng *rand.Rand) float64 {
	switch rng.IntN(3) {
	case 0:
		return math.Pow(10, -3-9*rng.Float64()) // [1e-12, 1e-3]
	case 1:
		return 1 - math.Pow(10, -3-9*rng.Float64())
	}
	return rng.Float64()
}

// TestProp2TinyProbabilities: with p, q_Y, q_Z down to 1e-12 (and up to
// 1 − 1e-12) Proposition 2 always solves, and its answer is what HiGHS's
// absolute tolerances (1e-9) allow, checked against the exact vertex
// enumeration: L_recon(s*) ≤ D + 1e-9; the privatizer found is at most the
// exact optimum at its own reconstructor loss (to 1e-6 relative, the
// rounding of the losses evaluated in floating point), and at least the exact
// optimum at D − 1e-9, less 1e-9; γ agrees with the privatizer's loss to
// 1e-9. Where D or the optimum are themselves below 1e-9 these bounds are
// loose: the answers then carry an absolute, not a relative, accuracy
// (TestTinyProbabilityCases shows relative accuracy where the problem is
// well conditioned).
func TestProp2TinyProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 8))
	n := 300
	if !slow {
		n = 60
	}
	const abs = 1e-9
	for i := range n {
		m := Binary{P: tinyProb(rng), QY: tinyProb(rng), QZ: []float64{tinyProb(rng)}}
		d := rng.Float64() * 1.2 * m.DMax()
		got, err := m.SolveProp2(d, DefaultSolver())
		if err != nil {
			t.Fatalf("instance %d %+v D=%g: %v", i, m, d, err)
		}
		if got.Recon > d+abs {
			t.Errorf("instance %d %+v D=%g: L_recon(s*) = %.12g exceeds D", i, m, d, got.Recon)
		}
		hi := exactProp2(m.P, m.QY, m.QZ[0], math.Max(d, got.Recon))
		lo := exactProp2(m.P, m.QY, m.QZ[0], math.Max(0, d-abs))
		if got.MinAdv > hi*(1+1e-6)+1e-15 || got.MinAdv < lo-abs || math.Abs(got.Gamma-got.MinAdv) > abs {
			t.Errorf("instance %d %+v D=%g: γ = %.12g, min L_adv(s*) = %.12g; exact optimum in [%.12g, %.12g]", i, m, d, got.Gamma, got.MinAdv, lo, hi)
		}
	}
}

// TestTinyProbabilityCases are probabilities small enough to draw
// HiGHS's warning about tiny coefficients: p = 3e-9, q_Y = 1e-9 and
// q_Z = 1e-9 at D = 0.05, with answers 3e-9, 0.44 and 1e-9; the global LP
// gives the same.
func TestTinyProbabilityCases(t *testing.T) {
	for _, c := range []struct {
		m    Binary
		want float64
	}{
		{Binary{P: 3e-9, QY: 0.2, QZ: []float64{0.44}}, 3e-9},
		{Binary{P: 0.54, QY: 1e-9, QZ: []float64{0.44}}, 0.44},
		{Binary{P: 0.54, QY: 0.2, QZ: []float64{1e-9}}, 1e-9},
	} {
		tol := 1e-6 * c.want
		got, err := c.m.SolveProp2(0.05, DefaultSolver())
		if err != nil || math.Abs(got.Gamma-c.want) > tol || math.Abs(got.MinAdv-c.want) > tol {
			t.Errorf("%+v: γ = %g, min L_adv = %g, err %v; want %g", c.m, got.Gamma, got.MinAdv, err, c.want)
		}
		g := mustGlobal(t, c.m.Finite())
		opt, err := g.Solve(0.05, DefaultSolver())
		if err != nil || math.Abs(opt.Gamma-c.want) > tol || math.Abs(opt.MinAdv-c.want) > tol {
			t.Errorf("%+v global: γ = %g, min L_adv = %g, err %v; want %g", c.m, opt.Gamma, opt.MinAdv, err, c.want)
		}
	}
}

// finiteFixture reads a finite model from testdata.
func finiteFixture(t *testing.T, name string) Finite {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ParseFiniteConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// linspace is n evenly spaced points from a to b.
func linspace(a, b float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return v
}

// TestFiniteTinyEntries: finite models with coefficients below 1e-6, which
// highsx solves scaled, answer at every threshold by the ray LP and by
// column generation (never an error: a valid model is never exit 1), agree
// with an independent reference to 1e-8, and a point that the ray LP did
// not answer says which method did and why.
//
//   - A channel entry of 1e-10: the reference is the ray LP of the same
//     model with that entry 0 (the optimum moves by no more than the entry's
//     weight, 0.5·1e-10); three outputs suffice, so the fixed-alphabet MIP
//     with m = 3 agrees too.
//   - testdata/finite-exit1.json (products of probabilities down to 2e-7):
//     HiGHS's solution of the equilibrated ray LP missed an adversary row by
//     6e-9 in scaled units at D = 0.0352…, and the run ended in exit 1. The
//     reference is column generation's proven bracket, its certificate
//     re-checked on every ray of the common refinement (checkCertificate).
func TestFiniteTinyEntries(t *testing.T) {
	model := func(eps float64) Finite {
		return Finite{
			Prior: []float64{0.5, 0.3, 0.2},
			Recon: Observer{Channel: [][]float64{{eps, 0.9 - eps, 0.1}, {0.1, 0.8, 0.1}, {0.1, 0.1, 0.8}}},
			Adv: []Observer{
				{Channel: [][]float64{{0.6, 0.2, 0.2}, {0.2, 0.6, 0.2}, {0.2, 0.2, 0.6}}},
				{Channel: [][]float64{{0.7, 0.3}, {0.4, 0.6}, {0.5, 0.5}}, Loss: [][]float64{{0, 1}, {1, 0}, {1, 0}}},
			},
		}
	}
	zeroEntry := func(t *testing.T, _ Finite, ds []float64) []float64 {
		ref, err := mustGlobal(t, model(0)).Sweep(context.Background(), ds, DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		v := make([]float64, len(ref))
		for i, p := range ref {
			v[i] = p.Gamma
		}
		return v
	}
	colGenBracket := func(t *testing.T, m Finite, ds []float64) []float64 {
		g := mustGlobal(t, m)
		v := make([]float64, len(ds))
		for i, d := range ds {
			r, err := m.SolveColGen(context.Background(), d, ColGenOptions{Solver: DefaultSolver()})
			if err != nil || !r.Proven || r.Upper-r.Gamma > 1e-8 {
				t.Fatalf("reference at D = %g: column generation %v, bracket [%.12g, %.12g], err %v", d, r.Status, r.Gamma, r.Upper, err)
			}
			checkCertificate(t, m, g, r, r.Gamma)
			v[i] = r.Gamma
		}
		return v
	}
	exit1 := finiteFixture(t, "finite-exit1.json")
	for _, c := range []struct {
		name  string
		m     Finite
		ds    []float64
		ref   func(*testing.T, Finite, []float64) []float64
		fixed int // outputs of a fixed-alphabet MIP that reaches the optimum (0: none tried)
	}{
		{"channel entry 1e-10", model(1e-10), []float64{0, 0.05, 0.1, 0.15, 0.2}, zeroEntry, 3},
		{"finite-exit1.json", exit1, append(linspace(0, exit1.DMax(), 11), 0.03520845158028938), colGenBracket, 0},
	} {
		ref := c.ref(t, c.m, c.ds)
		// The ray LP alone answers (highsx solves it as given when the
		// equilibrated model's solution misses a row).
		if _, err := mustGlobal(t, c.m).Sweep(context.Background(), c.ds, DefaultSolver()); err != nil {
			t.Errorf("%s: ray LP: %v", c.name, err)
		}
		for _, meth := range []Method{MethodRays, MethodColGen} {
			sol, err := c.m.SolveFinite(context.Background(), c.ds, FiniteSolveOptions{Method: meth, Solver: DefaultSolver()})
			if err != nil {
				t.Fatalf("%s, method %d: %v", c.name, meth, err)
			}
			for i, p := range sol.Points {
				if !p.Proven() || math.Abs(p.Gamma-ref[i]) > 1e-8 || math.Abs(p.MinAdv-ref[i]) > 1e-8 || p.Recon > p.D+1e-9 {
					t.Errorf("%s, method %d, D = %g: %v γ = %.12g, min L_adv = %.12g, L_recon = %.12g; reference %.12g",
						c.name, meth, p.D, p.Status, p.Gamma, p.MinAdv, p.Recon, ref[i])
				}
				if meth == MethodRays && p.Method != AlgorithmGlobalLP && (p.Method != AlgorithmColGen || p.Fallback == "") {
					t.Errorf("%s, D = %g: answered by %v without saying why (fallback %q)", c.name, p.D, p.Method, p.Fallback)
				}
			}
		}
		if c.fixed == 0 {
			continue
		}
		for i, d := range c.ds {
			p, err := c.m.SolveFixed(d, FixedOptions{Outputs: c.fixed, Hull: true}, DefaultSolver())
			if err != nil || math.Abs(p.Gamma-ref[i]) > 1e-8 {
				t.Errorf("%s: fixed MIP at D = %g: γ = %.12g, err %v; want %.12g", c.name, d, p.Gamma, err, ref[i])
			}
		}
	}
}

// TestRayLPFailureFallsBackToColGen: where HiGHS leaves the ray LP without a
// verified optimum (here a ray LP whose reconstructor risks are corrupted,
// so no λ meets D), SolveFinite's point is column generation's, proven, with
// the reason in Fallback; an interrupted run still stops.
func TestRayLPFailureFallsBackToColGen(t *testing.T) {
	m := finiteFixture(t, "finite-exit1.json")
	g := mustGlobal(t, m)
	for j := range g.recon {
		g.recon[j] += 1
	}
	d := 0.03520845158028938
	colgen := func() ColGenOptions { return ColGenOptions{Solver: DefaultSolver()} }
	p, err := g.pointOrColGen(context.Background(), d, DefaultSolver(), colgen)
	if err != nil || p.Method != AlgorithmColGen || !p.Proven() || !strings.Contains(p.Fallback, "global LP at D = 0.0352") ||
		math.Abs(p.Gamma-0.0576642237) > 1e-9 {
		t.Errorf("point %v by %v, γ = %.12g, fallback %q, err %v; want column generation's 0.0576642237", p.Status, p.Method, p.Gamma, p.Fallback, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.pointOrColGen(ctx, d, DefaultSolver(), colgen); err == nil {
		t.Error("a cancelled context: no error")
	}
}
