package learn

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/sweep"
)

// ErrGrid is wrapped by the error for thresholds a run cannot train.
var ErrGrid = errors.New("learn: thresholds out of range")

// gridError reads as its detail alone and matches ErrGrid.
type gridError struct{ msg string }

func (e *gridError) Error() string        { return e.msg }
func (e *gridError) Is(target error) bool { return target == ErrGrid }

// SetGrid sets c's thresholds and selection band as Section V chooses them,
// for a run whose D_max is c.DMax: the thresholds ds, or when ds is nil the
// preset's number of points (PresetPoints) on def, the default range; τ, or
// when tau is 0 half the grid's step (DefaultTau, falling back to the
// paper's grid of 30 points on def's range). Every threshold must lie in
// [0, D_max]: above it the distortion constraint is slack, and the binary
// learning-rate schedule η(D) = η0(1 − 0.98·D/D_max) of Section V-B is only
// meant for D ≤ D_max. def.N is the paper's number of points on def (0:
// 30); no preset (an invalid PresetName) is the caller's error and panics.
func (c *Config) SetGrid(preset PresetName, ds []float64, def sweep.Spec, tau float64) error {
	n := PresetPoints(preset)
	if n == 0 {
		panic(fmt.Sprintf("learn: SetGrid: %v", presetText.BadValue(preset)))
	}
	paper := def
	if paper.N == 0 {
		paper.N = PresetPoints(PresetPaper)
	}
	if ds == nil {
		def.N = n
		ds = def.Values()
	}
	for _, d := range ds {
		if d > c.DMax*(1+1e-12) {
			return &gridError{fmt.Sprintf("threshold D = %v exceeds the model's D_max = %.6g: thresholds must be in [0, D_max] (above it the distortion constraint is slack)", d, c.DMax)}
		}
	}
	c.D, c.Protocol.Tau = ds, tau
	if tau == 0 {
		c.Protocol.Tau = DefaultTau(ds, c.DMax, paper)
	}
	return nil
}
