package mip

import (
	"fmt"
	"math"
	"slices"

	"github.com/mmds-project/mmds/internal/sweep"
)

// Finite is a general finite model (docs/finite.md): X ∈ {0..n−1} with prior
// Prior; the reconstructor and each adversary observe X through their own
// channel and are scored by their own loss. K = len(Adv) ≥ 1.
type Finite struct {
	Prior []float64  // π(x), n ≥ 1 entries summing to 1
	Recon Observer   // the authorized reconstructor (side information Y)
	Adv   []Observer // the adversaries (side information Z_i)
}

// Observer is one party's side-information channel and loss.
type Observer struct {
	// Channel[x][v] = P(V = v | X = x): n rows, each a distribution over the
	// observer's side-information alphabet.
	Channel [][]float64
	// Loss[x][a] = L(x, a) ≥ 0 for estimate a; nil means the 0-1 loss on
	// estimates {0..n−1}.
	Loss [][]float64
}

// Mechanism is a randomized privatizer with m outputs: P[x][f] = P(F=f|X=x).
// Each row is a distribution over the outputs; the columns P[·][f] are the
// columns of column generation (see the package comment).
type Mechanism [][]float64

// Outputs is the size m of the output alphabet.
func (p Mechanism) Outputs() int {
	if len(p) == 0 {
		return 0
	}
	return len(p[0])
}

// Column returns P[·][f].
func (p Mechanism) Column(f int) []float64 {
	c := make([]float64, len(p))
	for x := range p {
		c[x] = p[x][f]
	}
	return c
}

// Normalized returns a copy of p with each row divided by its sum (summed
// in order): an exact privatizer from rows that sum to 1 up to rounding.
func (p Mechanism) Normalized() Mechanism {
	q := make(Mechanism, len(p))
	for x, row := range p {
		q[x] = slices.Clone(row)
		normalize(q[x])
	}
	return q
}

// probTol is how far a probability vector may sum from 1.
const probTol = 1e-9

// N is the size of X's alphabet.
func (m Finite) N() int { return len(m.Prior) }

// K is the number of adversaries.
func (m Finite) K() int { return len(m.Adv) }

// Validate reports the first invalid entry, naming the matrix, row and entry:
// negative, NaN or infinite numbers, rows that do not sum to 1, and sizes
// that do not match.
func (m Finite) Validate() error {
	n := len(m.Prior)
	if n == 0 {
		return fmt.Errorf("prior: need at least one entry")
	}
	if err := checkDist("prior", m.Prior); err != nil {
		return err
	}
	if err := m.Recon.validate("reconstructor", n); err != nil {
		return err
	}
	if len(m.Adv) == 0 {
		return fmt.Errorf("adversaries: need at least one adversary")
	}
	for i, a := range m.Adv {
		if err := a.validate(fmt.Sprintf("adversaries[%d]", i), n); err != nil {
			return err
		}
	}
	return nil
}

// checkShape reports a matrix that is not n rows of one common, non-zero
// length; a column is one "what" (named in the message).
func checkShape(name string, m [][]float64, n int, what string) error {
	if len(m) != n {
		return fmt.Errorf("%s has %d rows: want one row per value of X (n = %d, the length of prior)", name, len(m), n)
	}
	cols := len(m[0])
	if cols == 0 {
		return fmt.Errorf("%s row 0 is empty: want at least one %s", name, what)
	}
	for x, row := range m {
		if len(row) != cols {
			return fmt.Errorf("%s row %d has %d entries, row 0 has %d: every row needs the same length", name, x, len(row), cols)
		}
	}
	return nil
}

func (o Observer) validate(name string, n int) error {
	if err := checkShape(name+".channel", o.Channel, n, "side-information value"); err != nil {
		return err
	}
	for x, row := range o.Channel {
		if err := checkDist(fmt.Sprintf("%s.channel row %d", name, x), row); err != nil {
			return err
		}
	}
	if o.Loss == nil {
		return nil
	}
	if err := checkShape(name+".loss", o.Loss, n, "estimate"); err != nil {
		return err
	}
	for x, row := range o.Loss {
		for a, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("%s.loss row %d, entry %d = %v: must be a finite number ≥ 0", name, x, a, v)
			}
		}
	}
	return nil
}

// checkDist checks that v is a probability vector (to within probTol).
func checkDist(name string, v []float64) error {
	var sum float64
	for j, p := range v {
		if math.IsNaN(p) || p < 0 || p > 1 {
			return fmt.Errorf("%s, entry %d = %v: must be a probability in [0, 1]", name, j, p)
		}
		sum += p
	}
	if math.Abs(sum-1) > probTol {
		return fmt.Errorf("%s sums to %.12g: must sum to 1 (within %g)", name, sum, probTol)
	}
	return nil
}

// LossMatrix returns L(x, a), filling in the 0-1 default on n values.
func (o Observer) LossMatrix(n int) [][]float64 {
	if o.Loss != nil {
		return o.Loss
	}
	l := make([][]float64, n)
	for x := range l {
		l[x] = make([]float64, n)
		for a := range l[x] {
			if a != x {
				l[x][a] = 1
			}
		}
	}
	return l
}

// risk is an observer's Bayes risk as a function of one privatizer column
// c (c_x = P(F=f|X=x)):
//
//	ρ(c) = Σ_v min_a Σ_x π(x) c_x W(v|x) L(x, a) = Σ_v min_a ⟨k_va, c⟩,
//
// concave, positively homogeneous and piecewise linear in c ∈ R^n_+. The
// observer's risk of a mechanism is Σ_f ρ(P[·][f]) (docs/finite.md, "Exact
// Bayes risk").
type risk struct {
	// k[v] holds the coefficient vectors k_va of the estimates a that can
	// be Bayes-optimal for side value v: an estimate whose vector is
	// entrywise ≥ another's is never needed (the other does at least as
	// well for every c ≥ 0), so it is dropped (equal vectors keep the first).
	k [][][]float64
	// acts[v][j] is the estimate a of k[v][j], for the decision rules.
	acts [][]int
}

func newRisk(prior []float64, o Observer) risk {
	vs := lossVectors(prior, o)
	r := risk{k: make([][][]float64, len(vs)), acts: make([][]int, len(vs))}
	for v, all := range vs {
		for a := range all {
			if !dominated(all, a) {
				r.k[v] = append(r.k[v], all[a])
				r.acts[v] = append(r.acts[v], a)
			}
		}
	}
	return r
}

// Observers returns the reconstructor, then the adversaries (the order of
// a dataset's side columns).
func (m Finite) Observers() []Observer { return append([]Observer{m.Recon}, m.Adv...) }

// ZeroOne reports whether o's loss is the 0-1 loss: nil, or the square
// matrix with zeros on the diagonal and ones elsewhere.
func (o Observer) ZeroOne() bool {
	for x, row := range o.Loss {
		if len(row) != len(o.Loss) {
			return false
		}
		for a, v := range row {
			if (a == x && v != 0) || (a != x && v != 1) {
				return false
			}
		}
	}
	return true
}

// risks returns the observers' risks: the reconstructor's, then adversary
// i's at 1 + i.
func (m Finite) risks() []risk {
	rs := []risk{newRisk(m.Prior, m.Recon)}
	for _, a := range m.Adv {
		rs = append(rs, newRisk(m.Prior, a))
	}
	return rs
}

// lossVectors returns k[v][a][x] = π(x)·W(v|x)·L(x, a) for observer o.
func lossVectors(prior []float64, o Observer) [][][]float64 {
	n := len(prior)
	l := o.LossMatrix(n)
	k := make([][][]float64, len(o.Channel[0]))
	for v := range k {
		k[v] = make([][]float64, len(l[0]))
		for a := range k[v] {
			k[v][a] = make([]float64, n)
			for x := range n {
				k[v][a][x] = prior[x] * o.Channel[x][v] * l[x][a]
			}
		}
	}
	return k
}

// dominated reports whether some other vector is entrywise ≤ vs[a]
// (strictly somewhere, or equal with a smaller index).
func dominated(vs [][]float64, a int) bool {
	for b := range vs {
		if b == a {
			continue
		}
		le, eq := true, true
		for x := range vs[a] {
			if vs[b][x] > vs[a][x] {
				le = false
				break
			}
			if vs[b][x] != vs[a][x] {
				eq = false
			}
		}
		if le && (!eq || b < a) {
			return true
		}
	}
	return false
}

// at is ρ(c).
func (r risk) at(c []float64) float64 {
	var sum float64
	for _, ks := range r.k {
		sum += minDot(ks, c)
	}
	return sum
}

func minDot(ks [][]float64, c []float64) float64 {
	best := math.Inf(1)
	for _, k := range ks {
		best = math.Min(best, dot(k, c))
	}
	return best
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Risk is the exact Bayes risk of observer o (the reconstructor or an
// adversary of m) when F is released by p: Σ_{f,v} min_a Σ_x π(x) P(f|x)
// W(v|x) L(x, a). p must have n rows.
func (m Finite) Risk(o Observer, p Mechanism) float64 {
	r := newRisk(m.Prior, o)
	var sum float64
	for f := 0; f < p.Outputs(); f++ {
		sum += r.at(p.Column(f))
	}
	return sum
}

// ReconLoss is the reconstructor's Bayes risk under p.
func (m Finite) ReconLoss(p Mechanism) float64 { return m.Risk(m.Recon, p) }

// AdvLosses returns every adversary's Bayes risk under p.
func (m Finite) AdvLosses(p Mechanism) []float64 {
	return each(m.Adv, func(a Observer) float64 { return m.Risk(a, p) })
}

// each is f of every element of xs (of every adversary).
func each[T any](xs []T, f func(T) float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// ones is the all-ones column: F independent of X (a single output).
func ones(n int) []float64 { return slices.Repeat([]float64{1}, n) }

// SideOnlyRisk is o's Bayes risk from its side information alone (F
// independent of X): the most any privatizer can make it lose.
func (m Finite) SideOnlyRisk(o Observer) float64 { return newRisk(m.Prior, o).at(ones(m.N())) }

// DMax is the reconstructor's side-information-only risk: for D ≥ DMax the
// distortion constraint is slack for every privatizer.
func (m Finite) DMax() float64 { return m.SideOnlyRisk(m.Recon) }

// DefaultFinitePoints is the number of thresholds of Finite.DefaultSweep.
const DefaultFinitePoints = 11

// DefaultSweep is mmds finite's grid: DefaultFinitePoints evenly spaced
// thresholds from D_min to D_max, or the single threshold D_min when
// D_max ≤ D_min.
func (m Finite) DefaultSweep() sweep.Spec {
	d0, d1 := m.DMin(), m.DMax()
	if d1 <= d0 {
		return sweep.Spec{D0: d0, D1: d0, N: 1}
	}
	return sweep.Spec{D0: d0, D1: d1, N: DefaultFinitePoints}
}

// DMin is the smallest reconstructor risk any privatizer achieves, that of
// F = X: Σ_x π(x) min_a L(x, a) (0 for the 0-1 loss). D < DMin is infeasible.
func (m Finite) DMin() float64 {
	l := m.Recon.LossMatrix(m.N())
	var s float64
	for x, p := range m.Prior {
		s += p * slices.Min(l[x])
	}
	return s
}

// AdvSaturation returns each adversary's side-information-only risk.
func (m Finite) AdvSaturation() []float64 {
	return each(m.Adv, func(a Observer) float64 { return m.SideOnlyRisk(a) })
}

// checkFiniteD validates a threshold against the model: D must be a finite
// number ≥ D_min (below it no privatizer meets the constraint).
func (m Finite) checkFiniteD(d float64) error {
	if err := checkD(d); err != nil {
		return err
	}
	if dmin := m.DMin(); d < dmin-1e-12 {
		return fmt.Errorf("D = %v: infeasible, below the smallest reconstructor loss any privatizer achieves (D_min = %.6g, that of F = X)", d, dmin)
	}
	return nil
}

// Finite returns the binary model as a finite model: n = 2, BSC channels
// with two outputs, 0-1 losses. Its risks equal MAPLoss, Appendix B's
// expression, term by term.
func (m Binary) Finite() Finite {
	bscm := func(q float64) Observer {
		return Observer{Channel: [][]float64{{1 - q, q}, {q, 1 - q}}}
	}
	f := Finite{Prior: []float64{1 - m.P, m.P}, Recon: bscm(m.QY)}
	for _, q := range m.QZ {
		f.Adv = append(f.Adv, bscm(q))
	}
	return f
}

// Mechanism returns the binary privatizer s as a two-output mechanism:
// rows x = 0, 1; columns f = 0, 1.
func (s Privatizer) Mechanism() Mechanism {
	return Mechanism{{s.S0, 1 - s.S0}, {1 - s.S1, s.S1}}
}

// ValidateMechanism checks that p is an n × m row-stochastic matrix.
func (m Finite) ValidateMechanism(p Mechanism) error {
	if err := m.checkShape(p); err != nil {
		return err
	}
	for x, row := range p {
		if err := checkDist(fmt.Sprintf("mechanism row %d", x), row); err != nil {
			return err
		}
	}
	return nil
}

// checkShape reports a mechanism without one row per x, or with rows of
// different or zero lengths.
func (m Finite) checkShape(p Mechanism) error {
	if len(p) != m.N() {
		return fmt.Errorf("mechanism has %d rows, want n = %d", len(p), m.N())
	}
	for x, row := range p {
		if len(row) != p.Outputs() || len(row) == 0 {
			return fmt.Errorf("mechanism row %d has %d entries, want %d ≥ 1", x, len(row), p.Outputs())
		}
	}
	return nil
}
