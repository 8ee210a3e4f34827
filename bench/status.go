package bench

import (
	"errors"

	"github.com/mmds-project/mmds/internal/enum"
)

// Status is the verdict on one solve, after mmds's check. Its text form
// ("optimal", "time limit", ...) is what the JSON and the tables show.
type Status int

// The statuses of a solve. A solver's own words are kept in
// Run.SolverStatus.
const (
	StatusOptimal    Status = iota // claimed optimal and passed the check at mmds's tight tolerances
	StatusImprecise                // claimed optimal; the check passes at MIPLIB's tolerances but not at mmds's
	StatusTimeLimit                // stopped by the time limit
	StatusInfeasible               // claimed infeasible where that is not known false
	StatusError                    // the solver failed (crash, unreadable output)
	StatusWrong                    // an answer beyond MIPLIB's tolerances, or a false claim
)

// ErrStatus reports text that names no Status.
var ErrStatus = errors.New("bench: unknown status")

var statusText = enum.Text[Status]{Type: "Status", Names: []string{
	StatusOptimal:    "optimal",
	StatusImprecise:  "imprecise",
	StatusTimeLimit:  "time limit",
	StatusInfeasible: "infeasible",
	StatusError:      "error",
	StatusWrong:      "wrong",
}, BadValue: enum.IntError[Status](ErrStatus), BadText: enum.QuotedError(ErrStatus)}

// String is the status's name.
func (s Status) String() string { return statusText.String(s) }

// MarshalText implements encoding.TextMarshaler.
func (s Status) MarshalText() ([]byte, error) { return statusText.Marshal(s) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Status) UnmarshalText(text []byte) error { return statusText.Unmarshal(s, text) }

// Solved reports whether the solve counts as solved: a claimed optimum
// that passes MIPLIB's check (optimal or imprecise).
func (s Status) Solved() bool { return s == StatusOptimal || s == StatusImprecise }

// Failed reports whether the solve counts as a failure in the aggregates
// (error, wrong, a false infeasible).
func (s Status) Failed() bool { return !s.Solved() && s != StatusTimeLimit }
