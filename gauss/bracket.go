package gauss

import (
	"errors"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/enum"
)

// BracketTol is the relative tolerance of a bracket's ends: the best
// achievable value A and the upper bound U agree when
// |U − A| ≤ max(BracketTol·max(|A|, |U|), 2⁻¹⁰²²). It is far above the
// rounding of the losses behind them (closed forms to a few ulps, the modulo
// integral to 1e-12 and the cell sums to 1e-11 relative) and far below any
// gap a better mechanism or bound could close. The absolute floor, the
// smallest normal float64, is where relative precision ends: a subnormal
// loss has fewer than 53 significant bits, and an underflowed one is 0.
const BracketTol = 1e-9

// ErrBracketInconsistent is wrapped by the error returned when a best
// achievable value exceeds its upper bound beyond BracketTol: one of the two
// computations is wrong, and no bracket is reported.
var ErrBracketInconsistent = errors.New("gauss: best achievable above the upper bound")

// ErrBracketState is wrapped by the error of parsing an unknown
// BracketState.
var ErrBracketState = errors.New("gauss: unknown bracket state")

// BracketState says whether a bracket [best achievable, upper bound]
// determines the optimum of problem (1).
type BracketState int

const (
	// BracketClosed: the ends agree within BracketTol; the optimum is
	// known.
	BracketClosed BracketState = iota
	// BracketOpen: the upper bound exceeds the best achievable value by more
	// than BracketTol; the optimum lies between them.
	BracketOpen
	// BracketInconsistent: the best achievable value exceeds the upper bound
	// by more than BracketTol. Model.Bracket never returns such a bracket.
	BracketInconsistent
)

var bracketStateText = enum.Text[BracketState]{Type: "BracketState",
	Names: []string{BracketClosed: "closed", BracketOpen: "open", BracketInconsistent: "inconsistent"},
	BadValue: func(s BracketState) error {
		return fmt.Errorf("%w: %d", ErrBracketState, int(s))
	},
	BadText: func(b []byte, want string) error {
		return fmt.Errorf("%w %q: want %s", ErrBracketState, b, want)
	}}

// String returns "closed", "open" or "inconsistent".
func (s BracketState) String() string { return bracketStateText.String(s) }

// MarshalText implements encoding.TextMarshaler.
func (s BracketState) MarshalText() ([]byte, error) { return bracketStateText.Marshal(s) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *BracketState) UnmarshalText(b []byte) error { return bracketStateText.Unmarshal(s, b) }

// minNormal is the smallest normal float64, 2⁻¹⁰²².
const minNormal = 0x1p-1022

// bracketState compares the best achievable value lo with the upper bound
// hi (see BracketTol).
func bracketState(lo, hi float64) BracketState {
	tol := math.Max(BracketTol*math.Max(math.Abs(lo), math.Abs(hi)), minNormal)
	switch {
	case lo-hi > tol:
		return BracketInconsistent
	case hi-lo > tol:
		return BracketOpen
	}
	return BracketClosed
}

// State says whether the bracket determines the optimum.
func (b Bracket) State() BracketState { return bracketState(b.Achievable.MinAdv, b.UpperBound) }

// Open reports whether the bracket leaves the optimum undetermined.
func (b Bracket) Open() bool { return b.State() == BracketOpen }

// check returns an error wrapping ErrBracketInconsistent when the bracket
// contradicts itself.
func (b Bracket) check() error {
	if b.State() != BracketInconsistent {
		return nil
	}
	return fmt.Errorf("gauss: D = %g: %w: %g > %g (%s, tolerance %g relative)",
		b.D, ErrBracketInconsistent, b.Achievable.MinAdv, b.UpperBound, b.Achievable.Mechanism, BracketTol)
}
