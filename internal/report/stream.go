package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mmds-project/mmds/internal/safefile"
)

// A sweep of many thresholds is written as it is solved, so that its memory
// does not grow with its length: RowStream writes a Grid's rows as they
// come (a table or CSV), JSONStream an object whose last array is written
// item by item.

// TableHold is how many rows a streamed table holds before it fixes its
// column widths: a table of at most TableHold rows is rendered exactly as
// Grid.RenderTable renders it.
const TableHold = 1000

// RowStream writes the rows of a Grid as they come, as a table or as CSV.
// A table holds its first TableHold rows; when the stream ends within them
// it is rendered whole (RenderTable's bytes), else each column's width is
// fixed to the widest cell held (and at least the minimum width given for
// it) and every later row is written as it comes. A later cell wider than
// its column is shown as #s of the column's width (as a spreadsheet does):
// CSV and JSON carry every value. Cells are escaped as RenderTable's.
type RowStream struct {
	w      io.Writer
	format Format
	g      Grid // title, header and the rows held
	min    []int
	csv    *csv.Writer
	table  *tablewriter.Table // streaming, once past TableHold rows
	widths []int              // content widths of a streaming table
}

// NewRowStream starts writing g's title and header (g.Rows and g.Notes are
// ignored: rows come through Append, notes with Close) in format f, Table
// or CSV. minWidths, when given, are the least content width of each
// column of a streamed table.
func NewRowStream(w io.Writer, f Format, g *Grid, minWidths []int) (*RowStream, error) {
	s := &RowStream{w: w, format: f, g: Grid{Title: g.Title, Header: g.Header}, min: minWidths}
	if f == CSV {
		s.csv = csv.NewWriter(w)
		if err := s.csv.Write(g.printable().Header); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Append writes (or, for a table, may hold) one row.
func (s *RowStream) Append(row []string) error {
	switch {
	case s.csv != nil:
		esc := make([]string, len(row))
		for i, c := range row {
			esc[i] = safefile.Printable(c)
		}
		return s.csv.Write(esc)
	case s.table != nil:
		return s.stream(row)
	case len(s.g.Rows) < TableHold:
		s.g.Rows = append(s.g.Rows, row)
		return nil
	}
	if err := s.start(); err != nil {
		return err
	}
	return s.stream(row)
}

// Streaming reports whether a table is past TableHold rows, its column
// widths fixed.
func (s *RowStream) Streaming() bool { return s.table != nil }

// Flush writes what a CSV writer buffers (a table writes each streamed row
// at once).
func (s *RowStream) Flush() error {
	if s.csv != nil {
		s.csv.Flush()
		return s.csv.Error()
	}
	return nil
}

// start fixes the column widths from the rows held and writes them.
func (s *RowStream) start() error {
	g := s.g.printable()
	s.widths = make([]int, len(g.Header))
	for i, h := range g.Header {
		s.widths[i] = twwidth.Width(h)
		if i < len(s.min) {
			s.widths[i] = max(s.widths[i], s.min[i])
		}
	}
	for _, r := range g.Rows {
		for i, c := range r {
			if i < len(s.widths) {
				s.widths[i] = max(s.widths[i], twwidth.Width(c))
			}
		}
	}
	if g.Title != "" {
		if _, err := fmt.Fprintln(s.w, g.Title); err != nil {
			return err
		}
	}
	cols := tw.NewMapper[int, int]()
	for i, wd := range s.widths {
		cols.Set(i, wd+2) // the cell's padding, one space each side
	}
	s.table = tablewriter.NewTable(s.w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignment(tw.AlignRight),
		tablewriter.WithStreaming(tw.StreamConfig{Enable: true}),
		tablewriter.WithColumnWidths(cols),
	)
	if err := s.table.Start(); err != nil {
		return fmt.Errorf("report: table: %w", err)
	}
	s.table.Header(toAny(g.Header)...)
	for _, r := range g.Rows {
		if err := s.table.Append(r); err != nil {
			return fmt.Errorf("report: table row: %w", err)
		}
	}
	s.g.Rows = nil
	return nil
}

// stream writes one row of a streaming table.
func (s *RowStream) stream(row []string) error {
	out := make([]string, len(row))
	for i, c := range row {
		c = safefile.Printable(c)
		if i < len(s.widths) && twwidth.Width(c) > s.widths[i] {
			c = strings.Repeat("#", s.widths[i])
		}
		out[i] = c
	}
	if err := s.table.Append(out); err != nil {
		return fmt.Errorf("report: table row: %w", err)
	}
	return nil
}

// Close ends the table or CSV; a table's notes follow it.
func (s *RowStream) Close(notes []string) error {
	if s.csv != nil {
		return s.Flush()
	}
	if s.table == nil {
		g := s.g
		g.Notes = notes
		return g.RenderTable(s.w)
	}
	if err := s.table.Close(); err != nil {
		return fmt.Errorf("report: table: %w", err)
	}
	for _, n := range notes {
		if _, err := fmt.Fprintln(s.w, lines(n)); err != nil {
			return err
		}
	}
	return nil
}

// lines escapes each line of s (as printable does for a title or a note).
func lines(s string) string {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = safefile.Printable(p)
	}
	return strings.Join(parts, "\n")
}

// JSONStream writes, in WriteJSON's layout, a JSON object whose members are
// those of a head value, then one array member written item by item, then
// those of a tail value: the bytes WriteJSON writes for the same object
// with its members in that order.
type JSONStream struct {
	w     io.Writer
	items int
}

// NewJSONStream writes head's members (head must marshal to a JSON
// object) and opens the array member named key.
func NewJSONStream(w io.Writer, head any, key string) (*JSONStream, error) {
	b, err := members(head)
	if err != nil {
		return nil, err
	}
	k, err := json.Marshal(key)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString("{")
	if len(b) > 0 {
		buf.Write(b)
		buf.WriteString(",")
	}
	buf.WriteString("\n  ")
	buf.Write(k)
	buf.WriteString(": [")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	return &JSONStream{w: w}, nil
}

// Item writes one item of the array.
func (s *JSONStream) Item(v any) error {
	b, err := json.MarshalIndent(v, "    ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n    "
	if s.items == 0 {
		sep = "\n    "
	}
	s.items++
	if _, err := io.WriteString(s.w, sep); err != nil {
		return err
	}
	_, err = s.w.Write(b)
	return err
}

// Close closes the array, writes tail's members (tail must marshal to a
// JSON object; nil: none) and ends the object.
func (s *JSONStream) Close(tail any) error {
	var buf bytes.Buffer
	if s.items == 0 {
		buf.WriteString("]")
	} else {
		buf.WriteString("\n  ]")
	}
	if tail != nil {
		b, err := members(tail)
		if err != nil {
			return err
		}
		if len(b) > 0 {
			buf.WriteString(",")
			buf.Write(b)
		}
	}
	buf.WriteString("\n}\n")
	_, err := s.w.Write(buf.Bytes())
	return err
}

// members is v's JSON object in WriteJSON's layout without its braces and
// final newline ("\n  \"a\": 1,\n  \"b\": 2"), empty for an empty object.
func members(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("report: JSON stream: %T is not an object", v)
	}
	b = b[1 : len(b)-1]
	return bytes.TrimSuffix(b, []byte("\n")), nil
}
