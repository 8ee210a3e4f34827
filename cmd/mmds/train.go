package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/rundir"
)

type trainOpts struct {
	config, sweep, preset, out, format string
	method, observers                  string
	d, tau                             float64
	epochs, accept, maxAttempts        int
	labels                             int
	workers, samples                   int
	seed                               uint64
	shard                              string
	quiet                              bool
	slurm                              slurmOpts
	k8s                                k8sOpts
	env                                runEnv
	// args are the flags given, with their values, in the order pflag
	// visits them: the batch scripts repeat them (cluster.Train).
	args []cluster.Flag
}

// bindRun sets what a training run takes from cmd's command line beside
// the flags' values.
func (o *trainOpts) bindRun(cmd *cobra.Command) {
	o.env, o.args = envOf(cmd), nil
	cmd.Flags().Visit(func(f *pflag.Flag) { o.args = append(o.args, cluster.Flag{Name: f.Name, Value: f.Value.String()}) })
}

func newTrainCmd() *cobra.Command {
	var o trainOpts
	cmd := &cobra.Command{
		Use:   "train " + model.KindsUsage(),
		Short: "Train the paper's learned baseline (Algorithm 1) or a label privatizer over a sweep of D",
		Long: `train draws a seeded dataset from the model (the paper's 12,000 samples:
10,000 train, 2,000 test), runs Algorithm 1 with the selection protocol of
Section V at every threshold D, and writes a results directory that mmds
verify and mmds plot read:

  DIR/results.json          per D: the finalized point, trial counts, networks
  DIR/trials/dDD_tTTT.json  per trial: seed, epochs, seconds, per-epoch history
  DIR/model.json            the model the data were drawn from (a --config file)
  DIR/.mmds-kind            "results": the folder's kind (a folder of another
                            kind, or a non-empty one without it, is refused)

Re-running the same command resumes: finished trials are loaded, not retrained.
Results are bit-identical for any --workers. results.json records the
SHA-256 of the model, of the configuration and of every finalized point, so
mmds verify refuses a directory edited after training. One process writes a
directory at a time (per shard for --shard): a second gets exit 2. The preset "paper" is the full
protocol (1000 epochs, 15 accepted trials per D, 30 values of D: hours on two
cores); "quick" (4 values of D; Gaussian: 25 epochs, 2 accepted trials; binary: 50
epochs, 5 accepted trials and the departures of docs/learn.md) takes seconds.
--preset is required: neither is a default to start without a word.

--method labels (a finite model needs --config) trains a privatizer that
releases one of --labels labels from a softmax over the codebook, against
exact Bayes observers of the model's law, and finalizes the best of its
restarts per D; results.json records the method and each point's channel
(binary, finite), which mmds verify certifies exactly, or on the gauss
model a table of logits per cell of x whose kernel mmds verify certifies
by quadrature with a stated error (docs/learn.md, "The labels method").
On a finite model (--config) Algorithm 1 releases one of --labels labels
(default |X|) from its network's softmax, F ~ Categorical; mmds verify
certifies the channel that network induces, with a stated error.`,
		Example: `  mmds train gauss --preset quick --out results/quick-gauss
  mmds train binary --preset quick --d 0.1
  mmds train gauss --preset paper --config examples/gauss-coalition.json --sweep 1:5:5 --epochs 200 --accept 5
  mmds train binary --method labels --preset quick
  mmds train gauss --method labels --preset quick
  mmds train finite --method labels --config examples/finite-random-n6-k2.json --preset quick`,
		Args: usageArgs(func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return badInput("train: give the model to train, %s (mmds train %s [flags])", model.KindsWant(false), model.KindsUsage())
			case len(args) > 1:
				return badInput("train: one model, %s; got %d arguments %s", model.KindsWant(false), len(args), safefile.ExcerptList(args))
			}
			if _, err := model.ParseKind(args[0]); err != nil {
				return badInput("train: model %s: want %s", safefile.Excerpt(args[0]), model.KindsWant(false))
			}
			return nil
		}),
		ValidArgs: kindCompletions(),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.bindRun(cmd)
			return runTrain(cmd.Context(), args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "JSON model file, as for mmds gauss or mmds binary (default: the paper's setup)")
	f.StringVar(&o.method, "method", learn.MethodAlg1.String(), "training method: alg1 (the paper's Algorithm 1) or labels (a softmax over a codebook of labels against exact Bayes observers; gauss: per cell of x)")
	f.StringVar(&o.observers, "observers", learn.ObserversLaw.String(), "what --method labels' exact Bayes observers know: law (the model's) or data (the training split's empirical law)")
	o.register(f, trainHelp)
	f.IntVar(&o.samples, "samples", learn.DefaultSamples, "samples drawn from the model; 1/6 of them are the test split")
	f.StringVar(&o.shard, "shard", "", "train only shard i of n of the thresholds (i/n; slurm: from the Slurm array task; k8s/n: from JOB_COMPLETION_INDEX); without it, a directory the shards filled is merged without training")
	o.slurm.register(f)
	o.k8s.register(f)
	cmd.AddCommand(newTrainDataCmd())
	return cmd
}

// kindCompletions are the model kinds with their titles, for shells.
func kindCompletions() []cobra.Completion {
	var c []cobra.Completion
	for _, k := range model.Kinds() {
		c = append(c, cobra.Completion(k.String()+"\t"+model.KindTitle(k)))
	}
	return c
}

// runFlagHelp is the help of the flags mmds train and mmds train data
// share, in each command's words.
type runFlagHelp struct {
	preset, labels, sweep, epochs, accept, tau, maxAttempts, seed, out, quiet string
}

var trainHelp = runFlagHelp{
	preset:      "hyper-parameters and protocol, required: paper (Section V, hours) or quick (seconds)",
	labels:      "codebook size M of --method labels, in [2, 1024] (gauss at small D, on its fine grid: one label per cell of the searched period instead)",
	sweep:       "thresholds D0:D1:N (default: the paper's D0 to D_max, 30 values for paper, 4 for quick)",
	epochs:      "epochs per trial, each one pass over the training split (default: the preset's, 1000; quick 25 Gaussian, 50 binary)",
	accept:      "accepted trials per D (default: the preset's, 15; quick 2 Gaussian, 5 binary)",
	tau:         "selection band [D − τ, D] (default: half the grid step, (D_max − D0)/(2·N); for one D the paper's (D_max − D0)/(2·30))",
	maxAttempts: "cap on trials per D (default: the preset's, 150; quick 4 Gaussian, 20 binary; with --accept, 10·accept)",
	seed:        "master seed of the dataset and of every trial",
	out:         "results directory (default results/train-<model>-<preset>)",
	quiet:       "no progress on standard error (a bar on a terminal, else a line per threshold and every 30 s)",
}

// register adds the flags of a training run that mmds train and mmds
// train data share: the preset, the thresholds and protocol, the workers,
// the seed and the outputs.
func (o *trainOpts) register(f *pflag.FlagSet, h runFlagHelp) {
	f.StringVar(&o.preset, "preset", learn.PresetPaper.String(), h.preset)
	f.Lookup("preset").DefValue = "" // required: requirePreset
	f.IntVar(&o.labels, "labels", learn.DefaultLabels, h.labels)
	f.Float64Var(&o.d, "d", 0, "a single distortion threshold D ≥ 0")
	f.StringVar(&o.sweep, "sweep", "", h.sweep)
	f.IntVar(&o.epochs, "epochs", 0, h.epochs)
	f.IntVar(&o.accept, "accept", 0, h.accept)
	f.Float64Var(&o.tau, "tau", 0, h.tau)
	f.IntVar(&o.maxAttempts, "max-attempts", 0, h.maxAttempts)
	workersFlag(f, &o.workers, "trials trained")
	f.Uint64Var(&o.seed, "seed", 1, h.seed)
	f.StringVar(&o.out, "out", "", h.out)
	f.StringVar(&o.format, "format", "table", "summary format on standard output: table, csv or json")
	f.BoolVar(&o.quiet, "quiet", false, h.quiet)
}

// trainJob is a validated mmds train invocation.
type trainJob struct {
	*learn.Training
	kind   model.Kind
	format report.Format
	advs   int
}

func runTrain(ctx context.Context, name string, o trainOpts) error {
	kind, err := model.ParseKind(name)
	if err != nil {
		return usageError{err}
	}
	job, err := prepareTrain(ctx, kind, o)
	if err != nil {
		return err
	}
	if o.slurm.Dir != "" && o.k8s.Dir != "" {
		return badInput("--slurm and --k8s: give one")
	}
	if err := requirePreset(o.env, "train: "); err != nil {
		return err
	}
	if o.slurm.Dir != "" || o.k8s.Dir != "" {
		return writeClusterJobs(o.env.stdout, o.args, job, o)
	}
	if err := writeRunDir(job, nil); err != nil {
		return err
	}
	res, elapsed, err := sweepJob(ctx, job, o)
	if err != nil {
		return err
	}
	sum := job.summary(res, elapsed)
	if err := emit(o.env.stdout, job.format, sum.Grid(job.format == report.Table), sum.JSON()); err != nil {
		return err
	}
	if w := res.Stalled; w != nil {
		// Exit 0: the shard did all it could; the rest needs another
		// shard first, or the merge (docs/cluster.md).
		fmt.Fprintf(o.env.stderr, "mmds train: shard %v left %s for others: %s. Run shard %v, then this one again, or finish the run without --shard.\n",
			job.Config.Shard, report.Plural(len(w.Left), "threshold"), w, w.Owner)
	}
	return nil
}

// writeRunDir lays out job's results directory: its model file, then what
// more (the data file's copy) does.
func writeRunDir(job *trainJob, more func(rundir.Dir) error) error {
	d := rundir.Dir(job.Config.Dir)
	err := d.WriteModel(job.Model)
	if err == nil && more != nil {
		err = more(d)
	}
	if errors.Is(err, rundir.ErrResume) {
		return usageError{fmt.Errorf("--out %s: %w", job.Config.Dir, err)}
	}
	if err != nil {
		return badInput("--out %s: %v", job.Config.Dir, err)
	}
	return nil
}

// sweepJob runs learn.Sweep on job with the progress bar (--quiet: none)
// and returns its results and how long it took; an error is the run's
// exit (sweepError).
func sweepJob(ctx context.Context, job *trainJob, o trainOpts) (*learn.Results, time.Duration, error) {
	bar := newTrainBar(o.env.stderr, job.Config, o.quiet)
	job.Config.Progress = bar.update
	start := time.Now()
	res, err := learn.Sweep(ctx, job.Data, job.Config)
	endBar(bar.bar, err)
	if err != nil {
		return nil, 0, sweepError(ctx, job.Config.Dir, err)
	}
	return res, time.Since(start), nil
}

// requirePreset refuses to start training without --preset, after every
// other check: the paper's protocol takes hours, too long to start by
// default without a word, and quick is a smoke run, too short to stand for
// the paper; a person chooses.
func requirePreset(e runEnv, prefix string) error {
	if e.given("preset") {
		return nil
	}
	return badInput("%sgive --preset quick (a smoke run: 4 thresholds, seconds) or --preset paper "+
		"(Section V's protocol: 15 accepted trials of 1000 epochs per threshold, hours on two cores)", prefix)
}

// sweepError is the exit of learn.Sweep's error in results directory dir:
// a configuration out of range or a directory that cannot be resumed is
// bad input (exit 2), a lock held by a live process exit 75, and an
// interrupted run says how to resume.
func sweepError(ctx context.Context, dir string, err error) error {
	switch {
	case errors.Is(err, ctx.Err()) && ctx.Err() != nil:
		return keptError{fmt.Sprintf("finished trials are kept in %s; run the same command again to resume", dir), err}
	case errors.Is(err, rundir.ErrLocked):
		return exitError{exitRetry, fmt.Errorf("--out %s: %w (exit %d: retry later)", dir, err, exitRetry)}
	case errors.Is(err, rundir.ErrResume) || errors.Is(err, rundir.ErrLockFile) || errors.Is(err, rundir.ErrLayout) || errors.Is(err, rundir.ErrNoLocking):
		return usageError{fmt.Errorf("--out %s: %w", dir, err)}
	case errors.Is(err, learn.ErrConfig):
		return usageError{err}
	case fileProblem(err) != "":
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	return err
}

// prepareTrain validates the flags, loads the model and has learn.NewTraining
// draw the dataset and fix the thresholds.
func prepareTrain(ctx context.Context, kind model.Kind, o trainOpts) (*trainJob, error) {
	format, err := outputFormat(o.format)
	if err != nil {
		return nil, err
	}
	preset, err := o.choices().PresetName()
	if err != nil {
		return nil, usageError{err}
	}
	cfg, err := o.choices().Config(kind, preset)
	if err != nil {
		return nil, usageError{err}
	}
	if err := checkWorkers(o.workers); err != nil {
		return nil, err
	}
	if err := learn.CheckSamples(o.samples); err != nil {
		return nil, usageError{err}
	}
	if o.out == "" {
		o.out = preset.DefaultDir(kind.String())
	}
	if err := checkPaths(report.In("--config", o.config), report.OutFolder("--out", o.out, report.Results),
		report.OutFolder("--slurm", o.slurm.Dir, report.SlurmJobs), report.OutFolder("--k8s", o.k8s.Dir, report.K8sJobs)); err != nil {
		return nil, err
	}
	req := learn.TrainRequest{Preset: preset, Seed: o.seed, Samples: o.samples}
	if req.Tau, req.D, err = o.grid(); err != nil {
		return nil, err
	}
	m, err := model.LoadOrPaper(ctx, kind, o.config)
	if err != nil {
		return nil, usageError{fmt.Errorf("--config %w", err)}
	}
	t, err := learn.NewTraining(m, cfg, req)
	if errors.Is(err, learn.ErrTrain) {
		return nil, usageError{err}
	}
	if err != nil {
		return nil, err
	}
	job := &trainJob{Training: t, kind: kind, format: format, advs: m.Adversaries()}
	if o.shard != "" {
		if job.Config.Shard, err = cluster.Parse(o.shard, os.Getenv); err != nil {
			return nil, usageError{err}
		}
	}
	if err := o.slurm.validate(o.env.given); err != nil {
		return nil, err
	}
	job.Config.Workers, job.Config.Dir = o.workers, o.out
	return job, nil
}

// choices are the run's flags as learn reads them.
func (o *trainOpts) choices() learn.Choices {
	return learn.Choices{Preset: o.preset, Method: o.method, Observers: o.observers, Labels: o.labels,
		Epochs: o.epochs, Accept: o.accept, MaxAttempts: o.maxAttempts, Tau: o.tau, Given: o.env.given}
}

// grid reads --tau (0: learn's default, half the step of the threshold
// grid, as in Section V) and --d or --sweep (nil: the preset's grid).
func (o *trainOpts) grid() (float64, []float64, error) {
	tau, err := o.choices().Band()
	if err != nil {
		return 0, nil, usageError{err}
	}
	ds, err := thresholdFlags(o.env.given, o.d, o.sweep)
	return tau, ds, err
}

// trainBar reports training on the shared progress report: on a terminal
// a bar over the accepted trials of every threshold; on anything else (a
// batch job's log, nohup, a pipe) a line per finished threshold and one
// at most every 30 s while a threshold runs, so a long run is never
// silent; --quiet silences both.
type trainBar struct {
	bar    *progress.Bar
	accept int
}

func newTrainBar(w io.Writer, cfg learn.Config, quiet bool) *trainBar {
	accept := cfg.Protocol.Accept
	bar := progress.New(w, progress.Options{
		Label: "mmds train", Unit: "accepted trials", Total: len(cfg.D) * accept, Quiet: quiet,
		Terminal: progress.IsTerminal(w),
	})
	bar.Start()
	return &trainBar{bar: bar, accept: accept}
}

// update advances the bar by accepted trials; a threshold that is done
// counts as all Accept of them, whether or not the cap cut it short.
func (b *trainBar) update(p learn.Progress) {
	switch {
	case p.TookOverLock != "":
		b.bar.Logf("mmds train: the lock's last holder (%s) is gone; taking it over", safefile.Printable(p.TookOverLock))
		return
	case p.Waiting != nil:
		b.bar.Logf("mmds train: %s", safefile.Printable(p.Waiting.String()))
		return
	}
	done := p.DIndex*b.accept + min(p.Accepted, b.accept)
	if p.Done {
		done = (p.DIndex + 1) * b.accept
	}
	b.bar.Describe(p.String())
	b.bar.Set(done)
	if p.Done {
		b.bar.Logf("mmds train: %s", p.Finished())
	}
}

// summary is what job's run says of itself at the end.
func (job *trainJob) summary(res *learn.Results, elapsed time.Duration) learn.Summary {
	return learn.Summary{Results: res, Config: job.Config, Adversaries: job.advs, Elapsed: elapsed}
}
