package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
