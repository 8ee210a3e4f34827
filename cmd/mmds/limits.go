package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify"
)

// limitFlags are the bounds every sweep takes (--max-points, --time-limit)
// and --quiet. The semantics are mip.SweepOptions's on every solve path:
// thresholds are solved in order, and one starts only while fewer than
// --max-points are solved and --time-limit has not passed; the rest are
// printed as "not reached" and a warning line says so (exit status 0: what
// was asked for within the bound is complete).
type limitFlags struct {
	maxPoints int
	timeLimit time.Duration
	quiet     bool
}

// register adds the flags; defLimit is --time-limit's default (0: none).
func (l *limitFlags) register(f *pflag.FlagSet, defLimit time.Duration) {
	f.IntVar(&l.maxPoints, "max-points", 0, "solve at most the first N thresholds of the sweep; the rest are reported as not reached (0: all)")
	what := "time budget of the whole sweep: thresholds not started within it are reported as not reached (0: none)"
	f.DurationVar(&l.timeLimit, "time-limit", defLimit, what)
	f.BoolVar(&l.quiet, "quiet", false, quietUsage)
}

// workersFlag registers --workers, what runs at once (default: every core);
// results never depend on it.
func workersFlag(f *pflag.FlagSet, p *int, what string) {
	f.IntVar(p, "workers", runtime.GOMAXPROCS(0), what+" at once, in [1, 1024] (default: the cores; results do not depend on it)")
}

// checkWorkers refuses a --workers outside [1, 1024] before any work.
func checkWorkers(n int) error {
	if n < 1 || n > 1024 {
		return badInput("--workers %d: must be in [1, 1024]", n)
	}
	return nil
}

// quietUsage is --quiet's help on every command.
const quietUsage = "no progress on standard error (a bar on a terminal, else a line once the work has run 1 s, every 30 s, and at its end)"

// check refuses negative bounds before any work.
func (l limitFlags) check() error {
	if l.maxPoints < 0 {
		return badInput("--max-points %d: must be an integer ≥ 0 (0: all thresholds)", l.maxPoints)
	}
	if l.timeLimit < 0 {
		return badInput("--time-limit %v: must be a duration ≥ 0 such as 90s or 10m (0: none)", l.timeLimit)
	}
	return nil
}

// sweepOptions are the bounds for mip, with progress reported to bar.
func (l limitFlags) sweepOptions(bar *progress.Bar) mip.SweepOptions {
	return mip.SweepOptions{MaxPoints: l.maxPoints, TimeLimit: l.timeLimit, Progress: bar.Set}
}

// points is how many thresholds of n the bounds let start at most.
func (l limitFlags) points(n int) int {
	if l.maxPoints > 0 {
		return min(n, l.maxPoints)
	}
	return n
}

// newBar starts the progress report of a command's work: total units
// (thresholds) at about perUnit each, which says on a terminal when the
// work will take over a minute.
func newBar(cmd *cobra.Command, quiet bool, unit string, total int, perUnit time.Duration) *progress.Bar {
	w := cmd.ErrOrStderr()
	b := progress.New(w, progress.Options{
		Label: "mmds " + cmd.Name(), Unit: unit, Total: total, Quiet: quiet, Terminal: progress.IsTerminal(w),
		Hint: "--max-points N or --time-limit DUR bound it, Ctrl-C stops it",
	})
	b.Forecast(perUnit)
	b.Start()
	return b
}

// certifyBar starts the progress report of certifying total units
// (thresholds of a results directory, privatizers) on model m and returns
// the context to certify with: on a Gaussian model it also counts the
// quadrature panels, so a unit that takes seconds is seen to advance.
func certifyBar(cmd *cobra.Command, quiet bool, m model.Model, unit string, total int) (*progress.Bar, context.Context) {
	ctx := cmd.Context()
	var steps *progress.Steps
	if m.Kind() == model.Gauss {
		steps = new(progress.Steps)
		ctx = progress.WithSteps(ctx, steps)
	}
	w := cmd.ErrOrStderr()
	b := progress.New(w, progress.Options{
		Label: "mmds " + cmd.Name(), Unit: unit, Total: total, Quiet: quiet,
		Terminal: progress.IsTerminal(w), Steps: steps, StepUnit: "quadrature panels",
	})
	b.Start()
	return b, ctx
}

// warnStopped says in one line that a bound stopped the sweep, whatever
// --quiet says: it is about the output, not the progress.
func warnStopped(cmd *cobra.Command, l limitFlags, stop sweep.Stop, solved, total int) error {
	if stop == sweep.StopNone {
		return nil
	}
	bound := fmt.Sprintf("--max-points %d", l.maxPoints)
	if stop == sweep.StopTimeLimit {
		bound = "--time-limit " + l.timeLimit.String()
	}
	return sayf(cmd.ErrOrStderr(), "mmds %s: stopped by %s: %d of %d thresholds solved, %d not reached",
		cmd.Name(), bound, solved, total, total-solved)
}

// doneOrStopped is the last progress line's word for how a sweep ended.
func doneOrStopped(err error, stop sweep.Stop) string {
	switch {
	case err != nil:
		return "stopped"
	case stop != sweep.StopNone:
		return "stopped by the " + stop.String()
	}
	return "done"
}

// notReached are the thresholds a bound stopped a sweep before. They are
// written as they are generated, never held as rows, so a sweep of a
// million thresholds stopped early costs no more memory than what it
// solved: CSV gets a row per threshold (D, status "not reached", every
// other cell empty), JSON a point per threshold ({"D", "status"}), and a
// table, which a person reads, lists up to maxListed of them and
// summarizes more in one row.
type notReached struct {
	ds     []float64
	cols   int // columns of a row
	status int // the column that says "not reached"
}

// notReachedIn are ds in g's columns, with "not reached" in column status.
func notReachedIn(g *report.Grid, ds []float64, status string) notReached {
	i := slices.Index(g.Header, status)
	if i < 0 {
		panic("mmds: no column " + status)
	}
	return notReached{ds: ds, cols: len(g.Header), status: i}
}

// maxListed is the most not-reached thresholds a table lists one by one.
const maxListed = 10

// tableRows are the table's rows: empty cells are "—".
func (n notReached) tableRows(num func(float64) string) [][]string {
	row := func(d string, status string) []string {
		r := make([]string, n.cols)
		for i := range r {
			r[i] = "—"
		}
		r[0], r[n.status] = d, status
		return r
	}
	if len(n.ds) > maxListed {
		return [][]string{row(num(n.ds[0])+" … "+num(n.ds[len(n.ds)-1]),
			fmt.Sprintf("%s (%d thresholds)", sweep.NotReached, len(n.ds)))}
	}
	rows := make([][]string, 0, len(n.ds))
	for _, d := range n.ds {
		rows = append(rows, row(num(d), sweep.NotReached))
	}
	return rows
}

// writeCSV appends the CSV rows to w, one at a time.
func (n notReached) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	row := make([]string, n.cols)
	row[n.status] = sweep.NotReached
	for _, d := range n.ds {
		row[0] = strconv.FormatFloat(d, 'g', -1, 64)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// emitSweep writes a sweep: the grid of solved points then the
// not-reached rows (table or CSV), or doc (JSON, whose points carry the
// not-reached ones, see pointsJSON).
func emitSweep(w io.Writer, f report.Format, g *report.Grid, doc any, nr notReached) error {
	switch f {
	case report.JSON:
		return report.WriteJSON(w, doc)
	case report.CSV:
		if err := g.RenderCSV(w); err != nil {
			return err
		}
		return nr.writeCSV(w)
	}
	g.Rows = append(g.Rows, nr.tableRows(func(x float64) string { return report.Fixed(x, 4) })...)
	return g.RenderTable(w)
}

// closeTable ends a streamed table of a sweep (report.RowStream): the
// thresholds not reached as tableRows, or, once the table streams with
// fixed column widths, one line below it; then the notes.
func (n notReached) closeTable(rows *report.RowStream, notes []string) error {
	if rows.Streaming() {
		if len(n.ds) > 0 {
			notes = append(notes, fmt.Sprintf("%s (%d thresholds): D = %s … %s", sweep.NotReached, len(n.ds),
				report.Fixed(n.ds[0], 4), report.Fixed(n.ds[len(n.ds)-1], 4)))
		}
		return rows.Close(notes)
	}
	for _, r := range n.tableRows(func(x float64) string { return report.Fixed(x, 4) }) {
		if err := rows.Append(r); err != nil {
			return err
		}
	}
	return rows.Close(notes)
}

// pointsJSON is a sweep's "points" array: the solved points, then
// {"D": …, "status": "not reached"} for each threshold after them,
// written without building them.
type pointsJSON[T any] struct {
	solved []T
	rest   []float64
}

// MarshalJSON writes the array.
func (p pointsJSON[T]) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.solved)
	if err != nil {
		return nil, err
	}
	if len(p.rest) == 0 {
		return b, nil
	}
	if string(b) == "null" {
		b = []byte("[]")
	}
	b = b[:len(b)-1] // the closing bracket
	for i, d := range p.rest {
		if i > 0 || len(p.solved) > 0 {
			b = append(b, ',')
		}
		b = append(b, notReachedPoint(d)...)
	}
	return append(b, ']'), nil
}

// notReachedPoint is the JSON point of a threshold not reached:
// {"D": …, "status": "not reached"}.
func notReachedPoint(d float64) json.RawMessage {
	b := append([]byte(`{"D":`), strconv.FormatFloat(d, 'g', -1, 64)...)
	return append(b, `,"status":"`+sweep.NotReached+`"}`...)
}

// endBar ends the progress report of work that has no bounds.
func endBar(bar *progress.Bar, err error) { bar.Finish(doneOrStopped(err, sweep.StopNone)) }

// maxMemoryFlag adds --max-memory, the run's memory budget (verify.ParseBytes).
func maxMemoryFlag(f *pflag.FlagSet, p *string) {
	f.StringVar(p, "max-memory", verify.Bytes(verify.DefaultMaxMemory), "memory budget of the run, checked before the work: the inputs once read (a compact kernel table counts as the table it becomes) and each worker's working memory; a whole number and a unit (B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB)")
}

// parseMaxMemory reads --max-memory before any work.
func parseMaxMemory(s string) (int64, error) {
	n, err := verify.ParseBytes(s)
	if err != nil {
		return 0, badInput("--max-memory %v", err)
	}
	return n, nil
}

// memoryError is the exit 2 of a run over its --max-memory, naming what it
// needs; other errors are returned as they are.
func memoryError(err error) error {
	var me *verify.MemoryError
	if !errors.As(err, &me) {
		return err
	}
	return badInput("--max-memory %s: this run needs about %s (%s); raise --max-memory to at least %s, or run fewer --workers",
		verify.Bytes(me.Limit), verify.About(me.Need), me.What, verify.Bytes(me.Need))
}

// applyMemoryLimit sets the Go runtime's memory limit for a run of budget
// bytes (verify.SoftLimit) unless GOMEMLIMIT sets one, and returns what
// restores the previous limit.
func applyMemoryLimit(budget int64) func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(verify.SoftLimit(budget))
	return func() { debug.SetMemoryLimit(prev) }
}
