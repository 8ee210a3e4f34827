package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// sweepRow is a test row: D and its square.
type sweepRow float64

func (r sweepRow) Cells(f Format) []string {
	if f == CSV {
		return []string{Float(float64(r), -1), Float(float64(r*r), -1), "ok"}
	}
	return []string{Fixed(float64(r), 4), Fixed(float64(r*r), 4), "ok"}
}

func (r sweepRow) JSON() any {
	return struct {
		D      float64 `json:"D"`
		Square float64 `json:"square"`
		Status string  `json:"status"`
	}{float64(r), float64(r * r), "ok"}
}

// TestSweepWriter: a sweep of solved rows and thresholds not reached is,
// in every format and whether streamed or held whole, the bytes of the
// grid (or document) written at once with the not-reached rows in it: "—"
// cells and "not reached" in the status column, one summary row beyond
// maxListed thresholds, one note below a table past TableHold rows.
func TestSweepWriter(t *testing.T) {
	type doc struct {
		Model  string `json:"model"`
		Points []any  `json:"points"`
		Stop   string `json:"stopped_by"`
	}
	for _, c := range []struct {
		solved, rest int
		whole        bool
	}{{3, 0, false}, {3, 2, false}, {3, 2, true}, {0, 12, true}, {2, 12, false}, {TableHold + 5, 3, false}} {
		var rows []SweepRow
		var rest []float64
		for i := range c.solved {
			rows = append(rows, sweepRow(float64(i)/8))
		}
		for i := range c.rest {
			rest = append(rest, 1+float64(i)/4)
		}
		l := SweepLayout{Title: "squares", Header: []string{"D", "D²", "status"}, Status: 2, Whole: c.whole,
			MinWidths: []int{6, 6, 11}, Head: struct {
				Model string `json:"model"`
			}{"square"}}
		write := func(f Format) string {
			var b bytes.Buffer
			s, err := NewSweepWriter(&b, f, l)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if err := s.Row(r); err != nil {
					t.Fatal(err)
				}
			}
			tail := struct {
				Stop string `json:"stopped_by"`
			}{"max points"}
			if err := s.Close(rest, []string{"a note"}, tail); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		name := fmt.Sprintf("%d solved, %d not reached, whole %v", c.solved, c.rest, c.whole)
		// JSON: the document written at once
		d := doc{Model: "square", Stop: "max points", Points: []any{}}
		for _, r := range rows {
			d.Points = append(d.Points, r.JSON())
		}
		for _, x := range rest {
			d.Points = append(d.Points, struct {
				D      float64 `json:"D"`
				Status string  `json:"status"`
			}{x, "not reached"})
		}
		var want bytes.Buffer
		if err := WriteJSON(&want, d); err != nil {
			t.Fatal(err)
		}
		if got := write(JSON); got != want.String() {
			t.Errorf("%s: JSON\n%s\nwant\n%s", name, got, want.String())
		}
		// CSV: the grid, then a row per threshold not reached
		g := &Grid{Title: l.Title, Header: l.Header}
		for _, r := range rows {
			g.Rows = append(g.Rows, r.Cells(CSV))
		}
		want.Reset()
		if err := g.RenderCSV(&want); err != nil {
			t.Fatal(err)
		}
		for _, x := range rest {
			fmt.Fprintf(&want, "%s,,not reached\n", Float(x, -1))
		}
		if got := write(CSV); got != want.String() {
			t.Errorf("%s: CSV\n%s\nwant\n%s", name, got, want.String())
		}
		// a table
		got := write(Table)
		if c.solved > TableHold {
			if !strings.HasSuffix(got, "a note\nnot reached (3 thresholds): D = 1.0000 … 1.5000\n") {
				t.Errorf("%s: a streamed table ends\n%s", name, got[max(len(got)-300, 0):])
			}
			continue
		}
		g.Rows, g.Notes = nil, []string{"a note"}
		for _, r := range rows {
			g.Rows = append(g.Rows, r.Cells(Table))
		}
		if len(rest) > maxListed {
			g.Rows = append(g.Rows, []string{"1.0000 … 3.7500", "—", "not reached (12 thresholds)"})
		} else {
			for _, x := range rest {
				g.Rows = append(g.Rows, []string{Fixed(x, 4), "—", "not reached"})
			}
		}
		want.Reset()
		if err := g.RenderTable(&want); err != nil {
			t.Fatal(err)
		}
		if got != want.String() {
			t.Errorf("%s: table\n%s\nwant\n%s", name, got, want.String())
		}
	}
}
