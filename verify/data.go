package verify

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mmds-project/mmds/data"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/privatizer"
	"github.com/mmds-project/mmds/rundir"
)

// DataRun is a results directory of mmds train data, loaded and bound: its
// model file is the data spec ({"data": …}) results.json was trained on,
// and the data file read for it (DataFile) has the SHA-256 the spec
// records.
type DataRun struct {
	Dir     string
	Results *learn.Results
	Spec    *data.Spec
	Data    *data.Prepared
	// DataFile is the path of the data file read: the reviewer's --data
	// file, or the copy in Dir.
	DataFile    string
	ModelSHA256 string
	// Seed draws the privatizer's noise r on every row and seeds mmds's
	// estimators (CertifyData): one drawn afresh for this verification
	// unless the reviewer sets one (SetSeed). It is never the run's seed
	// by default: the run's author knows that seed, and so every r it
	// draws, and a network can release X for every r but those — a ReLU
	// tent of height 1 about each drawn r_k, narrower than the gaps between
	// them, undoes the leak exactly where verify would look.
	Seed uint64
	// SeedFrom says where Seed came from: SeedDrawn or SeedGiven.
	SeedFrom string
	// held is what the run's files and its data table take (with a run's
	// base), for the memory budget.
	held int64
}

// Where a data run's Seed came from (DataRun.SeedFrom).
const (
	SeedDrawn = "drawn by verify"
	SeedGiven = "given"
)

// SetSeed sets the seed of the noise and of the estimators to the
// reviewer's s.
func (run *DataRun) SetSeed(s uint64) { run.Seed, run.SeedFrom = s, SeedGiven }

// drawSeed is a seed no run's author can know in advance: 63 random bits,
// so that every tool (and --seed) that reads it as a signed 64-bit integer
// can repeat it.
func drawSeed() (uint64, error) {
	var b [8]byte
	if _, err := crand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("verify: drawing a seed for the privatizer's noise: %w", err)
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1, nil
}

// ErrNoDataFile is wrapped by the error of a data run whose data file was
// not given and has no copy in the results directory.
var ErrNoDataFile = errors.New("verify: the run's data file is not in the results directory")

// newDataRun checks a data run: the spec's hash is results.json's model
// hash, the data file (dataFile when not empty, else the copy in d that
// the spec names, DataFileOf) is read and hashed, and every finalized
// point has the privatizer its method needs. held is what the run's files
// take; the data table must fit limit beside them (ErrMemory).
func newDataRun(ctx context.Context, res *learn.Results, modelBytes []byte, d rundir.Dir, dataFile string, held, limit int64) (*DataRun, error) {
	spec, err := data.DecodeFile(modelBytes, d.Path(ModelFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	h, err := spec.Hash()
	if err != nil {
		return nil, err
	}
	if err := res.CheckBinding(h); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	raw, path, err := readDataFile(ctx, spec, d, dataFile)
	if err != nil {
		return nil, err
	}
	// The table, measured before it is parsed: at most a number for every
	// two bytes (8 bytes each), and the split's columns once prepared.
	cols := 1
	for _, o := range spec.Observers() {
		cols += len(o)
	}
	table := 5*int64(len(raw)) + 16*int64(spec.Rows)*int64(cols)
	if need := held + table; need > maxMemory(limit) {
		return nil, &MemoryError{Need: need, Limit: maxMemory(limit), What: fmt.Sprintf("the data file %s, %s, reads as up to %s", safefile.Path(path), About(int64(len(raw))), About(table))}
	}
	t, err := data.Parse(raw, path)
	if err != nil {
		return nil, fmt.Errorf("%w: the run's data file: %w", ErrInput, err)
	}
	prep, err := data.Prepare(t, spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	seed, err := drawSeed()
	if err != nil {
		return nil, err
	}
	run := &DataRun{Results: res, Spec: spec, Data: prep, DataFile: path, ModelSHA256: h, Seed: seed, SeedFrom: SeedDrawn,
		held: held + table}
	if err := run.check(); err != nil {
		return nil, fmt.Errorf("%w: results.json: %w", ErrInput, err)
	}
	return run, nil
}

// readDataFile reads the data file of spec — dataFile when not empty (the
// reviewer's choice), else the copy in d named by spec's base name — and
// checks its SHA-256 before anything parses it. The path spec records is
// the author's to write: it never names the file opened, so a run cannot
// make its reviewer read a file outside the results directory (an absolute
// path, "..", a symbolic link), and a file that is not the bound data
// never has a line quoted in a parse error.
func readDataFile(ctx context.Context, spec *data.Spec, d rundir.Dir, dataFile string) (raw []byte, path string, err error) {
	if dataFile != "" {
		path = dataFile
		if raw, err = safefile.Read(ctx, dataFile, data.MaxFileBytes); err != nil {
			return nil, "", fmt.Errorf("%w: the data file given (--data): %w", ErrInput, err)
		}
	} else if raw, path, err = readDataCopy(ctx, spec, d); err != nil {
		return nil, "", err
	}
	if got := safefile.SHA256(raw); got != spec.SHA256 {
		return nil, "", fmt.Errorf("%w: %w: the data file %s is not the one this run was trained on (its sha256 is %s, the run was trained on %s)",
			ErrInput, rundir.ErrBinding, safefile.Path(path), got[:12], spec.SHA256[:12])
	}
	return raw, path, nil
}

// readDataCopy reads the copy of the data file in d (rundir.ReadDataCopy).
func readDataCopy(ctx context.Context, spec *data.Spec, d rundir.Dir) ([]byte, string, error) {
	noFile := func(err error) error {
		return fmt.Errorf("%w: %w: %w; give the data file with --data FILE", ErrInput, ErrNoDataFile, err)
	}
	name, err := spec.FileName()
	if err != nil {
		return nil, "", noFile(err)
	}
	path, err := d.DataCopy(name)
	if err != nil {
		return nil, "", noFile(err)
	}
	raw, err := d.ReadDataCopy(ctx, name, data.MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("%w: %w: looked for %s (a copy beside results.json); give the data file with --data FILE",
			ErrInput, ErrNoDataFile, safefile.Path(path))
	case err != nil:
		return nil, "", fmt.Errorf("%w: the run's data file: %w", ErrInput, err)
	}
	return raw, path, nil
}

// check validates the points against the data: one loss per adversary, and
// a channel with a row per value of X (labels) or Algorithm 1's networks.
func (run *DataRun) check() error {
	c := &run.Results.Config
	k := len(run.Spec.Adversaries)
	switch {
	case !c.Model.Valid():
		return fmt.Errorf("\"model\" = %q: want %s", c.Model, model.KindsWant(false))
	case c.Model.FiniteX() != (run.Data.XValues != nil):
		return fmt.Errorf("\"model\" = %q does not match X's kind (%v)", c.Model, run.Spec.Private.Kind)
	case c.TrainSize != run.Spec.Split.Train || c.TestSize != run.Spec.Split.Test:
		return fmt.Errorf("config's split %d + %d is not the data spec's %d + %d", c.TrainSize, c.TestSize, run.Spec.Split.Train, run.Spec.Split.Test)
	case c.Method == learn.MethodLabels && !run.Data.Symbolic():
		return fmt.Errorf("the labels method needs discrete data, but the spec has continuous columns")
	}
	if err := run.checkPlan(); err != nil {
		return err
	}
	for i := range run.Results.Points {
		p := &run.Results.Points[i]
		if !p.Finalized {
			continue
		}
		where := fmt.Sprintf("points[%d] (D = %v)", i, p.D)
		if p.Losses == nil || len(p.Losses.Adv) != k {
			return fmt.Errorf("%s: want the losses of the reconstructor and %d adversaries", where, k)
		}
		if c.Method == learn.MethodLabels {
			if len(p.Channel) != len(run.Data.XValues) {
				return fmt.Errorf("%s: the channel has %d rows, X takes %d values", where, len(p.Channel), len(run.Data.XValues))
			}
			// a probability table, as any channel file: a negative or
			// huge entry would make a held-out loss what its author likes
			ch := privatizer.Channel{Name: where + ".channel", P: p.Channel}
			if err := ch.Validate(); err != nil {
				return err
			}
			continue
		}
		if len(p.Networks) != 2+k {
			return fmt.Errorf("%s: %d networks, want %d (privatizer, reconstructor, %d adversaries)", where, len(p.Networks), 2+k, k)
		}
	}
	return nil
}

// checkPlan refuses a run whose model is not the one mmds train data
// trains its data on with its method (data.Prepared.ChoosePlan): how
// verify computes the held-out losses follows the model, and on a binary X
// they are the errors results.json records, so a run on an X of more
// values relabelled "binary" would have its recorded numbers reported in
// place of the losses of the channel its network releases.
func (run *DataRun) checkPlan() error {
	c := &run.Results.Config
	plan, err := run.Data.ChoosePlan(&c.Method)
	if err != nil {
		return fmt.Errorf("the %v method cannot train these data: %w", c.Method, err)
	}
	if plan.Model != c.Model {
		x := "a continuous X"
		if n := len(run.Data.XValues); n > 0 {
			x = fmt.Sprintf("an X of %d values", n)
		}
		return fmt.Errorf("\"model\" = %v with the %v method, but the data train %v (%s)", c.Model, c.Method, plan.Model, x)
	}
	return nil
}
