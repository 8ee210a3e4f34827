// Package model is mmds's one abstraction of a data model of Section II:
// the joint law of the private X, the reconstructor's side information Y
// and the adversaries' Z_1..Z_K, with the loss every observer is scored by.
// A model is a few small interfaces, each used where it is needed: Law (its
// kind, D_max, K and the paper's sweep of thresholds), Sides (the
// observers' side-information columns), Scale (the scale of its losses and
// a test split's standard errors), Sampler (joint draws), Encoder (its
// canonical --config encoding, whose SHA-256 binds a results directory to
// it), Optimizer (its reference optimum at a distortion D) and Certifier
// (the exact Bayes losses of a privatizer, package bayes). Model is all of
// them. A model knows nothing of training: package learn asks it for
// samples and for its law (the FiniteLaw and GaussLaw methods).
//
// Three kinds implement it:
//
//   - gauss: jointly Gaussian (X, Y, Z), MSE losses. The optimum is
//     Proposition 1, optimal among linear-Gaussian privatizers F = aX + bR,
//     bracketed over all privatizers by gauss's best achievable mechanism
//     and upper bound (docs/gauss.md).
//   - binary: binary X, Y, Z through binary symmetric channels, 0-1 losses.
//     The optimum is Proposition 2, exact over binary-output privatizers.
//   - finite: any finite alphabets and loss matrices (mip.Finite). The
//     optimum is mip's global LP over all privatizers. Its privatizers are
//     channels and categorical networks (CertifyFile, CertifyChannel);
//     Certify, for package bayes's form of k(x, r), reports ErrUnsupported.
package model

import (
	"context"
	"errors"
	"math/rand/v2"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/privatizer"
)

// ErrUnsupported reports an operation a model kind does not offer.
var ErrUnsupported = errors.New("model: not supported")

// configError is an error about a model file. It reads as the detail alone,
// since the caller names the file (a chain of prefixes such as "model:
// invalid configuration: " helps no one), and it matches ErrConfig.
type configError struct{ err error }

func (e *configError) Error() string   { return e.err.Error() }
func (e *configError) Unwrap() []error { return []error{ErrConfig, e.err} }

// Law is a data model's joint law as every consumer names it.
type Law interface {
	Kind() Kind
	// DMax is the reconstructor's Bayes loss from its side information
	// alone: above it the distortion constraint is slack.
	DMax() float64
	// Adversaries is K.
	Adversaries() int
	// DefaultSweep is the paper's grid of thresholds for the model.
	DefaultSweep() sweep.Spec
}

// Sides describes the observers' side information.
type Sides interface {
	// SideWidths are the numbers of side-information columns of the
	// reconstructor (first) and of each adversary: the networks of
	// Algorithm 1 take f and these columns.
	SideWidths() []int
	// SideNames are the names of observer i's side-information columns
	// (0: the reconstructor, i ≥ 1: adversary i) when the model's file
	// names them (the Gaussian model's variables), else nil.
	SideNames(i int) []string
}

// Scale is the scale of a model's losses, for tolerances.
type Scale interface {
	// LossScale is the scale of the model's losses (Var[X] for MSE, 1 for
	// 0-1 losses): absolute tolerances are multiples of it.
	LossScale() float64
	// StdErr is the standard error of a test-split estimate of a loss whose
	// true value is l, from n rows.
	StdErr(l float64, n int) float64
}

// Sampler draws joint samples.
type Sampler interface {
	// Sample draws n joint samples from rng (bit-identical for a seeded
	// rng) as columns: the private x, the reconstructor's side columns y
	// and adversary i's columns z[i].
	Sample(rng *rand.Rand, n int) (x []float64, y [][]float64, z [][][]float64)
}

// Encoder is a model's canonical encoding.
type Encoder interface {
	// Encode returns the canonical JSON encoding of the model in its
	// --config format. Equal models encode to equal bytes.
	Encode() ([]byte, error)
}

// Optimizer is a model's reference optimum.
type Optimizer interface {
	// Optimum is the reference optimum at threshold d ≥ 0.
	Optimum(ctx context.Context, d float64, o Options) (Optimum, error)
	// Describe says in words what StdErr and Optimum compute and which
	// optimum a verdict is set against, for reports.
	Describe() Description
}

// Certifier computes the exact Bayes losses of privatizers.
type Certifier interface {
	// Certify computes the exact Bayes losses of a privatizer network
	// trained by Algorithm 1 (package bayes's form of k(x, r)), stopped
	// by ctx (the Gaussian analysis takes seconds).
	Certify(ctx context.Context, k bayes.Privatizer, o Options) (Analysis, error)
	// CheckPrivatizer reports, before any work, a privatizer file that
	// cannot fit the model (a channel whose rows are not the values of X,
	// a channel on the Gaussian model): an error wrapping
	// privatizer.ErrInput.
	CheckPrivatizer(f privatizer.File) error
	// CertifyFile computes the exact Bayes losses of a privatizer trained
	// anywhere (package privatizer: a channel P(F | X), or a network
	// k(x, r) from the JSON layout or ONNX); see each kind's method.
	CertifyFile(ctx context.Context, f privatizer.File, o Options) (Analysis, error)
}

// Model is a data model of Section II: every small interface at once.
// Implementations are immutable and safe for concurrent use.
type Model interface {
	Law
	Sides
	Scale
	Sampler
	Encoder
	Optimizer
	Certifier
}

// KnownMechanisms is implemented by a model whose optimum over all
// privatizers is open (the Gaussian one): beside its reference optimum it
// knows mechanisms that may beat it, and a learned privatizer is a finding
// only when it beats the best of them.
type KnownMechanisms interface {
	// BestKnown is the best mechanism the model knows at threshold d ≥ 0,
	// with an absolute bound on its losses' error: the closed forms and
	// the committed mechanisms, and, with search, the kernel search at d
	// (seconds).
	BestKnown(ctx context.Context, d float64, search bool) (gauss.Known, error)
}

// Options hold the numerical settings of Optimum and Certify; the zero
// value means the defaults.
type Options struct {
	Solver *mip.SolverOptions // HiGHS settings; nil: mip.DefaultSolver()
	Gauss  bayes.GaussQuad
	// GaussOptimum, when set, runs the optimum search over posteriors at
	// the threshold of a Gaussian model's Optimum: its certified mechanism
	// joins the best achievable when better, and its numerical estimate is
	// reported (seconds per threshold; gauss.OptimumSearcher).
	GaussOptimum *gauss.OptimumSearch
	Binary       bayes.BinaryQuad
	// ExpectTol is the error bound CertifyFile computes a network's
	// expectations E_R[k(x, R)] to on binary and finite models; 0 means
	// privatizer.DefaultTol.
	ExpectTol float64
	// Witness asks Optimum for the witness of each optimum of a binary or
	// finite model (Optimum.Witness): more LPs, the same optimum.
	Witness bool
}

func (o Options) expectTol() float64 {
	if o.ExpectTol > 0 {
		return o.ExpectTol
	}
	return privatizer.DefaultTol
}

// rounding returns sup δ, the largest forward error bound k collected
// during an analysis (0 for a privatizer that is not a network); an
// evaluation beyond the precision's range is its error (wrapping
// network.ErrPrecision).
func rounding(k bayes.Privatizer) (float64, error) {
	if k.Rounding == nil {
		return 0, nil
	}
	return k.Rounding.Sup()
}

func (o Options) solver() mip.SolverOptions {
	if o.Solver != nil {
		return *o.Solver
	}
	return mip.DefaultSolver()
}

// Analysis is the exact analysis of a privatizer on a model: what a
// verify.Certificate (the one certificate type, a file) states of one point.
type Analysis struct {
	// The Bayes losses of the reconstructor and of every adversary for the
	// privatizer itself. Where the error is a proven bound (a network's
	// rows on a binary or finite model, a channel's renormalization, the
	// Gaussian intervals) they are the ends of Interval a verdict must
	// assume (loss.Intervals.SoundEnds); a refinement change (a cell
	// kernel's orders, the binary quadrature of an analytic privatizer) is
	// an estimate and moves nothing.
	loss.Losses
	// Interval holds each loss's interval: proven where Change is a bound,
	// the estimate's interval otherwise.
	Interval loss.Intervals `json:"interval"`
	// Change is the analysis's stated error (relative for Gaussian
	// losses and cell kernels, absolute otherwise): the number a verdict
	// compares with its stated-error limit.
	Change float64 `json:"change"`
	// Rounding is the part of Change that the runtime's rounding accounts
	// for (the network's precision, float32 or float64; 0 for channels).
	Rounding float64 `json:"rounding,omitempty"`
	// Gauss and Binary are the model-specific details.
	Gauss  *bayes.GaussAnalysis  `json:"gauss,omitempty"`
	Binary *bayes.BinaryAnalysis `json:"binary,omitempty"`
	// Witness proves a network's channel to a checker (Options.Witness;
	// networks with one output on binary and finite models).
	Witness *privatizer.NetworkWitness `json:"-"`
}

// bounded returns the analysis of losses l known to within e
// (absolute) on the finite model f: the intervals [l − e, l + e], their
// upper ends at most each observer's loss without the release (a Bayes loss
// only falls with more information), their sound ends, and Change e.
func bounded(f mip.Finite, l loss.Losses, e float64) Analysis {
	iv := loss.Around(l, e).Within(noRelease(f))
	return Analysis{Losses: iv.SoundEnds(), Interval: iv, Change: e}
}

// noRelease returns the Bayes losses on f of a release that says nothing
// (one output): each observer's loss from its side information alone.
func noRelease(f mip.Finite) loss.Losses {
	p := make(mip.Mechanism, f.N())
	for x := range p {
		p[x] = []float64{1}
	}
	return loss.New(f.ReconLoss(p), f.AdvLosses(p))
}

// Hash returns the hex SHA-256 of m's canonical encoding: the identity a
// results directory and a certificate bind to.
func Hash(m Encoder) (string, error) {
	b, err := m.Encode()
	if err != nil {
		return "", err
	}
	return safefile.SHA256(b), nil
}
