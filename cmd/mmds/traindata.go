package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/data"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/rundir"
)

type trainDataOpts struct {
	trainOpts
	csv, private         string
	recon                []string
	advs                 []string
	discrete, continuous []string
	copyData             bool
}

// dataJob is a planned training on a data file: the job, the data's spec
// and the file's bytes (for --copy).
type dataJob struct {
	*trainJob
	spec *data.Spec
	raw  []byte
}

func newTrainDataCmd() *cobra.Command {
	var o trainDataOpts
	cmd := &cobra.Command{
		Use:   "data --csv FILE --private COL --reconstructor COL[,COL] --adversary COL[,COL]",
		Short: "Train a privatizer on samples you bring (a CSV file), with Section V's train/test split",
		Long: `train data reads a CSV file (a header of column names, one row of numbers per
sample), takes X from --private, the reconstructor's side information from
--reconstructor and one adversary's from each --adversary, shuffles the rows
with --seed and splits them as Section V does (5/6 train, 1/6 test).

A column is discrete when all its values are integers and it has at most 16
distinct values, else continuous (--discrete, --continuous override). A
continuous X trains with MSE losses and Algorithm 1; a discrete X whose
observers' side columns are all discrete trains with 0-1 losses and the
labels method against exact Bayes observers of the training split's
empirical law (--method alg1: Algorithm 1, binary networks on a binary X,
a categorical release of |X| labels otherwise); a binary X with continuous
side columns trains with Algorithm 1's binary networks.

The results directory binds the data: DIR/model.json is {"data": …} with
the file's base name and SHA-256, the columns and their kinds, and the
split. --copy also places the file in DIR, so that DIR is self-contained;
mmds verify DIR reads that copy (or the file given with --data), refuses
it unless its SHA-256 is the run's, and gives the run an empirical
verdict, not a certificate: held-out losses with standard errors of
estimators mmds fits itself, "leak found" when one beats the losses the
run states (docs/data.md).`,
		Example: `  mmds train data --csv examples/data/continuous.csv --private x --reconstructor y --adversary z1 --adversary z2 --preset quick
  mmds train data --csv examples/data/discrete.csv --private x --reconstructor y --adversary z1 --adversary z2 --preset quick`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.bindRun(cmd)
			return runTrainData(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.csv, "csv", "", "the data file: CSV with a header row of column names")
	f.StringVar(&o.private, "private", "", "the column of the private X")
	f.StringSliceVar(&o.recon, "reconstructor", nil, "the reconstructor's side columns Y, comma-separated")
	f.StringArrayVar(&o.advs, "adversary", nil, "one adversary's side columns Z_i, comma-separated; repeat for each adversary")
	f.StringSliceVar(&o.discrete, "discrete", nil, "columns read as discrete symbols whatever their values")
	f.StringSliceVar(&o.continuous, "continuous", nil, "columns read as real numbers whatever their values")
	f.BoolVar(&o.copyData, "copy", false, "also place the data file in the results directory (DIR/NAME, the file's base name), where mmds verify DIR finds it")
	f.StringVar(&o.method, "method", "", "alg1 or labels (default: labels for discrete data, alg1 otherwise)")
	o.register(f, trainDataHelp)
	_ = cmd.RegisterFlagCompletionFunc("method", cobra.FixedCompletions([]string{"alg1\tthe paper's Algorithm 1", "labels\ta softmax over a codebook against exact Bayes observers"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

var trainDataHelp = runFlagHelp{
	preset:      "hyper-parameters and protocol, required: paper (Section V, hours) or quick (seconds)",
	labels:      "codebook size M of the labels method, in [2, 1024]",
	sweep:       "thresholds D0:D1:N (default: from D_min, or D̂_max/N for a continuous X, to D̂_max; 30 values for paper, 4 for quick)",
	epochs:      "epochs per trial (default: the preset's)",
	accept:      "accepted trials per D (default: the preset's)",
	tau:         "selection band [D − τ, D] (default: half the grid step)",
	maxAttempts: "cap on trials per D (default: the preset's)",
	seed:        "master seed of the split's shuffle and of every trial",
	out:         "results directory (default results/train-data-<preset>)",
	quiet:       "no progress on standard error",
}

func runTrainData(ctx context.Context, o trainDataOpts) error {
	job, err := prepareTrainData(ctx, o)
	if err != nil {
		return err
	}
	if err := requirePreset(o.env, "train data: "); err != nil {
		return err
	}
	err = writeRunDir(job.trainJob, func(d rundir.Dir) error {
		if !o.copyData {
			return nil
		}
		name, _ := job.spec.FileName() // checked by prepareTrainData
		return d.WriteDataCopy(name, job.raw)
	})
	if err != nil {
		return err
	}
	res, elapsed, err := sweepJob(ctx, job.trainJob, o.trainOpts)
	if err != nil {
		return err
	}
	sum := job.summary(res, elapsed)
	g := sum.Grid(job.format == report.Table)
	if job.format == report.Table {
		s := job.spec
		g.Title = fmt.Sprintf("%s on %s (%d rows: %d train, %d test, seed %d): X = %s (%v)",
			job.Config.PlanName(), safefile.Path(o.csv), s.Rows, s.Split.Train, s.Split.Test, s.Split.Seed, s.Private.Name, s.Private.Kind)
		// data have no optimum to certify against: verify's verdict is empirical
		g.Notes[len(g.Notes)-1] = strings.Replace(g.Notes[len(g.Notes)-1], "Certify with: mmds verify "+job.Config.Dir,
			"Check with mmds's own estimators (an empirical verdict, docs/data.md): mmds verify "+job.Config.Dir, 1)
	}
	return emit(o.env.stdout, job.format, g, sum.JSON())
}

// prepareTrainData validates the flags, reads the data file and plans the
// training.
func prepareTrainData(ctx context.Context, o trainDataOpts) (*dataJob, error) {
	format, err := outputFormat(o.format)
	if err != nil {
		return nil, err
	}
	preset, err := o.trainOpts.choices().PresetName()
	if err != nil {
		return nil, usageError{err}
	}
	choice, method, err := o.columns()
	if err != nil {
		return nil, err
	}
	if o.out == "" {
		o.out = preset.DefaultDir("data")
	}
	if err := checkPaths(report.In("--csv", o.csv), report.OutFolder("--out", o.out, report.Results)); err != nil {
		return nil, err
	}
	tau, ds, err := o.grid()
	if err != nil {
		return nil, err
	}
	prep, raw, err := data.Open(ctx, o.csv, choice)
	if err != nil {
		return nil, badInput("--csv %v", err)
	}
	spec := prep.Spec
	if o.copyData {
		if err := checkCopy(spec, o.out); err != nil {
			return nil, err
		}
	}
	plan, err := prep.ChoosePlan(method)
	if err != nil {
		return nil, badInput("%v", err)
	}
	cfg, err := o.config(prep, plan, preset, tau, ds)
	if err != nil {
		return nil, err
	}
	t, err := prep.Training(plan, cfg)
	if err != nil {
		return nil, err
	}
	job := &trainJob{Training: t, kind: plan.Model, format: format, advs: len(spec.Adversaries)}
	return &dataJob{trainJob: job, spec: spec, raw: raw}, nil
}

// checkCopy refuses, before any work, a data file whose name cannot be
// its copy's in the results directory out.
func checkCopy(spec *data.Spec, out string) error {
	name, err := spec.FileName()
	if err == nil {
		_, err = rundir.Dir(out).DataCopy(name)
	}
	if err != nil {
		return badInput("--copy: the data file's name %s cannot be a file of the results directory: %v; rename the file", safefile.Path(spec.CSV), err)
	}
	return nil
}

// columns reads the columns' roles and --method (nil: the data's
// default), before the data file is read.
func (o trainDataOpts) columns() (data.Choice, *learn.TrainMethod, error) {
	if o.csv == "" {
		return data.Choice{}, nil, badInput("--csv: give the data file (a CSV with a header row)")
	}
	choice, err := data.NewChoice(o.private, o.recon, o.advs, o.discrete, o.continuous, o.seed)
	if err != nil || o.method == "" {
		return choice, nil, asUsage(err)
	}
	m, err := o.trainOpts.choices().TrainMethod()
	if err != nil {
		return data.Choice{}, nil, usageError{err}
	}
	return choice, &m, nil
}

// config is preset's configuration of plan on the data: --labels
// checked against the method, the observers of the training split, the
// run's flags, the thresholds (data.Prepared.SetGrid) and the split.
func (o trainDataOpts) config(prep *data.Prepared, plan data.Plan, preset learn.PresetName, tau float64, ds []float64) (learn.Config, error) {
	cfg, err := o.trainOpts.choices().DataConfig(plan.Model, plan.Method, preset)
	if err != nil {
		return learn.Config{}, usageError{err}
	}
	if err := checkWorkers(o.workers); err != nil {
		return learn.Config{}, err
	}
	if err := prep.SetGrid(&cfg, preset, ds, tau); err != nil {
		if errors.Is(err, data.ErrNothingToHide) {
			return learn.Config{}, badInput("--reconstructor: %v", err)
		}
		return learn.Config{}, usageError{err}
	}
	cfg.Seed, cfg.Workers, cfg.Dir = o.seed, o.workers, o.out
	return cfg, nil
}
