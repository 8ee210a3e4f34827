package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old file as it was and no temporary behind.
	boom := errors.New("boom")
	err := WriteAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "first" {
		t.Errorf("file = %q after a failed write, want %q", data, "first")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only out.json", len(entries))
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Error("write into a missing folder: no error")
	}
}

func TestGrid(t *testing.T) {
	g := &Grid{Title: "T", Header: []string{"a", "b"}, Rows: [][]string{{"1", "x,y"}}, Notes: []string{"note"}}
	var tab, csv bytes.Buffer
	if err := g.RenderTable(&tab); err != nil {
		t.Fatal(err)
	}
	if s := tab.String(); !strings.HasPrefix(s, "T\n") || !strings.Contains(s, "x,y") || !strings.HasSuffix(s, "note\n") {
		t.Errorf("table = %q", s)
	}
	if err := g.RenderCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if csv.String() != "a,b\n1,\"x,y\"\n" {
		t.Errorf("csv = %q", csv.String())
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"table", "csv", "json"} {
		if f, err := ParseFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), "table, csv, json") {
		t.Errorf("ParseFormat(yaml) = %v", err)
	}
}

// TestTablesWithinMaxWidth: a table of any number of columns, any title
// and notes render within MaxWidth columns; a wide table is split into
// panels that each repeat the first column and together hold every cell.
func TestTablesWithinMaxWidth(t *testing.T) {
	long := strings.Repeat("word ", 60)
	for _, tt := range []struct {
		name   string
		cols   int
		cell   string
		panels int
	}{
		{"narrow", 4, "0.125", 1},
		{"just wide", 14, "0.123456789", 2},
		{"very wide", 40, "0.123456789", 4},
		{"a long cell", 3, long, 1},
	} {
		g := &Grid{Title: "title " + long, Notes: []string{"note " + long, "short note"}}
		for c := range tt.cols {
			g.Header = append(g.Header, fmt.Sprintf("column %d", c))
		}
		for r := range 3 {
			row := []string{fmt.Sprint(r)}
			for c := 1; c < tt.cols; c++ {
				row = append(row, fmt.Sprintf("%s%d", tt.cell, c))
			}
			g.Rows = append(g.Rows, row)
		}
		var buf bytes.Buffer
		if err := g.RenderTable(&buf); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, l := range strings.Split(out, "\n") {
			if twwidth.Width(l) > MaxWidth {
				t.Errorf("%s: a line of %d columns: %.60q…", tt.name, twwidth.Width(l), l)
			}
		}
		if n := strings.Count(out, "┌"); n < tt.panels || n > tt.panels+1 {
			t.Errorf("%s: %d panels, want about %d", tt.name, n, tt.panels)
		}
		if strings.Count(out, "column 0") != strings.Count(out, "┌") {
			t.Errorf("%s: a panel without the first column", tt.name)
		}
		for c := range tt.cols {
			if !strings.Contains(out, fmt.Sprintf("column %d ", c)) {
				t.Errorf("%s: column %d missing", tt.name, c)
			}
		}
		if !strings.Contains(out, "short note") || !strings.Contains(out, "\n  word") {
			t.Errorf("%s: notes not wrapped with an indent:\n%s", tt.name, out)
		}
	}
}

// TestReasonsBelow: reasons leave the cell for numbered notes, first below
// the table.
func TestReasonsBelow(t *testing.T) {
	g := &Grid{Header: []string{"D", "verdict"}, Rows: [][]string{{"0.1", "pass"}, {"0.2", "fail: gap 0.1 > 0.01; distortion 3 outside [1, 2]"},
		{"0.3", "pass (above optimum)"}, {"0.4", "cannot certify: the f quadrature needs more than 4e8 evaluations"}}, Notes: []string{"1 pass"}}
	g.ReasonsBelow(1, func(r []string) string { return "D = " + r[0] })
	want := [][]string{{"0.1", "pass"}, {"0.2", "fail [1]"}, {"0.3", "pass (above optimum)"}, {"0.4", "cannot certify [2]"}}
	if fmt.Sprint(g.Rows) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", g.Rows, want)
	}
	wantNotes := []string{"[1] D = 0.2: gap 0.1 > 0.01; distortion 3 outside [1, 2]", "[2] D = 0.4: the f quadrature needs more than 4e8 evaluations", "1 pass"}
	if fmt.Sprint(g.Notes) != fmt.Sprint(wantNotes) {
		t.Errorf("notes %q, want %q", g.Notes, wantNotes)
	}
}

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"one two three four", 9, "one two\n  three\n  four"},
		{"averyveryverylongword tail", 10, "averyveryverylongword\n  tail"},
		{"  D = 1 certified 2", 10, "  D = 1\n    certified\n    2"},
		{"a\nb c d e", 3, "a\nb c\n  d\n  e"},
	} {
		if got := Wrap(tt.in, tt.width); got != tt.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}
