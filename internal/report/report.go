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
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
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

// MaxWidth is the widest line, in terminal columns, of a table and of its
// title and notes: a table wider than that is laid out as panels of
// columns, each repeating the first (the row's key, such as D), and a
// longer title or note wraps at spaces, so nothing a person reads needs a
// terminal wider than 160 columns.
const MaxWidth = 160

// RenderTable writes g as a bordered text table within MaxWidth columns.
// Every cell, the title and the notes are escaped (safefile.Printable):
// cells hold file names and other text from files, which must not reach a
// terminal raw.
func (g *Grid) RenderTable(w io.Writer) error {
	g = g.printable()
	if g.Title != "" {
		if _, err := fmt.Fprintln(w, Wrap(g.Title, MaxWidth)); err != nil {
			return err
		}
	}
	panels, err := g.panels()
	if err != nil {
		return err
	}
	for _, p := range panels {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	for _, n := range g.Notes {
		if _, err := fmt.Fprintln(w, Wrap(n, MaxWidth)); err != nil {
			return err
		}
	}
	return nil
}

// panels renders g's columns as tables within MaxWidth: the first column,
// then as many of the next ones as fit, repeated until every column is
// shown. A table whose first two columns alone are too wide has its cells
// wrapped.
func (g *Grid) panels() ([][]byte, error) {
	if len(g.Header) == 0 {
		return nil, nil
	}
	all := make([]int, len(g.Header))
	for i := range all {
		all[i] = i
	}
	if b, err := g.render(all, false); err != nil || widest(b) <= MaxWidth {
		return [][]byte{b}, err
	}
	greedy, err := g.greedyPanels()
	if err != nil || len(greedy) < 2 {
		return greedy, err
	}
	// As many panels, with the columns shared out evenly when they fit: a
	// last panel of one column reads worse than two halves.
	k, n := len(greedy), len(g.Header)-1
	var even [][]byte
	for p, next := 0, 1; p < k; p++ {
		size := n / k
		if p < n%k {
			size++
		}
		cols := []int{0}
		for range size {
			cols = append(cols, next)
			next++
		}
		b, err := g.render(cols, false)
		if err != nil || widest(b) > MaxWidth {
			return greedy, err
		}
		even = append(even, b)
	}
	return even, nil
}

// greedyPanels fills each panel with as many columns as fit.
func (g *Grid) greedyPanels() ([][]byte, error) {
	var out [][]byte
	for next := 1; next < len(g.Header); {
		cols := []int{0, next}
		b, err := g.render(cols, false)
		if err != nil {
			return nil, err
		}
		if widest(b) > MaxWidth {
			if b, err = g.render(cols, true); err != nil {
				return nil, err
			}
		}
		next++
		for ; next < len(g.Header); next++ {
			more, err := g.render(append(cols, next), false)
			if err != nil {
				return nil, err
			}
			if widest(more) > MaxWidth {
				break
			}
			cols, b = append(cols, next), more
		}
		out = append(out, b)
	}
	return out, nil
}

// render renders columns cols of g as one table; wrap caps each column at
// a third of MaxWidth, wrapping its cells at spaces.
func (g *Grid) render(cols []int, wrap bool) ([]byte, error) {
	pick := func(r []string) []string {
		out := make([]string, len(cols))
		for i, c := range cols {
			if c < len(r) {
				out[i] = r[c]
			}
		}
		return out
	}
	var buf bytes.Buffer
	opts := []tablewriter.Option{tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAlignment(tw.AlignRight)}
	if wrap {
		opts = append(opts, tablewriter.WithColumnMax(MaxWidth/3), tablewriter.WithRowAutoWrap(tw.WrapNormal))
	}
	t := tablewriter.NewTable(&buf, opts...)
	t.Header(toAny(pick(g.Header))...)
	for _, r := range g.Rows {
		if err := t.Append(pick(r)); err != nil {
			return nil, fmt.Errorf("report: table row: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return nil, fmt.Errorf("report: table: %w", err)
	}
	return buf.Bytes(), nil
}

// widest is the width in terminal columns of the widest line of b.
func widest(b []byte) int {
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		n = max(n, twwidth.Width(l))
	}
	return n
}

// Wrap breaks each line of s longer than width columns at spaces, the
// continuation lines indented by two spaces more than the line; a word
// longer than a line stays whole.
func Wrap(s string, width int) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		base := len(line) - len(strings.TrimLeft(line, " "))
		indent := base
		for twwidth.Width(line) > width {
			cut, w := -1, 0
			for i, r := range line {
				w += twwidth.Width(string(r))
				if r == ' ' && i > indent && (w <= width+1 || cut < 0) {
					cut = i
				}
				if w > width && cut >= 0 {
					break
				}
			}
			if cut < 0 {
				break // one word
			}
			out = append(out, strings.TrimRight(line[:cut], " "))
			indent = base + 2
			line = strings.Repeat(" ", indent) + strings.TrimLeft(line[cut:], " ")
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// ReasonsBelow moves the reasons out of column col, so that a row stays as
// narrow as its numbers: a cell "word: reason" ("fail: gap 0.14 > 0.03")
// keeps its word and a note number ("fail [1]"), and the reason becomes
// the numbered note "[1] KEY: reason" below the table, before its other
// notes; KEY is key(row), the row's name in words ("D = 0.15").
func (g *Grid) ReasonsBelow(col int, key func(row []string) string) {
	var notes []string
	for _, r := range g.Rows {
		if col >= len(r) {
			continue
		}
		word, reason, ok := strings.Cut(r[col], ": ")
		if !ok {
			continue
		}
		n := fmt.Sprintf("[%d]", len(notes)+1)
		notes = append(notes, fmt.Sprintf("%s %s: %s", n, key(r), reason))
		r[col] = word + " " + n
	}
	g.Notes = append(notes, g.Notes...)
}

// printable returns a copy of g with every string escaped; the title and
// the notes keep their own line breaks (mmds writes them), each line
// escaped.
func (g *Grid) printable() *Grid {
	return &Grid{Title: lines(g.Title), Header: esc(g.Header), Rows: Cells(nil, esc, g.Rows), Notes: Cells(nil, lines, g.Notes)}
}

// esc returns ss with every string escaped (safefile.Printable).
func esc(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = safefile.Printable(s)
	}
	return out
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

// Shortest formats x with the fewest digits that read back to the same
// float64 (strconv's 'g' with precision -1: 1e+20, 1e-07).
func Shortest(x float64) string { return Float(x, -1) }

// Fixed formats x with prec digits after the point.
func Fixed(x float64, prec int) string {
	return strconv.FormatFloat(x, 'f', prec, 64)
}

// Num formats a number for tables: 6 significant digits, "inf" for +Inf.
func Num(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return Float(x, 6)
}

// Numbered is format filled with 1…k, one name per adversary ("adv %d":
// "adv 1", "adv 2", …).
func Numbered(format string, k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = fmt.Sprintf(format, i+1)
	}
	return out
}

// Cells appends xs to row, each written by cell: a row's numbers, a
// header's names, a grid's rows.
func Cells[T, C any](row []C, cell func(T) C, xs []T) []C {
	for _, x := range xs {
		row = append(row, cell(x))
	}
	return row
}

// List joins xs as a sentence does, for titles: "1", "1 and 2",
// "0.25, 0.5 and 0.75" (never Go's "[1 2 3]").
func List[T any](xs []T) string {
	words := make([]string, len(xs))
	for i, x := range xs {
		words[i] = fmt.Sprint(x)
	}
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// Plural writes n and noun, with an s unless n is 1 ("1 seed", "3 seeds",
// "2 adversaries").
func Plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ay"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Sayf writes one line of human output, escaped (safefile.Printable): it
// may carry paths from the command line and names from files, which must
// not reach a terminal raw.
func Sayf(w io.Writer, format string, args ...any) error {
	_, err := fmt.Fprintln(w, safefile.Printable(fmt.Sprintf(format, args...)))
	return err
}

// SayWrapped is Sayf for prose (a summary, a finding): beyond MaxWidth
// columns it wraps at spaces.
func SayWrapped(w io.Writer, format string, args ...any) error {
	_, err := fmt.Fprintln(w, Wrap(safefile.Printable(fmt.Sprintf(format, args...)), MaxWidth))
	return err
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
