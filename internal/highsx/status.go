package highsx

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/enum"
)

// Status is the outcome of a HiGHS run (HiGHS's kHighsModelStatus, reduced
// to the cases mmds acts on). Compare statuses, never their strings.
type Status int

// The statuses mmds distinguishes.
const (
	StatusUnknown     Status = iota // anything not listed below
	StatusOptimal                   // proven optimal within the tolerances
	StatusInfeasible                // proven infeasible
	StatusUnbounded                 // unbounded, or unbounded or infeasible
	StatusTimeLimit                 // time_limit reached (a MIP may hold an incumbent)
	StatusInterrupted               // stopped by a cancelled context
	StatusLimit                     // another limit: iterations, nodes, solutions, objective bound
	StatusError                     // HiGHS reported a load, model, presolve, solve or postsolve error
)

var statusText = enum.Text[Status]{Type: "Status",
	Names: []string{
		StatusUnknown:     "Unknown",
		StatusOptimal:     "Optimal",
		StatusInfeasible:  "Infeasible",
		StatusUnbounded:   "Unbounded",
		StatusTimeLimit:   "TimeLimit",
		StatusInterrupted: "Interrupted",
		StatusLimit:       "Limit",
		StatusError:       "Error",
	},
	BadValue: enum.IntError[Status](ErrUnknownStatus),
	BadText:  enum.QuotedError(ErrUnknownStatus),
}

// String is the status's name ("Optimal", "Infeasible", ...), as it appears in
// reports.
func (s Status) String() string { return statusText.String(s) }

// MarshalText encodes s as its String.
func (s Status) MarshalText() ([]byte, error) { return statusText.Marshal(s) }

// UnmarshalText decodes a status's String; any other text is an error
// wrapping ErrUnknownStatus.
func (s *Status) UnmarshalText(text []byte) error { return statusText.Unmarshal(s, text) }

// Sentinel errors. Every error for a model HiGHS did not solve to optimality
// wraps ErrNotOptimal and, where it applies, one of the others.
var (
	ErrNotOptimal  = errors.New("highs: no optimal solution")
	ErrInfeasible  = errors.New("highs: infeasible")
	ErrUnbounded   = errors.New("highs: unbounded")
	ErrTimeLimit   = errors.New("highs: time limit reached")
	ErrInterrupted = errors.New("highs: interrupted")
	// ErrInvalidModel: the model has a NaN, an infinite coefficient or
	// cost, or crossed bounds; it was not solved.
	ErrInvalidModel = errors.New("highs: invalid model")
	// ErrUnknownStatus: a status text or number that is not a Status.
	ErrUnknownStatus = errors.New("highs: unknown status")
)

// err returns the error for a non-optimal status (nil for StatusOptimal).
func (s Status) err() error {
	var specific error
	switch s {
	case StatusOptimal:
		return nil
	case StatusInfeasible:
		specific = ErrInfeasible
	case StatusUnbounded:
		specific = ErrUnbounded
	case StatusTimeLimit:
		specific = ErrTimeLimit
	case StatusInterrupted:
		specific = ErrInterrupted
	default:
		return fmt.Errorf("%w: HiGHS status %s", ErrNotOptimal, s)
	}
	return fmt.Errorf("%w: %w", ErrNotOptimal, specific)
}
