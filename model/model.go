// Package model is mmds's one abstraction of a data model of Section II: the
// joint law of the private X, the reconstructor's side information Y and the
// adversaries' Z_1..Z_K, with the loss every observer is scored by. A Model
// knows its kind, its D_max (the reconstructor's loss from Y alone), its
// default sweep of thresholds, how to draw a dataset for Algorithm 1, its
// canonical encoding (the --config format, whose SHA-256 binds a results
// directory to it), its reference optimum at a distortion D, and how to
// certify a learned privatizer k(x, r) with exact Bayes losses (package
// bayes).
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
//     optimum is mip's global LP over all privatizers. Algorithm 1 does not
//     train finite models (learn's labels method does), so Certify reports
//     ErrUnsupported; a channel privatizer is certified by CertifyChannel.
package model

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
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

// Model is a data model of Section II. Implementations are immutable and
// safe for concurrent use.
type Model interface {
	Kind() Kind
	// DMax is the reconstructor's Bayes loss from its side information
	// alone: above it the distortion constraint is slack.
	DMax() float64
	// Adversaries is K.
	Adversaries() int
	// SideWidths are the numbers of side-information columns of the
	// reconstructor (first) and of each adversary: the networks of
	// Algorithm 1 take f and these columns.
	SideWidths() []int
	// DefaultSweep is the paper's grid of thresholds for the model.
	DefaultSweep() sweep.Spec
	// LossScale is the scale of the model's losses (Var[X] for MSE, 1 for
	// 0-1 losses): absolute tolerances are multiples of it.
	LossScale() float64
	// StdErr is the standard error of a test-split estimate of a loss whose
	// true value is l, from n rows.
	StdErr(l float64, n int) float64
	// Encode returns the canonical JSON encoding of the model in its
	// --config format. Equal models encode to equal bytes.
	Encode() ([]byte, error)
	// Dataset draws n samples for Algorithm 1.
	Dataset(rng *rand.Rand, n int) (*learn.Dataset, error)
	// SideNames are the names of observer i's side-information columns
	// (0: the reconstructor, i ≥ 1: adversary i) when the model's file
	// names them (the Gaussian model's variables), else nil.
	SideNames(i int) []string
	// Optimum is the reference optimum at threshold d ≥ 0.
	Optimum(ctx context.Context, d float64, o Options) (Optimum, error)
	// Describe says in words what StdErr and Optimum compute and which
	// optimum a verdict is set against, for reports.
	Describe() Description
	// Certify computes the exact Bayes losses of a privatizer network
	// trained by Algorithm 1 (package bayes's form of k(x, r)).
	Certify(k bayes.Privatizer, o Options) (Certificate, error)
	// CheckPrivatizer reports, before any work, a privatizer file that
	// cannot fit the model (a channel whose rows are not the values of X,
	// a channel on the Gaussian model): an error wrapping
	// privatizer.ErrInput.
	CheckPrivatizer(f privatizer.File) error
	// CertifyFile computes the exact Bayes losses of a privatizer trained
	// anywhere (package privatizer: a channel P(F | X), or a network
	// k(x, r) from the JSON layout or ONNX); see each kind's method.
	CertifyFile(ctx context.Context, f privatizer.File, o Options) (Certificate, error)
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
	Binary bayes.BinaryQuad
	// RoundingTol is the largest forward error bound sup δ (see
	// network.Network.EvalBound) a certificate accepts: absolute, on
	// P(F = 1 | x, r), for binary and finite models; relative to the
	// release's standard deviation √Var[F] for the Gaussian model. Above it
	// Certify returns an error wrapping network.ErrPrecision. 0 means
	// DefaultRoundingTol.
	RoundingTol float64
	// ExpectTol is the error bound CertifyFile computes a network's
	// expectations E_R[k(x, R)] to on binary and finite models; 0 means
	// privatizer.DefaultTol.
	ExpectTol float64
}

func (o Options) expectTol() float64 {
	if o.ExpectTol > 0 {
		return o.ExpectTol
	}
	return privatizer.DefaultTol
}

// DefaultRoundingTol is Options.RoundingTol's default: 1e-6.
const DefaultRoundingTol = 1e-6

func (o Options) roundingTol() float64 {
	if o.RoundingTol > 0 {
		return o.RoundingTol
	}
	return DefaultRoundingTol
}

// rounding checks the forward error bound k collected during a
// certificate against tol·scale and returns it (0 for a privatizer that is
// not a network).
func rounding(k bayes.Privatizer, tol, scale float64, what string) (float64, error) {
	if k.Rounding == nil {
		return 0, nil
	}
	d, err := k.Rounding.Sup()
	if err != nil {
		return 0, err
	}
	if !(d <= tol*scale) {
		return d, fmt.Errorf("%w: the runtime's outputs are within %.3g of the certified ones (forward error bound of the network's precision), above the tolerance %.3g %s", network.ErrPrecision, d, tol*scale, what)
	}
	return d, nil
}

func (o Options) solver() mip.SolverOptions {
	if o.Solver != nil {
		return *o.Solver
	}
	return mip.DefaultSolver()
}

// Certificate is the exact analysis of a privatizer on a model.
type Certificate struct {
	// The Bayes losses of the reconstructor and of every adversary for the
	// privatizer itself.
	loss.Losses
	// Change is the certificate's refinement change (relative for Gaussian
	// losses and cell kernels, absolute for the binary s0, s1, a network's
	// rows and a channel's renormalization): its measure of convergence.
	// Where the error is a proven bound (a network's rows on a binary or
	// finite model, a channel's renormalization, the Gaussian intervals)
	// the losses are the ends of their intervals a verdict must assume
	// (soundEnds); a refinement change (the binary quadrature of a trained
	// network, a cell kernel's orders) is an estimate and moves nothing.
	Change float64 `json:"change"`
	// Gauss and Binary are the model-specific details.
	Gauss  *bayes.GaussCertificate  `json:"gauss,omitempty"`
	Binary *bayes.BinaryCertificate `json:"binary,omitempty"`
}

// soundEnds moves losses known to within e (absolute) to the ends of their
// intervals a verdict must assume, as the Gaussian certificate's are
// (bayes.GaussCertificate): the reconstructor's loss, the certified
// distortion D̂, up by e, and every adversary's down by e (not below 0).
// The band's upper end, the gap and the optimum at D̂ (increasing in D)
// are then judged on the side that cannot flatter the privatizer.
func soundEnds(l loss.Losses, e float64) loss.Losses {
	if !(e > 0) {
		return l
	}
	adv := make([]float64, len(l.Adv))
	for i, v := range l.Adv {
		adv[i] = max(v-e, 0)
	}
	return loss.New(l.Recon+e, adv)
}

// Hash returns the hex SHA-256 of m's canonical encoding: the identity a
// results directory and a certificate bind to.
func Hash(m Model) (string, error) {
	b, err := m.Encode()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
