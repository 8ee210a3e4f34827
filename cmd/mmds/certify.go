package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/plot"
	"github.com/mmds-project/mmds/verify"
)

type certifyOptions struct {
	certFlags
	req       verify.FilesRequest
	d         float64
	expectTol float64
}

func newCertifyCmd() *cobra.Command {
	var o certifyOptions
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runCertify(cmd.Context(), envOf(cmd), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.req.Model, "model", "", "model file: the gauss, binary or finite --config JSON (required)")
	f.StringVar(&o.req.Privatizer, "privatizer", "", "privatizer file: .onnx, .csv (channel), or JSON (channel or MLP layout)")
	f.Float64Var(&o.d, "d", 0, "the distortion threshold D ≥ 0 the privatizer was trained for")
	f.StringVar(&o.req.Points, "points", "", "a JSON or CSV list of (D, privatizer file) pairs, instead of --privatizer and --d")
	o.register(f, "table")
	workersFlag(f, &o.req.Workers, "privatizers certified")
	f.StringVar(&o.req.Certificate, "certificate", "", "also write the certificate (JSON) to this file")
	f.StringVar(&o.req.Check, "check", "", "re-derive the certificate in this file from the files it names and compare (exit 1: it differs; else its verdict's status)")
	f.StringVar(&o.req.Plot, "plot", "", "draw the privatizers' points on the optimal curves into this .png or .svg file (gauss and binary models)")
	f.Float64Var(&o.expectTol, "tol-expect", verify.DefaultExpectTol, "error bound of the network expectations E_R[k(x, R)] (binary and finite models)")
	return cmd
}

// runCertify reads the files at the door (verify.OpenFiles), certifies them
// (verify.Files.Certify) and writes the report, the certificate and the
// figure asked for; with --check it says whether the certificate matches.
func runCertify(ctx context.Context, e runEnv, o certifyOptions) error {
	format, err := o.parse()
	if err != nil {
		return err
	}
	defer applyMemoryLimit(o.req.MaxMemory)()
	if e.given("d") {
		o.req.D = &o.d
	}
	o.req.ExpectTol = e.given("tol-expect")
	if o.req.Check != "" {
		for _, name := range []string{"d", "certificate", "plot", "output", "out", "format", "summary"} {
			if e.given(name) {
				return badInput("--check and --%s are mutually exclusive: --check reads the files the certificate names", name)
			}
		}
	} else {
		o.req.Output = stdoutPath(o.out)
		if err := checkPlotPath(o.req.Plot); err != nil {
			return err
		}
		if o.req.Model == "" {
			return badInput("--model: required (the gauss, binary or finite --config JSON the privatizer was trained on)")
		}
		o.req.PlotKinds = plot.PaperKinds()
	}
	files, err := verify.OpenFiles(ctx, o.req)
	if err != nil {
		return verifyError(err)
	}
	bar, wctx := certifyBar(ctx, e, o.quiet, files.Model.Kind(), "privatizers certified", len(files.Inputs))
	rep, cert, err := files.Certify(wctx, verify.Options{Tol: o.tol, Model: model.Options{ExpectTol: o.expectTol}, Workers: o.req.Workers, Progress: bar.Set})
	endBar(bar, err)
	if err != nil {
		return verifyError(err)
	}
	if o.req.Check != "" {
		return reproduced(e.stdout, rep, false, fmt.Sprintf("%s matches its files: %s model, %d privatizers, %d pass",
			o.req.Check, cert.Model, len(cert.Points), cert.Passed))
	}
	if err := writeOutput(e.stdout, o.req.Output, func(w io.Writer) error { return files.Render(w, rep, format, o.summary) }); err != nil {
		return err
	}
	if o.req.Certificate != "" {
		if err := report.WriteAtomic(o.req.Certificate, cert.WriteJSON); err != nil {
			return err
		}
	}
	if o.req.Plot != "" {
		spec, _, err := plot.Figure(ctx, files.Model, rep, model.Options{})
		if err != nil {
			return err
		}
		if err := plot.Write(spec, o.req.Plot); err != nil {
			return err
		}
	}
	return verdictExit(rep.Verdict(""))
}

// parse checks the flags every certify run shares.
func (o *certifyOptions) parse() (report.Format, error) {
	format, err := o.check(o.req.Workers)
	if err != nil {
		return format, err
	}
	if !(o.expectTol > 0 && o.expectTol <= 1e-2) {
		return format, badInput("--tol-expect %v: must be in (0, 0.01]", o.expectTol)
	}
	o.req.MaxMemory, err = parseMaxMemory(o.maxMemory)
	return format, err
}
