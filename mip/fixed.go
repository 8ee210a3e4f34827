package mip

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/mmds-project/mmds/internal/highsx"
)

// FixedOptions choose the fixed-alphabet MIP's formulation.
type FixedOptions struct {
	// Outputs is the size m ≥ 1 of the privatizer's output alphabet.
	Outputs int
	// NaiveBigM uses M = max_x,a L(x, a) (1 for the 0-1 loss) in every
	// big-M row instead of the derived per-row constants.
	NaiveBigM bool
	// NoSymmetryBreaking drops the ordering of the output labels.
	NoSymmetryBreaking bool
	// Hull replaces the reconstructor's big-M rows by the convex-hull
	// (disaggregated) formulation of each cell's disjunction.
	Hull bool
	// Global, when set, adds valid inequalities from the global LP of the
	// same model: γ ≤ the global optimum at D, and one column cut per output
	// (see columnCut). They cut off no privatizer, for any m.
	Global *Global
}

// MaxOutputs bounds the output alphabet of the fixed MIP.
const MaxOutputs = 64

// fixedLayout names the columns of the fixed-alphabet MIP.
type fixedLayout struct {
	n, m int
	nz   []int // adversary i's side alphabet size
	ny   int   // reconstructor's side alphabet size
	tOff []int // first t column of adversary i
	wOff int
	dOff int // first δ column
}

func (l fixedLayout) p(x, f int) int    { return x*l.m + f }
func (l fixedLayout) gamma() int        { return l.n * l.m }
func (l fixedLayout) t(i, f, z int) int { return l.tOff[i] + f*l.nz[i] + z }
func (l fixedLayout) w(f, y int) int    { return l.wOff + f*l.ny + y }

// FixedModel builds the fixed-alphabet MIP (docs/finite.md) at threshold d:
//
//	max γ  s.t.  Σ_f P[x][f] = 1                       (rows of the privatizer)
//	             t_ifz ≤ ⟨k^i_za, P[·][f]⟩ ∀a,  Σ_fz t_ifz ≥ γ   (adversary i, exact epigraph)
//	             w_fy ≥ ⟨k_ya, P[·][f]⟩ − M_ya (1 − δ_fya) ∀a,  Σ_a δ_fya = 1,
//	             Σ_fy w_fy ≤ D                                 (reconstructor, big-M)
//
// with k_va(x) = π(x) W(v|x) L(x, a) over the estimates that can be optimal
// (see risk). The derived M_ya = max_b Σ_x (k_ya(x) − k_yb(x))⁺ is the
// largest ⟨k_ya − k_yb, c⟩ over c ∈ [0,1]^n, so when δ picks b the row of a
// is implied by the row of b. Symmetry breaking orders the outputs by the
// column entries of the row with the largest prior: relabelling outputs
// changes no risk.
func (m Finite) FixedModel(d float64, fo FixedOptions) (*highsx.Problem, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := m.checkFiniteD(d); err != nil {
		return nil, err
	}
	if fo.Outputs < 1 || fo.Outputs > MaxOutputs {
		return nil, fmt.Errorf("output alphabet m = %d: must be in [1, %d]", fo.Outputs, MaxOutputs)
	}
	b := m.newFixedBuilder(fo)
	b.privatizerRows()
	b.adversaryRows()
	b.reconRows(d)
	if fo.Global != nil {
		if err := b.globalCuts(d); err != nil {
			return nil, err
		}
	}
	if !fo.NoSymmetryBreaking {
		b.symmetryRows()
	}
	return b.mod, nil
}

// fixedBuilder holds the fixed-alphabet MIP while FixedModel writes its
// rows, in the order: privatizer, adversaries, reconstructor, global cuts,
// symmetry breaking.
type fixedBuilder struct {
	m   Finite
	fo  FixedOptions
	l   fixedLayout
	rr  risk   // the reconstructor's
	ra  []risk // adversary i's
	mod *highsx.Problem
	row rowBuilder
}

// newFixedBuilder lays out the columns: P, γ, t, w, then δ (and, for the
// hull formulation, u) for every cell with more than one candidate
// estimate.
func (m Finite) newFixedBuilder(fo FixedOptions) *fixedBuilder {
	n, mo := m.N(), fo.Outputs
	rs := m.risks()
	b := &fixedBuilder{m: m, fo: fo, rr: rs[0], ra: rs[1:]}
	l := fixedLayout{n: n, m: mo, ny: len(b.rr.k)}
	next := n*mo + 1
	for i := range b.ra {
		l.nz = append(l.nz, len(b.ra[i].k))
		l.tOff = append(l.tOff, next)
		next += mo * len(b.ra[i].k)
	}
	l.wOff = next
	l.dOff = next + mo*l.ny
	nd := l.dOff // the columns: δ (and u) after w
	for _, ks := range b.rr.k {
		if len(ks) > 1 {
			nd += mo * len(ks)
			if fo.Hull {
				nd += mo * len(ks) * n // u_fya(x)
			}
		}
	}
	b.l = l
	b.mod = highsx.NewProblem(nd)
	b.mod.Maximize = true
	for j := 0; j < n*mo; j++ {
		b.mod.Upper[j] = 1
	}
	b.mod.Cost[l.gamma()] = 1
	b.row = newRowBuilder(b.mod)
	return b
}

// privatizerRows: Σ_f P[x][f] = 1.
func (b *fixedBuilder) privatizerRows() {
	for x := 0; x < b.l.n; x++ {
		es := make([]entry, b.l.m)
		for f := range es {
			es[f] = entry{b.l.p(x, f), 1}
		}
		b.row.add(1, 1, es...)
	}
}

// adversaryRows: the exact epigraph of each adversary's sum of minima
// (concave), t_ifz ≤ ⟨k^i_za, P[·][f]⟩ and Σ_fz t_ifz ≥ γ.
func (b *fixedBuilder) adversaryRows() {
	l := b.l
	for i := range b.ra {
		for f := 0; f < l.m; f++ {
			for z, ks := range b.ra[i].k {
				for _, kv := range ks {
					// t − ⟨k, P_f⟩ ≤ 0
					es := []entry{{l.t(i, f, z), 1}}
					for x, v := range kv {
						es = append(es, entry{l.p(x, f), -v})
					}
					b.row.add(math.Inf(-1), 0, es...)
				}
			}
		}
		es := []entry{{l.gamma(), 1}}
		for f := 0; f < l.m; f++ {
			for z := range b.ra[i].k {
				es = append(es, entry{l.t(i, f, z), -1})
			}
		}
		b.row.add(math.Inf(-1), 0, es...)
	}
}

// reconRows: an estimate per cell (f, y), by big-M rows or the hull
// formulation, and Σ_fy w_fy ≤ D.
func (b *fixedBuilder) reconRows(d float64) {
	l := b.l
	dcol := l.dOff
	for f := 0; f < l.m; f++ {
		for y, ks := range b.rr.k {
			switch {
			case len(ks) == 1: // a single candidate estimate: w ≥ ⟨k, P_f⟩
				es := []entry{{l.w(f, y), 1}}
				for x, v := range ks[0] {
					es = append(es, entry{l.p(x, f), -v})
				}
				b.row.add(0, math.Inf(1), es...)
			case b.fo.Hull:
				dcol = hullRows(b.mod, b.row, l, f, y, ks, dcol)
			default:
				dcol = b.bigMRows(f, y, ks, dcol)
			}
		}
	}
	es := make([]entry, 0, l.m*l.ny)
	for f := 0; f < l.m; f++ {
		for y := 0; y < l.ny; y++ {
			es = append(es, entry{l.w(f, y), 1})
		}
	}
	b.row.add(math.Inf(-1), d, es...)
}

// bigMRows writes cell (f, y)'s big-M rows w − ⟨k_a, P_f⟩ − M δ_a ≥ −M and
// Σ_a δ_a = 1 with binaries δ from column dcol on; it returns the next
// free column.
func (b *fixedBuilder) bigMRows(f, y int, ks [][]float64, dcol int) int {
	naive := maxLoss(b.m.Recon.LossMatrix(b.l.n))
	one := make([]entry, len(ks))
	for a, kv := range ks {
		dc := dcol
		dcol++
		b.mod.Integer[dc] = true
		b.mod.Upper[dc] = 1
		one[a] = entry{dc, 1}
		bigM := naive
		if !b.fo.NaiveBigM {
			bigM = derivedM(ks, a)
		}
		es := []entry{{b.l.w(f, y), 1}, {dc, -bigM}}
		for x, v := range kv {
			es = append(es, entry{b.l.p(x, f), -v})
		}
		b.row.add(-bigM, math.Inf(1), es...)
	}
	b.row.add(1, 1, one...)
	return dcol
}

// globalCuts bounds γ by the global optimum at d and adds one column cut
// per output (see columnCut).
func (b *fixedBuilder) globalCuts(d float64) error {
	l := b.l
	bound, cut, err := b.fo.Global.cutAt(d, DefaultSolver())
	if err != nil {
		return err
	}
	// A relative slack keeps HiGHS's rounding from cutting the optimum.
	b.mod.Upper[l.gamma()] = bound + 1e-9*(1+math.Abs(bound))
	for f := 0; f < l.m; f++ {
		var es []entry
		for i := range b.ra {
			for z := range b.ra[i].k {
				es = append(es, entry{l.t(i, f, z), cut.mu[i]})
			}
		}
		for y := 0; y < l.ny; y++ {
			es = append(es, entry{l.w(f, y), -cut.nu})
		}
		for x := 0; x < l.n; x++ {
			es = append(es, entry{l.p(x, f), -cut.y[x]})
		}
		b.row.add(math.Inf(-1), 1e-9, es...)
	}
	return nil
}

// symmetryRows order the outputs by the column entries of the row with
// the largest prior, P[xs][f] ≥ P[xs][f+1]: relabelling outputs changes no
// risk.
func (b *fixedBuilder) symmetryRows() {
	xs := slices.Index(b.m.Prior, slices.Max(b.m.Prior))
	for f := 0; f+1 < b.l.m; f++ {
		b.row.add(0, math.Inf(1), entry{b.l.p(xs, f), 1}, entry{b.l.p(xs, f+1), -1})
	}
}

// hullRows writes the convex hull of the disjunction ∨_a {w ≥ ⟨k_a, c⟩}
// over c ∈ [0,1]^n for cell (f, y): c = Σ_a u_a, 0 ≤ u_a ≤ δ_a,
// Σ_a δ_a = 1, w ≥ Σ_a ⟨k_a, u_a⟩ (Balas's disjunctive formulation). It
// returns the next free column.
func hullRows(mod *highsx.Problem, row rowBuilder, l fixedLayout, f, y int, ks [][]float64, col int) int {
	n := l.n
	one := make([]entry, len(ks))
	wrow := []entry{{l.w(f, y), 1}}
	us := make([][]int, len(ks))
	for a, kv := range ks {
		dc := col
		col++
		mod.Integer[dc] = true
		mod.Upper[dc] = 1
		one[a] = entry{dc, 1}
		us[a] = make([]int, n)
		for x := 0; x < n; x++ {
			u := col
			col++
			mod.Upper[u] = 1
			us[a][x] = u
			row.add(math.Inf(-1), 0, entry{u, 1}, entry{dc, -1}) // u ≤ δ
			wrow = append(wrow, entry{u, -kv[x]})
		}
	}
	row.add(1, 1, one...)
	for x := 0; x < n; x++ {
		es := []entry{{l.p(x, f), -1}}
		for a := range ks {
			es = append(es, entry{us[a][x], 1})
		}
		row.add(0, 0, es...) // Σ_a u_a(x) = P[x][f]
	}
	row.add(0, math.Inf(1), wrow...) // w ≥ Σ_a ⟨k_a, u_a⟩
	return col
}

// derivedM is max over c ∈ [0,1]^n of max_b ⟨k_a − k_b, c⟩.
func derivedM(ks [][]float64, a int) float64 {
	var best float64
	for b := range ks {
		if b == a {
			continue
		}
		var s float64
		for x := range ks[a] {
			s += math.Max(0, ks[a][x]-ks[b][x])
		}
		best = math.Max(best, s)
	}
	return best
}

func maxLoss(l [][]float64) float64 {
	var mx float64
	for _, row := range l {
		for _, v := range row {
			mx = math.Max(mx, v)
		}
	}
	return mx
}

// SolveFixed solves the fixed-alphabet MIP at threshold d. The losses are
// recomputed exactly from the optimal mechanism.
func (m Finite) SolveFixed(d float64, fo FixedOptions, o SolverOptions) (FiniteOptimum, error) {
	mod, err := m.FixedModel(d, fo)
	if err != nil {
		return FiniteOptimum{}, err
	}
	res, err := mod.Solve(context.Background(), o)
	if errors.Is(err, highsx.ErrInfeasible) {
		return FiniteOptimum{Status: pointStatus(res.Status), SolveTime: res.Time}, fmt.Errorf("fixed-alphabet MIP at D = %g: no privatizer with m = %d outputs has reconstructor loss ≤ D (try more outputs or --alphabet global): %w", d, fo.Outputs, err)
	}
	if err != nil {
		return FiniteOptimum{Status: pointStatus(res.Status), SolveTime: res.Time}, fmt.Errorf("fixed-alphabet MIP (m = %d) at D = %g: %w", fo.Outputs, d, err)
	}
	return m.fixedOptimum(d, fo.Outputs, res), nil
}

// GlobalOutputs is n + K + 1, the most outputs an optimal privatizer needs
// (a basic solution of the global LP has that many rows).
func (m Finite) GlobalOutputs() int { return m.N() + m.K() + 1 }

// WriteFixedModel writes the fixed-alphabet MIP at threshold d to path
// (.mps or .lp; not atomic, see WriteProp2Model).
func (m Finite) WriteFixedModel(d float64, fo FixedOptions, path string) error {
	mod, err := m.FixedModel(d, fo)
	if err != nil {
		return err
	}
	return mod.Write(path)
}
