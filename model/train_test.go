package model

import (
	"errors"
	"testing"

	"github.com/mmds-project/mmds/learn"
)

// TestNewTraining: the preset's grid on the model's default sweep, the
// run bound to the model, and input errors matching ErrTrain.
func TestNewTraining(t *testing.T) {
	m, err := Paper(Gauss)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := learn.PresetFor(learn.PresetQuick, Gauss, learn.MethodAlg1, learn.DefaultLabels)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTraining(m, cfg, TrainRequest{Preset: learn.PresetQuick, Seed: 7, Samples: 600})
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := Hash(m)
	def := m.DefaultSweep()
	if c := tr.Config; len(c.D) != 4 || c.D[3] != def.D1 || c.DMax != m.DMax() || c.ModelSHA256 != hash || c.Seed != 7 ||
		c.Protocol.Tau != learn.DefaultTau(c.D, c.DMax, def) {
		t.Errorf("config: D %v, D_max %v, τ %v, seed %d", c.D, c.DMax, c.Protocol.Tau, c.Seed)
	}
	if tr.Data == nil || len(tr.Model) == 0 {
		t.Errorf("no dataset or model bytes")
	}
	for _, req := range []TrainRequest{
		{Preset: learn.PresetQuick, Samples: 600, D: []float64{2 * m.DMax()}},
	} {
		if _, err := NewTraining(m, cfg, req); !errors.Is(err, ErrTrain) {
			t.Errorf("%+v: %v, want ErrTrain", req, err)
		}
	}
}
