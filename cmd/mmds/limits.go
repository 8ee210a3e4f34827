package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/mip"
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

// quietUsage is --quiet's help on every command.
const quietUsage = "no progress on standard error (a bar on a terminal, else a line every 30 s and at the end of work longer than 2 s)"

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

// notReachedRows are the rows of thresholds a bound stopped a sweep before:
// D, the status "not reached" in column status, every other cell empty
// (a table shows "—").
func notReachedRows(ds []float64, num func(float64) string, empty string, cols, status int) [][]string {
	rows := make([][]string, 0, len(ds))
	for _, d := range ds {
		row := make([]string, cols)
		for i := range row {
			row[i] = empty
		}
		row[0], row[status] = num(d), sweep.NotReached
		rows = append(rows, row)
	}
	return rows
}

// endBar ends the progress report of work that has no bounds.
func endBar(bar *progress.Bar, err error) { bar.Finish(doneOrStopped(err, sweep.StopNone)) }
