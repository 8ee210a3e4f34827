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
	onnx bool
	d    float64
	out  string
}

func newExportCmd() *cobra.Command {
	var o exportOpts
	cmd := &cobra.Command{
		Use:   "export DIR [--d D] [--onnx] [-o FILE]",
		Short: "Write a trained privatizer of a results directory as ONNX or in the JSON layout",
		Long: `export writes the learned privatizer k(x, r) of one threshold D of a results
directory of mmds train, for PyTorch and ONNX Runtime users, or for mmds
certify: --onnx writes an ONNX model (inputs x and r, each [batch, 1], output
k, [batch, 1]; float64, as mmds trains), otherwise the JSON layout of mmds
certify (docs/export.md). The directory is loaded as mmds verify loads it:
its model and every point are checked against the hashes training recorded.

--d picks the threshold: the run's finalized threshold within 0.1% of it,
so a value as mmds verify's table prints it will do; it may be left out when
the run has a single finalized threshold. The file certifies as the
directory does:

  mmds certify --model DIR/model.json --privatizer FILE --d D

Exit status: 0 written, 2 bad input (a results directory that does not load,
a threshold without a privatizer, --onnx without -o).`,
		Example: `  mmds export results/quick-gauss --d 2 --onnx -o priv.onnx
  mmds export results/quick-binary --d 0.1 -o priv.json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runExport(cmd, args[0], o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.onnx, "onnx", false, "write ONNX (default: the JSON layout)")
	f.Float64Var(&o.d, "d", 0, "the threshold D whose privatizer to write (default: the run's only finalized one)")
	outputFlag(f, &o.out, false)
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
	n, _, err := run.Privatizer(d)
	if err != nil {
		if errors.Is(err, verify.ErrInput) {
			return usageError{err}
		}
		return err
	}
	var buf bytes.Buffer
	if o.onnx {
		err = n.WriteONNX(&buf)
	} else {
		err = n.WriteJSON(&buf)
	}
	if err != nil {
		return err
	}
	return writeOutput(io.Writer(cmd.OutOrStdout()), o.out, buf.Bytes())
}
