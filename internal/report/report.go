// Package report is the one place that formats results for people and machines:
// tablewriter tables, CSV and JSON, and output files written atomically (to a
// temporary name in the target folder, then renamed), so a failed run never
// leaves a half-written file behind.
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format accepted by every mmds command.
type Format string

// The output formats.
const (
	Table Format = "table"
	CSV   Format = "csv"
	JSON  Format = "json"
)

// ParseFormat validates a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Table, CSV, JSON:
		return f, nil
	}
	return "", fmt.Errorf("--format %q: must be one of table, csv, json", s)
}

// Grid is a rectangular set of cells with a header, rendered as a table or CSV.
type Grid struct {
	Title  string     // printed above the table (not in CSV)
	Header []string   // column names
	Rows   [][]string // one slice per row, len(Header) cells each
	Notes  []string   // printed below the table (not in CSV)
}

// RenderTable writes g as a bordered text table.
func (g *Grid) RenderTable(w io.Writer) error {
	if g.Title != "" {
		if _, err := fmt.Fprintln(w, g.Title); err != nil {
			return err
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignment(tw.AlignRight),
	)
	t.Header(toAny(g.Header)...)
	for _, r := range g.Rows {
		if err := t.Append(r); err != nil {
			return fmt.Errorf("report: table row: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("report: table: %w", err)
	}
	for _, n := range g.Notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// RenderCSV writes g as RFC 4180 CSV with a header line.
func (g *Grid) RenderCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(g.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(g.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// WriteJSON writes v as indented JSON followed by a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Float formats x with the shortest representation that round-trips when
// prec < 0, otherwise with prec significant digits.
func Float(x float64, prec int) string {
	return strconv.FormatFloat(x, 'g', prec, 64)
}

// Fixed formats x with prec digits after the point.
func Fixed(x float64, prec int) string {
	return strconv.FormatFloat(x, 'f', prec, 64)
}

// WriteFileAtomic writes a file through write: the bytes go to a temporary
// file in the same folder, which is synced and renamed onto path only when
// write and every file operation succeeded. The temporary file keeps path's
// extension, so writers that choose a format by extension see the right one.
func WriteFileAtomic(path string, write func(tmpPath string) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, ".tmp-*-"+base)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name means nothing to the user
		}
		return fmt.Errorf("write %s: folder %s: %w", path, dir, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = syncFile(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteAtomic writes what fn writes to w into path atomically (see WriteFileAtomic).
func WriteAtomic(path string, fn func(w io.Writer) error) error {
	return WriteFileAtomic(path, func(tmp string) error {
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
