package learn

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mmds-project/mmds/model"
)

// TestNewTraining: the preset's grid on the model's default sweep, the
// run bound to the model, and input errors matching ErrTrain.
func TestNewTraining(t *testing.T) {
	m, err := model.Paper(model.Gauss)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := PresetFor(PresetQuick, model.Gauss, MethodAlg1, DefaultLabels)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTraining(m, cfg, TrainRequest{Preset: PresetQuick, Seed: 7, Samples: 600})
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := model.Hash(m)
	def := m.DefaultSweep()
	if c := tr.Config; len(c.D) != 4 || c.D[3] != def.D1 || c.DMax != m.DMax() || c.ModelSHA256 != hash || c.Seed != 7 ||
		c.Protocol.Tau != DefaultTau(c.D, c.DMax, def) {
		t.Errorf("config: D %v, D_max %v, τ %v, seed %d", c.D, c.DMax, c.Protocol.Tau, c.Seed)
	}
	if tr.Data == nil || len(tr.Model) == 0 {
		t.Errorf("no dataset or model bytes")
	}
	for _, req := range []TrainRequest{
		{Preset: PresetQuick, Samples: 600, D: []float64{2 * m.DMax()}},
	} {
		if _, err := NewTraining(m, cfg, req); !errors.Is(err, ErrTrain) {
			t.Errorf("%+v: %v, want ErrTrain", req, err)
		}
	}
}

// TestNewTrainingLosses: Algorithm 1 gets the model's finite law, whose
// losses its observers train on (the ternary example's second adversary
// has its own), 0-1 losses on the binary model, and no law on the
// Gaussian one.
func TestNewTrainingLosses(t *testing.T) {
	tern, err := model.Load(context.Background(), "../examples/finite-ternary.json")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := model.Paper(model.Binary)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := model.Paper(model.Gauss)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m       model.Model
		law     bool
		advLoss [][]float64 // the last adversary's
	}{
		{tern, true, [][]float64{{0, 1}, {1, 0}, {1, 0}}},
		{bin, true, nil},
		{gs, false, nil},
	} {
		cfg, err := PresetFor(PresetQuick, c.m.Kind(), MethodAlg1, 0)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTraining(c.m, cfg, TrainRequest{Preset: PresetQuick, Seed: 1, Samples: 600})
		if err != nil {
			t.Fatal(err)
		}
		law := tr.Config.Law
		if (law != nil) != c.law {
			t.Errorf("%s: law %v, want one: %v", c.m.Kind(), law, c.law)
			continue
		}
		if law != nil && !reflect.DeepEqual(law.Adv[len(law.Adv)-1].Loss, c.advLoss) {
			t.Errorf("%s: last adversary's loss %v, want %v", c.m.Kind(), law.Adv[len(law.Adv)-1].Loss, c.advLoss)
		}
	}
}
