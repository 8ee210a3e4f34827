package bench

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// ExactModel is a model as its MPS file writes it, in rational arithmetic:
// every coefficient, bound and right-hand side is the decimal of the file,
// not the float64 nearest to it. A nil bound is infinite (−∞ for a lower,
// +∞ for an upper bound).
type ExactModel struct {
	Maximize           bool
	Cost               []*big.Rat // per column
	Offset             *big.Rat
	ColLower, ColUpper []*big.Rat
	Integer            []bool
	RowLower, RowUpper []*big.Rat
	Entries            []ExactEntry
}

// ExactEntry is one constraint-matrix entry of an ExactModel.
type ExactEntry struct {
	Row, Col int
	Val      *big.Rat
}

// Tolerances of the check. Feas and Obj are relative and Int absolute, as
// MIPLIB's solution checker applies them (solchecker, scipopt/scip
// check/solchecker/src/model.cpp): a row l ≤ a·x ≤ u is satisfied when
// l − Feas·max{1, |l|, P} ≤ a·x ≤ u + Feas·max{1, |u|, P}, P the sum of the
// positive terms a_j x_j; a bound when x_j lies within Feas·max{1, |bound|,
// |x_j|} of it; an integer column when |x_j − round(x_j)| ≤ Int; a
// reported objective v when |c·x − v| ≤ Obj·max{1, |v|, Σ positive c_j x_j}.
// Objective values are compared with the certified optimum and the proven
// bound the same way.
type Tolerances struct {
	Feas float64 `json:"feasibility"`
	Int  float64 `json:"integrality"`
	Obj  float64 `json:"objective"`
}

// MIPLIBTolerances are solchecker's defaults (1e-4 for rows, bounds, the
// objective and integrality; scipopt/scip check/solchecker/src/main.cpp,
// and LINTOL = INTTOL = 1e-4 in SCIP's check scripts): beyond them an
// answer is wrong.
func MIPLIBTolerances() Tolerances { return Tolerances{Feas: 1e-4, Int: 1e-4, Obj: 1e-4} }

// DefaultTolerances are mmds's tight tolerances: within them an answer is
// precise (optimal); beyond them but within MIPLIBTolerances it is
// imprecise. Feasibility 1e-6 is the common default primal feasibility
// tolerance of MIP solvers (CBC, HiGHS's MIP), integrality 1e-5 GLPK's
// default.
func DefaultTolerances() Tolerances { return Tolerances{Feas: 1e-6, Int: 1e-5, Obj: 1e-6} }

// Verdict is the exact check of one solution. Violations are relative (the
// exact violation divided by its scale, see Tolerances) and rounded to
// float64 only for the report.
type Verdict struct {
	Objective float64 // c·x + offset, exact, then rounded
	MaxRow    float64 // largest relative row violation
	MaxBound  float64 // largest relative column-bound violation
	MaxInt    float64 // largest integrality violation (absolute)
	// Worst names the largest row or bound violation ("row 167", "column
	// 3 bound"), AbsViolation its absolute size.
	Worst        string
	AbsViolation float64
	// Reason says why the solution cannot be checked ("" when it can).
	Reason   string
	row, bnd violation
	intCol   int
	obj      *big.Rat
	objPos   *big.Rat // Σ positive c_j x_j: the objective's scale
}

// violation is the worst violation of one kind.
type violation struct {
	rel   *big.Rat
	abs   float64
	where string
}

// check notes how far v (a value or a row's activity) lies outside [lo,
// hi] when it is the worst violation so far, relative to the scale of the
// side it violates, max{1, |side|, |extra|}: extra is x_j itself for a
// bound, the sum P of the positive terms for a row. It reports whether it
// noted one.
func (w *violation) check(v, extra, lo, hi *big.Rat, where func() string) bool {
	var abs, side *big.Rat
	switch {
	case lo != nil && v.Cmp(lo) < 0:
		abs, side = new(big.Rat).Sub(lo, v), lo
	case hi != nil && v.Cmp(hi) > 0:
		abs, side = new(big.Rat).Sub(v, hi), hi
	default:
		return false
	}
	rel := new(big.Rat).Quo(abs, scaleOf(side, extra))
	if w.rel != nil && rel.Cmp(w.rel) <= 0 {
		return false
	}
	w.rel, w.where = rel, where()
	w.abs, _ = abs.Float64()
	return true
}

// MaxViolation is the largest relative row or bound violation.
func (v Verdict) MaxViolation() float64 { return math.Max(v.MaxRow, v.MaxBound) }

// Exceeds describes every kind of violation of v beyond tol (bounds,
// integrality, rows), "" when none.
func (v Verdict) Exceeds(tol Tolerances) string {
	var out []string
	if v.MaxBound > tol.Feas {
		out = append(out, fmt.Sprintf("%s violated by %.3g (%.3g relative > %g)", v.bnd.where, v.bnd.abs, v.MaxBound, tol.Feas))
	}
	if v.MaxInt > tol.Int {
		out = append(out, fmt.Sprintf("integer column %d is %.3g from an integer (> %g)", v.intCol, v.MaxInt, tol.Int))
	}
	if v.MaxRow > tol.Feas {
		out = append(out, fmt.Sprintf("%s violated by %.3g (%.3g relative > %g)", v.row.where, v.row.abs, v.MaxRow, tol.Feas))
	}
	return strings.Join(out, "; ")
}

// CheckExact checks x against m in rational arithmetic: each x_j is taken
// at its exact float64 value; row activities, bounds, integrality and the
// objective are computed without rounding. It never fails for a solution
// of the right length with finite values; otherwise Reason says why.
func CheckExact(m *ExactModel, x []float64) Verdict {
	nc := len(m.Cost)
	if len(x) != nc {
		return Verdict{Objective: math.NaN(), Reason: fmt.Sprintf("solution has %d values for %d columns", len(x), nc)}
	}
	xs := make([]*big.Rat, nc)
	for j, xj := range x {
		if math.IsNaN(xj) || math.IsInf(xj, 0) {
			return Verdict{Objective: math.NaN(), Reason: fmt.Sprintf("column %d is %v", j, xj)}
		}
		xs[j] = new(big.Rat).SetFloat64(xj)
	}
	v := Verdict{obj: new(big.Rat).Set(m.Offset), objPos: new(big.Rat)}
	t := new(big.Rat)
	for j := range nc {
		t.Mul(m.Cost[j], xs[j])
		v.obj.Add(v.obj, t)
		if t.Sign() > 0 {
			v.objPos.Add(v.objPos, t)
		}
	}
	v.Objective, _ = v.obj.Float64()
	for j := range nc {
		if v.bnd.check(xs[j], xs[j], m.ColLower[j], m.ColUpper[j], func() string { return fmt.Sprintf("column %d bound", j) }) {
			v.MaxBound, _ = v.bnd.rel.Float64()
		}
		if m.Integer[j] {
			// Exact: x_j and its rounding are float64s within a factor 2.
			if d := math.Abs(x[j] - math.Round(x[j])); d > v.MaxInt {
				v.MaxInt, v.intCol = d, j
			}
		}
	}
	nr := len(m.RowLower)
	act, pos := make([]*big.Rat, nr), make([]*big.Rat, nr)
	for i := range nr {
		act[i], pos[i] = new(big.Rat), new(big.Rat)
	}
	for _, e := range m.Entries {
		t.Mul(e.Val, xs[e.Col])
		act[e.Row].Add(act[e.Row], t)
		if t.Sign() > 0 {
			pos[e.Row].Add(pos[e.Row], t)
		}
	}
	for i := range nr {
		if v.row.check(act[i], pos[i], m.RowLower[i], m.RowUpper[i], func() string { return fmt.Sprintf("row %d", i) }) {
			v.MaxRow, _ = v.row.rel.Float64()
		}
	}
	v.Worst, v.AbsViolation = v.bnd.where, v.bnd.abs
	if v.row.rel != nil && (v.bnd.rel == nil || v.row.rel.Cmp(v.bnd.rel) > 0) {
		v.Worst, v.AbsViolation = v.row.where, v.row.abs
	}
	return v
}

// scaleOf is the largest of 1 and the |x| given (nil skipped).
func scaleOf(xs ...*big.Rat) *big.Rat {
	s := big.NewRat(1, 1)
	a := new(big.Rat)
	for _, x := range xs {
		if x == nil {
			continue
		}
		if a.Abs(x); a.Cmp(s) > 0 {
			s.Set(a)
		}
	}
	return s
}

// objGap is |c·x − b| relative to max{1, |b|, Σ positive c_j x_j}: how far
// the solution's exact objective lies from the value b. A finite c·x is
// infinitely far from b = ±Inf (a claim NaN would leave unchecked, as NaN
// exceeds no tolerance); NaN when there is no b or no c·x.
func (v Verdict) objGap(b float64) float64 {
	if math.IsNaN(b) || v.obj == nil {
		return math.NaN()
	}
	if math.IsInf(b, 0) {
		return math.Inf(1)
	}
	rb := new(big.Rat).SetFloat64(b)
	d := new(big.Rat).Sub(v.obj, rb)
	d.Abs(d)
	d.Quo(d, scaleOf(rb, v.objPos))
	f, _ := d.Float64()
	return f
}

// objPast is by how much (relative, as objGap) c·x lies past b on the
// side given, below b (side −1: a minimization's lower bound) or above it
// (+1: a maximization's upper bound); 0 when it does not.
func (v Verdict) objPast(b float64, side int) float64 {
	if math.IsNaN(b) || v.obj == nil {
		return math.NaN()
	}
	if math.IsInf(b, 0) {
		if math.Signbit(b) == (side < 0) {
			return 0 // nothing lies below −Inf or above +Inf
		}
		return math.Inf(1)
	}
	if v.obj.Cmp(new(big.Rat).SetFloat64(b))*side <= 0 {
		return 0
	}
	return v.objGap(b)
}
