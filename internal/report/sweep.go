package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/sweep"
)

// A sweep of thresholds D is written in one of three formats from one
// description: SweepWriter writes its solved points as they come (a table,
// CSV or a JSON document whose "points" array holds them), then the
// thresholds a bound stopped it before, written as they are generated and
// never held, so that a sweep of a million thresholds stopped early costs
// no more memory than what it solved: CSV gets a row per threshold (D,
// status "not reached", every other cell empty), JSON a point per
// threshold ({"D", "status"}), and a table, which a person reads, lists up
// to maxListed of them and summarizes more in one row.

// SweepLayout is the fixed part of a sweep's output in one format.
type SweepLayout struct {
	// Title and Header are the table's (Title is not in CSV).
	Title  string
	Header []string
	// Status is the column that says "not reached".
	Status int
	// MinWidths are the least content widths of a streamed table's
	// columns. Whole instead holds every row and renders the table at
	// Close as Grid.RenderTable does, for a sweep whose rows are complete
	// only at its end.
	MinWidths []int
	Whole     bool
	// Head is the JSON document's members before "points" (an object).
	Head any
}

// SweepRow is one solved threshold of a sweep.
type SweepRow interface {
	// Cells are the row's cells in Table (rounded for reading) or CSV
	// (every number as JSON has it).
	Cells(f Format) []string
	// JSON is the row's item of "points".
	JSON() any
}

// TableHold is how many rows a streamed table holds before it fixes its
// column widths: a table of at most TableHold rows is rendered exactly as
// Grid.RenderTable renders it.
const TableHold = 1000

// SweepWriter writes a sweep in one format; see SweepLayout. A table holds
// its first TableHold rows (every row with SweepLayout.Whole); when the
// sweep ends within them it is rendered whole (RenderTable's bytes), else
// each column's width is fixed to the widest cell held (and at least its
// minimum width) and every later row is written as it comes. A later cell
// wider than its column is shown as #s of the column's width (as a
// spreadsheet does): CSV and JSON carry every value. Cells are escaped as
// RenderTable's.
type SweepWriter struct {
	w      io.Writer
	format Format
	status int
	g      Grid // title, header and the rows held
	min    []int
	whole  bool
	csv    *csv.Writer
	table  *tablewriter.Table // streaming, once past TableHold rows
	widths []int              // content widths of a streaming table
	json   *JSONStream
}

// NewSweepWriter starts writing a sweep laid out as l in format f: the
// header of a CSV, or the JSON document's head.
func NewSweepWriter(w io.Writer, f Format, l SweepLayout) (*SweepWriter, error) {
	s := &SweepWriter{w: w, format: f, status: l.Status, g: Grid{Title: l.Title, Header: l.Header}, min: l.MinWidths, whole: l.Whole}
	var err error
	switch f {
	case JSON:
		s.json, err = NewJSONStream(w, l.Head, "points")
	case CSV:
		s.csv = csv.NewWriter(w)
		err = s.csv.Write(s.g.printable().Header)
	}
	return s, err
}

// Row writes one solved threshold.
func (s *SweepWriter) Row(r SweepRow) error {
	if s.json != nil {
		return s.json.Item(r.JSON())
	}
	return s.append(r.Cells(s.format))
}

// append writes (or, for a table, may hold) one row.
func (s *SweepWriter) append(row []string) error {
	switch {
	case s.csv != nil:
		return s.csv.Write(esc(row))
	case s.table != nil:
		return s.stream(row)
	case s.whole || len(s.g.Rows) < TableHold:
		s.g.Rows = append(s.g.Rows, row)
		return nil
	}
	if err := s.start(); err != nil {
		return err
	}
	return s.stream(row)
}

// Close writes the thresholds not reached, rest, and ends the output: a
// table's notes below it, the JSON document's tail members after "points"
// (an object; nil: none).
func (s *SweepWriter) Close(rest []float64, notes []string, tail any) error {
	switch {
	case s.json != nil:
		for _, d := range rest {
			if err := s.json.Item(notReachedPoint(d)); err != nil {
				return err
			}
		}
		return s.json.Close(tail)
	case s.csv != nil:
		return s.notReachedCSV(rest)
	case s.table != nil && len(rest) > 0:
		notes = append(notes, fmt.Sprintf("%s (%d thresholds): D = %s … %s", sweep.NotReached, len(rest),
			Fixed(rest[0], 4), Fixed(rest[len(rest)-1], 4)))
	case s.table == nil:
		for _, r := range s.notReachedRows(rest) {
			if err := s.append(r); err != nil {
				return err
			}
		}
	}
	if s.table == nil {
		s.g.Notes = notes
		return s.g.RenderTable(s.w)
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

// start fixes the column widths from the rows held and writes them.
func (s *SweepWriter) start() error {
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
func (s *SweepWriter) stream(row []string) error {
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

// maxListed is the most not-reached thresholds a table lists one by one.
const maxListed = 10

// notReachedRows are a table's rows of the thresholds not reached: empty
// cells are "—".
func (s *SweepWriter) notReachedRows(ds []float64) [][]string {
	row := func(d string, status string) []string {
		r := slices.Repeat([]string{"—"}, len(s.g.Header))
		r[0], r[s.status] = d, status
		return r
	}
	if len(ds) > maxListed {
		return [][]string{row(Fixed(ds[0], 4)+" … "+Fixed(ds[len(ds)-1], 4),
			fmt.Sprintf("%s (%d thresholds)", sweep.NotReached, len(ds)))}
	}
	rows := make([][]string, 0, len(ds))
	for _, d := range ds {
		rows = append(rows, row(Fixed(d, 4), sweep.NotReached))
	}
	return rows
}

// notReachedCSV appends the CSV rows of the thresholds not reached, one at
// a time, and ends the CSV.
func (s *SweepWriter) notReachedCSV(ds []float64) error {
	row := make([]string, len(s.g.Header))
	row[s.status] = sweep.NotReached
	for _, d := range ds {
		row[0] = Shortest(d)
		if err := s.csv.Write(row); err != nil {
			return err
		}
	}
	s.csv.Flush()
	return s.csv.Error()
}

// notReachedPoint is the JSON point of a threshold not reached:
// {"D": …, "status": "not reached"}.
func notReachedPoint(d float64) json.RawMessage {
	b := append([]byte(`{"D":`), Shortest(d)...)
	return append(b, `,"status":"`+sweep.NotReached+`"}`...)
}
