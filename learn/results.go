package learn

import (
	"context"
	"fmt"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/rundir"
)

// Results live in a results directory (package rundir) as results.json,
// bound to the model file and to each finalized point (Results.Seal).

// ReadResults reads results.json of d once (rundir.Dir.Read) and decodes those bytes
// (DecodeResults). It does not check the binding: see Results.CheckBinding.
func ReadResults(ctx context.Context, d rundir.Dir) (*Results, error) {
	b, err := d.Read(ctx, rundir.ResultsFile)
	if err != nil {
		return nil, err
	}
	return DecodeResults(b, d.Path(rundir.ResultsFile))
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

// writeResults seals res (Results.Seal) and rewrites results.json of d
// atomically.
func writeResults(d rundir.Dir, res *Results) error {
	if err := res.Seal(); err != nil {
		return err
	}
	return d.WriteJSON(rundir.ResultsFile, res)
}

// pointSeal is what a point's hash covers: everything a certificate of the
// point reads (the trial counts and timings are not).
type pointSeal struct {
	DIndex    int     `json:"d_index"`
	D         float64 `json:"D"`
	Finalized bool    `json:"finalized"`
	// recon_loss, adv_loss, min_adv_loss, as results.json writes them
	loss.Nullable[Floats]
	ReconHard     *float64          `json:"recon_hard"`
	AdvHard       Floats            `json:"adv_hard"`
	Trial         int               `json:"trial"`
	Epoch         int               `json:"epoch"`
	Networks      []network.Network `json:"networks"`
	NetworksEpoch int               `json:"networks_epoch"`
	// Channel is omitted when empty, so that points of Algorithm 1 keep
	// the hashes they had before the labels method existed.
	Channel [][]float64 `json:"channel,omitempty"`
	// Kernel likewise, for the labels method on a continuous X.
	Kernel *denseKernel `json:"kernel,omitempty"`
}

// denseKernel is Kernel with its table in the dense JSON form: the seal
// hashes that form whichever one results.json holds (jsonconf.Matrix), so that
// a kernel hashes as it did before the compact form existed and the form
// a writer picks does not change a point's hash.
type denseKernel struct {
	Edges  []float64   `json:"edges"`
	Prob   [][]float64 `json:"prob"`
	Reveal float64     `json:"reveal,omitempty"`
}

func (p *DResult) seal() (string, error) {
	var k *denseKernel
	if p.Kernel != nil {
		k = &denseKernel{Edges: p.Kernel.Edges, Prob: p.Kernel.Prob, Reveal: p.Kernel.Reveal}
	}
	return rundir.HashJSON(pointSeal{DIndex: p.DIndex, D: p.D, Finalized: p.Finalized,
		Nullable: loss.NullableOf[Floats](p.Losses), ReconHard: p.ReconHard, AdvHard: p.AdvHard,
		Trial: p.Trial, Epoch: p.Epoch, Networks: p.Networks, NetworksEpoch: p.NetworksEpoch, Channel: p.Channel,
		Kernel: k})
}

// Seal computes the binding of the configuration and of every point.
func (r *Results) Seal() error {
	if err := r.Binding.Bind(r.Config); err != nil {
		return err
	}
	for i := range r.Points {
		var err error
		if r.Points[i].SHA256, err = r.Points[i].seal(); err != nil {
			return err
		}
	}
	return nil
}

// CheckBinding recomputes the hashes of the configuration and of every
// point and returns an error wrapping rundir.ErrBinding that names the first
// part that does not match what training recorded. modelSHA256 is the hash
// of the model file's canonical encoding.
func (r *Results) CheckBinding(modelSHA256 string) error {
	if err := r.Binding.Check(r.Config, r.Config.ModelSHA256, modelSHA256); err != nil {
		return err
	}
	for i := range r.Points {
		p := &r.Points[i]
		h, err := p.seal()
		if err != nil {
			return err
		}
		if h != p.SHA256 {
			return fmt.Errorf("%w: results.json: points[%d] (D = %v) was changed after training (its losses, selection or network weights; sha256 %s, recorded %s)",
				rundir.ErrBinding, i, p.D, rundir.ShortHash(h), rundir.ShortHash(p.SHA256))
		}
	}
	return nil
}
