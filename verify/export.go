package verify

import (
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/network"
)

// ThresholdTol is how close a threshold asked for must be to one of a
// run's, relatively: 1e-3 accepts a threshold as verify's tables print it
// (4 significant digits), and no grid mmds trains has two thresholds that
// close.
const ThresholdTol = 1e-3

// Privatizer returns the learned privatizer of the run's finalized
// threshold D within ThresholdTol of d (relative), and D itself, as the
// network mmds certifies: float64, its inputs in the order it was trained
// with (network.ParseRecord). No such threshold, or two, is an error
// wrapping ErrInput that says which thresholds have a privatizer.
func (run *Run) Privatizer(d float64) (*network.Network, float64, error) {
	ds := run.Finalized()
	at := -1
	for i, v := range run.Results.Points {
		if !v.Finalized || !(math.Abs(v.D-d) <= ThresholdTol*math.Abs(v.D)) {
			continue
		}
		if at >= 0 {
			return nil, 0, fmt.Errorf("%w: %s: D = %v is within %g of two thresholds, %v and %v: give more digits", ErrInput, safefile.Path(run.Dir), d, ThresholdTol, run.Results.Points[at].D, v.D)
		}
		at = i
	}
	if at < 0 {
		return nil, 0, fmt.Errorf("%w: %s has no finalized privatizer at D = %v: %s", ErrInput, safefile.Path(run.Dir), d, describe(ds))
	}
	p := &run.Results.Points[at]
	switch {
	case p.Kernel != nil:
		return nil, 0, fmt.Errorf("%w: the privatizer at D = %v is the labels method's cell kernel, not a network k(x, r): ONNX and the JSON layout hold networks; its edges and label probabilities are points[%d].kernel of %s/results.json", ErrInput, p.D, at, safefile.Path(run.Dir))
	case p.Channel != nil:
		return nil, 0, fmt.Errorf("%w: the privatizer at D = %v is the labels method's channel P(F | X), not a network k(x, r): points[%d].channel of %s/results.json is already a channel file as mmds certify reads it", ErrInput, p.D, at, safefile.Path(run.Dir))
	}
	n, err := p.Privatizer()
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return n, p.D, nil
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
