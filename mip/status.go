package mip

import (
	"errors"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/highsx"
)

// Status is how the solve of one finite point ended (FiniteOptimum.Status).
// Its text is what reports print; a point with an open bracket is
// StatusGap, and its width is FiniteOptimum.Gap.
type Status int

// The statuses of a finite point.
const (
	// StatusUnknown: the solver stopped for a reason listed nowhere else
	// (a HiGHS error); such a point comes with an error.
	StatusUnknown Status = iota
	// StatusOptimal: the optimum, proven (HiGHS's optimal status, or a
	// bracket closed within the method's tolerance).
	StatusOptimal
	// StatusGap: the best privatizer found, with the certified bracket
	// [Gamma, Upper] still open.
	StatusGap
	// StatusInfeasible: no privatizer meets D.
	StatusInfeasible
	// StatusNoSolution: the time limit ended the search before any
	// privatizer was found.
	StatusNoSolution
	// StatusInterrupted: the caller's context ended.
	StatusInterrupted
)

var statusText = enum.Text[Status]{Type: "Status",
	Names: []string{
		StatusUnknown:     "unknown",
		StatusOptimal:     "optimal",
		StatusGap:         "gap",
		StatusInfeasible:  "infeasible",
		StatusNoSolution:  "time limit, no privatizer found",
		StatusInterrupted: "interrupted",
	},
	BadValue: enum.IntError[Status](ErrUnknownStatus),
	BadText:  enum.QuotedError(ErrUnknownStatus),
}

// ErrUnknownStatus is the error of a text or number that is not a Status.
var ErrUnknownStatus = errors.New("mip: unknown status")

// String is the status's name ("optimal", "gap", "infeasible", ...).
func (s Status) String() string { return statusText.String(s) }

// MarshalText encodes s as its String.
func (s Status) MarshalText() ([]byte, error) { return statusText.Marshal(s) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownStatus.
func (s *Status) UnmarshalText(text []byte) error { return statusText.Unmarshal(s, text) }

// Gap is the bracket's relative width (Upper − Gamma) / max(|Upper|, 1e-12),
// 0 when it is closed (and NaN without a bracket).
func (o FiniteOptimum) Gap() float64 {
	return math.Max(0, o.Upper-o.Gamma) / math.Max(math.Abs(o.Upper), 1e-12)
}

// StatusText is the status as reports show it: the status's name, and for
// an open bracket "gap X%" with X the relative gap in percent.
func (o FiniteOptimum) StatusText() string {
	if o.Status == StatusGap {
		return fmt.Sprintf("gap %.3g%%", 100*o.Gap())
	}
	return o.Status.String()
}

// pointStatus is the point status of a HiGHS outcome: optimal, infeasible,
// a time limit (whose incumbent, if any, makes the caller's point a gap),
// an interruption, or unknown.
func pointStatus(st highsx.Status) Status {
	switch st {
	case highsx.StatusOptimal:
		return StatusOptimal
	case highsx.StatusInfeasible:
		return StatusInfeasible
	case highsx.StatusTimeLimit:
		return StatusNoSolution
	case highsx.StatusInterrupted:
		return StatusInterrupted
	}
	return StatusUnknown
}
