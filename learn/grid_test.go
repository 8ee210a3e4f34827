package learn

import (
	"errors"
	"slices"
	"testing"

	"github.com/mmds-project/mmds/internal/sweep"
)

// TestSetGrid: the preset's points on the default range, or the
// thresholds given; τ given, or half the step (the paper's grid's for one
// threshold); thresholds above D_max refused with ErrGrid.
func TestSetGrid(t *testing.T) {
	def := sweep.Spec{D0: 0, D1: 3, N: 30}
	for _, c := range []struct {
		name    string
		preset  PresetName
		ds      []float64
		tau     float64
		wantD   []float64
		wantTau float64
		err     bool
	}{
		{"quick default", PresetQuick, nil, 0, []float64{0, 1, 2, 3}, 3.0 / 8, false},
		{"one threshold", PresetPaper, []float64{1}, 0, []float64{1}, 3.0 / 60, false},
		{"tau given", PresetQuick, []float64{1, 2}, 0.25, []float64{1, 2}, 0.25, false},
		{"at D_max", PresetQuick, []float64{3}, 0, []float64{3}, 3.0 / 60, false},
		{"above D_max", PresetQuick, []float64{1, 3.5}, 0, nil, 0, true},
	} {
		cfg := Config{DMax: 3}
		err := cfg.SetGrid(c.preset, c.ds, def, c.tau)
		if c.err {
			if !errors.Is(err, ErrGrid) {
				t.Errorf("%s: %v, want ErrGrid", c.name, err)
			}
			continue
		}
		if err != nil || !slices.Equal(cfg.D, c.wantD) || cfg.Protocol.Tau != c.wantTau {
			t.Errorf("%s: D %v, τ %v, %v; want %v, %v", c.name, cfg.D, cfg.Protocol.Tau, err, c.wantD, c.wantTau)
		}
	}
}
