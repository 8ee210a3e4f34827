package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/version"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify"
)

type verifyOpts struct {
	format, out        string
	summary            bool
	reportOnly, quiet  bool
	tol                verify.Tolerances
	certificate, check string
	data               string
	workers            int
	seed               uint64
	maxMemory          string
	memory             int64 // --max-memory, parsed
}

func newVerifyCmd() *cobra.Command {
	var o verifyOpts
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
		RunE: func(cmd *cobra.Command, args []string) error { return runVerify(cmd, args[0], o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "table", "output format: table, csv or json")
	outputFlag(f, &o.out)
	f.BoolVar(&o.summary, "summary", false, "print a short certification summary instead of the tables")
	f.BoolVar(&o.reportOnly, "report-only", false, "exit 0 whatever the verdicts (bad input still exits 2)")
	f.BoolVar(&o.quiet, "quiet", false, quietUsage)
	workersFlag(f, &o.workers, "thresholds certified")
	maxMemoryFlag(f, &o.maxMemory)
	registerTolerances(f, &o.tol)
	f.StringVar(&o.certificate, "certificate", "", "also write the certificate (JSON) to this file")
	f.StringVar(&o.check, "check", "", "re-derive the certificate in this file from DIR and compare (exit 1: it differs; else its verdict's status)")
	f.StringVar(&o.data, "data", "", "a run of mmds train data: its data file (default: the copy in DIR named by model.json); its SHA-256 must be the run's")
	f.Uint64Var(&o.seed, "seed", 0, "a run of mmds train data: the seed of the privatizer's noise r and of mmds's estimators (default: one drawn afresh and printed, never the run's own, whose noise its author knows)")
	return cmd
}

func runVerify(cmd *cobra.Command, dir string, o verifyOpts) error {
	format, want, err := o.parse(cmd, dir)
	if err != nil {
		return err
	}
	defer applyMemoryLimit(o.memory)()
	if verify.IsDataRun(cmd.Context(), dir) {
		if err := refuseCertFlags(cmd, dir); err != nil {
			return err
		}
	}
	run, drun, err := verify.OpenWith(cmd.Context(), dir, verify.OpenOptions{DataFile: o.data, MaxMemory: o.memory})
	if errors.Is(err, verify.ErrMemory) {
		return memoryError(err)
	}
	if err != nil {
		return usageError{err}
	}
	if drun == nil && o.data != "" {
		return badInput("--data %s: %s is a run on a model, not on a user's data (mmds train data): it reads no data file; drop --data", safefile.Path(o.data), dir)
	}
	if drun == nil && cmd.Flags().Changed("seed") {
		return badInput("--seed: %s is a run on a model, certified by exact integrals that draw nothing; drop --seed", dir)
	}
	if drun != nil { // a user's own data: held-out losses, no certificate
		if cmd.Flags().Changed("seed") {
			drun.SetSeed(o.seed)
		}
		return runVerifyData(cmd, drun, o, format)
	}
	// Witnesses for a certificate, and for --check of one that has them
	// (one written before witnesses is re-derived as it was computed).
	rep, err := certifyRun(cmd, run, o, o.certificate != "" || want != nil && want.Witness != nil)
	if err != nil {
		return err
	}
	cert := verify.NewCertificate(rep, run.PointHashes(), version.String())
	cert.NameRunFiles(o.certificate, dir, want)
	if want != nil {
		if err := want.Check(cert); err != nil {
			return exitError{exitFailure, fmt.Errorf("--check %s: the certificate does not match %s: %w", o.check, dir, err)}
		}
		return reproduced(cmd, rep, o.reportOnly, fmt.Sprintf("%s matches %s: %s model, %d thresholds, %d pass",
			o.check, dir, cert.Model, len(cert.Points), cert.Passed))
	}
	if o.certificate != "" {
		if err := report.WriteAtomic(o.certificate, func(w io.Writer) error { return cert.WriteJSON(w) }); err != nil {
			return err
		}
	}
	out, err := renderVerify(format, o.summary, run, rep)
	if err != nil {
		return err
	}
	if err := writeOutput(cmd.OutOrStdout(), o.out, out); err != nil {
		return err
	}
	if o.reportOnly {
		return nil
	}
	return verdictError(dir, rep)
}

// parse checks the flags and paths and reads --check's certificate (nil
// without it), before any work.
func (o *verifyOpts) parse(cmd *cobra.Command, dir string) (report.Format, *verify.Certificate, error) {
	format, err := outputFormat(o.format)
	if err != nil {
		return format, nil, err
	}
	if o.summary && cmd.Flags().Changed("format") {
		return format, nil, badInput("--summary and --format are mutually exclusive")
	}
	if err := o.tol.Validate(); err != nil {
		return format, nil, toleranceFlagError(err)
	}
	if err := checkWorkers(o.workers); err != nil {
		return format, nil, err
	}
	var err2 error
	if o.memory, err2 = parseMaxMemory(o.maxMemory); err2 != nil {
		return format, nil, err2
	}
	o.out = stdoutPath(o.out)
	if err := checkPaths(report.InFolder("DIR", dir, report.Results), report.In("--check", o.check), report.In("--data", o.data),
		report.Out("--certificate", o.certificate), report.Out("--output", o.out)); err != nil {
		return format, nil, err
	}
	if o.check == "" {
		return format, nil, nil
	}
	want, err := readCertificate(cmd.Context(), "--check", o.check)
	return format, want, err
}

// certifyRun certifies every threshold of a loaded results directory
// (verify.Certify), with a progress bar.
func certifyRun(cmd *cobra.Command, run *verify.Run, o verifyOpts, witness bool) (*verify.Report, error) {
	bar, ctx := certifyBar(cmd, o.quiet, run.Model, "thresholds certified", len(run.Results.Config.D))
	// --check re-derives every certificate from the files; otherwise the
	// user's cache supplies the ones already computed and keeps new ones
	// (for mmds plot).
	cache := verify.UserCache(version.String())
	if o.check != "" {
		cache = verify.Cache{}
	}
	rep, err := verify.Certify(ctx, run, verify.Options{Tol: o.tol,
		Model: model.Options{Witness: witness}, Workers: o.workers, Progress: bar.Set, MaxMemory: o.memory, Cache: cache})
	endBar(bar, err)
	if errors.Is(err, verify.ErrInput) {
		return nil, usageError{err}
	}
	return rep, memoryError(err)
}

// renderVerify lays the report out: the summary, JSON, CSV or the tables.
func renderVerify(format report.Format, summary bool, run *verify.Run, rep *verify.Report) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch {
	case summary:
		err = writeSummary(&buf, run, rep)
	case format == report.JSON:
		err = report.WriteJSON(&buf, rep)
	case format == report.CSV:
		err = verifyCSV(run, rep).RenderCSV(&buf)
	default:
		err = writeVerifyTables(&buf, run, rep)
	}
	return buf.Bytes(), err
}

// verdictError is the run's exit: nil when every threshold passes, exit 3
// when the only shortfall is thresholds that cannot be certified soundly,
// else exit 1.
func verdictError(dir string, rep *verify.Report) error {
	switch rep.Outcome() {
	case verify.OutcomePass:
		return nil
	case verify.OutcomeCannotCertify:
		return exitError{exitCannotCertify, fmt.Errorf("certification of %s: %d of %d thresholds cannot be certified soundly (%d pass)",
			dir, rep.CannotCertify, len(rep.Points), rep.Passed)}
	}
	return exitError{exitFailure, fmt.Errorf("certification of %s failed: %d of %d thresholds pass (%d fail, %d not finalized, %d not trained)",
		dir, rep.Passed, len(rep.Points), rep.Failed, rep.NotFinalized, rep.NotTrained)}
}

// reproduced is the exit of a --check whose certificate was re-derived
// identically: the status of the certificate's verdict, so that
// "mmds certify --check c.json && deploy" deploys only what passes (exit 0
// whatever the verdict with reportOnly, for a check of authenticity
// alone). line says what matched; a pass, or any verdict under reportOnly,
// prints it on standard output with the verdict, any other verdict is the
// one line of the error, with the verdict and the status.
func reproduced(cmd *cobra.Command, rep *verify.Report, reportOnly bool, line string) error {
	o := rep.Outcome()
	code, word := exitFailure, "FAIL"
	switch o {
	case verify.OutcomePass:
		return sayf(cmd.OutOrStdout(), "%s: PASS", line)
	case verify.OutcomeCannotCertify:
		code, word = exitCannotCertify, "CANNOT CERTIFY"
	}
	if reportOnly {
		return sayf(cmd.OutOrStdout(), "%s: %s (--report-only: exit 0)", line, word)
	}
	return exitError{code, fmt.Errorf("%s: %s (exit %d: a reproduced certificate exits with its verdict's status)", line, word, code)}
}

// f4 formats a loss for tables: 4 significant digits, "—" for none.
func f4(x float64) string { return report.Float(x, 4) }

func advNames(run *verify.Run) []string {
	out := make([]string, run.Model.Adversaries())
	for i := range out {
		out[i] = fmt.Sprintf("adv %d", i+1)
		if names := run.Model.SideNames(i + 1); names != nil {
			out[i] += fmt.Sprintf(" {%s}", strings.Join(names, ","))
		}
	}
	return out
}

// readCertificate reads the certificate file of flag once (a regular file)
// and decodes it strictly.
func readCertificate(ctx context.Context, flag, path string) (*verify.Certificate, error) {
	b, err := safefile.Read(ctx, path, jsonconf.MaxBytes)
	if err != nil {
		return nil, badInput("%s %v", flag, err)
	}
	c, err := verify.ReadCertificate(bytes.NewReader(b), path)
	if err != nil {
		return nil, badInput("%s %v", flag, err)
	}
	return c, nil
}

func writeVerifyTables(w io.Writer, run *verify.Run, rep *verify.Report) error {
	binary := run.Model.Kind().BinaryRelease() // soft and hard losses, the mechanism (s0, s1)
	names := advNames(run)
	main := &report.Grid{Title: verifyTitle(run, rep), Header: verifyHeader(binary, names)}
	detail := &report.Grid{Header: detailHeader(binary, names)}
	for _, p := range rep.Points {
		main.Rows = append(main.Rows, verifyRow(p, binary, len(main.Header)))
		if p.Finalized && p.Certified != nil && (p.Binary != nil || p.Gauss != nil) {
			// a channel (the labels method) has an exact certificate and no detail
			detail.Rows = append(detail.Rows, detailRow(p, binary))
		}
	}
	main.Notes = verifyNotes(run, rep)
	main.ReasonsBelow(len(main.Header)-1, func(r []string) string { return "D = " + r[0] })
	if err := main.RenderTable(w); err != nil {
		return err
	}
	if len(detail.Rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	if binary {
		detail.Title = "Learned mechanism (s0, s1) = (1 − E_r k(0,r), E_r k(1,r)), the optimum's (s0*, s1*), and the trained estimators' excess 0-1 error over MAP"
	} else {
		detail.Title = "Best linear-Gaussian fit F ≈ aX + bR + c (nonlinearity = residual/Var F; fit losses exact), and the trained estimators' excess MSE over Bayes"
	}
	return detail.RenderTable(w)
}

// verifyHeader is the main table's header; names are the adversaries'.
func verifyHeader(binary bool, names []string) []string {
	learnedHdr := "learned recon"
	if binary {
		learnedHdr = "learned recon (soft/hard)"
	}
	h := []string{"D", learnedHdr, "learned min adv", "certified recon"}
	for _, n := range names {
		h = append(h, "certified "+n)
	}
	return append(h, "certified min adv", "optimum min adv", "gap", "gap at D", "gap tol", "verdict")
}

// verifyRow is p's row of the main table, of width cells; a threshold not
// finalized has only its D and verdict.
func verifyRow(p verify.Point, binary bool, width int) []string {
	d := f4(p.D)
	if !p.Finalized || p.Certified == nil { // not finalized, or cannot certify: no numbers to show
		row := []string{d}
		for len(row) < width-1 {
			row = append(row, "—")
		}
		return append(row, p.Verdict)
	}
	l, c := p.Learned, p.Certified
	lr, la := f4(l.Recon), f4(l.MinAdv)
	if binary && l.ReconHard != nil && len(l.AdvHard) > 0 {
		lr += " / " + f4(*l.ReconHard)
		la += " / " + f4(loss.Min(l.AdvHard))
	}
	row := []string{d, lr, la, f4(c.Recon)}
	for _, a := range c.Adv {
		row = append(row, f4(a))
	}
	return append(row, f4(c.MinAdv), f4(p.Optimum.MinAdv), gapCell(*p.Gap), gapCell(*p.GapAtD), report.Float(*p.AdvTol, 3), p.Verdict)
}

// detailHeader is the detail table's header: the learned mechanism
// (binary) or its linear-Gaussian fit, and the estimators' excess losses.
func detailHeader(binary bool, names []string) []string {
	var h []string
	if binary {
		h = []string{"D", "s0", "s1", "s0*", "s1*", "recon excess (hard)"}
		for _, n := range names {
			h = append(h, n+" excess (hard)")
		}
		return append(h, "quadrature Δs")
	}
	h = []string{"D", "fit a", "fit b", "fit c", "nonlinearity", "fit recon", "fit min adv", "recon excess"}
	for _, n := range names {
		h = append(h, n+" excess")
	}
	return append(h, "stated error")
}

// detailRow is p's row of the detail table.
func detailRow(p verify.Point, binary bool) []string {
	d := f4(p.D)
	var dr []string
	if binary {
		b := p.Binary
		dr = []string{d, report.Fixed(b.S0, 4), report.Fixed(b.S1, 4), report.Fixed(p.Optimum.Binary().S0, 4), report.Fixed(p.Optimum.Binary().S1, 4), report.Float(p.Excess.Recon, 3)}
		for _, e := range p.Excess.Adv {
			dr = append(dr, report.Float(e, 3))
		}
		return append(dr, report.Float(b.Change, 2))
	}
	g := p.Gauss
	dr = []string{d, f4(g.Fit.A), f4(g.Fit.B), f4(g.Fit.C), report.Float(g.Fit.Nonlinearity, 3), f4(g.Fit.Recon), f4(g.Fit.MinAdv), report.Float(p.Excess.Recon, 3)}
	for _, e := range p.Excess.Adv {
		dr = append(dr, report.Float(e, 3))
	}
	return append(dr, report.Float(g.Change, 2))
}

func verifyTitle(run *verify.Run, rep *verify.Report) string {
	return fmt.Sprintf("Certificate of %s: %s model, %d thresholds, %d epochs; verifier's τ = %.4g, n = %d test rows",
		rep.Dir, rep.Model, len(rep.Points), rep.Epochs, rep.Tolerances.Tau, rep.Tolerances.TestSize)
}

func verifyNotes(run *verify.Run, rep *verify.Report) []string {
	t, d := rep.Tolerances, run.Model.Describe()
	n := []string{
		fmt.Sprintf("%d pass, %d fail, %d cannot certify, %d not finalized, %d not trained: %s", rep.Passed, rep.Failed, rep.CannotCertify, rep.NotFinalized, rep.NotTrained, passWord(rep.Pass)),
		fmt.Sprintf("tolerances: certified distortion in [max(0, D − %g·τ − %g·SE(D) − a), D + %g·SE(D) + a]; gap ≤ %g·SE(optimum) + a; stated error ≤ %g; a = %g × loss scale",
			t.BandTau, t.DistSE, t.DistSE, t.AdvSE, t.Quad, t.Abs),
		"gap: at the certified distortion D̂ (the verdict); gap at D: at the threshold asked for",
		referenceLine(d, t.Reference),
	}
	n = append(n, findings(rep)...)
	se := d.StdErr
	if run.Model.Kind().BinaryRelease() {
		se += "; learned losses are the soft ones Section V-B trains with, then the hard 0-1 errors"
	}
	return append(n, se, "optimum: "+d.Optimum)
}

func passWord(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// referenceLine says which optimum the verdicts use and what the "best" or
// "global" gap is.
func referenceLine(d model.Description, ref verify.Reference) string {
	if ref == verify.ReferenceBest {
		return d.BestVerdicts
	}
	return d.PaperVerdicts
}

// findings are the loud lines for learned privatizers that beat every
// mechanism mmds knows.
func findings(rep *verify.Report) []string {
	var out []string
	for _, p := range rep.Points {
		if p.BeatsBest && p.BestKnown != nil {
			b := p.BestKnown
			out = append(out, fmt.Sprintf("FINDING: at D = %s the learned privatizer passes and beats every mechanism mmds knows: certified distortion %s, min adversarial loss %s; the best known at D = %s has %s (%s), by more than the margin %s of both numbers' errors (please report it, with this results directory)",
				f4(p.D), report.Float(p.Certified.Recon, -1), report.Float(p.Certified.MinAdv, -1), f4(b.D), report.Float(b.MinAdv, -1), b.Source, report.Float(b.Margin, 2)))
		}
	}
	return out
}

// writeSummary prints a few lines per model: the counts, then
// summaryPoints.
func writeSummary(w io.Writer, run *verify.Run, rep *verify.Report) error {
	_ = sayWrapped(w, "%s: %s model, %d epochs: %d of %d thresholds pass, %d fail, %d cannot certify, %d not finalized, %d not trained: %s",
		rep.Dir, rep.Model, rep.Epochs, rep.Passed, len(rep.Points), rep.Failed, rep.CannotCertify, rep.NotFinalized, rep.NotTrained, passWord(rep.Pass))
	return summaryPoints(w, run.Model.Describe(), rep, nil)
}

// summaryPoints prints the body of the --summary of mmds verify and mmds
// certify, the same columns for the same model: the reference of the
// verdicts, the findings, and one line per point (after names[i], when
// given, the privatizer's file on a line of its own), with the gap to the
// wider optimum ("global", "best") where the model has one; a line longer
// than report.MaxWidth wraps.
func summaryPoints(w io.Writer, d model.Description, rep *verify.Report, names []string) error {
	_ = sayf(w, "  %s", referenceLine(d, rep.Tolerances.Reference))
	for _, l := range findings(rep) {
		_ = sayWrapped(w, "  %s", l)
	}
	for i, p := range rep.Points {
		head := fmt.Sprintf("  D = %-8s ", f4(p.D))
		if names != nil { // on a line of its own: a path may be long
			_ = sayf(w, "  %s:", names[i])
		}
		if !p.Finalized || p.Certified == nil {
			_ = sayWrapped(w, "%s%s", head, p.Verdict)
			continue
		}
		alt := ""
		switch {
		case p.GapBest != nil:
			alt = fmt.Sprintf(" %s %-9s", d.Wider, gapCell(*p.GapBest))
		case p.GapGlobal != nil:
			alt = fmt.Sprintf(" %s %-9s", d.Wider, gapCell(*p.GapGlobal))
		}
		nums := fmt.Sprintf("%scertified distortion %-8s min adv %-8s optimum %-8s gap %-9s gap at D %-9s%s",
			head, f4(p.Certified.Recon), f4(p.Certified.MinAdv), f4(p.Optimum.MinAdv), gapCell(*p.Gap), gapCell(*p.GapAtD), alt)
		var err error
		if line := nums + " " + p.Verdict; twwidth.Width(line) <= report.MaxWidth {
			err = sayf(w, "%s", line)
		} else { // the verdict whole on the next line
			_ = sayf(w, "%s", strings.TrimRight(nums, " "))
			err = sayWrapped(w, "    %s", p.Verdict)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// verifyCSV is one row per threshold with every number at full precision.
func verifyCSV(run *verify.Run, rep *verify.Report) *report.Grid {
	binary := run.Model.Kind().BinaryRelease()
	k := len(advNames(run))
	g := &report.Grid{Header: verifyCSVHeader(binary, k)}
	for _, p := range rep.Points {
		if !p.Finalized || p.Certified == nil { // not finalized, or cannot certify
			row := make([]string, len(g.Header))
			row[0], row[1] = report.Float(p.D, -1), fmt.Sprint(p.Finalized)
			row[indexOf(g.Header, "pass")] = "false"
			row[indexOf(g.Header, "verdict")] = p.Verdict
			g.Rows = append(g.Rows, row)
			continue
		}
		g.Rows = append(g.Rows, verifyCSVRow(p, binary, k))
	}
	return g
}

// verifyCSVHeader is the CSV schema of docs/verify.md for k adversaries.
func verifyCSVHeader(binary bool, k int) []string {
	idx := func(base string) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = fmt.Sprintf("%s_%d", base, i+1)
		}
		return out
	}
	h := []string{"D", "finalized", "learned_recon"}
	h = append(h, idx("learned_adv")...)
	h = append(h, "learned_min_adv")
	if binary {
		h = append(h, "learned_recon_hard")
		h = append(h, idx("learned_adv_hard")...)
	}
	h = append(h, "certified_recon")
	h = append(h, idx("certified_adv")...)
	h = append(h, "certified_min_adv", "optimum_D")
	h = append(h, idx("optimum_adv")...)
	h = append(h, "optimum_min_adv", "optimum_at_D_min_adv", "gap", "gap_at_D", "band_lo", "band_hi", "adv_tol", "pass", "verdict", "excess_recon")
	h = append(h, idx("excess_adv")...)
	if binary {
		return append(h, "s0", "s1", "optimum_s0", "optimum_s1", "quad_change")
	}
	return append(h, "fit_a", "fit_b", "fit_c", "nonlinearity", "fit_recon", "fit_min_adv", "quad_change")
}

// verifyCSVRow is the row of a finalized threshold, every number in full.
func verifyCSVRow(p verify.Point, binary bool, k int) []string {
	full := func(x float64) string { return report.Float(x, -1) }
	fulls := func(row []string, xs []float64) []string {
		for _, x := range xs {
			row = append(row, full(x))
		}
		return row
	}
	l, c, o := p.Learned, p.Certified, p.Optimum
	row := []string{full(p.D), "true", full(l.Recon)}
	row = append(fulls(row, l.Adv), full(l.MinAdv))
	if binary {
		if l.ReconHard != nil && len(l.AdvHard) == k {
			row = fulls(append(row, full(*l.ReconHard)), l.AdvHard)
		} else {
			row = append(row, make([]string, 1+k)...)
		}
	}
	row = fulls(append(row, full(c.Recon)), c.Adv)
	row = fulls(append(row, full(c.MinAdv), full(o.D)), o.Adv)
	row = append(row, full(o.MinAdv), full(p.OptimumAtD.MinAdv), full(*p.Gap), full(*p.GapAtD), full(p.DistortionBand[0]), full(p.DistortionBand[1]),
		full(*p.AdvTol), fmt.Sprint(p.Pass), p.Verdict, full(p.Excess.Recon))
	row = fulls(row, p.Excess.Adv)
	switch {
	case binary && p.Binary != nil:
		return append(row, full(p.Binary.S0), full(p.Binary.S1), full(o.Binary().S0), full(o.Binary().S1), full(p.Binary.Change))
	case binary:
		return append(row, make([]string, 5)...) // a channel (the labels method): exact, no mechanism fit
	case p.Gauss == nil:
		return append(row, make([]string, 7)...) // a channel or cell kernel: no linear fit
	}
	f := p.Gauss.Fit
	return append(row, full(f.A), full(f.B), full(f.C), full(f.Nonlinearity), full(f.Recon), full(f.MinAdv), full(p.Gauss.Change))
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// gapCell rounds a gap for reading: below 1e-12 in size it is rounding in
// the loss sums, shown as 0 (CSV and JSON keep the exact value).
func gapCell(g float64) string {
	if math.Abs(g) < 1e-12 {
		g = 0
	}
	return report.Float(g, 3)
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
