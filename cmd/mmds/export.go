package main

import (
	"bytes"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/verify"
)

type exportOpts struct {
	onnx  bool
	quiet bool
	d     float64
	out   string
}

func newExportCmd() *cobra.Command {
	var o exportOpts
	cmd := &cobra.Command{
		Use:   "export DIR [--d D] [--onnx] [-o FILE]",
		Short: "Write a trained privatizer of a results directory as ONNX or as the JSON mmds certify reads",
		Long: `export writes the learned privatizer of one threshold D of a results
directory of mmds train, for PyTorch and ONNX Runtime users, or for mmds
certify: --onnx writes a network k(x, r) as an ONNX model (inputs x and r,
each [batch, 1], output k, [batch, 1]; on a finite model Algorithm 1's
categorical network: x one-hot, [batch, |X|], output k, the law of F over
its labels, [batch, m]; float64, as mmds trains), otherwise
the JSON mmds certify reads (docs/export.md): a network in the JSON layout,
or the labels method's privatizer as results.json holds it — a channel file
{"channel": [[P(F=f | X=x)]]} on a binary or finite model, a kernel file
{"kernel": {"edges", "prob", "reveal"}} on the Gaussian model. The directory
is loaded as mmds verify loads it: its model and every point are checked
against the hashes training recorded.

--d picks the threshold: the run's finalized threshold within 0.1% of it,
so a value as mmds verify's table prints it will do; it may be left out when
the run has a single finalized threshold. The file certifies as the
directory does:

  mmds certify --model DIR/model.json --privatizer FILE --d D

Exit status: 0 written, 2 bad input (a results directory that does not load,
a threshold without a privatizer, --onnx without -o or on a labels method's
channel or kernel).`,
		Example: `  mmds export results/quick-gauss --d 2 --onnx -o priv.onnx
  mmds export results/quick-binary --d 0.1 -o priv.json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runExport(cmd, args[0], o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.onnx, "onnx", false, "write ONNX (default: the JSON layout)")
	f.Float64Var(&o.d, "d", 0, "the threshold D whose privatizer to write (default: the run's only finalized one)")
	outputFlag(f, &o.out)
	f.BoolVar(&o.quiet, "quiet", false, "no progress on standard error (export reports none: it takes well under a second; accepted as on every command)")
	return cmd
}

func runExport(cmd *cobra.Command, dir string, o exportOpts) error {
	if o.onnx && o.out == "" {
		return badInput("--onnx: give -o FILE (or -o - for standard output): ONNX is binary")
	}
	o.out = stdoutPath(o.out)
	if err := checkPaths(report.InFolder("DIR", dir, report.Results), report.Out("--output", o.out)); err != nil {
		return err
	}
	run, err := verify.Load(cmd.Context(), dir)
	if err != nil {
		return usageError{err}
	}
	d := o.d
	if !cmd.Flags().Changed("d") {
		ds := run.Finalized()
		if len(ds) != 1 {
			return badInput("--d: %s has %d finalized thresholds: pick one (mmds verify lists them)", safefile.Path(dir), len(ds))
		}
		d = ds[0]
	}
	f, dd, err := run.Export(d)
	if err != nil {
		if errors.Is(err, verify.ErrInput) {
			return usageError{err}
		}
		return err
	}
	var buf bytes.Buffer
	switch {
	case o.onnx && f.Network == nil:
		return badInput("--onnx: the privatizer at D = %v is the labels method's %s, not a network k(x, r), which is what ONNX holds: write it with -o FILE alone (the %s file mmds certify reads)", dd, f.Format.Object(), f.Format)
	case o.onnx:
		err = f.Network.WriteONNX(&buf)
	default:
		err = f.WriteJSON(&buf)
	}
	if err != nil {
		return err
	}
	return writeOutput(io.Writer(cmd.OutOrStdout()), o.out, buf.Bytes())
}
