package learn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"math"
	"path/filepath"
	"runtime"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model/kind"
)

// Config is everything a sweep needs besides the data. Start from Preset and
// set D, DMax and Seed; the zero value of an optional field means the default
// stated beside it.
type Config struct {
	// Model is the data model's kind, which fixes the losses, the
	// privatizer's output and how f reaches the other networks (Section
	// V-A, V-B; on a finite model Algorithm 1 releases one of m labels).
	Model kind.Kind `json:"model"`
	// ModelSHA256 is the hash of the model's canonical encoding (package
	// model), which binds the run to the model file of its results
	// directory; "" when the caller has none.
	ModelSHA256 string `json:"model_sha256"`

	// D are the distortion thresholds, strictly increasing, each ≥ 0.
	D []float64 `json:"d"`
	// DMax is the distortion reachable from the side information alone
	// (Var[X|Y] for the Gaussian model, q_y for the binary one), > 0. It
	// sets the default Tau and the binary learning-rate schedule.
	DMax float64 `json:"d_max"`

	// Networks and minibatches.
	Hidden          int `json:"hidden"`            // hidden ReLU units per network (paper: 50)
	BatchSize       int `json:"batch_size"`        // M (paper: 200)
	BatchesPerEpoch int `json:"batches_per_epoch"` // 0: TrainSize / BatchSize, one pass over the training split
	Epochs          int `json:"epochs"`            // T (paper: 1000)
	TrainSize       int `json:"train_size"`        // 0: 5/6 of the rows (10,000 of 12,000 as in the paper)
	TestSize        int `json:"test_size"`         // 0: the rest of the rows

	// Algorithm 1.
	Rho       float64 `json:"rho"`       // penalty weight ρ > 0 of eq. (priv_loss) (Gaussian 1000, binary 1)
	Optimizer Method  `json:"optimizer"` // Adam (Gaussian) or RAdam (binary)
	LR        float64 `json:"lr"`        // base learning rate η0 > 0 (Gaussian 0.001, binary 0.01)
	// PrivLRMult, ReconLRMult and AdvLRMult scale the learning rate of the
	// privatizer, the reconstructor and every adversary (binary: 5, 2, 1;
	// Gaussian: 1, 1, 1); each > 0.
	PrivLRMult  float64 `json:"priv_lr_mult"`
	ReconLRMult float64 `json:"recon_lr_mult"`
	AdvLRMult   float64 `json:"adv_lr_mult"`
	// LRGamma is γ of the schedule η(D) = η0 (1 + γ D/DMax) (binary −0.98,
	// Gaussian 0); 1 + γ D/DMax must stay > 0 for every D.
	LRGamma float64 `json:"lr_gamma"`
	// PrivGrad is how the binary privatizer's step differentiates through
	// the release F ~ Bernoulli(p̂): PrivGradSampled (Section V-B, the
	// zero value, not written) or PrivGradExpect (binary model only).
	PrivGrad PrivGrad `json:"priv_grad,omitempty"`
	// EstLoss is the loss the binary reconstructor and adversaries train
	// with: EstLossSoft (Section V-B's soft 0-1 loss, the zero value, not
	// written) or EstLossLog (binary model only).
	EstLoss EstLoss `json:"est_loss,omitempty"`
	// Outputs is m, the size of the release's alphabet of Algorithm 1 on
	// a finite model (F ~ Categorical over m labels); 0 there is |X|, and
	// it is 0 on every other model.
	Outputs int `json:"outputs,omitempty"`

	// The selection protocol of Section V.
	Protocol Protocol `json:"protocol"`

	// Method is how the privatizer is trained: Algorithm 1 (the zero
	// value, not written to results.json) or the labels method, whose
	// settings are Labels (nil for Algorithm 1).
	Method TrainMethod  `json:"method,omitempty"`
	Labels *LabelConfig `json:"labels,omitempty"`
	// Law is the finite model's joint law (a binary model's as
	// mip.Binary.Finite) for the labels method's exact
	// Bayes observers (LabelConfig.Observers = ObserversLaw), and the
	// source of the observers' losses of Algorithm 1 on a finite model
	// (finiteLoss; nil: 0-1). It is bound through ModelSHA256 and the
	// fingerprint, not written.
	Law *mip.Finite `json:"-"`
	// Cells gives the labels method on the Gaussian model its grids of
	// cells and exact MMSE observers (LabelConfig.CellWidth sets the
	// grid). It is bound through ModelSHA256, the cell width and the
	// recorded edges, not written.
	Cells CellLaw `json:"-"`

	// Running.
	Seed    uint64 `json:"seed"` // master seed; every trial's seed derives from it (TrialSeed)
	Workers int    `json:"-"`    // 0: runtime.GOMAXPROCS(0)
	Dir     string `json:"-"`    // results directory; "" writes nothing and resumes nothing
	// Shard restricts the run to the thresholds one shard owns (see
	// cluster.Shard.Owns); the zero value is the whole run. Requires Dir.
	Shard    cluster.Shard  `json:"-"`
	Progress func(Progress) `json:"-"`
}

// Protocol holds the selection protocol's parameters (Section V); a
// Selector applies the protocol at one threshold D.
type Protocol struct {
	K           int     `json:"k"`            // epochs kept per trial (paper: 5)
	Tau         float64 `json:"tau"`          // eligibility band [D−τ, D]; 0: (DMax − D[0]) / (2·len(D))
	Accept      int     `json:"accept"`       // accepted trials per D (paper: 15)
	MaxAttempts int     `json:"max_attempts"` // cap on trials per D; 0: 10·Accept
	// Select names the test-split losses the protocol selects on:
	// SelectTraining (the paper, the zero value, not written) or
	// SelectHard (binary model only).
	Select SelectLosses `json:"select,omitempty"`
	// Finalize is how a threshold's point is chosen: FinalizeMedian
	// (Section V, the zero value, not written) or FinalizeBest.
	Finalize FinalizeRule `json:"finalize,omitempty"`
}

// PresetName names a preset: a training budget and the size of the
// default grid of thresholds (PresetPoints). The zero value is no preset.
type PresetName int

// The presets.
const (
	PresetPaper PresetName = iota + 1 // Section V: T = 1000 epochs, 15 accepted trials, 30 values of D
	PresetQuick                       // seconds per D value, 4 values of D
)

// ErrPreset is wrapped by every error about a preset's name.
var ErrPreset = errors.New("learn: unknown preset")

var presetText = enum.Text[PresetName]{Type: "PresetName", Names: []string{PresetPaper: "paper", PresetQuick: "quick"},
	BadValue: enum.IntError[PresetName](ErrPreset), BadText: quotedWant(ErrPreset)}

// String returns the preset's name: "paper" or "quick".
func (p PresetName) String() string { return presetText.String(p) }

// DefaultDir is the results directory of a run of p on what (a model
// kind, or "data") when none is given: results/train-WHAT-PRESET.
func (p PresetName) DefaultDir(what string) string {
	return filepath.Join("results", "train-"+what+"-"+p.String())
}

// ParsePreset returns the preset named s; an unknown name is an error
// wrapping ErrPreset.
func ParsePreset(s string) (PresetName, error) { return presetText.Parse(s) }

// MarshalText implements encoding.TextMarshaler.
func (p PresetName) MarshalText() ([]byte, error) { return presetText.Marshal(p) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (p *PresetName) UnmarshalText(b []byte) error { return presetText.Unmarshal(p, b) }

// Preset returns the configuration named "paper" (Section V's
// hyper-parameters, T = 1000 epochs, 15 accepted trials per D) or "quick"
// (seconds per D value: for the Gaussian model the same losses and
// optimizers with 25 epochs, 2 accepted trials, at most 4 attempts per D; for
// the binary model 50 epochs, 5 accepted of at most 20, and the departures
// named below) for model. D and DMax are left for the
// caller (the paper sweeps 30 values; PresetPoints).
func Preset(name PresetName, model kind.Kind) (Config, error) {
	return PresetFor(name, model, MethodAlg1, 0)
}

// PresetFor is Preset for a training method: MethodAlg1 is Preset's
// configuration; MethodLabels keeps the preset's grid of thresholds and
// replaces the training with the labels method's (labels: the codebook
// size, 0 for DefaultLabels), its budget set by the preset (quick: 60
// epochs, 8 restarts per D; paper: 150 epochs, 16 restarts), finalizing
// the best restart (FinalizeBest). Algorithm 1 on a finite model is
// Section V-B's optimization with a release of m labels (finiteTrainer).
func PresetFor(name PresetName, model kind.Kind, method TrainMethod, labels int) (Config, error) {
	if method == MethodLabels {
		return labelsPreset(name, model, labels)
	}
	if method != MethodAlg1 {
		return Config{}, fmt.Errorf("%w: %v", ErrMethod, method)
	}
	c, ok := alg1Preset(model)
	switch {
	case !model.Valid(), !ok:
		return Config{}, fmt.Errorf("learn: model %q: must be %s", model, kind.Want(true))
	}
	c.Hidden, c.BatchSize = 50, 200
	switch name {
	case PresetPaper:
		c.Epochs = 1000
		c.Protocol = Protocol{K: 5, Accept: 15, MaxAttempts: 150}
	case PresetQuick:
		c.Epochs = 25
		c.Protocol = Protocol{K: 5, Accept: 2, MaxAttempts: 4}
		if c.Model.FiniteX() {
			// Departures from Section V-B, each needed at this budget
			// (docs/learn.md, "The quick preset"): a few epochs leave the
			// soft-0-1-trained estimators far from the MAP rule, and the
			// sampled release gives the privatizer no adversarial gradient,
			// so at D_max it stops at any privatizer the reconstructor
			// ignores. Hence: log-loss estimators (posteriors), the exact
			// expectation over F (a gradient of the objective itself), an
			// exact penalty (ρ/2 = 10 above the trade-off curve's steepest
			// slope, about 5), a constant rate, selection on 0-1 errors
			// and 5 accepted trials so that the median means something.
			c.Epochs = 50
			c.Protocol = Protocol{K: 5, Accept: 5, MaxAttempts: 20, Select: SelectHard}
			c.LRGamma = 0
			c.PrivGrad, c.EstLoss, c.Rho = PrivGradExpect, EstLossLog, 20
		}
	default:
		return Config{}, presetText.BadValue(name)
	}
	return c, nil
}

// alg1Preset returns Section V's optimization of Algorithm 1 on kind k
// (V-A: Gaussian, V-B: binary); ok is false for a kind Algorithm 1 does
// not train.
func alg1Preset(k kind.Kind) (c Config, ok bool) {
	c, ok = map[kind.Kind]Config{
		kind.Gauss: {Model: kind.Gauss, Rho: 1000, Optimizer: Adam, LR: 0.001,
			PrivLRMult: 1, ReconLRMult: 1, AdvLRMult: 1},
		kind.Binary: {Model: kind.Binary, Rho: 1, Optimizer: RAdam, LR: 0.01,
			PrivLRMult: 5, ReconLRMult: 2, AdvLRMult: 1, LRGamma: -0.98},
		// Section V-B's optimization with |X| = n (finiteTrainer).
		kind.Finite: {Model: kind.Finite, Rho: 1, Optimizer: RAdam, LR: 0.01,
			PrivLRMult: 5, ReconLRMult: 2, AdvLRMult: 1, LRGamma: -0.98, PrivGrad: PrivGradExpect},
	}[k]
	return c, ok
}

// Trains reports whether method m trains models of kind k: both methods
// every kind (Algorithm 1 on a finite model releases one of m labels).
func (m TrainMethod) Trains(k kind.Kind) bool {
	if m == MethodAlg1 {
		_, ok := alg1Preset(k)
		return ok
	}
	return m == MethodLabels && k.Valid()
}

// PresetPoints is the number of D values a preset sweeps: 30 for
// PresetPaper (Section V), 4 for PresetQuick; 0 for no preset.
func PresetPoints(name PresetName) int {
	switch name {
	case PresetPaper:
		return 30
	case PresetQuick:
		return 4
	}
	return 0
}

// ErrConfig is matched by every error of Sweep and NewTrainer about their
// Config: a field out of its range, checked before any work.
var ErrConfig = errors.New("learn: invalid configuration")

// markedError reads as its causes alone and matches the sentinel mark
// (ErrConfig, ErrTrain) and each cause.
type markedError struct{ mark, err error }

func (e *markedError) Error() string   { return e.err.Error() }
func (e *markedError) Unwrap() []error { return []error{e.mark, e.err} }

// resolve validates c against a dataset of n rows and returns a copy with
// the defaults filled in; the error matches ErrConfig.
func (c Config) resolve(n int) (Config, error) {
	if !c.Model.Valid() {
		return c, &markedError{ErrConfig, fmt.Errorf("learn: Config.Model %q: must be %s", c.Model, kind.Want(true))}
	}
	if c.Optimizer != Adam && c.Optimizer != RAdam {
		return c, &markedError{ErrConfig, fmt.Errorf("learn: Config.Optimizer %q: must be %q or %q", c.Optimizer, Adam, RAdam)}
	}
	if c.TrainSize == 0 && c.TestSize == 0 {
		c.TrainSize = n * 5 / 6
	}
	if c.TestSize == 0 {
		c.TestSize = n - c.TrainSize
	}
	if c.BatchSize == 0 {
		c.BatchSize = 200
	}
	if c.Hidden == 0 {
		c.Hidden = 50
	}
	if c.BatchesPerEpoch == 0 && c.BatchSize > 0 {
		c.BatchesPerEpoch = c.TrainSize / c.BatchSize
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	p := &c.Protocol
	if p.MaxAttempts == 0 {
		p.MaxAttempts = 10 * p.Accept
	}
	if p.Tau == 0 && len(c.D) > 0 {
		p.Tau = (c.DMax - c.D[0]) / float64(2*len(c.D))
	}
	return c, c.validate(n)
}

// problems collects a configuration's problems, each a "learn: " message.
type problems []error

func (p *problems) add(format string, args ...any) {
	*p = append(*p, fmt.Errorf("learn: "+format, args...))
}

// finite adds a problem unless v is finite and > 0 (≥ 0 when zero).
func (p *problems) finite(name string, v float64, zero bool) {
	switch {
	case zero && (!(v >= 0) || math.IsInf(v, 0)):
		p.add("%s = %g: must be finite and ≥ 0", name, v)
	case !zero && (!(v > 0) || math.IsInf(v, 0)):
		p.add("%s = %g: must be finite and > 0", name, v)
	}
}

// positive adds a problem unless the count v is ≥ 1.
func (p *problems) positive(name string, v int) {
	if v < 1 {
		p.add("%s = %d: must be ≥ 1", name, v)
	}
}

func (c *Config) validate(n int) error {
	var errs problems
	bad := errs.add
	if len(c.D) == 0 {
		bad("Config.D is empty: give at least one distortion threshold")
	}
	for i, d := range c.D {
		errs.finite(fmt.Sprintf("Config.D[%d]", i), d, true)
		if i > 0 && !(d > c.D[i-1]) {
			bad("Config.D[%d] = %g: thresholds must be strictly increasing", i, d)
		}
	}
	errs.finite("Config.DMax", c.DMax, false)
	errs.positive("Config.Hidden", c.Hidden)
	if c.TrainSize < 1 || c.TestSize < 1 || c.TrainSize+c.TestSize > n {
		bad("Config.TrainSize = %d, TestSize = %d: need both ≥ 1 and their sum ≤ %d rows", c.TrainSize, c.TestSize, n)
	}
	if c.BatchSize < 1 || c.BatchSize > c.TrainSize {
		bad("Config.BatchSize = %d: must be in [1, TrainSize = %d]", c.BatchSize, c.TrainSize)
	}
	errs.positive("Config.BatchesPerEpoch", c.BatchesPerEpoch)
	errs.positive("Config.Epochs", c.Epochs)
	errs.finite("Config.Rho", c.Rho, false)
	errs.finite("Config.LR", c.LR, false)
	errs.finite("Config.PrivLRMult", c.PrivLRMult, false)
	errs.finite("Config.ReconLRMult", c.ReconLRMult, false)
	errs.finite("Config.AdvLRMult", c.AdvLRMult, false)
	if math.IsNaN(c.LRGamma) || math.IsInf(c.LRGamma, 0) {
		bad("Config.LRGamma = %g: must be finite", c.LRGamma)
	} else if c.DMax > 0 {
		for _, d := range c.D {
			if !(1+c.LRGamma*d/c.DMax > 0) {
				bad("Config.LRGamma = %g: η(D) = η0(1 + γD/DMax) must stay > 0, but is not at D = %g", c.LRGamma, d)
				break
			}
		}
	}
	if c.Shard.Sharded() && c.Dir == "" {
		bad("Config.Shard = %v: a sharded run needs a results directory (Config.Dir) that every shard shares", c.Shard)
	}
	if c.Workers < 1 {
		bad("Config.Workers = %d: must be ≥ 1 (0 for all cores)", c.Workers)
	}
	errs = append(errs, c.Protocol.validate()...)
	if c.PrivGrad != PrivGradSampled && (c.PrivGrad != PrivGradExpect || !c.Model.FiniteX()) {
		bad("Config.PrivGrad = %q: must be \"\" (Section V-B) or %q (binary and finite models only)", c.PrivGrad, PrivGradExpect)
	}
	if c.EstLoss != EstLossSoft && (c.EstLoss != EstLossLog || !c.Model.FiniteX()) {
		bad("Config.EstLoss = %q: must be \"\" (Section V-B) or %q (binary and finite models only)", c.EstLoss, EstLossLog)
	}
	errs = append(errs, c.validateFiniteAlg1()...)
	if c.Protocol.Select == SelectHard && !c.Model.FiniteX() {
		bad("Protocol.Select = %q: hard-decision errors exist for the binary model only", SelectHard)
	}
	errs = append(errs, c.validateMethod()...)
	if len(errs) == 0 {
		return nil
	}
	return &markedError{ErrConfig, errors.Join(errs...)}
}

func (p Protocol) validate() []error {
	var errs problems
	errs.positive("Protocol.K", p.K)
	if !(p.Tau > 0) || math.IsInf(p.Tau, 0) {
		errs.add("Protocol.Tau = %g: must be finite and > 0 (set it when D[0] = DMax)", p.Tau)
	}
	errs.positive("Protocol.Accept", p.Accept)
	if p.MaxAttempts < p.Accept {
		errs.add("Protocol.MaxAttempts = %d: must be ≥ Accept = %d", p.MaxAttempts, p.Accept)
	}
	if p.Finalize != FinalizeMedian && p.Finalize != FinalizeBest {
		errs.add("Protocol.Finalize = %q: must be \"\" (Section V) or %q", p.Finalize, FinalizeBest)
	}
	if p.Select != SelectTraining && p.Select != SelectHard {
		errs.add("Protocol.Select = %q: must be \"\" (the training losses) or %q", p.Select, SelectHard)
	}
	return errs
}

// binaryRelease reports whether the privatizer releases one bit
// (kind.Kind.BinaryRelease: the binary model, Section V-B).
func (c *Config) binaryRelease() bool { return c.Model.BinaryRelease() }

// penaltySlope is dL_priv/dL_recon = ρ/2 · sign(L_recon − D) for diff =
// L_recon − D: eq. (priv_loss)'s penalty ρ/2 |L_recon − D|, its derivative
// taken as 0 at L_recon = D, as autograd's derivative of ReLU at 0.
func (c *Config) penaltySlope(diff float64) float64 {
	switch {
	case diff > 0:
		return c.Rho / 2
	case diff < 0:
		return -c.Rho / 2
	}
	return 0
}

// learningRates returns the privatizer's, reconstructor's and adversaries'
// learning rates at threshold d: m · η0 (1 + γ d/DMax) (Section V-B; with
// γ = 0 and multipliers 1 this is the Gaussian model's single rate).
func (c *Config) learningRates(d float64) (priv, recon, adv float64) {
	eta := c.LR * (1 + c.LRGamma*d/c.DMax)
	return c.PrivLRMult * eta, c.ReconLRMult * eta, c.AdvLRMult * eta
}

// fingerprint is a digest of everything that determines a trial's outcome
// besides its indices: the training fields of c and the data.
func (c *Config) fingerprint(dataHash uint64) string {
	h := newDigest()
	h.str(c.Model.String())
	h.floats(c.D)
	h.floats([]float64{c.DMax, c.Rho, c.LR, c.PrivLRMult, c.ReconLRMult, c.AdvLRMult, c.LRGamma})
	h.ints(c.Hidden, c.BatchSize, c.BatchesPerEpoch, c.Epochs, c.TrainSize, c.TestSize)
	h.str(c.Optimizer.String())
	h.u64(c.Seed)
	h.u64(dataHash)
	if c.PrivGrad != PrivGradSampled || c.EstLoss != EstLossSoft {
		// Only when set, so that runs from before the fields existed resume.
		h.str(c.PrivGrad.String())
		h.str(c.EstLoss.String())
	}
	if c.Outputs != 0 {
		h.ints(c.Outputs) // only when set: older runs resume
	}
	if c.Method == MethodAlg1 && c.Law != nil && !zeroOneLaw(c.Law) {
		// Algorithm 1's observers train on these losses; only when one is
		// not 0-1, so that runs from before they did resume.
		h.str("losses")
		for _, o := range c.Law.Observers() {
			h.u64(uint64(len(o.Loss)))
			for _, row := range o.Loss {
				h.floats(row)
			}
		}
	}
	if c.Method != MethodAlg1 {
		h.str(c.Method.String())
		if l := c.Labels; l != nil {
			h.ints(l.M, int(l.Observers), l.StepsPerEpoch)
			h.floats([]float64{l.Anneal, l.Margin, l.InitScale, l.AdvTemp, l.Prune, c.Protocol.Tau})
			if l.CellWidth != 0 {
				h.floats([]float64{l.CellWidth})
			}
			if l.Reveal {
				h.str("reveal") // only when set: older runs resume
			}
			if f := l.Fine; f != nil {
				h.str("fine") // only when set: older runs resume
				h.floats([]float64{f.Floor, f.Span, f.Periods[0], f.Periods[1]})
				h.ints(f.MaxCells)
			}
		}
		if c.Law != nil {
			h.floats(c.Law.Prior)
			for _, o := range c.Law.Observers() {
				for _, row := range o.Channel {
					h.floats(row)
				}
				h.u64(uint64(len(o.Loss)))
				for _, row := range o.Loss {
					h.floats(row)
				}
			}
		}
	}
	return fmt.Sprintf("%016x", h.sum())
}

// digest feeds integers, floats and strings to 64-bit FNV-1a (hash/fnv)
// as little-endian 8-byte words, a string as its length and its bytes.
type digest struct {
	h   hash.Hash64
	buf []byte
}

func newDigest() *digest { return &digest{h: fnv.New64a()} }

func (d *digest) u64(x uint64) {
	d.buf = binary.LittleEndian.AppendUint64(d.buf[:0], x)
	d.h.Write(d.buf)
}

func (d *digest) floats(xs []float64) {
	d.buf = binary.LittleEndian.AppendUint64(d.buf[:0], uint64(len(xs)))
	for _, x := range xs {
		d.buf = binary.LittleEndian.AppendUint64(d.buf, math.Float64bits(x))
	}
	d.h.Write(d.buf)
}

func (d *digest) ints(xs ...int) {
	for _, x := range xs {
		d.u64(uint64(x))
	}
}

func (d *digest) str(s string) {
	d.u64(uint64(len(s)))
	io.WriteString(d.h, s)
}

func (d *digest) sum() uint64 { return d.h.Sum64() }

// DefaultTau is the selection band width Section V uses: half the step of
// the threshold grid, (D_max − D[0])/(2·len(D)). A grid without a step (one
// threshold, or D[0] ≥ D_max) takes half the step of the paper's grid for
// the model, (paper.D1 − paper.D0)/(2·paper.N).
func DefaultTau(d []float64, dmax float64, paper sweep.Spec) float64 {
	if len(d) > 1 && d[0] < dmax {
		return (dmax - d[0]) / float64(2*len(d))
	}
	return (paper.D1 - paper.D0) / float64(2*max(paper.N, 1))
}
