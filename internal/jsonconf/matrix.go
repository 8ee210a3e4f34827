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
// (gauss.Kernel and privatizer.Kernel, the one a run records, hold it: so
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
// table is allocated). In either form a null where a number belongs is
// refused (encoding/json would read it as 0); whether rows sum to 1 is the
// kernel's check (gauss.Kernel.Validate), as for the dense form.
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
// else the dense one (null reads as a nil table; a null inside either form
// is refused, refuseNull). Errors name "prob", the row and the entry.
func (t *Matrix) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); bytes.Equal(b, null) {
		*t = nil
		return nil
	}
	var dense [][]float64
	var c compact
	isCompact := len(b) > 0 && b[0] == '{'
	var err error
	if isCompact {
		err = Unmarshal(b, &c)
	} else {
		// The dense form decodes as it always has, with encoding/json's
		// messages (the enclosing decoder adds the field's name); its
		// keys were checked with the enclosing document.
		err = json.Unmarshal(b, &dense)
	}
	if err == nil {
		err = refuseNull(b)
	}
	if err == nil && isCompact {
		dense, err = c.table()
	}
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
		return nil, errorf(`"prob": "rows" is missing or null: want one list of (label, probability) pairs per cell`)
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

// null is the JSON literal encoding/json reads into a float64 as "leave it
// as it is".
var null = []byte("null")

// refuseNull reports a null inside the table b, which has decoded in one
// of its forms (so outside strings, which neither form has, every "null"
// in b is the literal): encoding/json reads it as 0, a dense entry 0 or a
// compact label 0, where other readers see None or NaN or refuse it, so
// that one file would mean two tables. "rows": null is left to c.table,
// which refuses it as missing. The scan is on tokens, so that finding the
// null costs no more memory than the table did.
func refuseNull(b []byte) error {
	if !bytes.Contains(b, null) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var (
		key  string // the compact form's last key
		path []int  // the index within every open array
	)
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // cannot happen: b decoded
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '[':
				path = append(path, 0)
			case ']':
				path = path[:len(path)-1]
				if len(path) > 0 {
					path[len(path)-1]++
				}
			}
			continue
		case string:
			if len(path) == 0 {
				key = v // a key of the compact form's object
				continue
			}
		case nil:
			if key == "rows" && len(path) == 0 {
				return nil // "rows": null, which table refuses as missing
			}
			return nullError(key, path)
		}
		if len(path) > 0 {
			path[len(path)-1]++
		}
	}
}

// nullError names where refuseNull found a null: path holds the indices
// of the open arrays, key the compact form's field.
func nullError(key string, path []int) error {
	where := `"prob"`
	switch {
	case key == "labels" && len(path) == 0:
		return errorf(`%s: "labels" is null: want 1 to %d`, where, MaxMatrixLabels)
	case len(path) == 1:
		return errorf(`%s: row %d is null: want a list of numbers`, where, path[0])
	case len(path) >= 2:
		return errorf(`%s: row %d, entry %d is null: want a number (write a zero entry as 0)`, where, path[0], path[1])
	}
	return errorf(`%s: null inside the table: want numbers`, where)
}
