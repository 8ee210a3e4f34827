package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
)

// gaussOpts holds the flags of mmds gauss.
type gaussOpts struct {
	sweepFlags
	config     string
	plot       string // --plot FILE: the exact curves alone
	monteCarlo bool
	kernels    bool // --kernels: the slow stochastic-kernel search
	optimum    bool // --optimum: the optimum search over posteriors
	seed       uint64
	samples    int
	workers    int // --workers: kernel searches at once
}

func newGaussCmd() *cobra.Command {
	var o gaussOpts
	cmd := &cobra.Command{
		Use:   "gauss",
		Short: "Gaussian model: Proposition 1, the best achievable mechanism and the upper bound",
		Long: `gauss prints, for every distortion threshold D, Proposition 1's optimum among
jointly Gaussian privatizers F = aX + bR (Section III-A, K adversaries; every point
cross-checked against the Schur complements of Cov(X, F, side)), the best achievable
mechanism known over all privatizers (erasure, X mod Δ, nested and uniform
quantizers, linear, time-sharing; exact losses) and a proven upper bound. The exact
optimum lies between the last two; the output says where that bracket is open.
Without --config it uses the paper's Section V-A setup. See docs/gauss.md.`,
		Example: `  mmds gauss
  mmds gauss --config examples/gauss-coalition.json --format json
  mmds gauss --sweep 0:5.76:7 --monte-carlo --seed 3
  mmds gauss --plot gauss.png
  mmds gauss --d 4.5 --kernels
  mmds gauss --d 0.5 --optimum`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badInput("gauss takes no arguments, got %q", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runGauss(cmd.Context(), envOf(cmd), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "JSON model file (default: the paper's Section V-A setup)")
	o.register(f, "thresholds D0:D1:N (default 30 values from 0.005 to V_Y = Var[X|Y])", 0)
	f.BoolVar(&o.monteCarlo, "monte-carlo", false, "also estimate every loss by Monte Carlo (paper's protocol)")
	f.Uint64Var(&o.seed, "seed", 1, "Monte Carlo seed (point i uses PCG(seed, i))")
	f.IntVar(&o.samples, "samples", learn.DefaultSamples, "Monte Carlo samples per point; 1/6 of them are the test split")
	f.BoolVar(&o.kernels, "kernels", false, "also search optimized stochastic kernels at every threshold (slow: about 10 s each)")
	f.BoolVar(&o.optimum, "optimum", false, "also search the optimum over all privatizers on a grid (column generation over posteriors; seconds a threshold): a mechanism certified on the continuum and a numerical estimate of the grid problem")
	workersFlag(f, &o.workers, "kernel searches (--kernels) and the optimum search's scans (--optimum)")
	f.StringVar(&o.plot, "plot", "", "also draw Proposition 1, every family, the best achievable envelope and the upper bound into this .png or .svg file")
	return cmd
}

func runGauss(ctx context.Context, e runEnv, o gaussOpts) error {
	format, err := outputFormat(o.format)
	if err != nil {
		return err
	}
	if err := checkMCFlags(e, o); err != nil {
		return err
	}
	if err := checkWorkers(o.workers); err != nil {
		return err
	}
	if e.given("workers") && !o.kernels && !o.optimum {
		return badInput("--workers applies to --kernels and --optimum only (the other stages take milliseconds)")
	}
	if err := checkPlotPath(o.plot); err != nil {
		return err
	}
	if err := checkPaths(report.In("--config", o.config), report.Out("--output", stdoutPath(o.output)), report.Out("--plot", o.plot)); err != nil {
		return err
	}
	m, err := model.LoadOrPaper(ctx, model.Gauss, o.config)
	if err != nil {
		return usageError{fmt.Errorf("--config %w", err)}
	}
	ds, err := thresholds(e.given, o.d, o.sweep, m.DefaultSweep())
	if err != nil {
		return err
	}
	if err := o.limits.check(); err != nil {
		return err
	}
	r := model.SweepRequest{D: ds, Format: format, Plot: plotTo(o.plot),
		Gauss: model.GaussSweep{MonteCarlo: o.monteCarlo, Seed: o.seed, Samples: o.samples, Kernels: o.kernels, Optimum: o.optimum, Workers: o.workers}}
	err = report.WithOutput(e.stdout, stdoutPath(o.output), func(w io.Writer) error { return runSweep(ctx, e, w, m, r, o.limits) })
	if errors.Is(err, model.ErrSamples) {
		return badInput("--samples %d: %w", o.samples, err)
	}
	return err
}

func checkMCFlags(e runEnv, o gaussOpts) error {
	if !o.monteCarlo {
		for _, name := range []string{"seed", "samples"} {
			if e.given(name) {
				return badInput("--%s needs --monte-carlo", name)
			}
		}
		return nil
	}
	return asUsage(learn.CheckSamples(o.samples))
}
