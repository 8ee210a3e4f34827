// Package report is the one place that formats results for people and
// machines (tablewriter tables, CSV and JSON) and the one place that writes
// files (files.go, folder.go, paths.go).
//
// Every file mmds writes goes through WriteFileAtomic: the bytes go to a
// temporary file in the target's folder, which is synced and renamed onto the
// target, so a failed or killed run never leaves a half-written file behind.
// The target must be a regular file or not exist: a symbolic link (a link
// planted in a folder mmds writes into would redirect the write), a folder,
// a named pipe, a device or a socket is refused (ErrTarget), never replaced.
//
// Folders that mmds creates as a whole (a results directory, a bench library,
// a folder of Slurm scripts) carry a marker file, MarkerFile, naming their
// Kind; a command refuses a folder of another kind, and a non-empty folder
// without a marker where it would create one of its kind (ErrKind).
//
// CheckPaths runs before a command does any work: no output may resolve to
// one of the command's inputs, to another of its outputs, or to a name an mmds
// folder reserves for itself (ErrClash).
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mmds-project/mmds/internal/safefile"
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

// RenderTable writes g as a bordered text table. Every cell, the title and
// the notes are escaped (safefile.Printable): cells hold file names and
// other text from files, which must not reach a terminal raw.
func (g *Grid) RenderTable(w io.Writer) error {
	g = g.printable()
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

// printable returns a copy of g with every string escaped; the title and
// the notes keep their own line breaks (mmds writes them), each line
// escaped.
func (g *Grid) printable() *Grid {
	esc := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = safefile.Printable(s)
		}
		return out
	}
	lines := func(s string) string { return strings.Join(esc(strings.Split(s, "\n")), "\n") }
	c := &Grid{Title: lines(g.Title), Header: esc(g.Header)}
	for _, n := range g.Notes {
		c.Notes = append(c.Notes, lines(n))
	}
	for _, r := range g.Rows {
		c.Rows = append(c.Rows, esc(r))
	}
	return c
}

// RenderCSV writes g as RFC 4180 CSV with a header line, its cells escaped
// as RenderTable's (a quoted CSV field may hold a newline, but a terminal
// showing the CSV must not receive an escape sequence).
func (g *Grid) RenderCSV(w io.Writer) error {
	g = g.printable()
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

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
