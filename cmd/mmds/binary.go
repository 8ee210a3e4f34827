package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/model"
)

type binaryFlags struct {
	sweepFlags
	p, qy      float64
	qz         []float64
	writeModel string
	plot       string // --plot FILE: the exact curve alone
	config     string
	global     bool
	witness    string // --witness FILE: the optima's witnesses
}

func newBinaryCmd() *cobra.Command {
	var f binaryFlags
	cmd := &cobra.Command{
		Use:   "binary",
		Short: "Exact optimum of the binary model (Proposition 2) via HiGHS",
		Long: `Solves Proposition 2 of the paper for the binary model: X ~ Bernoulli(p), the
reconstructor sees Y = BSC(q_Y)(X), adversary i sees Z_i = BSC(q_Zi)(X), and
the privatizer releases a bit F with s0 = P(F=0|X=0), s1 = P(F=1|X=1). For
each D it maximizes the smallest adversarial MAP error subject to the
reconstructor's MAP error ≤ D, as a mixed-integer program solved by HiGHS.

With no flags it solves the paper's setup (p = 0.54, q_Y = 0.2, q_Z = 0.44)
at 30 values of D from 0.0025 to D_max = 0.2.`,
		Example: `  mmds binary
  mmds binary --qz 0.44 --qz 0.3 --sweep 0:0.2:11 --format csv
  mmds binary --d 0.1 --format json --write-model prop2.mps`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runBinary(cmd.Context(), envOf(cmd), f) },
	}
	fl := cmd.Flags()
	fl.Float64Var(&f.p, "p", 0.54, "P(X = 1), in [0, 1]")
	fl.Float64Var(&f.qy, "qy", 0.2, "crossover probability of the reconstructor's BSC, in [0, 1]")
	fl.Float64SliceVar(&f.qz, "qz", []float64{0.44}, "crossover probability of an adversary's BSC, in [0, 1]; repeat (or comma-separate) for several adversaries")
	f.register(fl, "thresholds D0:D1:N, N evenly spaced values (default 0.0025:D_max:30)", 0)
	fl.StringVar(&f.config, "config", "", `JSON model file {"p": …, "q_y": …, "q_z": […]} (instead of --p, --qy, --qz)`)
	fl.BoolVar(&f.global, "global", false, "also solve the global optimum over every privatizer (any output alphabet) and print it beside Proposition 2's, with the optimal mechanism")
	fl.StringVar(&f.writeModel, "write-model", "", "also write each MIP to this .mps or .lp file (a sweep inserts -NN before the extension)")
	fl.StringVar(&f.witness, "witness", "", "also write what proves each optimum (and, with --global, the global one) to this JSON file, for mmds-check (docs/check.md)")
	fl.StringVar(&f.plot, "plot", "", "also draw the optimal min adversarial loss against D into this .png or .svg file")
	return cmd
}

func runBinary(ctx context.Context, e runEnv, f binaryFlags) error {
	m, err := binaryModel(ctx, e, f)
	if err != nil {
		return err
	}
	format, err := outputFormat(f.format)
	if err != nil {
		return err
	}
	ds, err := thresholds(e.given, f.d, f.sweep, m.DefaultSweep())
	if err != nil {
		return err
	}
	if err := checkPlotPath(f.plot); err != nil {
		return err
	}
	if err := f.limits.check(); err != nil {
		return err
	}
	r := model.SweepRequest{D: ds, Format: format, Binary: model.BinarySweep{Global: f.global}, Witness: f.witness, Plot: plotTo(f.plot)}
	return report.WithOutput(e.stdout, stdoutPath(f.output), func(w io.Writer) error {
		if f.writeModel != "" {
			if r.ModelFiles, err = model.ModelFileNames(f.writeModel, len(ds)); err != nil {
				return usageError{err}
			}
		}
		paths := []report.Path{report.In("--config", f.config), report.Out("--plot", f.plot), report.Out("--output", stdoutPath(f.output)),
			report.Out("--witness", f.witness)}
		for _, p := range r.ModelFiles {
			paths = append(paths, report.Out("--write-model", p))
		}
		if err := checkPaths(paths...); err != nil {
			return err
		}
		return runSweep(ctx, e, w, m, r, f.limits)
	})
}

// binaryModel reads --config, or builds the model from --p, --qy and --qz.
func binaryModel(ctx context.Context, e runEnv, f binaryFlags) (model.BinaryModel, error) {
	if f.config != "" {
		for _, name := range []string{"p", "qy", "qz"} {
			if e.given(name) {
				return model.BinaryModel{}, badInput("--config and --%s are mutually exclusive: give the model one way", name)
			}
		}
		m, err := model.LoadBinary(ctx, f.config)
		if err != nil {
			return model.BinaryModel{}, usageError{fmt.Errorf("--config %w", err)}
		}
		return m, nil
	}
	m, err := model.CheckedBinary(f.p, f.qy, f.qz)
	return m, asUsage(err)
}
