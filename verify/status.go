package verify

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
)

// Status is what could be said of one threshold: certified (a verdict,
// pass or fail), cannot certify (the numbers behind a verdict cannot be
// made sound: the verdict says why), not finalized (trained, no trial
// accepted) or not trained (the run stopped before it). Its text form is
// the "status" of reports and certificates.
type Status int

// The statuses of a Point.
const (
	StatusCertified Status = iota + 1
	StatusCannotCertify
	StatusNotFinalized
	StatusNotTrained
)

var statusText = enum.Text[Status]{Type: "Status",
	Names: []string{StatusCertified: "certified", StatusCannotCertify: "cannot certify",
		StatusNotFinalized: "not finalized", StatusNotTrained: "not trained"},
	BadValue: enum.IntError[Status](ErrStatus), BadText: wantError(ErrStatus)}

// ErrStatus is wrapped by the error for text that is not a status.
var ErrStatus = errors.New("verify: unknown status")

// String is the status as reports write it.
func (s Status) String() string { return statusText.String(s) }

// MarshalText implements encoding.TextMarshaler.
func (s Status) MarshalText() ([]byte, error) { return statusText.Marshal(s) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Status) UnmarshalText(b []byte) error { return statusText.Unmarshal(s, b) }

// wantError returns the text error of verify's enums: "<err>: <an excerpt
// of the text>: want <the names>", wrapping err.
func wantError(err error) func([]byte, string) error {
	return func(b []byte, want string) error {
		return fmt.Errorf("%w: %s: want %s", err, safefile.Excerpt(string(b)), want)
	}
}
