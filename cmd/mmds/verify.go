package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/verify"
)

type verifyOptions struct {
	certFlags
	req        verify.DirRequest
	seed       uint64
	reportOnly bool
	workers    int
}

// certFlags are the flags mmds verify and mmds certify share: the output,
// the progress, the memory budget and the verifier's tolerances.
type certFlags struct {
	format, out, maxMemory string
	summary, quiet         bool
	tol                    verify.Tolerances
}

// register adds the flags; tables names what --summary replaces.
func (c *certFlags) register(f *pflag.FlagSet, tables string) {
	f.StringVar(&c.format, "format", "table", "output format: table, csv or json")
	outputFlag(f, &c.out)
	f.BoolVar(&c.summary, "summary", false, "print a short certification summary instead of the "+tables)
	f.BoolVar(&c.quiet, "quiet", false, quietUsage)
	maxMemoryFlag(f, &c.maxMemory)
	registerTolerances(f, &c.tol)
}

// check checks --format, the tolerances and workers before any work.
func (c *certFlags) check(workers int) (report.Format, error) {
	format, err := outputFormat(c.format)
	if err != nil {
		return format, err
	}
	if err := c.tol.Validate(); err != nil {
		return format, toleranceFlagError(err)
	}
	return format, checkWorkers(workers)
}

func newVerifyCmd() *cobra.Command {
	var o verifyOptions
	cmd := &cobra.Command{
		Use:   "verify DIR",
		Short: "Certify a trained results directory against the exact optima",
		Long: `verify reads a results directory of mmds train (results.json, model.json) and,
for every threshold D, holds the learned privatizer against the exact optimum:

  learned    the trained estimators' test-split losses (results.json)
  certified  the exact Bayes losses of the learned privatizer itself: MAP
             errors of its (s0, s1) for the binary model (Proposition 2's
             losses), MMSEs by numerical integration for the Gaussian one
  optimum    Proposition 2 / Proposition 1 at the certified distortion
  gap        optimum − certified minimum adversarial loss (> 0: leaks more)

A point passes when its certified distortion lies in [max(0, D − band·τ −
k·SE − abs), D + k·SE + abs] and its gap is at most adv-se standard errors of a
test-split loss at the optimum plus abs (see docs/verify.md). Every tolerance
is the verifier's (the flags below): nothing is read from the directory but
the model, the thresholds and the networks, and those are checked against the
hashes training recorded — an edited or swapped file is exit 2. Every
threshold of the run counts: one not trained or not finalized fails the run.

--certificate FILE writes the certificate (hashes, version, tolerances, per
threshold D, D̂, certified losses and their error, both gaps, verdict);
--check FILE re-derives it from DIR and compares: a mismatch exits 1, an
identical certificate exits with the status of its verdict.

A run of mmds train data has no optimum and gets no certificate: verify
gives it an empirical verdict (docs/data.md). The held-out losses are those
of estimators mmds fits itself on the training split (linear, k-nearest
neighbours, an MLP; for a channel on discrete data the plug-in Bayes rule),
never the run's own networks: "leak found" (exit 1) when one of mmds's
adversaries beats the run's stated loss by more than 2 SE, "over D" (exit 1)
when mmds's reconstructor misses D + 2 SE, else "no leak found by mmds's
estimators" (exit 0), which does not exclude a leak they cannot learn. It
reads the data file from DIR (the copy mmds train data --copy placed there)
or from --data FILE, never from a path model.json names, and refuses it
unless its SHA-256 is the one the run recorded.

Exit status: 0 every point passes (--check: the certificate matches and
passes; a data run: no leak found at every threshold), 1 a point fails, was
not finalized or not trained (0 with --report-only, with --check too), or
--check differs; 2 bad input; 3 a point cannot be certified soundly and none
fails.`,
		Example: `  mmds verify results/quick-gauss
  mmds verify results/quick-binary --format json
  mmds verify results/quick-gauss --summary --report-only
  mmds verify results/quick-gauss --certificate cert.json
  mmds verify --check cert.json results/quick-gauss
  mmds verify results/data-discrete --data examples/data/discrete.csv`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.req.Dir = args[0]
			return runVerify(cmd.Context(), envOf(cmd), o)
		},
	}
	f := cmd.Flags()
	o.register(f, "tables")
	f.BoolVar(&o.reportOnly, "report-only", false, "exit 0 whatever the verdicts (bad input still exits 2)")
	workersFlag(f, &o.workers, "thresholds certified")
	f.StringVar(&o.req.Certificate, "certificate", "", "also write the certificate (JSON) to this file")
	f.StringVar(&o.req.Check, "check", "", "re-derive the certificate in this file from DIR and compare (exit 1: it differs; else its verdict's status)")
	f.StringVar(&o.req.DataFile, "data", "", "a run of mmds train data: its data file (default: the copy in DIR named by model.json); its SHA-256 must be the run's")
	f.Uint64Var(&o.seed, "seed", 0, "a run of mmds train data: the seed of the privatizer's noise r and of mmds's estimators (default: one drawn afresh and printed, never the run's own, whose noise its author knows)")
	return cmd
}

// runVerify reads the results directory at the door (verify.OpenDir),
// certifies it (verify.Dir.Certify; a run on a user's data gets the
// empirical verdict of verify.CertifyData) and writes the report and the
// certificate asked for; with --check it says whether the certificate
// matches.
func runVerify(ctx context.Context, e runEnv, o verifyOptions) error {
	format, err := o.parse()
	if err != nil {
		return err
	}
	defer applyMemoryLimit(o.req.MaxMemory)()
	if e.given("seed") {
		o.req.Seed = &o.seed
	}
	for _, name := range []string{"certificate", "check", "summary"} {
		if e.given(name) {
			o.req.CertFlags = append(o.req.CertFlags, name)
		}
	}
	dir, err := verify.OpenDir(ctx, o.req)
	if err != nil {
		return verifyError(err)
	}
	if dir.Data != nil {
		return runVerifyData(ctx, e, dir.Data, o, format)
	}
	bar, wctx := certifyBar(ctx, e, o.quiet, dir.Run.Model.Kind(), "thresholds certified", len(dir.Run.Results.Config.D))
	rep, cert, err := dir.Certify(wctx, verify.Options{Tol: o.tol, Workers: o.workers, Progress: bar.Set, MaxMemory: o.req.MaxMemory})
	endBar(bar, err)
	if err != nil {
		return verifyError(err)
	}
	if dir.Want != nil {
		return reproduced(e.stdout, rep, o.reportOnly, fmt.Sprintf("%s matches %s: %s model, %d thresholds, %d pass",
			o.req.Check, o.req.Dir, cert.Model, len(cert.Points), cert.Passed))
	}
	if o.req.Certificate != "" {
		if err := report.WriteAtomic(o.req.Certificate, cert.WriteJSON); err != nil {
			return err
		}
	}
	if err := writeOutput(e.stdout, o.req.Output, func(w io.Writer) error { return dir.Run.Render(w, rep, format, o.summary) }); err != nil {
		return err
	}
	if o.reportOnly {
		return nil
	}
	return verdictExit(rep.Verdict(o.req.Dir))
}

// runVerifyData gives a run on a user's data its empirical verdict
// (verify.CertifyData): exit 1 when a threshold is not "no leak found".
func runVerifyData(ctx context.Context, e runEnv, run *verify.DataRun, o verifyOptions, format report.Format) error {
	bar := newBar(e.stderr, e.name, o.quiet, "thresholds", len(run.Results.Config.D), 0)
	rep, err := verify.CertifyData(ctx, run, verify.Options{Workers: o.workers, Progress: bar.Set, MaxMemory: o.req.MaxMemory})
	endBar(bar, err)
	if err != nil {
		return verifyError(err)
	}
	if err := writeOutput(e.stdout, o.req.Output, func(w io.Writer) error { return run.Render(w, rep, format) }); err != nil {
		return err
	}
	if !rep.Pass && !o.reportOnly {
		return exitError{exitFailure, fmt.Errorf("%s: empirical verdict: %d of %d thresholds with no leak found by mmds's estimators (%d leak found, %d over D, %d not finalized, %d not trained); not a certificate",
			run.Dir, rep.NoLeakFound, len(rep.Points), rep.LeakFound, rep.Over, rep.NotFinalized, rep.NotTrained)}
	}
	return nil
}

// parse checks the flags before any work (flagRules has refused --summary
// with --format).
func (o *verifyOptions) parse() (report.Format, error) {
	format, err := o.check(o.workers)
	if err != nil {
		return format, err
	}
	o.req.MaxMemory, err = parseMaxMemory(o.maxMemory)
	o.req.Output = stdoutPath(o.out)
	return format, err
}

// verifyError gives an error of package verify its exit status: 2 for bad
// input (over --max-memory: naming what the run needs), 1 for a
// certificate its files do not reproduce.
func verifyError(err error) error {
	switch {
	case errors.Is(err, verify.ErrMemory):
		return memoryError(err)
	case errors.Is(err, verify.ErrMismatch):
		return exitError{exitFailure, err}
	case errors.Is(err, verify.ErrInput):
		return usageError{err}
	}
	return err
}

// verdictExit gives a verdict other than pass its exit status: 3 when it
// cannot certify, else 1.
func verdictExit(err error) error {
	var ve *verify.VerdictError
	if !errors.As(err, &ve) {
		return err
	}
	if ve.Outcome == verify.OutcomeCannotCertify {
		return exitError{exitCannotCertify, err}
	}
	return exitError{exitFailure, err}
}

// reproduced is the exit of a --check whose certificate was re-derived
// identically: the status of the certificate's verdict, so that
// "mmds certify --check c.json && deploy" deploys only what passes (exit 0
// whatever the verdict with reportOnly, for a check of authenticity
// alone). line says what matched; a pass, or any verdict under reportOnly,
// prints it on standard output with the verdict, any other verdict is the
// one line of the error, with the verdict and the status.
func reproduced(stdout io.Writer, rep *verify.Report, reportOnly bool, line string) error {
	code, word := exitFailure, "FAIL"
	switch rep.Outcome() {
	case verify.OutcomePass:
		return report.Sayf(stdout, "%s: PASS", line)
	case verify.OutcomeCannotCertify:
		code, word = exitCannotCertify, "CANNOT CERTIFY"
	}
	if reportOnly {
		return report.Sayf(stdout, "%s: %s (--report-only: exit 0)", line, word)
	}
	return exitError{code, fmt.Errorf("%s: %s (exit %d: a reproduced certificate exits with its verdict's status)", line, word, code)}
}

// registerTolerances adds the verifier's tolerance flags (verify.Tolerances).
func registerTolerances(f *pflag.FlagSet, t *verify.Tolerances) {
	d := verify.DefaultTolerances()
	f.Float64Var(&t.BandTau, "tol-band", d.BandTau, "width of the distortion band below D, in units of the selection band τ")
	f.Float64Var(&t.DistSE, "tol-dist-se", d.DistSE, "distortion slack on both sides, in standard errors of a test-split loss at D")
	f.Float64Var(&t.AdvSE, "tol-adv-se", d.AdvSE, "largest gap, in standard errors of a test-split loss at the optimum")
	f.Float64Var(&t.Quad, "tol-quad", d.Quad, "largest error estimate of a certified loss (refinement change or proven bound)")
	f.Float64Var(&t.Abs, "tol-abs", d.Abs, "absolute floor of every tolerance, in units of the model's loss scale (Var X, or 1 for 0-1 losses)")
	f.Float64Var(&t.Tau, "tau", 0, "selection band τ of the distortion band (default: half the step of the threshold grid, as Section V)")
	f.IntVar(&t.TestSize, "test-size", d.TestSize, "test rows n behind the standard errors SE (the paper's test split)")
	t.Reference = d.Reference
	f.Var(referenceFlag{&t.Reference}, "reference", "the optimum verdicts use: paper (Proposition 1 or 2) or best (the best known Gaussian mechanism; the optimum over all privatizers for binary)")
}

// referenceFlag is --reference, parsed into a verify.Reference.
type referenceFlag struct{ r *verify.Reference }

func (f referenceFlag) String() string     { return f.r.String() }
func (f referenceFlag) Set(s string) error { return f.r.UnmarshalText([]byte(s)) }
func (referenceFlag) Type() string         { return "string" } // the help reads as for a string flag
func (referenceFlag) hint() string         { return `must be "paper" or "best"` }
