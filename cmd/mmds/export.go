package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/verify"
)

type exportOptions struct {
	req verify.ExportRequest
	d   float64
	out string
}

func newExportCmd() *cobra.Command {
	var o exportOptions
	var quiet bool
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
		RunE: func(cmd *cobra.Command, args []string) error {
			o.req.Dir = args[0]
			return runExport(cmd.Context(), envOf(cmd), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.req.ONNX, "onnx", false, "write ONNX (default: the JSON layout)")
	f.Float64Var(&o.d, "d", 0, "the threshold D whose privatizer to write (default: the run's only finalized one)")
	outputFlag(f, &o.out)
	f.BoolVar(&quiet, "quiet", false, "no progress on standard error (export reports none: it takes well under a second; accepted as on every command)")
	return cmd
}

// runExport writes the privatizer verify.ExportFile returns.
func runExport(ctx context.Context, e runEnv, o exportOptions) error {
	if o.req.ONNX && o.out == "" {
		return badInput("--onnx: give -o FILE (or -o - for standard output): ONNX is binary")
	}
	if e.given("d") {
		o.req.D = &o.d
	}
	o.req.Output = stdoutPath(o.out)
	b, err := verify.ExportFile(ctx, o.req)
	if errors.Is(err, verify.ErrInput) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	return writeBytes(e.stdout, o.req.Output, b)
}
