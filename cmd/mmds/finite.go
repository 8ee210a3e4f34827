package main

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/model"
)

type finiteFlags struct {
	sweepFlags
	config, alphabet, method, writeModel string
	witness                              string // --witness FILE: the optima's witnesses
	mechanisms                           bool
	gap                                  float64
	maxSubsets                           int64
}

func newFiniteCmd() *cobra.Command {
	var f finiteFlags
	cmd := &cobra.Command{
		Use:   "finite",
		Short: "Exact optimum of a general finite model over all privatizers (ray LP or column generation) or a fixed output alphabet (MIP)",
		Long: `finite solves a general finite model: X ∈ {0..n−1} with a prior, the
reconstructor's channel P(Y|X), one channel P(Z_i|X) per adversary, and loss
matrices (default 0-1). For each D it maximizes the smallest adversarial Bayes
risk subject to the reconstructor's Bayes risk ≤ D.

--alphabet global (the default) optimizes over every randomized privatizer,
whatever its output alphabet. --method auto uses the LP over the extreme rays
of the common refinement of all decision regions while they can be enumerated
(n ≤ 4 and within --max-subsets), and column generation beyond: a master LP
over the columns found so far, priced exactly by branch and bound over the
reconstructor's decision rules. Every point gets a status: "optimal" once
proven, or "gap X%" with the certified bracket [min_adv_loss, upper_bound]
when --time-limit (the whole run's budget) ends the search; an infeasible D is
a row with status "infeasible". --alphabet m restricts F to m outputs and
solves a mixed-integer program. Without --config it solves the paper's binary
model (p = 0.54, q_Y = 0.2, q_Z = 0.44). Ctrl-C stops within a second (exit
130) and prints nothing.`,
		Example: `  mmds finite --config examples/finite-ternary.json
  mmds finite --config examples/finite-paper-binary.json --d 0.1
  mmds finite --config model.json --d 0.05 --time-limit 10s --format json
  mmds finite --config examples/finite-ternary.json --alphabet 2 --format json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runFinite(cmd.Context(), envOf(cmd), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "JSON model file (default: the paper's binary model)")
	fl.StringVar(&f.alphabet, "alphabet", "global", "output alphabet: global (every privatizer) or a size m in [1, 64]")
	fl.StringVar(&f.method, "method", "auto", "global solver: auto, rays (ray LP) or colgen (column generation)")
	f.register(fl, "thresholds D0:D1:N (default 11 values from D_min to D_max)", model.FiniteTimeLimit)
	fl.BoolVar(&f.mechanisms, "mechanisms", false, "print every point's mechanism P(F|X) (always with a single --d)")
	fl.Float64Var(&f.gap, "gap", model.ProvenGap, "column generation stops once the certified relative gap (upper − lower)/upper is at most this; the default proves optimality")
	fl.Int64Var(&f.maxSubsets, "max-subsets", model.DefaultMaxSubsets, "budget of linear systems for the ray enumeration; beyond it --method auto uses column generation")
	fl.StringVar(&f.writeModel, "write-model", "", "also write each LP/MIP to this .mps or .lp file (ray LP or fixed alphabet; a sweep inserts -NN before the extension)")
	fl.StringVar(&f.witness, "witness", "", "also write what proves each global optimum to this JSON file, for mmds-check (docs/check.md); not with --alphabet m")
	return cmd
}

func runFinite(ctx context.Context, e runEnv, f finiteFlags) error {
	return report.WithOutput(e.stdout, stdoutPath(f.output), func(w io.Writer) error {
		m, r, err := f.request(ctx, e)
		if err != nil {
			return err
		}
		err = runSweep(ctx, e, w, m, r, f.limits)
		if errors.Is(err, model.ErrNoRayLP) {
			return errors.New("--write-model: the ray enumeration exceeded --max-subsets, so there is no ray LP to write")
		}
		return err
	})
}

// request reads and checks every flag and path, before any work.
func (f finiteFlags) request(ctx context.Context, e runEnv) (model.FiniteModel, model.SweepRequest, error) {
	r := model.SweepRequest{Witness: f.witness,
		Finite: model.FiniteSweep{GapTol: f.gap, MaxSubsets: f.maxSubsets, Mechanisms: f.mechanisms}}
	m := model.PaperFinite() // the paper's binary model (Section V-B) as a finite model
	var err error
	if f.config != "" {
		if m, err = model.LoadFinite(ctx, f.config); err != nil {
			return m, r, badInput("--config %v", err)
		}
	}
	if f.alphabet != "global" {
		a, err := strconv.Atoi(f.alphabet)
		if err != nil || a < 1 || a > model.MaxOutputs {
			return m, r, badInput("--alphabet %q: must be global or an integer m in [1, %d]", f.alphabet, model.MaxOutputs)
		}
		r.Finite.Alphabet = a
	}
	if r.Finite.Method.UnmarshalText([]byte(f.method)) != nil {
		return m, r, badInput("--method %q: must be auto, rays or colgen", f.method)
	}
	if r.Format, err = outputFormat(f.format); err != nil {
		return m, r, err
	}
	if err := f.checkBounds(m); err != nil {
		return m, r, err
	}
	// the optimum command's own grid (mip.Finite.DefaultSweep), not the
	// training grid of model.FiniteModel.DefaultSweep
	if r.D, err = thresholds(e.given, f.d, f.sweep, m.M.DefaultSweep()); err != nil {
		return m, r, err
	}
	if f.writeModel != "" {
		if r.Finite.Alphabet == 0 && (f.method == "colgen" || f.method == "auto" && m.M.N() > model.AutoRayMaxN) {
			return m, r, badInput("--write-model %q: with --method auto, a model of n = %d > %d values is solved by column generation, which has no single model to write; use --method rays or --alphabet m", f.writeModel, m.M.N(), model.AutoRayMaxN)
		}
		if r.ModelFiles, err = model.ModelFileNames(f.writeModel, len(r.D)); err != nil {
			return m, r, usageError{err}
		}
	}
	if f.witness != "" && r.Finite.Alphabet > 0 {
		return m, r, badInput("--witness %q: a fixed-alphabet optimum (--alphabet %d) has no witness; --witness proves the global optimum (--alphabet global)", f.witness, r.Finite.Alphabet)
	}
	paths := []report.Path{report.In("--config", f.config), report.Out("--output", stdoutPath(f.output)), report.Out("--witness", f.witness)}
	for _, p := range r.ModelFiles {
		paths = append(paths, report.Out("--write-model", p))
	}
	return m, r, checkPaths(paths...)
}

// checkBounds checks --max-points, --time-limit, --max-subsets, --gap and
// the model's size.
func (f finiteFlags) checkBounds(m model.FiniteModel) error {
	if err := f.limits.check(); err != nil {
		return err
	}
	if f.maxSubsets < 1 {
		return badInput("--max-subsets %d: must be ≥ 1", f.maxSubsets)
	}
	if !(f.gap >= model.ProvenGap && f.gap < 1) {
		return badInput("--gap %v: must be in [%g, 1)", f.gap, model.ProvenGap)
	}
	if err := m.M.CheckSize(); err != nil {
		return badInput("--config %s: %v", f.config, err)
	}
	return nil
}
