package data

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/mmds-project/mmds/internal/decimal"
	"github.com/mmds-project/mmds/internal/jsonconf"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrData is wrapped by every error about a data file or the columns chosen
// from it: the caller's input.
var ErrData = errors.New("data: invalid data")

// Error is an error about one place in a data file: Row is the data row
// (1-based, the header not counted; 0 for the header or the file as a
// whole), Line the file's line, Column the column's name ("" for a whole
// row) and Value an excerpt of the offending cell. It wraps ErrData.
type Error struct {
	File   string
	Row    int
	Line   int
	Column string
	Value  string // the cell as written; "" when no cell is at fault
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(safefile.Path(e.File))
	switch {
	case e.Row > 0:
		fmt.Fprintf(&b, ": row %d (line %d)", e.Row, e.Line)
	case e.Line > 0:
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Column != "" {
		fmt.Fprintf(&b, ", column %s", safefile.Excerpt(e.Column))
	}
	if e.Value != "" || e.Row > 0 && e.Column != "" {
		fmt.Fprintf(&b, " = %s", safefile.Excerpt(e.Value))
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes an Error match ErrData.
func (e *Error) Unwrap() error { return ErrData }

// Table is a data file's columns, parsed: Names[j] heads Cols[j], and every
// column has Rows finite values.
type Table struct {
	Names []string
	Cols  [][]float64
	Rows  int
	// Lines[r] is the file line of data row r+1, for messages about a value
	// found after parsing (a constant column names none).
	Lines []int
}

// Column returns the index of the column named name, or −1.
func (t *Table) Column(name string) int { return slices.Index(t.Names, name) }

// MaxFileBytes bounds a data file.
const MaxFileBytes = 512 << 20

// MaxColumns bounds the columns of a data file.
const MaxColumns = 4096

// ReadFile reads the data file at path once (a regular file of at most
// MaxFileBytes; safefile.Read) and parses those bytes (Parse). It returns
// the bytes too, which the caller hashes to bind a run to them.
func ReadFile(ctx context.Context, path string) (*Table, []byte, error) {
	b, err := safefile.Read(ctx, path, MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	t, err := Parse(b, path)
	if err != nil {
		return nil, nil, err
	}
	return t, b, nil
}

var bom = []byte{0xef, 0xbb, 0xbf}

// Parse reads a CSV file (RFC 4180, as encoding/csv reads it, with "," as
// separator and blank lines skipped): a header row of distinct, non-empty
// column names, then at least one data row with one decimal number per
// column. Spaces around a cell are ignored; an empty cell, a value that is
// not a decimal number (hexadecimal floats, digit separators, words),
// NaN, an infinity, a value outside float64's range, a row with another
// number of fields than the header and a byte-order mark are errors
// naming the row and column (*Error). name labels the file in errors.
func Parse(b []byte, name string) (*Table, error) {
	bad := func(line int, format string, args ...any) error {
		return &Error{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if bytes.HasPrefix(b, bom) {
		return nil, bad(1, "starts with a UTF-8 byte-order mark: save the file without it (plain UTF-8)")
	}
	if msg := jsonconf.Encoding(b); msg != "" {
		return nil, bad(1, "%s", msg)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, bad(0, "empty file: want a header row naming the columns, then one row of numbers per sample")
	}
	r := csv.NewReader(bytes.NewReader(b))
	header, err := r.Read()
	if err != nil {
		return nil, csvError(name, err, 0)
	}
	t := &Table{}
	if err := t.setHeader(name, header); err != nil {
		return nil, err
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		row := t.Rows + 1
		if err != nil {
			if errors.Is(err, csv.ErrFieldCount) {
				line, _ := r.FieldPos(0)
				return nil, &Error{File: name, Row: row, Line: line,
					Msg: fmt.Sprintf("has %d fields, the header has %d: every row needs one value per column", len(rec), len(t.Names))}
			}
			return nil, csvError(name, err, row)
		}
		line, _ := r.FieldPos(0)
		for j, cell := range rec {
			v, msg := parseCell(cell)
			if msg != "" {
				l, _ := r.FieldPos(j)
				return nil, &Error{File: name, Row: row, Line: l, Column: t.Names[j], Value: cell, Msg: msg}
			}
			t.Cols[j] = append(t.Cols[j], v)
		}
		t.Rows++
		t.Lines = append(t.Lines, line)
	}
	if t.Rows == 0 {
		return nil, bad(1, "a header row and no data rows: want one row of numbers per sample")
	}
	return t, nil
}

// setHeader checks and records the header's names.
func (t *Table) setHeader(name string, header []string) error {
	if len(header) > MaxColumns {
		return &Error{File: name, Line: 1, Msg: fmt.Sprintf("the header has %d columns, at most %d are read", len(header), MaxColumns)}
	}
	seen := map[string]int{}
	for j, h := range header {
		h = strings.TrimSpace(h)
		switch {
		case h == "":
			return &Error{File: name, Line: 1, Msg: fmt.Sprintf("header field %d is empty: every column needs a name", j+1)}
		case !utf8.ValidString(h) || strings.IndexFunc(h, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
			return &Error{File: name, Line: 1, Msg: fmt.Sprintf("header field %d = %s: a column name needs printable UTF-8 characters", j+1, safefile.Excerpt(h))}
		}
		if k, dup := seen[h]; dup {
			return &Error{File: name, Line: 1, Column: h, Msg: fmt.Sprintf("names header fields %d and %d: column names must be distinct", k+1, j+1)}
		}
		seen[h] = j
		t.Names = append(t.Names, h)
	}
	t.Cols = make([][]float64, len(header))
	return nil
}

// csvError turns an error of encoding/csv into an *Error.
func csvError(name string, err error, row int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: name, Row: row, Line: pe.Line, Msg: fmt.Sprintf("not valid CSV (column %d of the line): %v", pe.Column, pe.Err)}
	}
	return &Error{File: name, Row: row, Msg: err.Error()}
}

// parseCell returns the cell's value, or why it is not one.
func parseCell(s string) (float64, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, "empty cell (a missing value): every cell needs a number"
	}
	v, err := decimal.Float(s)
	switch {
	case errors.Is(err, decimal.ErrRange):
		return 0, "outside the range of a float64"
	case err != nil && decimal.NonFinite(s):
		return 0, "not a finite number: NaN and infinities cannot be learned from"
	case err != nil:
		return 0, "not a decimal number"
	}
	return v, ""
}

// plainError is an error about the caller's choices that reads as its
// message alone and matches ErrData.
type plainError struct{ msg string }

func (e *plainError) Error() string { return e.msg }
func (e *plainError) Unwrap() error { return ErrData }

func choiceErr(format string, args ...any) error {
	return &plainError{fmt.Sprintf(format, args...)}
}
