package verify

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/network"
)

// Privatizer returns the learned privatizer of threshold d of the run (d
// one of the configuration's thresholds, as results.json has it), as the
// network mmds certifies: float64, its inputs in the order it was trained
// with (network.ParseRecord). A threshold the run does not have, or one
// not finalized, is an error wrapping ErrInput that lists the thresholds
// that have a privatizer.
func (run *Run) Privatizer(d float64) (*network.Network, error) {
	var have []string
	for i := range run.Results.Points {
		p := &run.Results.Points[i]
		if !p.Finalized {
			continue
		}
		if p.D == d {
			n, err := p.Privatizer()
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInput, err)
			}
			return n, nil
		}
		have = append(have, strconv.FormatFloat(p.D, 'g', -1, 64))
	}
	return nil, fmt.Errorf("%w: %s has no finalized privatizer at D = %v: finalized thresholds are [%s]", ErrInput, safefile.Path(run.Dir), d, strings.Join(have, ", "))
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
