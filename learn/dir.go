package learn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/loss"
)

// A results directory is the one place a run lives:
//
//	DIR/results.json          Results: the configuration, per threshold the finalized point
//	DIR/model.json            the model the data were drawn from, in its --config format
//	DIR/trials/dDD_tTTT.json  TrialRecord: per trial, the per-epoch history and networks
//	DIR/points/dDD.json       PointRecord: what a shard publishes per threshold
//	DIR/points/shards         the shard count n of the run's shards (shard.go)
//	DIR/.lock, DIR/.lock-shard-i-of-n  the writers' locks (lock.go)
//	DIR/.mmds-kind            the marker "results" (internal/report.Results)
//
// Dir alone reads and writes these files. results.json binds itself to the
// rest (Binding): Config.ModelSHA256 is the hash of the model's canonical
// encoding, Binding.ConfigSHA256 the hash of the configuration, and every
// point carries the hash of what it finalized (DResult.SHA256), so an edit
// after training is detected by whoever reads the directory.

// ModelFile is the name of the model file in a results directory.
const ModelFile = "model.json"

// maxFileBytes bounds results.json and model.json when reading.
const maxFileBytes = 256 << 20

// Dir is a results directory.
type Dir string

// ErrLocked reports a results directory another live process is writing.
var ErrLocked = errors.New("learn: results directory in use")

// ErrBinding reports a results directory whose files do not match the
// hashes recorded at training: edited, swapped or corrupted after the fact.
var ErrBinding = errors.New("learn: results directory does not match its binding")

// Path returns the path of a file of the directory.
func (d Dir) Path(rel string) string { return filepath.Join(string(d), rel) }

// WriteModel writes model.json, or checks that an existing one holds the
// same bytes (up to surrounding space): a results directory holds one model.
func (d Dir) WriteModel(model []byte) error {
	if err := d.Prepare(); err != nil {
		return err
	}
	path := d.Path(ModelFile)
	old, err := safefile.Read(context.Background(), path, maxFileBytes)
	switch {
	case err == nil:
		if !bytes.Equal(bytes.TrimSpace(old), bytes.TrimSpace(model)) {
			return fmt.Errorf("%w: %s describes a different model than this run's; use a fresh directory", ErrResume, path)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", ErrResume, err) // a FIFO, a directory, …: not overwritten
	}
	return report.WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(bytes.TrimSpace(model), '\n'))
		return err
	})
}

// Check checks, before any work, that d can be written as a results
// directory: new, empty, marked as one, or one an older mmds wrote
// (report.CheckFolder).
func (d Dir) Check() error {
	if err := report.CheckFolder(string(d), report.Results); err != nil {
		return fmt.Errorf("learn: results directory %s: %w", d, err)
	}
	return nil
}

// Prepare creates d if needed, marks it as a results directory, and removes
// the temporary files that killed writers left in it, in trials/ and in
// points/ (report.PrepareFolder, report.RemoveStaleTemps).
func (d Dir) Prepare() error {
	if err := report.PrepareFolder(string(d), report.Results); err != nil {
		return fmt.Errorf("learn: results directory: %w", err)
	}
	for _, sub := range []string{"trials", "points"} {
		if err := report.RemoveStaleTemps(d.Path(sub), true); err != nil {
			return fmt.Errorf("learn: results directory: %w", err)
		}
	}
	return nil
}

// ReadModel returns the bytes of model.json, read once (ReadFile).
func (d Dir) ReadModel(ctx context.Context) ([]byte, error) {
	return ReadFile(ctx, d.Path(ModelFile))
}

// ReadResults reads results.json once and decodes those bytes
// (DecodeResults). It does not check the binding: see Results.CheckBinding.
func (d Dir) ReadResults(ctx context.Context) (*Results, error) {
	b, err := ReadFile(ctx, d.Path(ResultsFile))
	if err != nil {
		return nil, err
	}
	return DecodeResults(b, d.Path(ResultsFile))
}

// DecodeResults decodes the bytes of a results.json strictly (jsonconf: one
// JSON object, nothing after it, every key exactly a field's name, none
// twice); name labels it in errors.
func DecodeResults(b []byte, name string) (*Results, error) {
	var res Results
	if err := jsonconf.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s: not a valid results file: %w", name, err)
	}
	return &res, nil
}

// writeResults seals res (Results.Seal) and rewrites results.json
// atomically.
func (d Dir) writeResults(res *Results) error {
	if err := res.Seal(); err != nil {
		return err
	}
	err := report.WriteAtomic(d.Path(ResultsFile), func(w io.Writer) error { return report.WriteJSON(w, res) })
	if err != nil {
		return fmt.Errorf("learn: %w", err)
	}
	return nil
}

// ReadFile reads a file of a results directory once: a regular file of at
// most 256 MiB (safefile.Read).
func ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := safefile.Read(ctx, path, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w (is this a results directory of mmds train?)", err)
	}
	return b, err
}

// Binding is the part of results.json that ties it to what it describes.
type Binding struct {
	// ConfigSHA256 is the SHA-256 of the canonical JSON of Config, which
	// includes the thresholds, the protocol and the model's hash.
	ConfigSHA256 string `json:"config_sha256"`
}

// pointSeal is what a point's hash covers: everything a certificate of the
// point reads (the trial counts and timings are not).
type pointSeal struct {
	DIndex    int     `json:"d_index"`
	D         float64 `json:"D"`
	Finalized bool    `json:"finalized"`
	// recon_loss, adv_loss, min_adv_loss, as results.json writes them
	loss.Nullable[Floats]
	ReconHard     *float64  `json:"recon_hard"`
	AdvHard       Floats    `json:"adv_hard"`
	Trial         int       `json:"trial"`
	Epoch         int       `json:"epoch"`
	Networks      []Network `json:"networks"`
	NetworksEpoch int       `json:"networks_epoch"`
	// Channel is omitted when empty, so that points of Algorithm 1 keep
	// the hashes they had before the labels method existed.
	Channel [][]float64 `json:"channel,omitempty"`
	// Kernel likewise, for the labels method on a continuous X.
	Kernel *Kernel `json:"kernel,omitempty"`
}

func hashJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("learn: binding: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func (p *DResult) seal() (string, error) {
	return hashJSON(pointSeal{DIndex: p.DIndex, D: p.D, Finalized: p.Finalized,
		Nullable: loss.NullableOf[Floats](p.Losses), ReconHard: p.ReconHard, AdvHard: p.AdvHard,
		Trial: p.Trial, Epoch: p.Epoch, Networks: p.Networks, NetworksEpoch: p.NetworksEpoch, Channel: p.Channel,
		Kernel: p.Kernel})
}

// Seal computes the binding of the configuration and of every point.
func (r *Results) Seal() error {
	h, err := hashJSON(r.Config)
	if err != nil {
		return err
	}
	r.Binding.ConfigSHA256 = h
	for i := range r.Points {
		if r.Points[i].SHA256, err = r.Points[i].seal(); err != nil {
			return err
		}
	}
	return nil
}

// CheckBinding recomputes the hashes of the configuration and of every
// point and returns an error wrapping ErrBinding that names the first part
// that does not match what training recorded. modelSHA256 is the hash of
// the model file's canonical encoding.
func (r *Results) CheckBinding(modelSHA256 string) error {
	if r.Binding.ConfigSHA256 == "" || r.Config.ModelSHA256 == "" {
		return fmt.Errorf("%w: results.json has no binding (written before mmds bound results to their model and networks); train again into a fresh directory", ErrBinding)
	}
	if r.Config.ModelSHA256 != modelSHA256 {
		return fmt.Errorf("%w: %s is not the model this run was trained on (its sha256 is %s, the run was trained on %s)",
			ErrBinding, ModelFile, short(modelSHA256), short(r.Config.ModelSHA256))
	}
	h, err := hashJSON(r.Config)
	if err != nil {
		return err
	}
	if h != r.Binding.ConfigSHA256 {
		return fmt.Errorf("%w: results.json: \"config\" was changed after training (thresholds, protocol, sizes or seed; sha256 %s, recorded %s)",
			ErrBinding, short(h), short(r.Binding.ConfigSHA256))
	}
	for i := range r.Points {
		p := &r.Points[i]
		h, err := p.seal()
		if err != nil {
			return err
		}
		if h != p.SHA256 {
			return fmt.Errorf("%w: results.json: points[%d] (D = %v) was changed after training (its losses, selection or network weights; sha256 %s, recorded %s)",
				ErrBinding, i, p.D, short(h), short(p.SHA256))
		}
	}
	return nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "(none)"
	}
	return h
}
