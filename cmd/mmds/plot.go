package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/plot"
	"github.com/mmds-project/mmds/verify"
)

type plotOptions struct {
	dir, out string
	quiet    bool
}

func newPlotCmd() *cobra.Command {
	var o plotOptions
	cmd := &cobra.Command{
		Use:   "plot DIR",
		Short: "Draw the paper's Figure 2 or 3 for a trained results directory",
		Long: `plot certifies a results directory of mmds train (as mmds verify does; after mmds
verify it takes the certificates from mmds's own cache, MMDS_CACHE_DIR: docs/verify.md)
and draws adversarial loss against reconstructor distortion: the optimum of the paper's
privatizer class (Proposition 1 for each adversary, or Proposition 2), beside
it the optimum over all privatizers (the Gaussian bracket: best known
mechanism and upper bound; the binary and finite models' global LP), and for
every finalized threshold the learned points (the trained estimators' test
losses) and the certified points (the exact Bayes losses of the learned
privatizer).

It writes figure2.png and figure2.svg for the Gaussian model, figure3.png and
figure3.svg for the binary model (the paper's numbering), figure-finite.png
and figure-finite.svg for a finite model, into --out (default: DIR), each
atomically.`,
		Example: `  mmds plot results/quick-gauss
  mmds plot results/quick-binary --out docs/img`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dir = args[0]
			return runPlot(cmd.Context(), envOf(cmd), o)
		},
	}
	cmd.Flags().StringVar(&o.out, "out", "", "folder to write the figures into (default: DIR)")
	cmd.Flags().BoolVar(&o.quiet, "quiet", false, quietUsage)
	return cmd
}

// runPlot certifies a results directory, its certificates from the
// user's cache when mmds verify computed them (verify.UserCache), and
// draws its figure (plot.Figure) into --out.
func runPlot(ctx context.Context, e runEnv, o plotOptions) error {
	if err := checkPaths(report.InFolder("DIR", o.dir, report.Results)); err != nil {
		return err
	}
	run, err := verify.Load(ctx, o.dir)
	if err != nil {
		return usageError{err}
	}
	if o.out == "" {
		o.out = o.dir
	}
	if fi, err := os.Stat(o.out); err != nil || !fi.IsDir() {
		return badInput("--out %q: not an existing folder", o.out)
	}
	stem := plot.Stem(run.Model.Kind())
	if err := checkPaths(report.InFolder("DIR", o.dir, report.Results),
		report.Out("--out", filepath.Join(o.out, stem+".png")), report.Out("--out", filepath.Join(o.out, stem+".svg"))); err != nil {
		return err
	}
	bar, wctx := certifyBar(ctx, e, o.quiet, run.Model.Kind(), "thresholds certified", len(run.Results.Config.D))
	rep, err := verify.Certify(wctx, run, verify.Options{Cache: verify.UserCache(), Progress: bar.Set})
	var spec plot.Spec
	if err == nil {
		bar.Describe("drawing the optima")
		spec, stem, err = plot.Figure(wctx, run.Model, rep, model.Options{})
	}
	endBar(bar, err)
	if err != nil {
		if errors.Is(err, verify.ErrInput) {
			return usageError{err}
		}
		return err
	}
	if rep.Cached > 0 {
		_ = report.Sayf(e.stdout, "%d certificates from mmds verify's cache", rep.Cached)
	}
	for _, ext := range []string{".png", ".svg"} {
		path := filepath.Join(o.out, stem+ext)
		if err := plot.Write(spec, path); err != nil {
			return err
		}
		_ = report.Sayf(e.stdout, "wrote %s", path)
	}
	return nil
}

// checkPlotPath validates a --plot file name before any work: a .png or .svg
// file in an existing folder.
func checkPlotPath(path string) error {
	return asUsage(plot.CheckPath("--plot", path))
}
