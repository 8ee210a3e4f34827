package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

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
	// columns (RowStream). Whole instead holds every row and renders the
	// table at Close as Grid.RenderTable does, for a sweep whose rows are
	// complete only at its end.
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

// SweepWriter writes a sweep in one format; see SweepLayout.
type SweepWriter struct {
	w      io.Writer
	format Format
	cols   int
	status int
	rows   *RowStream
	whole  *Grid
	json   *JSONStream
}

// NewSweepWriter starts writing a sweep laid out as l in format f: the
// title and header, or the JSON document's head.
func NewSweepWriter(w io.Writer, f Format, l SweepLayout) (*SweepWriter, error) {
	s := &SweepWriter{w: w, format: f, cols: len(l.Header), status: l.Status}
	var err error
	switch {
	case f == JSON:
		s.json, err = NewJSONStream(w, l.Head, "points")
	case f == Table && l.Whole:
		s.whole = &Grid{Title: l.Title, Header: l.Header}
	default:
		s.rows, err = NewRowStream(w, f, &Grid{Title: l.Title, Header: l.Header}, l.MinWidths)
	}
	return s, err
}

// Row writes one solved threshold.
func (s *SweepWriter) Row(r SweepRow) error {
	switch {
	case s.json != nil:
		return s.json.Item(r.JSON())
	case s.whole != nil:
		s.whole.Rows = append(s.whole.Rows, r.Cells(s.format))
		return nil
	}
	return s.rows.Append(r.Cells(s.format))
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
	case s.whole != nil:
		s.whole.Rows = append(s.whole.Rows, s.notReachedRows(rest)...)
		s.whole.Notes = notes
		return s.whole.RenderTable(s.w)
	case s.format == CSV:
		if err := s.rows.Flush(); err != nil {
			return err
		}
		return s.notReachedCSV(rest)
	}
	if s.rows.Streaming() {
		if len(rest) > 0 {
			notes = append(notes, fmt.Sprintf("%s (%d thresholds): D = %s … %s", sweep.NotReached, len(rest),
				Fixed(rest[0], 4), Fixed(rest[len(rest)-1], 4)))
		}
		return s.rows.Close(notes)
	}
	for _, r := range s.notReachedRows(rest) {
		if err := s.rows.Append(r); err != nil {
			return err
		}
	}
	return s.rows.Close(notes)
}

// maxListed is the most not-reached thresholds a table lists one by one.
const maxListed = 10

// notReachedRows are a table's rows of the thresholds not reached: empty
// cells are "—".
func (s *SweepWriter) notReachedRows(ds []float64) [][]string {
	row := func(d string, status string) []string {
		r := make([]string, s.cols)
		for i := range r {
			r[i] = "—"
		}
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
// a time.
func (s *SweepWriter) notReachedCSV(ds []float64) error {
	cw := csv.NewWriter(s.w)
	row := make([]string, s.cols)
	row[s.status] = sweep.NotReached
	for _, d := range ds {
		row[0] = strconv.FormatFloat(d, 'g', -1, 64)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// notReachedPoint is the JSON point of a threshold not reached:
// {"D": …, "status": "not reached"}.
func notReachedPoint(d float64) json.RawMessage {
	b := append([]byte(`{"D":`), strconv.FormatFloat(d, 'g', -1, 64)...)
	return append(b, `,"status":"`+sweep.NotReached+`"}`...)
}
