package data

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/learn"
)

// ErrNothingToHide is matched by the error for side columns that determine
// X on the training split (D̂_max = 0): no privatizer has anything to hide
// from an observer the reconstructor must beat.
var ErrNothingToHide = errors.New("data: nothing to hide")

// hideError reads as its detail alone and matches ErrNothingToHide.
type hideError struct{ dmax float64 }

func (e *hideError) Error() string {
	return fmt.Sprintf("the side columns determine X on the training split (D̂_max = %g): there is nothing to hide from anyone the reconstructor must beat", e.dmax)
}
func (e *hideError) Is(target error) bool { return target == ErrNothingToHide }

// SetGrid sets cfg.DMax to D̂_max (Prepared.DMax) and cfg's thresholds and
// band (learn.Config.SetGrid): ds, or by default the preset's points from
// D_min (discrete data) or D̂_max/N (a continuous X) to D̂_max; τ, or by
// default half the step of that grid (of 30 points on its range for a
// single threshold).
func (p *Prepared) SetGrid(cfg *learn.Config, preset learn.PresetName, ds []float64, tau float64) error {
	dmax, dmin := p.DMax()
	if !(dmax > 0) {
		return &hideError{dmax}
	}
	cfg.DMax = dmax
	def := sweep.Spec{D0: dmin, D1: dmax} // N = 0: the paper's 30 points for the band's fallback
	if p.XValues == nil {
		def.D0 = dmax / float64(learn.PresetPoints(preset))
	}
	return cfg.SetGrid(preset, ds, def, tau)
}
