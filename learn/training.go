package learn

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/mip"
)

// DataStream is the PCG stream of a training run's dataset draw; the seed
// is the run's. The trials' own streams derive from the seed through
// TrialSeed, so the data and the training never share a stream.
const DataStream = 0x6d6d6473 // "mmds"

// ErrTrain is matched by the errors of NewTraining that come from its
// input: a model with nothing to train (D_max = 0), thresholds above D_max.
var ErrTrain = errors.New("learn: cannot train")

// A Source is a data model as the trainer asks it for a run (package
// model's kinds are Sources): D_max and the paper's sweep of thresholds,
// joint samples as columns (the private x, the reconstructor's side
// columns y, adversary i's columns z[i]), and the canonical encoding that
// binds the run. Its law, when it has one the trainer can use, comes
// through FiniteSource or GaussSource.
type Source interface {
	DMax() float64
	DefaultSweep() sweep.Spec
	Sample(rng *rand.Rand, n int) (x []float64, y [][]float64, z [][][]float64)
	Encode() ([]byte, error)
}

// A FiniteSource is a Source with a finite X: the labels method's
// observers of the law and Algorithm 1's observers take its law
// (Config.Law; the binary model as a finite one).
type FiniteSource interface {
	Source
	FiniteLaw() *mip.Finite
}

// A GaussSource is the Gaussian model: the labels method's observers of
// the law take its law per cell of x (Config.Cells).
type GaussSource interface {
	Source
	GaussLaw() *gauss.Model
}

// The paper's 12,000 samples, one sixth held out for testing (10,000
// train, 2,000 test, Section V-A), and the range a run may draw (a Monte
// Carlo estimate too).
const (
	DefaultSamples = 12000
	MinSamples     = 60
	MaxSamples     = 10_000_000
)

// CheckSamples refuses a sample count outside [MinSamples, MaxSamples],
// naming the command line's --samples.
func CheckSamples(n int) error {
	if n < MinSamples || n > MaxSamples {
		return fmt.Errorf("--samples %d: must be in [%d, %d]", n, MinSamples, MaxSamples)
	}
	return nil
}

// TrainRequest is what a training run asks of a model beside the preset's
// Config: the dataset's draw and the thresholds.
type TrainRequest struct {
	Preset  PresetName // the default grid's size (PresetPoints)
	D       []float64  // the thresholds; nil: the preset's points on the model's default sweep
	Tau     float64    // the selection band; 0: half the grid's step (DefaultTau)
	Seed    uint64     // the dataset's seed, and the trials' master seed
	Samples int        // rows drawn; 1/6 of them are the test split
}

// Training is a run ready for Sweep: its configuration, its dataset, and
// the model's canonical bytes (the results directory's model.json).
type Training struct {
	Config Config
	Data   *Dataset
	Model  []byte
}

// NewTraining prepares the run of cfg (a preset's configuration) on m:
// it draws the dataset (PCG(Seed, DataStream), Samples rows), binds the
// run to m (ModelSHA256: the SHA-256 of its encoding, as model.Hash),
// gives the labels method's observers of the law the model's exact law
// (FiniteSource, or per cell of x, GaussSource) and Algorithm 1 the finite
// law, whose losses its observers train on, and sets the thresholds and
// band (Config.SetGrid).
// Errors of the input match ErrTrain (thresholds above D_max also
// ErrGrid).
func NewTraining(m Source, cfg Config, req TrainRequest) (*Training, error) {
	x, y, z := m.Sample(rand.New(rand.NewPCG(req.Seed, DataStream)), req.Samples)
	t := &Training{Data: &Dataset{X: x, Y: y, Z: z}}
	cfg.DMax = m.DMax()
	useLaw := cfg.Method == MethodAlg1 || cfg.Labels != nil && cfg.Labels.Observers == ObserversLaw
	if f, ok := m.(FiniteSource); ok && useLaw {
		// Algorithm 1's observers train on its losses (0-1 on the binary
		// model); the labels method's observers know the law.
		cfg.Law = f.FiniteLaw()
	}
	if g, ok := m.(GaussSource); ok && useLaw && cfg.Method == MethodLabels {
		cfg.Cells = gaussCells{g.GaussLaw()}
	}
	b, err := m.Encode()
	if err != nil {
		return nil, err
	}
	t.Model = b
	cfg.ModelSHA256 = safefile.SHA256(b)
	if cfg.DMax <= 0 {
		return nil, &markedError{ErrTrain, fmt.Errorf("the model's D_max = %g: the reconstructor already knows X from its side information, so there is nothing to train", cfg.DMax)}
	}
	if err := cfg.SetGrid(req.Preset, req.D, m.DefaultSweep(), req.Tau); err != nil {
		return nil, &markedError{ErrTrain, err}
	}
	cfg.Seed = req.Seed
	t.Config = cfg
	return t, nil
}
