package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/mip"
)

// ErrInput is wrapped by every error that reports a missing, corrupt or
// inconsistent results directory: the caller's input, not a failed
// computation.
var ErrInput = errors.New("invalid results directory")

// ModelFile is the name of the model description mmds train writes next to
// results.json: the config file format of mmds gauss --config (a gauss.Config)
// or of the binary model ({"p", "q_y", "q_z"}).
const ModelFile = "model.json"

// maxFileBytes bounds results.json and model.json.
const maxFileBytes = 256 << 20

// Run is a results directory of mmds train, loaded and checked against its
// model: every finalized point has its networks, of the shapes the model
// implies.
type Run struct {
	Dir     string
	Results *learn.Results
	Gauss   *gauss.Model // when Results.Model is "gauss"
	Binary  *mip.Binary  // when Results.Model is "binary"
}

// Load reads DIR/results.json and DIR/model.json. Every error wraps ErrInput
// and names the file and what is wrong with it.
func Load(dir string) (*Run, error) {
	rb, err := readFile(filepath.Join(dir, learn.ResultsFile))
	if err != nil {
		return nil, err
	}
	mb, err := readFile(filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, err
	}
	run, err := Parse(rb, mb, filepath.Join(dir, learn.ResultsFile), filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, err
	}
	run.Dir = dir
	return run, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist (is this a results directory of mmds train?)", ErrInput, path)
		}
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrInput, path, maxFileBytes)
	}
	return b, nil
}

// Parse decodes and checks the contents of results.json and model.json;
// resultsName and modelName label them in errors. Every error wraps ErrInput.
func Parse(results, model []byte, resultsName, modelName string) (*Run, error) {
	bad := func(file, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrInput, file, fmt.Sprintf(format, args...))
	}
	var res learn.Results
	dec := json.NewDecoder(bytes.NewReader(results))
	if err := dec.Decode(&res); err != nil {
		return nil, bad(resultsName, "not a valid results file: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(resultsName, "unexpected data after the JSON object")
	}
	run := &Run{Results: &res}
	var k int // adversaries
	switch res.Model {
	case learn.Gauss:
		c, err := gauss.ParseConfig(bytes.NewReader(model))
		if err == nil {
			run.Gauss, err = gauss.New(c)
		}
		if err != nil {
			return nil, bad(modelName, "%s says the model is %q, but this is not a valid gauss model: %v", filepath.Base(resultsName), res.Model, err)
		}
		k = run.Gauss.K()
	case learn.Binary:
		b, err := mip.ParseBinaryConfig(bytes.NewReader(model))
		if err != nil {
			return nil, bad(modelName, "%s says the model is %q, but this is not a valid binary model: %v", filepath.Base(resultsName), res.Model, err)
		}
		run.Binary = &b
		k = len(b.QZ)
	default:
		return nil, bad(resultsName, "\"model\" = %q: want %q or %q", res.Model, learn.Gauss, learn.Binary)
	}
	if err := run.check(k); err != nil {
		return nil, bad(resultsName, "%v", err)
	}
	return run, nil
}

// check validates the results against a model with k adversaries.
func (run *Run) check(k int) error {
	res := run.Results
	c := &res.Config
	if len(res.Points) == 0 {
		return fmt.Errorf("\"points\" is empty: nothing to verify")
	}
	if c.TestSize < 1 {
		return fmt.Errorf("config.test_size = %d: must be ≥ 1", c.TestSize)
	}
	if tau := c.Protocol.Tau; !(tau >= 0) || math.IsInf(tau, 0) {
		return fmt.Errorf("config.protocol.tau = %v: must be finite and ≥ 0", tau)
	}
	for i := range res.Points {
		p := &res.Points[i]
		where := fmt.Sprintf("points[%d] (D = %v)", i, p.D)
		if !finite(p.D) || p.D < 0 {
			return fmt.Errorf("%s: D must be finite and ≥ 0", where)
		}
		if !p.Finalized {
			continue
		}
		if p.ReconLoss == nil || !finite(*p.ReconLoss) {
			return fmt.Errorf("%s: finalized but recon_loss is missing or not finite", where)
		}
		if len(p.AdvLoss) != k {
			return fmt.Errorf("%s: adv_loss has %d entries, but the model has %d adversaries", where, len(p.AdvLoss), k)
		}
		for j, a := range p.AdvLoss {
			if !finite(a) {
				return fmt.Errorf("%s: adv_loss[%d] is not finite", where, j)
			}
		}
		if run.Binary != nil && p.AdvHard != nil && len(p.AdvHard) != k {
			return fmt.Errorf("%s: adv_hard has %d entries, but the model has %d adversaries", where, len(p.AdvHard), k)
		}
		if err := run.checkNetworks(p.Networks, k); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// checkNetworks checks a finalized point's networks: privatizer,
// reconstructor, adversary_1..k, with the input widths and output activation
// the model implies and finite weights.
func (run *Run) checkNetworks(nets []learn.Network, k int) error {
	if len(nets) != 2+k {
		return fmt.Errorf("has %d networks, want %d (privatizer, reconstructor, %d adversaries)", len(nets), 2+k, k)
	}
	act := learn.Identity
	if run.Binary != nil {
		act = learn.Sigmoid
	}
	for i := range nets {
		n := &nets[i]
		role, in := "privatizer", 2
		switch {
		case i == 1:
			role, in = "reconstructor", 1+run.sideWidth(-1)
		case i >= 2:
			role, in = fmt.Sprintf("adversary_%d", i-1), 1+run.sideWidth(i-2)
		}
		if n.Role != role {
			return fmt.Errorf("networks[%d] has role %q, want %q", i, n.Role, role)
		}
		m, err := n.MLP()
		if err != nil {
			return fmt.Errorf("networks[%d] (%s): %w", i, role, err)
		}
		if m.In != in {
			return fmt.Errorf("networks[%d] (%s) has %d inputs, but the model gives it %d", i, role, m.In, in)
		}
		if m.Out != act {
			return fmt.Errorf("networks[%d] (%s) has output activation %s, but the %s model's networks use %s", i, role, m.Out, run.Results.Model, act)
		}
		for j, v := range m.Params {
			if !finite(v) {
				return fmt.Errorf("networks[%d] (%s): weight %d is %v (null in the file: a diverged trial?)", i, role, j, v)
			}
		}
	}
	return nil
}

// sideWidth is the number of side columns of the reconstructor (i < 0) or of
// adversary i.
func (run *Run) sideWidth(i int) int {
	if run.Binary != nil {
		return 1
	}
	if i < 0 {
		return len(run.Gauss.Reconstructor())
	}
	return len(run.Gauss.Adversary(i))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
