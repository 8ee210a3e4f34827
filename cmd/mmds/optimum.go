package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/plot"
)

// optimumOpts holds the flags of mmds optimum: the model file of any kind
// and the flags every per-kind optimum command shares.
type optimumOpts struct {
	model string
	sweepFlags
}

// sweepFlags are the flags of every optimum command (mmds binary, finite,
// gauss and optimum): the thresholds, the output and the bounds.
type sweepFlags struct {
	d                     float64
	sweep, format, output string // output: -o/--output FILE
	limits                limitFlags
}

// register adds the flags: sweepUsage is --sweep's help, which names the
// command's default sweep, and timeLimit --time-limit's default.
func (s *sweepFlags) register(f *pflag.FlagSet, sweepUsage string, timeLimit time.Duration) {
	f.Float64Var(&s.d, "d", 0, "a single distortion threshold D ≥ 0")
	f.StringVar(&s.sweep, "sweep", "", sweepUsage)
	f.StringVar(&s.format, "format", "table", "output format: table, csv or json")
	outputFlag(f, &s.output)
	s.limits.register(f, timeLimit)
}

func newOptimumCmd() *cobra.Command {
	var o optimumOpts
	cmd := &cobra.Command{
		Use:   "optimum --model FILE",
		Short: "The optimum table of a model file of any kind (binary, finite or gauss; detected)",
		Long: `optimum detects the kind of --model (the gauss, binary or finite --config
file, as mmds certify does) and prints what that kind's own command prints
for it: mmds binary --config (Proposition 2), mmds finite --config (the
global optimum over all privatizers) or mmds gauss --config (Proposition 1,
the best achievable mechanism and the upper bound), each command's defaults
for everything else. A finite model keeps mmds finite's --time-limit of 60s
unless --time-limit is given.`,
		Example: `  mmds optimum --model examples/binary-paper.json --d 0.15
  mmds optimum --model examples/finite-ternary.json --sweep 0:0.2:5 --format csv
  mmds optimum --model examples/gauss-coalition.json --format json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runOptimum(cmd.Context(), envOf(cmd), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model file: the gauss, binary or finite --config JSON (required)")
	o.register(f, "thresholds D0:D1:N (default: the kind's own sweep)", 0)
	return cmd
}

// runOptimum detects the model's kind and runs that kind's command on it.
func runOptimum(ctx context.Context, e runEnv, o optimumOpts) error {
	if o.model == "" {
		return badInput("--model: required (the gauss, binary or finite --config JSON)")
	}
	m, err := model.Load(ctx, o.model)
	if err != nil {
		return badInput("--model %v", err)
	}
	switch m.Kind() {
	case model.Binary:
		return runBinary(ctx, e, binaryFlags{sweepFlags: o.sweepFlags, config: o.model})
	case model.Finite:
		if !e.given("time-limit") {
			o.limits.timeLimit = model.FiniteTimeLimit
		}
		return runFinite(ctx, e, finiteFlags{sweepFlags: o.sweepFlags, config: o.model, alphabet: "global", method: "auto",
			gap: model.ProvenGap, maxSubsets: model.DefaultMaxSubsets})
	case model.Gauss:
		return runGauss(ctx, e, gaussOpts{sweepFlags: o.sweepFlags, config: o.model, seed: 1, samples: learn.DefaultSamples,
			workers: runtime.GOMAXPROCS(0)})
	}
	return fmt.Errorf("optimum: model kind %v has no optimum command", m.Kind())
}

// runEnv is what the run of a command needs of the command line:
// its streams, its name for messages, and which flags the user gave.
type runEnv struct {
	stdout, stderr io.Writer
	name           string
	given          func(flag string) bool
}

func envOf(cmd *cobra.Command) runEnv {
	return runEnv{cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.Name(), cmd.Flags().Changed}
}

// runSweep runs an optimum command's sweep (model.Sweep) within the bounds
// l, writing to w, with progress on standard error, and says in one line
// when a bound stopped it, whatever --quiet says: it is about the output,
// not the progress.
func runSweep(ctx context.Context, e runEnv, w io.Writer, m model.Model, r model.SweepRequest, l limitFlags) error {
	r.MaxPoints, r.TimeLimit = l.maxPoints, l.timeLimit
	r.Progress = func(unit string, total int, perUnit time.Duration) *progress.Bar {
		return newBar(e.stderr, e.name, l.quiet, unit, total, perUnit)
	}
	done, err := model.Sweep(ctx, m, r, w)
	if err != nil || done.Stop == sweep.StopNone {
		return err
	}
	bound := fmt.Sprintf("--max-points %d", l.maxPoints)
	if done.Stop == sweep.StopTimeLimit {
		bound = "--time-limit " + l.timeLimit.String()
	}
	return report.Sayf(e.stderr, "mmds %s: stopped by %s: %d of %d thresholds solved, %d not reached",
		e.name, bound, done.Solved, len(r.D), len(r.D)-done.Solved)
}

// plotTo draws a sweep's figure into path (nil: no --plot).
func plotTo(path string) func(model.Curves) error {
	if path == "" {
		return nil
	}
	return func(c model.Curves) error { return plot.Write(plot.OptimumSpec(c), path) }
}
