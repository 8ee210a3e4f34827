package verify

import (
	"errors"
	"fmt"

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

var statusNames = [...]string{StatusCertified: "certified", StatusCannotCertify: "cannot certify",
	StatusNotFinalized: "not finalized", StatusNotTrained: "not trained"}

// ErrStatus is wrapped by the error for text that is not a status.
var ErrStatus = errors.New("verify: unknown status")

// String is the status as reports write it.
func (s Status) String() string {
	if s < StatusCertified || s > StatusNotTrained {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText implements encoding.TextMarshaler.
func (s Status) MarshalText() ([]byte, error) {
	if s < StatusCertified || s > StatusNotTrained {
		return nil, fmt.Errorf("%w: %d", ErrStatus, int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Status) UnmarshalText(b []byte) error {
	for v := StatusCertified; v <= StatusNotTrained; v++ {
		if statusNames[v] == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("%w: %s: want certified, cannot certify, not finalized or not trained", ErrStatus, safefile.Excerpt(string(b)))
}
