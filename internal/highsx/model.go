package highsx

import (
	"fmt"
	"math"
	"slices"

	"github.com/lanl/highs"
)

// Model is a linear or mixed-integer program
//
//	max (or min)  Σ_j Cost[j]·x_j
//	subject to    rowLower_i ≤ Σ_j a_ij·x_j ≤ rowUpper_i   for every row i
//	              Lower[j] ≤ x_j ≤ Upper[j], x_j integer where Integer[j],
//
// built by its callers and loaded into HiGHS only by Solve, Write and NewLP.
// Columns are the entries of Cost, Lower, Upper and Integer (equal lengths;
// NewModel makes them); rows are added with AddRow and stored sparse, row by
// row. Infinite bounds are ±Inf.
type Model struct {
	Maximize bool
	Cost     []float64
	Lower    []float64
	Upper    []float64
	Integer  []bool // nil: every column continuous

	rowLower, rowUpper []float64
	start              []int // row i's entries are index/value[start[i]:start[i+1]]
	index              []int
	value              []float64
}

// NewModel returns a model with n continuous columns, costs 0 and bounds
// [0, +∞), and no rows.
func NewModel(n int) *Model {
	m := &Model{
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
func (m *Model) NumCols() int { return len(m.Cost) }

// NumRows is the number of rows.
func (m *Model) NumRows() int { return len(m.rowLower) }

// IsMIP reports whether some column is integer.
func (m *Model) IsMIP() bool { return slices.Contains(m.Integer, true) }

// AddRow appends the row lo ≤ Σ_k val[k]·x[col[k]] ≤ hi and returns its
// index. Entries are kept in column order; a column given twice has its
// coefficients summed, and zero coefficients are dropped. A column out of
// range, or col and val of different lengths, is a programmer error and
// panics.
func (m *Model) AddRow(lo, hi float64, col []int, val []float64) int {
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
func (m *Model) sortRow(first int) {
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
func (m *Model) Row(i int) (lo, hi float64, col []int, val []float64) {
	s, e := m.start[i], m.start[i+1]
	return m.rowLower[i], m.rowUpper[i], m.index[s:e], m.value[s:e]
}

// check reports what HiGHS would refuse: columns of unequal lengths (a
// programmer error: it panics), NaN anywhere, an infinite coefficient or
// cost. Crossed bounds are left to HiGHS: they make the model infeasible.
func (m *Model) check() error {
	n := m.NumCols()
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

// FromHighs converts a lanl/highs model (the benchmark's MPS reader builds
// those) into a Model. A coordinate given twice keeps its last value, as
// lanl/highs does.
func FromHighs(h *highs.Model) *Model {
	nc := max(len(h.ColCosts), len(h.ColLower), len(h.ColUpper), len(h.VarTypes))
	m := NewModel(nc)
	m.Maximize = h.Maximize
	for j := range nc {
		m.Cost[j] = bound(h.ColCosts, j, 0)
		m.Lower[j] = bound(h.ColLower, j, math.Inf(-1))
		m.Upper[j] = bound(h.ColUpper, j, math.Inf(1))
		m.Integer[j] = j < len(h.VarTypes) && h.VarTypes[j] != highs.ContinuousType
	}
	nr := max(len(h.RowLower), len(h.RowUpper))
	type rc struct{ r, c int }
	last := make(map[rc]float64, len(h.ConstMatrix))
	for _, nz := range h.ConstMatrix {
		last[rc{nz.Row, nz.Col}] = nz.Val
	}
	cols := make([][]int, nr)
	vals := make([][]float64, nr)
	for _, nz := range h.ConstMatrix {
		k := rc{nz.Row, nz.Col}
		if v, ok := last[k]; ok && nz.Row < nr {
			cols[nz.Row] = append(cols[nz.Row], nz.Col)
			vals[nz.Row] = append(vals[nz.Row], v)
			delete(last, k)
		}
	}
	for i := range nr {
		m.AddRow(bound(h.RowLower, i, math.Inf(-1)), bound(h.RowUpper, i, math.Inf(1)), cols[i], vals[i])
	}
	return m
}

func bound(b []float64, i int, def float64) float64 {
	if i < len(b) {
		return b[i]
	}
	return def
}

// Highs is m as a lanl/highs model, for the benchmark's MPS writer and
// checker, which still take that type.
func (m *Model) Highs() *highs.Model {
	h := &highs.Model{
		Maximize: m.Maximize,
		ColCosts: slices.Clone(m.Cost),
		ColLower: slices.Clone(m.Lower),
		ColUpper: slices.Clone(m.Upper),
		RowLower: slices.Clone(m.rowLower),
		RowUpper: slices.Clone(m.rowUpper),
		VarTypes: make([]highs.VariableType, m.NumCols()),
	}
	for j, in := range m.Integer {
		if in {
			h.VarTypes[j] = highs.IntegerType
		}
	}
	for i := range m.NumRows() {
		_, _, col, val := m.Row(i)
		for k, j := range col {
			h.ConstMatrix = append(h.ConstMatrix, highs.Nonzero{Row: i, Col: j, Val: val[k]})
		}
	}
	return h
}
