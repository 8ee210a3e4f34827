package mip

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/sweep"
)

// branchLPOptimum solves Proposition 2 without HiGHS, big-M or symmetry
// breaking: L_recon ≤ D holds iff for some choice of one term per cell the
// chosen terms sum to at most D, so the optimum is the best of 2⁴ LPs over
// the whole box, each solved with gonum's simplex. ok is false when every
// branch LP is infeasible (cannot happen for a valid model, as s = (1,1)
// makes L_recon = 0).
func branchLPOptimum(t *testing.T, m Binary, d float64) (gamma float64, ok bool) {
	t.Helper()
	best := math.Inf(-1)
	for branch := 0; branch < 16; branch++ {
		g, err := branchLP(m, d, branch)
		switch {
		case errors.Is(err, lp.ErrInfeasible):
			continue
		case err != nil:
			t.Fatalf("%+v D=%g branch %04b: %v", m, d, branch, err)
		}
		best = math.Max(best, g)
	}
	return best, !math.IsInf(best, -1)
}

// branchLP is one branch in standard form: columns s0, s1, γ, t_ic, then one
// slack per row; every row is an equality with its own slack, so A has full
// row rank and no zero row or column.
func branchLP(m Binary, d float64, branch int) (float64, error) {
	k := len(m.QZ)
	nx := 3 + 4*k
	type row struct {
		a   []float64
		rhs float64
	}
	var rows []row
	add := func(a []float64, rhs float64) { rows = append(rows, row{a, rhs}) }
	unit := func(j int, v float64) []float64 { a := make([]float64, nx); a[j] = v; return a }
	add(unit(0, 1), 1) // s0 ≤ 1
	add(unit(1, 1), 1) // s1 ≤ 1
	for i, q := range m.QZ {
		for c, cl := range m.cells(q) {
			for _, term := range []affine{cl[0], cl[1]} {
				a := unit(3+4*i+c, 1) // t_ic − a·s ≤ c
				a[0], a[1] = -term.a0, -term.a1
				add(a, term.c)
			}
		}
		a := unit(2, 1) // γ − Σ t_ic ≤ 0
		for c := 0; c < 4; c++ {
			a[3+4*i+c] = -1
		}
		add(a, 0)
	}
	a := make([]float64, nx) // Σ chosen terms ≤ D
	rhs := d
	for c, cl := range m.cells(m.QY) {
		term := cl[0]
		if branch>>c&1 == 1 {
			term = cl[1]
		}
		a[0] += term.a0
		a[1] += term.a1
		rhs -= term.c
	}
	add(a, rhs)

	nr := len(rows)
	A := mat.NewDense(nr, nx+nr, nil)
	b := make([]float64, nr)
	for r, rw := range rows {
		sign := 1.0
		if rw.rhs < 0 { // keep b ≥ 0 for the simplex's phase 1
			sign = -1
		}
		for j, v := range rw.a {
			A.Set(r, j, sign*v)
		}
		A.Set(r, nx+r, sign)
		b[r] = sign * rw.rhs
	}
	c := make([]float64, nx+nr)
	c[2] = -1 // maximize γ
	f, _, err := lp.Simplex(c, A, b, 1e-12, nil)
	return -f, err
}

func randomBinary(rng *rand.Rand) Binary {
	pick := func() float64 {
		switch rng.IntN(20) { // degenerate values now and then
		case 0:
			return 0
		case 1:
			return 0.5
		case 2:
			return 1
		}
		return rng.Float64()
	}
	m := Binary{P: pick(), QY: pick()}
	for range 1 + rng.IntN(3) {
		m.QZ = append(m.QZ, pick())
	}
	return m
}

func TestProp2AgainstBranchLPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(2025, 11))
	n := 1000
	if !slow {
		n = 150
	}
	for i := 0; i < n; i++ {
		m := randomBinary(rng)
		d := rng.Float64() * 1.2 * m.DMax()
		if rng.IntN(20) == 0 {
			d = 0
		}
		got, err := m.SolveProp2(d, DefaultSolver())
		if err != nil {
			t.Fatalf("instance %d %+v D=%g: %v", i, m, d, err)
		}
		want, ok := branchLPOptimum(t, m, d)
		if !ok {
			t.Fatalf("instance %d %+v D=%g: every branch LP infeasible", i, m, d)
		}
		if !scalar.EqualWithinAbs(got.Gamma, want, 1e-7) {
			t.Fatalf("instance %d %+v D=%g: HiGHS γ* = %.12g, branch LPs %.12g", i, m, d, got.Gamma, want)
		}
		checkOptimum(t, m, got)
	}
}

// checkOptimum checks that the reported privatizer is feasible and attains γ*
// by its exactly recomputed losses.
func checkOptimum(t *testing.T, m Binary, o Prop2Optimum) {
	t.Helper()
	if o.Recon > o.D+1e-8 {
		t.Fatalf("%+v D=%g: L_recon(s*) = %.12g exceeds D", m, o.D, o.Recon)
	}
	if !scalar.EqualWithinAbs(o.MinAdv, o.Gamma, 1e-7) {
		t.Fatalf("%+v D=%g: min L_adv(s*) = %.12g but γ* = %.12g", m, o.D, o.MinAdv, o.Gamma)
	}
	if o.S.S0+o.S.S1 < 1-1e-9 {
		t.Fatalf("%+v D=%g: s* = %+v violates the symmetry-breaking s0 + s1 ≥ 1", m, o.D, o.S)
	}
	if o.Status != highsx.StatusOptimal {
		t.Fatalf("status %q", o.Status)
	}
}

func TestProp2Limits(t *testing.T) {
	paper := PaperBinary()
	two := Binary{P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.3}}
	for _, tc := range []struct {
		name string
		m    Binary
		d    float64
		want float64
	}{
		// D ≥ D_max: F may be independent of X; every adversary falls back on its side information.
		{"D = D_max", paper, paper.DMax(), 0.44},
		{"D > D_max", paper, 0.5, 0.44},
		{"two adversaries, D > D_max", two, 1, math.Min(two.SideOnlyError(0.44), two.SideOnlyError(0.3))},
		// D = 0 with a noisy reconstructor channel: F must reveal X, so the adversary does too.
		{"D = 0", paper, 0, 0},
		// A perfect reconstructor channel: D = 0 costs nothing.
		{"q_Y = 0", Binary{P: 0.54, QY: 0, QZ: []float64{0.44}}, 0, 0.44},
		// A useless adversary channel: it still learns from F what the reconstructor may learn.
		{"q_Z = 1/2, D ≥ D_max", Binary{P: 0.3, QY: 0.1, QZ: []float64{0.5}}, 0.1, 0.3},
		// Nothing to hide.
		{"p = 0", Binary{P: 0, QY: 0.2, QZ: []float64{0.44}}, 0.05, 0},
	} {
		got, err := tc.m.SolveProp2(tc.d, DefaultSolver())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !scalar.EqualWithinAbs(got.Gamma, tc.want, 1e-9) {
			t.Errorf("%s: γ* = %.12g, want %.12g", tc.name, got.Gamma, tc.want)
		}
		checkOptimum(t, tc.m, got)
	}
}

func TestProp2SweepIsNondecreasing(t *testing.T) {
	m := Binary{P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.35, 0.3}}
	ds := sweep.Spec{D0: 0, D1: 0.25, N: 60}.Values()
	opts, err := m.SweepProp2(context.Background(), ds, DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(opts); i++ {
		if opts[i].Gamma < opts[i-1].Gamma-1e-9 {
			t.Fatalf("γ*(%g) = %g < γ*(%g) = %g: more distortion cannot help the adversaries", opts[i].D, opts[i].Gamma, opts[i-1].D, opts[i-1].Gamma)
		}
	}
}

func TestProp2BadInput(t *testing.T) {
	for _, d := range []float64{-0.1, math.NaN(), math.Inf(1)} {
		if _, err := PaperBinary().SolveProp2(d, DefaultSolver()); err == nil {
			t.Errorf("D = %v: no error", d)
		}
	}
	if _, err := (Binary{P: 2, QY: 0.2, QZ: []float64{0.3}}).SolveProp2(0.1, DefaultSolver()); err == nil {
		t.Error("p = 2: no error")
	}
}

func TestProp2NotOptimalIsError(t *testing.T) {
	o := DefaultSolver()
	o.Extra = map[string]any{"mip_max_nodes": 0}
	// With no node allowed, HiGHS stops before proving optimality on an
	// instance that needs branching; that must be an error, not a number.
	m := PaperBinary()
	var sawErr bool
	for _, d := range (sweep.Spec{D0: 0.1, D1: 0.2, N: 12}).Values() {
		if _, err := m.SolveProp2(d, o); err != nil {
			if !errors.Is(err, highsx.ErrNotOptimal) {
				t.Fatalf("D=%g: error %v does not wrap ErrNotOptimal", d, err)
			}
			sawErr = true
		}
	}
	if !sawErr {
		t.Fatal("a node limit of 0 never stopped HiGHS early: the test proves nothing")
	}
}

func TestWriteProp2ModelRoundTrip(t *testing.T) {
	m := Binary{P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.3}}
	const d = 0.12
	want, err := m.SolveProp2(d, DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".mps", ".lp"} {
		path := filepath.Join(t.TempDir(), "prop2"+ext)
		if err := m.WriteProp2Model(d, path); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Fatalf("%s: file not written: %v", ext, err)
		}
		got, err := highsx.SolveFile(context.Background(), path, DefaultSolver())
		if err != nil {
			t.Fatalf("%s: re-solving the written model: %v", ext, err)
		}
		if !scalar.EqualWithinAbs(got.Objective, want.Gamma, 1e-9) {
			t.Errorf("%s: re-solved objective %.12g, want γ* = %.12g", ext, got.Objective, want.Gamma)
		}
	}
}

func ExampleBinary_SolveProp2() {
	m := PaperBinary() // p = 0.54, q_Y = 0.2, q_Z = 0.44
	for _, d := range []float64{0.05, 0.15, 0.2} {
		o, err := m.SolveProp2(d, DefaultSolver())
		if err != nil {
			panic(err)
		}
		fmt.Printf("D=%.2f  s0*=%.4f s1*=%.4f  L_recon=%.4f  L_adv=%.4f\n", d, o.S.S0, o.S.S1, o.Recon, o.MinAdv)
	}
	// By hand: at D = 0.05 only the cells with f = 1 count, and
	// 0.46·(1−s0)·(0.8+0.2) = 0.05 gives s0* = 1 − 0.05/0.46 = 0.8913; at
	// D = 0.15 only those with f = 0 count, 0.108·(1−s1) + 0.092 = 0.15 gives
	// s1* = 1 − 0.058/0.108 = 0.4630, and the adversary's loss is
	// 0.54·0.537·0.44 + 0.54·0.537·0.56 = 0.29.

	// Output:
	// D=0.05  s0*=0.8913 s1*=1.0000  L_recon=0.0500  L_adv=0.0500
	// D=0.15  s0*=1.0000 s1*=0.4630  L_recon=0.1500  L_adv=0.2900
	// D=0.20  s0*=1.0000 s1*=0.0000  L_recon=0.2000  L_adv=0.4400
}

func BenchmarkProp2Solve(b *testing.B) {
	m := PaperBinary()
	for b.Loop() {
		if _, err := m.SolveProp2(0.15, DefaultSolver()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProp2PaperSweep(b *testing.B) {
	m := PaperBinary()
	ds := sweep.Spec{D0: 0.0025, D1: 0.2, N: 30}.Values()
	for b.Loop() {
		if _, err := m.SweepProp2(context.Background(), ds, DefaultSolver()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFeasibilityJump measures the paper sweep's 30 thresholds solved
// as MIPs (SolveProp2, what a sweep falls back on) with HiGHS 1.13's
// feasibility-jump heuristic on and off (mmds's default: off).
func BenchmarkFeasibilityJump(b *testing.B) {
	m := PaperBinary()
	ds := sweep.Spec{D0: 0.0025, D1: 0.2, N: 30}.Values()
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("on=%v", on), func(b *testing.B) {
			o := DefaultSolver()
			o.FeasibilityJump = on
			for b.Loop() {
				for _, d := range ds {
					if _, err := m.SolveProp2(d, o); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
