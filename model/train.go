package model

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mmds-project/mmds/learn"
)

// DataStream is the PCG stream of a training run's dataset draw; the seed
// is the run's. The trials' own streams derive from the seed through
// learn.TrialSeed, so the data and the training never share a stream.
const DataStream = 0x6d6d6473 // "mmds"

// ErrTrain is matched by the errors of NewTraining that come from its
// input: a sample count the model cannot draw, a model with nothing to
// train (D_max = 0), thresholds above D_max.
var ErrTrain = errors.New("model: cannot train")

// trainError reads as its cause alone and matches ErrTrain and the cause.
type trainError struct{ err error }

func (e *trainError) Error() string   { return e.err.Error() }
func (e *trainError) Unwrap() []error { return []error{ErrTrain, e.err} }

// TrainRequest is what a training run asks of a model beside the preset's
// learn.Config: the dataset's draw and the thresholds.
type TrainRequest struct {
	Preset  learn.PresetName // the default grid's size (learn.PresetPoints)
	D       []float64        // the thresholds; nil: the preset's points on the model's default sweep
	Tau     float64          // the selection band; 0: half the grid's step (learn.DefaultTau)
	Seed    uint64           // the dataset's seed, and the trials' master seed
	Samples int              // rows drawn; 1/6 of them are the test split
}

// Training is a run ready for learn.Sweep: its configuration, its dataset,
// and the model's canonical bytes (the results directory's model.json).
type Training struct {
	Config learn.Config
	Data   *learn.Dataset
	Model  []byte
}

// NewTraining prepares the run of cfg (a preset's configuration) on m:
// it draws the dataset (PCG(Seed, DataStream), Samples rows), binds the
// run to m (model.Hash), gives the labels method's observers of the law
// the model's exact law (finite, or per cell of x on the Gaussian model)
// and Algorithm 1 the finite law, whose losses its observers train on,
// and sets the thresholds and band (learn.Config.SetGrid). Errors of the
// input match ErrTrain (thresholds above D_max also learn.ErrGrid).
func NewTraining(m Model, cfg learn.Config, req TrainRequest) (*Training, error) {
	data, err := m.Dataset(rand.New(rand.NewPCG(req.Seed, DataStream)), req.Samples)
	if err != nil {
		return nil, &trainError{err}
	}
	cfg.DMax = m.DMax()
	switch {
	case cfg.Method == learn.MethodAlg1:
		// The observers' losses (nil on the Gaussian model, 0-1 on the
		// binary one).
		cfg.Law, _ = FiniteLaw(m)
	case cfg.Labels != nil && cfg.Labels.Observers == learn.ObserversLaw:
		cfg.Law, _ = FiniteLaw(m)
		if cfg.Law == nil {
			cfg.Cells, _ = CellLaw(m)
		}
	}
	t := &Training{Data: data}
	if t.Model, err = m.Encode(); err != nil {
		return nil, err
	}
	if cfg.ModelSHA256, err = Hash(m); err != nil {
		return nil, err
	}
	if cfg.DMax <= 0 {
		return nil, &trainError{fmt.Errorf("the model's D_max = %g: the reconstructor already knows X from its side information, so there is nothing to train", cfg.DMax)}
	}
	if err := cfg.SetGrid(req.Preset, req.D, m.DefaultSweep(), req.Tau); err != nil {
		return nil, &trainError{err}
	}
	cfg.Seed = req.Seed
	t.Config = cfg
	return t, nil
}
