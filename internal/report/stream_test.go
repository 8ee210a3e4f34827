package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// cells is a sweep row of given cells.
type cells []string

func (c cells) Cells(Format) []string { return c }
func (c cells) JSON() any             { return []string(c) }

// streamGrid writes g's rows through a SweepWriter.
func streamGrid(t *testing.T, f Format, g *Grid, minWidths []int) string {
	t.Helper()
	var b bytes.Buffer
	s, err := NewSweepWriter(&b, f, SweepLayout{Title: g.Title, Header: g.Header, MinWidths: minWidths})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range g.Rows {
		if err := s.Row(cells(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(nil, g.Notes, nil); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func gridOf(n int) *Grid {
	g := &Grid{Title: "T\x1b[31m", Header: []string{"D", "name", "v"}, Notes: []string{"a note", "two\nlines"}}
	for i := range n {
		g.Rows = append(g.Rows, []string{fmt.Sprintf("%.4f", float64(i)/7), "x,\x1by", fmt.Sprint(i % 13)})
	}
	return g
}

// TestSweepWriterStream: up to TableHold rows a streamed table is RenderTable's
// bytes and a streamed CSV is RenderCSV's, whatever the count; past
// TableHold the table keeps every row at the widths of the rows held (a
// cell too wide for them shows as #s) and ends with the notes.
func TestSweepWriterStream(t *testing.T) {
	for _, n := range []int{0, 1, 2, TableHold, TableHold + 1, 3 * TableHold} {
		g := gridOf(n)
		var csv bytes.Buffer
		if err := g.RenderCSV(&csv); err != nil {
			t.Fatal(err)
		}
		if got := streamGrid(t, CSV, g, nil); got != csv.String() {
			t.Errorf("%d rows: CSV differs", n)
		}
		got := streamGrid(t, Table, g, nil)
		if n <= TableHold {
			var tab bytes.Buffer
			if err := g.RenderTable(&tab); err != nil {
				t.Fatal(err)
			}
			if got != tab.String() {
				t.Errorf("%d rows: table\n%s\nwant\n%s", n, got, tab.String())
			}
			continue
		}
		ls := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		// title, top border, header, separator, n rows, bottom border, 3 note lines
		if len(ls) != 1+3+n+1+3 || ls[0] != `T\x1b[31m` || ls[len(ls)-3] != "a note" {
			t.Fatalf("%d rows: %d lines, starting %q", n, len(ls), ls[:3])
		}
		width := len([]rune(ls[1]))
		for i, l := range ls[1 : len(ls)-3] {
			if len([]rune(l)) != width {
				t.Errorf("%d rows: line %d is %q, %d wide, want %d", n, i+1, l, len([]rune(l)), width)
				break
			}
		}
		if !strings.Contains(got, fmt.Sprintf("%.4f", float64(n-1)/7)) {
			t.Errorf("%d rows: the last row is missing", n)
		}
	}
	// Past TableHold, a cell wider than its column is #s; a minimum width
	// makes room.
	g := gridOf(TableHold)
	g.Rows = append(g.Rows, []string{"12345.67890", "x", "1"})
	if got := streamGrid(t, Table, g, nil); !strings.Contains(got, "│ ######## │") {
		t.Errorf("too wide a cell:\n%s", got[len(got)-400:])
	}
	if got := streamGrid(t, Table, g, []int{11}); !strings.Contains(got, "│ 12345.67890 │") {
		t.Errorf("with a minimum width:\n%s", got[len(got)-400:])
	}
}

// TestJSONStream: the streamed object is WriteJSON's bytes for the same
// members in the same order, with no items, one, or many, and with or
// without a tail.
func TestJSONStream(t *testing.T) {
	type head struct {
		Model map[string]float64 `json:"model"`
		Name  string             `json:"name"`
	}
	type item struct {
		D      float64   `json:"D"`
		Adv    []float64 `json:"adv"`
		Status string    `json:"status,omitempty"`
	}
	type tail struct {
		Stopped string `json:"stopped_by,omitempty"`
	}
	type whole struct {
		Model   map[string]float64 `json:"model"`
		Name    string             `json:"name"`
		Points  []item             `json:"points"`
		Stopped string             `json:"stopped_by,omitempty"`
	}
	h := head{Model: map[string]float64{"p": 0.54, "q": 1e-7}, Name: "<&>"}
	for _, n := range []int{0, 1, 5} {
		for _, stop := range []string{"", "max points"} {
			w := whole{Model: h.Model, Name: h.Name, Points: []item{}, Stopped: stop}
			var b bytes.Buffer
			s, err := NewJSONStream(&b, h, "points")
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				it := item{D: float64(i) / 3, Adv: []float64{1, 2}}
				if i == n-1 {
					it.Adv, it.Status = nil, "not reached"
				}
				w.Points = append(w.Points, it)
				if err := s.Item(it); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(tail{stop}); err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := WriteJSON(&want, w); err != nil {
				t.Fatal(err)
			}
			if b.String() != want.String() {
				t.Errorf("%d items, stop %q:\n%s\nwant\n%s", n, stop, b.String(), want.String())
			}
		}
	}
	if _, err := NewJSONStream(&bytes.Buffer{}, []int{1}, "x"); err == nil {
		t.Error("an array head: no error")
	}
}
