package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify"
)

// limitFlags are the bounds every sweep takes (--max-points, --time-limit)
// and --quiet. The semantics are model.SweepRequest's on every kind:
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

// newBar starts the progress report of a command's work: total units
// (thresholds) at about perUnit each, which says on a terminal when the
// work will take over a minute.
func newBar(w io.Writer, name string, quiet bool, unit string, total int, perUnit time.Duration) *progress.Bar {
	b := progress.New(w, progress.Options{
		Label: "mmds " + name, Unit: unit, Total: total, Quiet: quiet, Terminal: progress.IsTerminal(w),
		Hint: "--max-points N or --time-limit DUR bound it, Ctrl-C stops it",
	})
	b.Forecast(perUnit)
	b.Start()
	return b
}

// certifyBar starts the progress report of certifying total units
// (thresholds of a results directory, privatizers) on a model of kind k and
// returns the context to certify with: on a Gaussian model it also counts
// the quadrature panels, so a unit that takes seconds is seen to advance.
func certifyBar(ctx context.Context, e runEnv, quiet bool, k model.Kind, unit string, total int) (*progress.Bar, context.Context) {
	var steps *progress.Steps
	if k == model.Gauss {
		steps = new(progress.Steps)
		ctx = progress.WithSteps(ctx, steps)
	}
	b := progress.New(e.stderr, progress.Options{
		Label: "mmds " + e.name, Unit: unit, Total: total, Quiet: quiet,
		Terminal: progress.IsTerminal(e.stderr), Steps: steps, StepUnit: "quadrature panels",
	})
	b.Start()
	return b, ctx
}

// endBar ends the progress report of work that has no bounds.
func endBar(bar *progress.Bar, err error) {
	if err != nil {
		bar.Finish("stopped")
		return
	}
	bar.Finish("done")
}

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
