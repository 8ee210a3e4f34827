package learn

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrOption is wrapped by every error about the value of one of Config's
// options with a fixed set of values (Optimizer, PrivGrad, EstLoss,
// Protocol.Select, Protocol.Finalize).
var ErrOption = errors.New("learn: unknown option value")

// optionText is the text form of the option whose results.json field is
// field: its zero value, the paper's default, is written "" (enum.Text.Empty)
// and omitted by omitempty, so that configurations from before the option
// existed keep their bytes and hashes.
func optionText[T ~int](typ, field string, names []string) enum.Text[T] {
	return enum.Text[T]{Type: typ, Names: names, Empty: true, BadValue: enum.IntError[T](ErrOption),
		BadText: func(b []byte, want string) error {
			return fmt.Errorf("%w: %s %s: want %s", ErrOption, field, safefile.Excerpt(string(b)), want)
		}}
}

// PrivGrad is how the binary privatizer's step differentiates through the
// release F ~ Bernoulli(p̂) (Config.PrivGrad).
type PrivGrad int

const (
	// PrivGradSampled is Section V-B's practical compromise: the
	// reconstructor receives p̂, the adversaries a sampled f, so the
	// adversarial term gives no gradient. Written "".
	PrivGradSampled PrivGrad = iota
	// PrivGradExpect differentiates the binary privatizer's loss through
	// the exact expectation over its one-bit release: every loss is
	// p̂·ℓ(x, ·(1, ·)) + (1 − p̂)·ℓ(x, ·(0, ·)), differentiable in p̂
	// (docs/learn.md). Written "expect".
	PrivGradExpect
)

var privGradText = optionText[PrivGrad]("PrivGrad", "priv_grad", []string{PrivGradExpect: "expect"})

// String returns "" (PrivGradSampled) or "expect".
func (g PrivGrad) String() string { return privGradText.String(g) }

// MarshalText implements encoding.TextMarshaler.
func (g PrivGrad) MarshalText() ([]byte, error) { return privGradText.Marshal(g) }

// UnmarshalText implements encoding.TextUnmarshaler; an unknown name is an
// error wrapping ErrOption.
func (g *PrivGrad) UnmarshalText(b []byte) error { return privGradText.Unmarshal(g, b) }

// EstLoss is the loss the binary reconstructor and adversaries train with
// (Config.EstLoss).
type EstLoss int

const (
	// EstLossSoft is Section V-B's soft 0-1 loss. Written "".
	EstLossSoft EstLoss = iota
	// EstLossLog is the log loss, whose minimizer is the posterior
	// (docs/learn.md). Written "log".
	EstLossLog
)

var estLossText = optionText[EstLoss]("EstLoss", "est_loss", []string{EstLossLog: "log"})

// String returns "" (EstLossSoft) or "log".
func (l EstLoss) String() string { return estLossText.String(l) }

// MarshalText implements encoding.TextMarshaler.
func (l EstLoss) MarshalText() ([]byte, error) { return estLossText.Marshal(l) }

// UnmarshalText implements encoding.TextUnmarshaler; an unknown name is an
// error wrapping ErrOption.
func (l *EstLoss) UnmarshalText(b []byte) error { return estLossText.Unmarshal(l, b) }

// SelectLosses names the test-split losses the selection protocol selects
// on (Protocol.Select).
type SelectLosses int

const (
	// SelectTraining selects on the losses the networks train with (the
	// paper). Written "".
	SelectTraining SelectLosses = iota
	// SelectHard selects on the binary estimators' hard-decision 0-1
	// errors, the loss certification measures (binary model only).
	// Written "hard".
	SelectHard
)

var selectText = optionText[SelectLosses]("SelectLosses", "select", []string{SelectHard: "hard"})

// String returns "" (SelectTraining) or "hard".
func (s SelectLosses) String() string { return selectText.String(s) }

// MarshalText implements encoding.TextMarshaler.
func (s SelectLosses) MarshalText() ([]byte, error) { return selectText.Marshal(s) }

// UnmarshalText implements encoding.TextUnmarshaler; an unknown name is an
// error wrapping ErrOption.
func (s *SelectLosses) UnmarshalText(b []byte) error { return selectText.Unmarshal(s, b) }

// FinalizeRule is how a threshold's point is chosen among its trials
// (Protocol.Finalize).
type FinalizeRule int

const (
	// FinalizeMedian is Section V's rule: the lower median of the
	// accepted trials, each beating the previous threshold's point.
	// Written "".
	FinalizeMedian FinalizeRule = iota
	// FinalizeBest accepts every eligible trial and finalizes the one with
	// the largest minimum adversarial loss: restarts selected on the value
	// (the exact one, for the labels method's law observers). Written
	// "best".
	FinalizeBest
)

var finalizeText = optionText[FinalizeRule]("FinalizeRule", "finalize", []string{FinalizeBest: "best"})

// String returns "" (FinalizeMedian) or "best".
func (f FinalizeRule) String() string { return finalizeText.String(f) }

// MarshalText implements encoding.TextMarshaler.
func (f FinalizeRule) MarshalText() ([]byte, error) { return finalizeText.Marshal(f) }

// UnmarshalText implements encoding.TextUnmarshaler; an unknown name is an
// error wrapping ErrOption.
func (f *FinalizeRule) UnmarshalText(b []byte) error { return finalizeText.Unmarshal(f, b) }
