package highsx

import (
	"fmt"
	"math"
	"slices"
)

// Tiny coefficients. HiGHS's tolerances are absolute (primal feasibility
// 1e-9 here), and it drops matrix entries below small_matrix_value (1e-9 by
// default) with a warning. A model with probabilities of 1e-9 has both
// coefficients and optimal values of that size, so solved as it is, its
// answer is decided by the tolerances (or lost with the dropped entries:
// an adversary whose side channel errs with probability 1e-9 came out with
// loss 0, not 1e-9). Such a model is solved scaled: row i multiplied by
// r_i, column j's variable replaced by x_j = c_j·x'_j, the costs multiplied
// by σ, every factor a power of two (so scaling and unscaling are exact),
// chosen by geometric-mean equilibration. The tolerances then hold in the
// scaled model, whose entries and values are near 1, and the solution is
// mapped back and re-checked against the model as given.

// scaleBelow is the magnitude under which a nonzero coefficient makes
// Solve scale the model: three orders of magnitude above the tolerances,
// where they start to decide an answer's leading digits. Models built from
// ordinary probabilities have none, and are solved exactly as given.
const scaleBelow = 1e-6

// minMatrixValue is HiGHS's smallest allowed small_matrix_value, set for
// scaled models: an entry still below it after equilibration is below
// 1e-12 relative to the others of its row and column, and dropping it
// moves no answer by more than the tolerances.
const minMatrixValue = 1e-12

// scaling is a model's row, column and objective factors (see above).
type scaling struct {
	row []float64 // r_i
	col []float64 // c_j (1 for integer columns)
	obj float64   // σ
}

// needsScaling reports whether m has a nonzero matrix entry or cost below
// scaleBelow in magnitude.
func (m *Problem) needsScaling() bool {
	return slices.ContainsFunc(m.value, func(v float64) bool { return math.Abs(v) < scaleBelow }) ||
		slices.ContainsFunc(m.Cost, func(c float64) bool { return c != 0 && math.Abs(c) < scaleBelow })
}

// equilibrate returns geometric-mean scaling factors for m: a few passes
// that set each row's and then each continuous column's factor to
// 1/√(min·max) of its scaled entries' magnitudes, rounded to powers of two;
// σ brings the largest scaled cost to about 1.
func (m *Problem) equilibrate() scaling {
	nr, nc := m.NumRows(), m.NumCols()
	s := scaling{row: ones(nr), col: ones(nc), obj: 1}
	lo, hi := make([]float64, nc), make([]float64, nc)
	for range 4 {
		for i := range nr {
			_, _, col, val := rowWithout(m, i)
			rlo, rhi := math.Inf(1), 0.0
			for k, j := range col {
				a := math.Abs(val[k]) * s.col[j]
				rlo, rhi = math.Min(rlo, a), math.Max(rhi, a)
			}
			if rhi > 0 {
				s.row[i] = math.Max(1, 1/math.Sqrt(rlo*rhi))
			}
		}
		for j := range nc {
			lo[j], hi[j] = math.Inf(1), 0
		}
		for i := range nr {
			_, _, col, val := rowWithout(m, i)
			for k, j := range col {
				a := math.Abs(val[k]) * s.row[i]
				lo[j], hi[j] = math.Min(lo[j], a), math.Max(hi[j], a)
			}
		}
		for j := range nc {
			if hi[j] > 0 && (m.Integer == nil || !m.Integer[j]) {
				s.col[j] = math.Min(1, 1/math.Sqrt(lo[j]*hi[j]))
			}
		}
	}
	for i := range s.row {
		s.row[i] = pow2(s.row[i])
	}
	for j := range s.col {
		s.col[j] = pow2(s.col[j])
	}
	var cmax float64
	for j, c := range m.Cost {
		cmax = math.Max(cmax, math.Abs(c)*s.col[j])
	}
	if cmax > 0 {
		s.obj = pow2(1 / cmax)
	}
	return s
}

// rowWithout is row i of m without its entries below minMatrixValue
// times its largest.
func rowWithout(m *Problem, i int) (lo, hi float64, col []int, val []float64) {
	lo, hi, col, val = m.Row(i)
	var big float64
	for _, v := range val {
		big = math.Max(big, math.Abs(v))
	}
	keep := 0
	for _, v := range val {
		if math.Abs(v) >= minMatrixValue*big {
			keep++
		}
	}
	if keep == len(val) {
		return lo, hi, col, val
	}
	kc, kv := make([]int, 0, keep), make([]float64, 0, keep)
	for k, v := range val {
		if math.Abs(v) >= minMatrixValue*big {
			kc, kv = append(kc, col[k]), append(kv, v)
		}
	}
	return lo, hi, kc, kv
}

// pow2 is the power of two nearest to x > 0 in ratio.
func pow2(x float64) float64 { return math.Ldexp(1, int(math.Round(math.Log2(x)))) }

func ones(n int) []float64 { return slices.Repeat([]float64{1}, n) }

// apply returns the scaled model: entries r_i·a_ij·c_j, column bounds
// divided by c_j, row bounds multiplied by r_i, costs σ·c_j·cost_j, the
// offset σ·offset. An
// entry below minMatrixValue times the largest of its row is left out (as
// a term of the row it is below the precision of the others' sum; recheck
// holds the solution to the full row).
func (s scaling) apply(m *Problem) *Problem {
	out := NewProblem(m.NumCols())
	out.Maximize, out.Offset = m.Maximize, s.obj*m.Offset
	copy(out.Integer, m.Integer)
	for j := range m.NumCols() {
		out.Cost[j] = s.obj * s.col[j] * m.Cost[j]
		out.Lower[j], out.Upper[j] = m.Lower[j]/s.col[j], m.Upper[j]/s.col[j]
	}
	for i := range m.NumRows() {
		lo, hi, col, val := rowWithout(m, i)
		sv := make([]float64, len(val))
		for k, j := range col {
			sv[k] = s.row[i] * val[k] * s.col[j]
		}
		out.AddRow(s.row[i]*lo, s.row[i]*hi, col, sv)
	}
	return out
}

// unscale maps a solution of the scaled model back: x_j = c_j·x'_j, the
// objective and the dual bound divided by σ, row i's dual r_i·y'_i/σ.
func (s scaling) unscale(res *Result) {
	for j := range res.X {
		res.X[j] *= s.col[j]
	}
	res.Objective /= s.obj
	res.DualBound /= s.obj
	for i := range res.RowDual {
		if i < len(s.row) {
			res.RowDual[i] *= s.row[i] / s.obj
		}
	}
}

// recheck verifies x against m as given: every bound and row within the
// primal feasibility tolerance tol as it held in the scaled model (tol/c_j
// for column j, tol/r_i for row i), with a factor 4 for the rounding of
// the mapping back.
func (s scaling) recheck(m *Problem, x []float64, tol float64) error {
	for j, v := range x {
		t := 4 * tol * s.col[j]
		if v < m.Lower[j]-t || v > m.Upper[j]+t {
			return fmt.Errorf("%w: column %d = %g is outside [%g, %g] after scaling back", ErrNotOptimal, j, v, m.Lower[j], m.Upper[j])
		}
	}
	for i := range m.NumRows() {
		lo, hi, col, val := m.Row(i)
		var act float64
		for k, j := range col {
			act += val[k] * x[j]
		}
		t := 4 * tol / s.row[i]
		if act < lo-t || act > hi+t {
			return fmt.Errorf("%w: row %d = %g is outside [%g, %g] after scaling back", ErrNotOptimal, i, act, lo, hi)
		}
	}
	return nil
}
