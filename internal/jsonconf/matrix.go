package jsonconf

import (
	"bytes"
	"encoding/json"
	"math"
)

// The caps on a compact Matrix, checked before it is allocated: they are
// gauss.Kernel's (MaxKernelCells + 1 rows, MaxKernelLabels,
// MaxKernelEntries; a test checks they agree), so that a compact table no
// kernel may have is refused before it costs its dense size.
const (
	MaxMatrixRows    = 1<<14 + 1
	MaxMatrixLabels  = 1 << 12
	MaxMatrixEntries = 1 << 25
)

// Matrix is the table of a cell kernel, Matrix[j][l] = P(F = l | X ∈ c_j)
// for the cells c_j and labels l of a label privatizer on a continuous X
// (gauss.Kernel, learn.Kernel and privatizer.Kernel hold it: one type, so
// one JSON form wherever a kernel is read), with two JSON forms:
//
//	dense    [[p_00, p_01, …], [p_10, p_11, …], …]
//	compact  {"labels": m, "rows": [[l, p_jl, l′, p_jl′, …], …]}
//
// The compact form lists per row its nonzero entries as (label, probability)
// pairs, labels increasing; every entry it does not list is 0. A periodic
// labelling on a fine grid (docs/learn.md) has one nonzero per row, so its
// compact form is about m times smaller than the dense one.
//
// MarshalJSON writes the compact form when it is shorter and represents the
// table exactly, else the dense one; both write every probability as
// encoding/json does, the shortest decimal that parses back to the same
// float64, so either form reads back bit for bit. UnmarshalJSON reads both.
// The compact form is checked as it is read (a label is a whole number in
// [0, m), listed at most once per row and in increasing order, with a finite
// probability > 0; every row lists at least one; m and the table's size
// within MaxMatrixLabels, MaxMatrixRows and MaxMatrixEntries before the
// table is allocated); whether rows sum to 1 is the kernel's check
// (gauss.Kernel.Validate), as for the dense form.
type Matrix [][]float64

// compact is the compact form's layout. A row's labels are read as
// float64s, as its probabilities are, and must be whole numbers.
type compact struct {
	Labels int         `json:"labels"`
	Rows   [][]float64 `json:"rows"`
}

// MarshalJSON writes t in the shorter of its two forms (the dense one on a
// tie, or when the compact form cannot hold t exactly).
func (t Matrix) MarshalJSON() ([]byte, error) {
	dense, err := json.Marshal([][]float64(t))
	if err != nil {
		return nil, err
	}
	c, ok := t.compact()
	if !ok {
		return dense, nil
	}
	b, err := json.Marshal(c)
	if err != nil || len(b) >= len(dense) {
		return dense, err
	}
	return b, nil
}

// compact returns t's compact form, or false when it would not read back
// as t: no rows, rows of different lengths or of no labels, a row without a
// nonzero entry, or an entry that is neither +0 nor a finite positive
// number (−0 would read back as +0).
func (t Matrix) compact() (compact, bool) {
	if len(t) == 0 || len(t[0]) == 0 || len(t[0]) > MaxMatrixLabels || len(t) > MaxMatrixRows || len(t)*len(t[0]) > MaxMatrixEntries {
		return compact{}, false
	}
	c := compact{Labels: len(t[0]), Rows: make([][]float64, len(t))}
	for j, row := range t {
		if len(row) != c.Labels {
			return compact{}, false
		}
		var r []float64
		for l, p := range row {
			switch {
			case p == 0 && !math.Signbit(p):
			case p > 0 && !math.IsInf(p, 1):
				r = append(r, float64(l), p)
			default:
				return compact{}, false
			}
		}
		if len(r) == 0 {
			return compact{}, false
		}
		c.Rows[j] = r
	}
	return c, true
}

// UnmarshalJSON reads either form: the compact one when b is an object,
// else the dense one (null reads as a nil table). Errors name "prob", the
// row and the entry.
func (t *Matrix) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '{' {
		// The dense form decodes as it always has, with encoding/json's
		// messages (the enclosing decoder adds the field's name); its
		// keys were checked with the enclosing document.
		var dense [][]float64
		if err := json.Unmarshal(b, &dense); err != nil {
			return err
		}
		*t = dense
		return nil
	}
	var c compact
	if err := Unmarshal(b, &c); err != nil {
		return err
	}
	dense, err := c.table()
	if err != nil {
		return err
	}
	*t = dense
	return nil
}

// table checks c and returns its dense table, allocated once the caps hold.
func (c compact) table() (Matrix, error) {
	n, m := len(c.Rows), c.Labels
	switch {
	case c.Rows == nil:
		return nil, errorf(`"prob": "rows" is missing: want one list of (label, probability) pairs per cell`)
	case m < 1 || m > MaxMatrixLabels:
		return nil, errorf(`"prob": "labels" = %d: want 1 to %d`, m, MaxMatrixLabels)
	case n > MaxMatrixRows:
		return nil, errorf(`"prob": %d rows: at most %d`, n, MaxMatrixRows)
	case n*m > MaxMatrixEntries:
		return nil, errorf(`"prob": %d rows × %d labels = %d entries: at most %d`, n, m, n*m, MaxMatrixEntries)
	}
	for j, r := range c.Rows {
		if err := checkRow(j, r, m); err != nil {
			return nil, err
		}
	}
	// One backing array, each row capped at its length so that an append
	// to one row cannot write into the next.
	buf := make([]float64, n*m)
	t := make(Matrix, n)
	for j, r := range c.Rows {
		t[j] = buf[j*m : (j+1)*m : (j+1)*m]
		for k := 0; k < len(r); k += 2 {
			t[j][int(r[k])] = r[k+1]
		}
	}
	return t, nil
}

// checkRow checks row j of a compact table of m labels: (label,
// probability) pairs, at least one, labels whole numbers increasing in
// [0, m), probabilities finite and > 0.
func checkRow(j int, r []float64, m int) error {
	if len(r) == 0 || len(r)%2 != 0 {
		return errorf(`"prob": row %d has %d numbers: want (label, probability) pairs, at least one`, j, len(r))
	}
	prev := -1.0
	for k := 0; k < len(r); k += 2 {
		l, p := r[k], r[k+1]
		if !(l >= 0 && l < float64(m)) || l != math.Trunc(l) {
			return errorf(`"prob": row %d: label %g: want a whole number in [0, %d)`, j, l, m)
		}
		if !(l > prev) {
			return errorf(`"prob": row %d: label %g after label %g: want labels increasing, each once`, j, l, prev)
		}
		if !(p > 0) || math.IsInf(p, 1) {
			return errorf(`"prob": row %d: label %g has probability %g: want a finite number > 0 (leave zeros out)`, j, l, p)
		}
		prev = l
	}
	return nil
}
