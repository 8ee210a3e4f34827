package verify

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/privatizer"
)

// ThresholdTol is how close a threshold asked for must be to one of a
// run's, relatively: 1e-3 accepts a threshold as verify's tables print it
// (4 significant digits), and no grid mmds trains has two thresholds that
// close.
const ThresholdTol = 1e-3

// ExportRequest is what mmds export writes: the privatizer of a results
// directory's threshold D (nil: its only finalized one) as ONNX or as the
// JSON mmds certify reads, into Output ("": standard output), which must
// not be one of the directory's files. Messages name the fields by the
// command line's flags.
type ExportRequest struct {
	Dir    string
	D      *float64
	ONNX   bool
	Output string
}

// ExportFile loads r.Dir as Load does (its model and every point checked
// against the hashes training recorded) and returns the bytes of the
// privatizer at r.D (Export): a network in ONNX or the JSON layout, or the
// labels method's channel or kernel file, which ONNX does not hold. Errors
// wrap ErrInput, or ctx's error.
func ExportFile(ctx context.Context, r ExportRequest) ([]byte, error) {
	if err := report.CheckPaths([]report.Path{report.InFolder("DIR", r.Dir, report.Results), report.Out("--output", r.Output)}); err != nil {
		return nil, inputError(err)
	}
	run, err := Load(ctx, r.Dir)
	if err != nil {
		return nil, inputError(err)
	}
	var d float64
	if r.D != nil {
		d = *r.D
	} else if ds := run.Finalized(); len(ds) == 1 {
		d = ds[0]
	} else {
		return nil, inputf("--d: %s has %d finalized thresholds: pick one (mmds verify lists them)", safefile.Path(r.Dir), len(ds))
	}
	f, dd, err := run.Export(d)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	switch {
	case r.ONNX && f.Network == nil:
		return nil, inputf("--onnx: the privatizer at D = %v is the labels method's %s, not a network k(x, r), which is what ONNX holds: write it with -o FILE alone (the %s file mmds certify reads)", dd, f.Format.Object(), f.Format)
	case r.ONNX:
		err = f.Network.WriteONNX(&buf)
	default:
		err = f.WriteJSON(&buf)
	}
	return buf.Bytes(), err
}

// Export returns the privatizer of the run's finalized threshold D within
// ThresholdTol of d (relative), and D itself, as mmds certify reads it: a
// network (Privatizer's; categorical for Algorithm 1 on a finite model),
// the labels method's channel P(F | X) on a model
// with a finite X (privatizer.FormatChannelJSON), or its cell kernel on the
// Gaussian model (privatizer.FormatKernelJSON), both exactly as results.json
// holds them, so that certifying the file computes what mmds verify
// computes for the point. Errors wrap ErrInput.
func (run *Run) Export(d float64) (privatizer.File, float64, error) {
	at, err := run.finalizedAt(d)
	if err != nil {
		return privatizer.File{}, 0, err
	}
	p := &run.Results.Points[at]
	name := fmt.Sprintf("points[%d] of %s/results.json", at, safefile.Path(run.Dir))
	switch {
	case p.Kernel != nil:
		k := &privatizer.Kernel{Name: name, Kernel: p.Kernel.Kernel, Reveal: p.Kernel.Reveal}
		return privatizer.File{Format: privatizer.FormatKernelJSON, Kernel: k}, p.D, nil
	case p.Channel != nil:
		c := &privatizer.Channel{Name: name, P: p.Channel}
		return privatizer.File{Format: privatizer.FormatChannelJSON, Channel: c}, p.D, nil
	}
	n, err := p.Privatizer()
	if err != nil {
		return privatizer.File{}, 0, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return privatizer.File{Format: privatizer.FormatNetworkJSON, Network: n}, p.D, nil
}

// finalizedAt returns the index of the run's finalized point within
// ThresholdTol of d.
func (run *Run) finalizedAt(d float64) (int, error) {
	at := -1
	for i, v := range run.Results.Points {
		if !v.Finalized || !(math.Abs(v.D-d) <= ThresholdTol*math.Abs(v.D)) {
			continue
		}
		if at >= 0 {
			return 0, fmt.Errorf("%w: %s: D = %v is within %g of two thresholds, %v and %v: give more digits", ErrInput, safefile.Path(run.Dir), d, ThresholdTol, run.Results.Points[at].D, v.D)
		}
		at = i
	}
	if at < 0 {
		return 0, fmt.Errorf("%w: %s has no finalized privatizer at D = %v: %s", ErrInput, safefile.Path(run.Dir), d, describe(run.Finalized()))
	}
	return at, nil
}

// describe names a list of thresholds briefly for a message.
func describe(ds []float64) string {
	switch len(ds) {
	case 0:
		return "no threshold is finalized"
	case 1:
		return fmt.Sprintf("the finalized threshold is %v", ds[0])
	}
	return fmt.Sprintf("%d thresholds are finalized, from %.4g to %.4g (mmds verify lists them)", len(ds), ds[0], ds[len(ds)-1])
}

// Finalized returns the thresholds of the run that have a privatizer, in
// increasing order.
func (run *Run) Finalized() []float64 {
	var ds []float64
	for _, p := range run.Results.Points {
		if p.Finalized {
			ds = append(ds, p.D)
		}
	}
	return ds
}
