package highsx

import (
	"fmt"
	"math"
	"slices"
)

// Problem is a linear or mixed-integer program
//
//	max (or min)  Σ_j Cost[j]·x_j + Offset
//	subject to    rowLower_i ≤ Σ_j a_ij·x_j ≤ rowUpper_i   for every row i
//	              Lower[j] ≤ x_j ≤ Upper[j], x_j integer where Integer[j],
//
// built by its callers and loaded into HiGHS only by Solve, Write and NewLP.
// Columns are the entries of Cost, Lower, Upper and Integer (equal lengths;
// NewProblem makes them); rows are added with AddRow and stored sparse, row by
// row. Infinite bounds are ±Inf.
type Problem struct {
	Maximize bool
	Cost     []float64
	Offset   float64 // constant term of the objective (an MPS file's objective RHS, negated)
	Lower    []float64
	Upper    []float64
	Integer  []bool // nil: every column continuous

	rowLower, rowUpper []float64
	start              []int // row i's entries are index/value[start[i]:start[i+1]]
	index              []int
	value              []float64
}

// NewProblem returns a problem with n continuous columns, costs 0 and bounds
// [0, +∞), and no rows.
func NewProblem(n int) *Problem {
	m := &Problem{
		Cost:    make([]float64, n),
		Lower:   make([]float64, n),
		Upper:   make([]float64, n),
		Integer: make([]bool, n),
		start:   []int{0},
	}
	for j := range m.Upper {
		m.Upper[j] = math.Inf(1)
	}
	return m
}

// NumCols is the number of columns.
func (m *Problem) NumCols() int { return len(m.Cost) }

// NumRows is the number of rows.
func (m *Problem) NumRows() int { return len(m.rowLower) }

// IsMIP reports whether some column is integer.
func (m *Problem) IsMIP() bool { return slices.Contains(m.Integer, true) }

// AddRow appends the row lo ≤ Σ_k val[k]·x[col[k]] ≤ hi and returns its
// index. Entries are kept in column order; a column given twice has its
// coefficients summed, and zero coefficients are dropped. A column out of
// range, or col and val of different lengths, is a programmer error and
// panics.
func (m *Problem) AddRow(lo, hi float64, col []int, val []float64) int {
	if len(col) != len(val) {
		panic(fmt.Sprintf("highsx: AddRow with %d columns and %d values", len(col), len(val)))
	}
	if m.start == nil {
		m.start = []int{0}
	}
	first := len(m.index)
	for k, j := range col {
		if j < 0 || j >= m.NumCols() {
			panic(fmt.Sprintf("highsx: AddRow: column %d out of range [0, %d)", j, m.NumCols()))
		}
		m.index = append(m.index, j)
		m.value = append(m.value, val[k])
	}
	m.sortRow(first)
	m.rowLower = append(m.rowLower, lo)
	m.rowUpper = append(m.rowUpper, hi)
	m.start = append(m.start, len(m.index))
	return len(m.rowLower) - 1
}

// sortRow orders the entries from first on by column, sums duplicates and
// drops zeros.
func (m *Problem) sortRow(first int) {
	idx, val := m.index[first:], m.value[first:]
	perm := make([]int, len(idx))
	for k := range perm {
		perm[k] = k
	}
	slices.SortStableFunc(perm, func(a, b int) int { return idx[a] - idx[b] })
	ci, cv := make([]int, 0, len(idx)), make([]float64, 0, len(idx))
	for _, k := range perm {
		if n := len(ci); n > 0 && ci[n-1] == idx[k] {
			cv[n-1] += val[k]
			continue
		}
		ci, cv = append(ci, idx[k]), append(cv, val[k])
	}
	m.index, m.value = m.index[:first], m.value[:first]
	for k, j := range ci {
		if cv[k] != 0 {
			m.index = append(m.index, j)
			m.value = append(m.value, cv[k])
		}
	}
}

// Row returns row i: its bounds and its entries (shared with m: do not
// modify).
func (m *Problem) Row(i int) (lo, hi float64, col []int, val []float64) {
	s, e := m.start[i], m.start[i+1]
	return m.rowLower[i], m.rowUpper[i], m.index[s:e], m.value[s:e]
}

// SetRowBounds sets the bounds of row i to lo ≤ row ≤ hi.
func (m *Problem) SetRowBounds(i int, lo, hi float64) { m.rowLower[i], m.rowUpper[i] = lo, hi }

// check reports what HiGHS would refuse: columns of unequal lengths (a
// programmer error: it panics), NaN anywhere, an infinite coefficient or
// cost. Crossed bounds are left to HiGHS: they make the model infeasible.
func (m *Problem) check() error {
	n := m.NumCols()
	if !isFinite(m.Offset) {
		return fmt.Errorf("%w: objective offset %v", ErrInvalidModel, m.Offset)
	}
	if len(m.Lower) != n || len(m.Upper) != n || (m.Integer != nil && len(m.Integer) != n) {
		panic(fmt.Sprintf("highsx: model with %d costs, %d lower and %d upper bounds, %d integrality flags",
			n, len(m.Lower), len(m.Upper), len(m.Integer)))
	}
	for j := range n {
		if !isFinite(m.Cost[j]) {
			return fmt.Errorf("%w: column %d has cost %v", ErrInvalidModel, j, m.Cost[j])
		}
		if math.IsNaN(m.Lower[j]) || math.IsNaN(m.Upper[j]) {
			return fmt.Errorf("%w: column %d has bounds [%v, %v]", ErrInvalidModel, j, m.Lower[j], m.Upper[j])
		}
	}
	for i := range m.NumRows() {
		lo, hi, _, val := m.Row(i)
		if math.IsNaN(lo) || math.IsNaN(hi) {
			return fmt.Errorf("%w: row %d has bounds [%v, %v]", ErrInvalidModel, i, lo, hi)
		}
		for _, v := range val {
			if !isFinite(v) {
				return fmt.Errorf("%w: row %d has a coefficient %v", ErrInvalidModel, i, v)
			}
		}
	}
	return nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
