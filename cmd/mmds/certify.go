package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/version"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/plot"
	"github.com/mmds-project/mmds/privatizer"
	"github.com/mmds-project/mmds/verify"
)

type certifyOpts struct {
	model, priv, points, format, out, certificate, plot string
	check                                               string
	d, expectTol                                        float64
	summary                                             bool
	tol                                                 verify.Tolerances
	quiet                                               bool
	workers                                             int
	maxMemory                                           string
	memory                                              int64 // --max-memory, parsed
}

func newCertifyCmd() *cobra.Command {
	var o certifyOpts
	cmd := &cobra.Command{
		Use:   "certify --model FILE (--privatizer FILE --d D | --points FILE)",
		Short: "Certify a privatizer trained anywhere (channel, MLP JSON, ONNX) against the optimum",
		Long: `certify computes the exact Bayes losses of a privatizer trained elsewhere — a
channel P(F | X) (JSON or CSV), an MLP k(x, r) in the JSON layout, or the same
network exported from PyTorch as ONNX — on a model file (the gauss, binary or
finite --config format, detected), and holds them against the optimum at the
certified distortion D̂ and at D, with the verdict and tolerances of mmds verify
(docs/certify.md, docs/verify.md).

--points FILE certifies a whole curve: a JSON list [{"D": 0.1, "privatizer":
"p1.onnx"}, …] or CSV rows "D,file" (paths relative to FILE's folder).

--certificate FILE writes the certificate (the files read, named from the
certificate's folder, and their hashes, tolerances, per point D, D̂, certified
losses, both gaps, verdict); --check FILE re-derives it from the files it
names, taken from its folder (a name that is absolute or leaves the folder is
refused: pass such files with --model and --privatizer or --points): a
mismatch exits 1, an identical certificate exits with the status of its
verdict.

Exit status: 0 every point passes (--check: the certificate matches and
passes), 1 one fails (or --check differs), 3 one cannot be certified soundly
and none fails, 2 bad input (a file that cannot be read, a network whose
sizes do not fit the model, an unsupported ONNX operator, NaN weights, a
channel with the wrong number of rows, a malformed certificate).`,
		Example: `  mmds certify --model examples/binary-paper.json --privatizer priv.onnx --d 0.1
  mmds certify --model model.json --privatizer channel.csv --d 0.15 --format json
  mmds certify --model model.json --points curve.json --plot curve.png --certificate cert.json
  mmds certify --check cert.json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runCertify(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model file: the gauss, binary or finite --config JSON (required)")
	f.StringVar(&o.priv, "privatizer", "", "privatizer file: .onnx, .csv (channel), or JSON (channel or MLP layout)")
	f.Float64Var(&o.d, "d", 0, "the distortion threshold D ≥ 0 the privatizer was trained for")
	f.StringVar(&o.points, "points", "", "a JSON or CSV list of (D, privatizer file) pairs, instead of --privatizer and --d")
	f.StringVar(&o.format, "format", "table", "output format: table, csv or json")
	f.BoolVar(&o.quiet, "quiet", false, quietUsage)
	workersFlag(f, &o.workers, "privatizers certified")
	maxMemoryFlag(f, &o.maxMemory)
	outputFlag(f, &o.out)
	f.BoolVar(&o.summary, "summary", false, "print a short certification summary instead of the table")
	f.StringVar(&o.certificate, "certificate", "", "also write the certificate (JSON) to this file")
	f.StringVar(&o.check, "check", "", "re-derive the certificate in this file from the files it names and compare (exit 1: it differs; else its verdict's status)")
	f.StringVar(&o.plot, "plot", "", "draw the privatizers' points on the optimal curves into this .png or .svg file (gauss and binary models)")
	f.Float64Var(&o.expectTol, "tol-expect", privatizer.DefaultTol, "error bound of the network expectations E_R[k(x, R)] (binary and finite models)")
	registerTolerances(f, &o.tol)
	return cmd
}

// certifyPoint is one row of mmds certify's JSON output.
type certifyPoint struct {
	verify.Point
	Privatizer string `json:"privatizer"`
	SHA256     string `json:"privatizer_sha256"`
}

type certifyJSON struct {
	Model         model.Kind        `json:"model"`
	ModelSHA256   string            `json:"model_sha256"`
	Tolerances    verify.Tolerances `json:"tolerances"`
	Points        []certifyPoint    `json:"points"`
	Passed        int               `json:"passed"`
	Failed        int               `json:"failed"`
	CannotCertify int               `json:"cannot_certify"`
	Pass          bool              `json:"pass"`
}

func runCertify(cmd *cobra.Command, o certifyOpts) error {
	format, err := o.parseFlags()
	if err != nil {
		return err
	}
	if o.memory, err = parseMaxMemory(o.maxMemory); err != nil {
		return err
	}
	defer applyMemoryLimit(o.memory)()
	if o.check != "" {
		return runCertifyCheck(cmd, o)
	}
	o.out = stdoutPath(o.out)
	m, inputs, err := o.readInputs(cmd)
	if err != nil {
		return err
	}
	rep, cert, err := certifyAll(cmd, o, m, inputs)
	if err != nil {
		return err
	}
	out, err := renderCertify(format, o.summary, m, rep, inputs)
	if err != nil {
		return err
	}
	if err := writeOutput(cmd.OutOrStdout(), o.out, out); err != nil {
		return err
	}
	if o.certificate != "" {
		// Named from the certificate's folder: --check takes them from there.
		cert.ModelFile = verify.CertFile(o.certificate, o.model)
		for i := range cert.Points {
			cert.Points[i].Privatizer = verify.CertFile(o.certificate, inputs[i].Path)
		}
		if err := report.WriteAtomic(o.certificate, func(w io.Writer) error { return cert.WriteJSON(w) }); err != nil {
			return err
		}
	}
	if o.plot != "" {
		if err := plotCertify(cmd.Context(), o.plot, m, rep); err != nil {
			return err
		}
	}
	return certifyVerdict(rep)
}

// parseFlags checks the flags every certify run shares.
func (o certifyOpts) parseFlags() (report.Format, error) {
	format, err := outputFormat(o.format)
	if err != nil {
		return format, err
	}
	if err := o.tol.Validate(); err != nil {
		return format, toleranceFlagError(err)
	}
	if err := checkWorkers(o.workers); err != nil {
		return format, err
	}
	if !(o.expectTol > 0 && o.expectTol <= 1e-2) {
		return format, badInput("--tol-expect %v: must be in (0, 0.01]", o.expectTol)
	}
	return format, nil
}

// readInputs reads the model and every privatizer and checks every path
// and privatizer against the model, before any work.
func (o certifyOpts) readInputs(cmd *cobra.Command) (model.Model, []verify.Input, error) {
	if err := checkPlotPath(o.plot); err != nil {
		return nil, nil, err
	}
	if o.model == "" {
		return nil, nil, badInput("--model: required (the gauss, binary or finite --config JSON the privatizer was trained on)")
	}
	m, err := model.Load(cmd.Context(), o.model)
	if err != nil {
		return nil, nil, badInput("--model %v", err)
	}
	if o.plot != "" && !plot.PaperFigure(m.Kind()) {
		return nil, nil, badInput("--plot %s: figures are drawn for the gauss and binary models only", o.plot)
	}
	inputs, err := certifyInputs(cmd, o)
	if err != nil {
		return nil, nil, err
	}
	if err := verify.CheckMemory(inputs, o.workers, o.memory); err != nil {
		return nil, nil, memoryError(err)
	}
	return m, inputs, checkCertifyPaths(o, cmd.Flags().Changed("tol-expect"), m, inputs)
}

// certifyVerdict is the run's exit: nil when every point passes, exit 3
// when the only shortfall is points that cannot be certified soundly, else
// exit 1.
func certifyVerdict(rep *verify.Report) error {
	switch rep.Outcome() {
	case verify.OutcomePass:
		return nil
	case verify.OutcomeCannotCertify:
		return exitError{exitCannotCertify, fmt.Errorf("cannot certify: %d of %d points cannot be certified soundly (%d pass)", rep.CannotCertify, len(rep.Points), rep.Passed)}
	}
	return exitError{exitFailure, fmt.Errorf("certification failed: %d of %d points pass", rep.Passed, len(rep.Points))}
}

// plotCertify draws the certified points on the model's optimal curves.
func plotCertify(ctx context.Context, path string, m model.Model, rep *verify.Report) error {
	spec, _, err := plot.Figure(ctx, m, rep, model.Options{})
	if err != nil {
		return err
	}
	return writePlot(path, spec)
}

// checkCertifyPaths checks every input and output path (report.CheckPaths)
// and every privatizer and threshold against the model, before any work.
func checkCertifyPaths(o certifyOpts, tolExpectSet bool, m model.Model, inputs []verify.Input) error {
	paths := []report.Path{report.In("--model", o.model), report.In("--privatizer", o.priv), report.In("--points", o.points)}
	if o.points != "" {
		for i, in := range inputs {
			paths = append(paths, report.In(fmt.Sprintf("--points entry %d", i+1), in.Path))
		}
	}
	paths = append(paths, report.Out("--output", o.out), report.Out("--certificate", o.certificate), report.Out("--plot", o.plot))
	if err := checkPaths(paths...); err != nil {
		return err
	}
	if tolExpectSet && !m.Kind().FiniteX() {
		return badInput("--tol-expect does not apply to a Gaussian model: it bounds the network expectations E_R[k(x, R)] of binary and finite models; drop it")
	}
	for i, in := range inputs {
		if err := fitsModel(m, in); err != nil {
			return err
		}
		if d := in.D; d > m.DMax()*(1+1e-12) {
			what := "--d"
			if o.points != "" {
				what = fmt.Sprintf("--points entry %d: D =", i+1)
			}
			// As mmds train says it: the constraint is slack above D_max.
			return badInput("%s %v exceeds the model's D_max = %.6g: thresholds must be in [0, D_max] (above it the distortion constraint is slack)", what, d, m.DMax())
		}
	}
	return nil
}

// renderCertify lays the report out in format, one row per input.
func renderCertify(format report.Format, summary bool, m model.Model, rep *verify.Report, inputs []verify.Input) ([]byte, error) {
	doc := certifyJSON{Model: rep.Model, ModelSHA256: rep.ModelSHA256, Tolerances: rep.Tolerances,
		Passed: rep.Passed, Failed: rep.Failed, CannotCertify: rep.CannotCertify, Pass: rep.Pass}
	for i, p := range rep.Points {
		doc.Points = append(doc.Points, certifyPoint{Point: p, Privatizer: inputs[i].Path, SHA256: inputs[i].SHA256})
	}
	var buf bytes.Buffer
	var err error
	switch {
	case summary:
		err = writeCertifySummary(&buf, m, rep, doc)
	case format == report.JSON:
		err = report.WriteJSON(&buf, doc)
	case format == report.CSV:
		err = certifyGrid(m, doc, false).RenderCSV(&buf)
	default:
		err = certifyGrid(m, doc, true).RenderTable(&buf)
	}
	return buf.Bytes(), err
}

// certifyAll certifies the inputs on m and condenses the report into the
// certificate, which names the files read (for --check).
func certifyAll(cmd *cobra.Command, o certifyOpts, m model.Model, inputs []verify.Input) (*verify.Report, *verify.Certificate, error) {
	bar, ctx := certifyBar(cmd, o.quiet, m, "privatizers certified", len(inputs))
	rep, err := verify.CertifyExternal(ctx, m, inputs, verify.Options{Tol: o.tol,
		Model: model.Options{ExpectTol: o.expectTol, Witness: o.certificate != "" || o.check != ""}, Workers: o.workers, Progress: bar.Set})
	endBar(bar, err)
	if err != nil {
		if errors.Is(err, privatizer.ErrInput) {
			return nil, nil, usageError{err}
		}
		return nil, nil, err
	}
	hashes := map[int]string{}
	for i := range rep.Points {
		hashes[i] = inputs[i].SHA256
	}
	cert := verify.NewCertificate(rep, hashes, version.String())
	cert.ModelFile = o.model
	for i := range cert.Points {
		cert.Points[i].Privatizer = inputs[i].Path
	}
	return rep, cert, nil
}

// runCertifyCheck re-derives the certificate in --check from the files it
// names (taken from the certificate's folder, verify.ResolveCertFile) or the
// user passes (--model, --privatizer, --points): each read once, its SHA-256
// compared with the certificate's before any work, then certified again
// under this invocation's tolerances and compared field by field
// (verify.Certificate.Check).
func runCertifyCheck(cmd *cobra.Command, o certifyOpts) error {
	for _, f := range []string{"d", "certificate", "plot", "output", "out", "format", "summary"} {
		if cmd.Flags().Changed(f) {
			return badInput("--check and --%s are mutually exclusive: --check reads the files the certificate names", f)
		}
	}
	if err := checkWorkers(o.workers); err != nil {
		return err
	}
	want, err := readCertificate(cmd.Context(), "--check", o.check)
	if err != nil {
		return err
	}
	if want.ModelFile == "" || want.ResultsFile != "" || len(want.Points) == 0 {
		return badInput("--check %s: the certificate names no model file or no privatizer (a certificate of mmds verify? check it with mmds verify --check)", o.check)
	}
	es, err := checkEntries(cmd, o, want)
	if err != nil {
		return err
	}
	m, err := checkModel(cmd.Context(), o, want)
	if err != nil {
		return err
	}
	inputs, err := verify.ReadInputs(cmd.Context(), es, o.memory)
	if err == nil {
		err = verify.CheckMemory(inputs, o.workers, o.memory)
	}
	if errors.Is(err, verify.ErrMemory) {
		return memoryError(err)
	}
	if err != nil {
		return usageError{fmt.Errorf("--check %s: %w", o.check, err)}
	}
	for i, in := range inputs {
		if in.SHA256 != want.Points[i].PointSHA256 {
			return exitError{exitFailure, fmt.Errorf("--check %s: points[%d].point_sha256: the certificate says %s, %s has %s",
				o.check, i, safefile.Excerpt(want.Points[i].PointSHA256), es[i].Name, in.SHA256)}
		}
		if err := fitsModel(m, in); err != nil {
			return err
		}
	}
	rep, cert, err := certifyAll(cmd, o, m, inputs)
	if err != nil {
		return err
	}
	// The files were found by these names (or passed by the user): what is
	// compared is their hashes, above, and what they certify.
	cert.ModelFile = want.ModelFile
	for i := range cert.Points {
		cert.Points[i].Privatizer = want.Points[i].Privatizer
	}
	if err := want.Check(cert); err != nil {
		return exitError{exitFailure, fmt.Errorf("--check %s: the certificate does not match its files: %w", o.check, err)}
	}
	return reproduced(cmd, rep, false, fmt.Sprintf("%s matches its files: %s model, %d privatizers, %d pass",
		o.check, cert.Model, len(cert.Points), cert.Passed))
}

// checkModel loads the model of --check's certificate (--model when given,
// else its model_file from the certificate's folder) and compares its hash.
func checkModel(ctx context.Context, o certifyOpts, want *verify.Certificate) (model.Model, error) {
	path, flag := o.model, "--model"
	var m model.Model
	var err error
	if path == "" {
		if path, err = verify.ResolveCertFile(o.check, want.ModelFile); err != nil {
			return nil, badInput("--check %s: model_file %v (pass the model with --model)", o.check, err)
		}
		flag = "--check " + safefile.Path(o.check) + ": model_file"
		m, err = model.LoadIn(ctx, filepath.Dir(o.check), want.ModelFile)
	} else {
		m, err = model.Load(ctx, path)
	}
	if err != nil {
		return nil, badInput("%s: %v", flag, err)
	}
	if h, err := model.Hash(m); err != nil {
		return nil, err
	} else if h != want.ModelSHA256 {
		return nil, exitError{exitFailure, fmt.Errorf("--check %s: model_sha256: the certificate says %s, %s has %s", o.check, safefile.Excerpt(want.ModelSHA256), safefile.Path(path), h)}
	}
	return m, nil
}

// checkEntries lists the privatizers --check reads, one per point of the
// certificate: --points (as many entries as points), --privatizer (for a
// one-point certificate), or the files the certificate names, from its
// folder.
func checkEntries(cmd *cobra.Command, o certifyOpts, want *verify.Certificate) ([]verify.Entry, error) {
	for i, p := range want.Points {
		if math.IsNaN(p.D) || math.IsInf(p.D, 0) || p.D < 0 {
			return nil, badInput("--check %s: points[%d].D = %v: must be a finite number ≥ 0", o.check, i, p.D)
		}
	}
	switch {
	case o.points != "" && o.priv != "":
		return nil, badInput("--points and --privatizer are mutually exclusive")
	case o.points != "":
		es, err := verify.ReadPoints(cmd.Context(), o.points)
		if err != nil {
			return nil, badInput("--points %w", err)
		}
		if len(es) != len(want.Points) {
			return nil, badInput("--points %s: %d entries, but the certificate %s has %d points", safefile.Path(o.points), len(es), safefile.Path(o.check), len(want.Points))
		}
		return es, nil
	case o.priv != "":
		if len(want.Points) != 1 {
			return nil, badInput("--privatizer: the certificate %s has %d points: pass them with --points", safefile.Path(o.check), len(want.Points))
		}
		return []verify.Entry{{D: want.Points[0].D, Privatizer: o.priv, Name: safefile.Path(o.priv)}}, nil
	}
	es := make([]verify.Entry, len(want.Points))
	for i, p := range want.Points {
		if _, err := verify.ResolveCertFile(o.check, p.Privatizer); err != nil {
			return nil, badInput("--check %s: points[%d].privatizer %v (pass the files with --privatizer or --points)", o.check, i, err)
		}
		e, err := verify.NamedIn(p.D, filepath.Dir(o.check), p.Privatizer, fmt.Sprintf("points[%d].privatizer (%s)", i, safefile.Excerpt(p.Privatizer)))
		if err != nil {
			return nil, badInput("--check %s: points[%d].privatizer %v (pass the files with --privatizer or --points)", o.check, i, err)
		}
		es[i] = e
	}
	return es, nil
}

// certifyInputs reads --privatizer/--d or --points, every file before any
// work.
func certifyInputs(cmd *cobra.Command, o certifyOpts) ([]verify.Input, error) {
	single := o.priv != "" || cmd.Flags().Changed("d")
	switch {
	case o.points != "" && single:
		return nil, badInput("--points and --privatizer/--d are mutually exclusive")
	case o.points == "" && (o.priv == "" || !cmd.Flags().Changed("d")):
		return nil, badInput("give --privatizer FILE and --d D, or --points FILE")
	}
	es := []verify.Entry{{D: o.d, Privatizer: o.priv, Name: safefile.Path(o.priv)}}
	if o.points != "" {
		var err error
		if es, err = verify.ReadPoints(cmd.Context(), o.points); err != nil {
			return nil, badInput("--points %w", err)
		}
	}
	in, err := verify.ReadInputs(cmd.Context(), es, o.memory)
	if errors.Is(err, verify.ErrMemory) {
		return nil, memoryError(err)
	}
	if err != nil {
		return nil, usageError{err}
	}
	return in, nil
}

// fitsModel checks a privatizer's sizes against the model before any work.
func fitsModel(m model.Model, in verify.Input) error {
	if err := m.CheckPrivatizer(in.File); err != nil {
		return usageError{err}
	}
	return nil
}

// certifyGrid lays out one row per point.
func certifyGrid(m model.Model, doc certifyJSON, human bool) *report.Grid {
	num := func(x float64) string {
		if human {
			return f4(x)
		}
		return report.Float(x, -1)
	}
	g := &report.Grid{Header: []string{"D", "privatizer", "certified recon"}}
	for i := range m.Adversaries() {
		g.Header = append(g.Header, fmt.Sprintf("certified adv %d", i+1))
	}
	g.Header = append(g.Header, "certified min adv", "error", "optimum at D̂", "optimum at D", "gap", "gap at D", "gap tol", "verdict")
	if !human {
		for i, h := range g.Header {
			g.Header[i] = strings.NewReplacer(" ", "_", "D̂", "D_hat").Replace(h)
		}
	}
	for _, p := range doc.Points {
		c := p.Certified
		if c == nil { // cannot certify: no sound number to show
			row := []string{num(p.D), p.Privatizer}
			for len(row) < len(g.Header)-1 {
				row = append(row, "")
			}
			g.Rows = append(g.Rows, append(row, p.Verdict))
			continue
		}
		row := []string{num(p.D), p.Privatizer, num(c.Recon)}
		for _, a := range c.Adv {
			row = append(row, num(a))
		}
		change := num(*p.Change)
		if human {
			change = report.Float(*p.Change, 2)
		}
		row = append(row, num(c.MinAdv), change, num(p.Optimum.MinAdv), num(p.OptimumAtD.MinAdv))
		if human {
			row = append(row, gapCell(*p.Gap), gapCell(*p.GapAtD), report.Float(*p.AdvTol, 3))
		} else {
			row = append(row, num(*p.Gap), num(*p.GapAtD), num(*p.AdvTol))
		}
		g.Rows = append(g.Rows, append(row, p.Verdict))
	}
	if human {
		t := doc.Tolerances
		g.Title = fmt.Sprintf("Certificate of %s on a %s model (sha256 %s…)", plural(len(doc.Points), "privatizer"), doc.Model, doc.ModelSHA256[:12])
		g.Notes = []string{
			fmt.Sprintf("%d pass, %d fail, %d cannot certify: %s", doc.Passed, doc.Failed, doc.CannotCertify, passWord(doc.Pass)),
			fmt.Sprintf("tolerances: D̂ in [max(0, D − %g·τ − %g·SE(D) − a), D + %g·SE(D) + a], τ = %.4g; gap ≤ %g·SE(optimum) + a, n = %d; stated error ≤ %g; a = %g × loss scale",
				t.BandTau, t.DistSE, t.DistSE, t.Tau, t.AdvSE, t.TestSize, t.Quad, t.Abs),
			"gap: against the optimum at the certified distortion D̂ (the verdict); gap at D: at the threshold asked for",
		}
		for _, p := range doc.Points {
			if p.Gauss != nil && p.Rounding != nil {
				g.Notes = append(g.Notes, "error: on the Gaussian model the runtime's rounding enters under a stated model: observers do not read the release below its rounding bound (docs/certify.md, \"Real-valued releases\")")
				break
			}
		}
		g.ReasonsBelow(len(g.Header)-1, func(r []string) string { return "D = " + r[0] + ", " + r[1] })
	}
	return g
}

// writeCertifySummary prints mmds verify --summary's short form: the
// counts, then summaryPoints, each line naming its privatizer file.
func writeCertifySummary(w io.Writer, m model.Model, rep *verify.Report, doc certifyJSON) error {
	_ = sayWrapped(w, "%s model (sha256 %s…): %d of %d privatizers pass, %d fail, %d cannot certify: %s",
		doc.Model, doc.ModelSHA256[:12], doc.Passed, len(doc.Points), doc.Failed, doc.CannotCertify, passWord(doc.Pass))
	names := make([]string, len(doc.Points))
	for i, p := range doc.Points {
		names[i] = p.Privatizer
	}
	return summaryPoints(w, m.Describe(), rep, names)
}
