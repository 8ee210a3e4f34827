package mip

import (
	"errors"
	"fmt"
	"io"

	"github.com/mmds-project/mmds/internal/jsonconf"
)

// ErrConfig marks a malformed or invalid model configuration file.
var ErrConfig = errors.New("mip: invalid config")

// configError is an error about a model file's contents. It reads as the
// detail alone, since the caller names the file (a chain of prefixes such
// as "invalid config: " helps no one), and it matches ErrConfig.
type configError struct{ err error }

func (e *configError) Error() string   { return e.err.Error() }
func (e *configError) Unwrap() []error { return []error{ErrConfig, e.err} }

func configErrorf(format string, args ...any) error {
	return &configError{fmt.Errorf(format, args...)}
}

// BinaryConfig is the JSON form of a Binary model:
//
//	{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}
type BinaryConfig struct {
	P  *float64  `json:"p"`
	QY *float64  `json:"q_y"`
	QZ []float64 `json:"q_z"`
}

// ParseBinaryConfig decodes and validates one JSON object describing a
// binary model. Every field is required; unknown fields, trailing data and
// values outside [0, 1] are errors wrapping ErrConfig that name the field.
func ParseBinaryConfig(r io.Reader) (Binary, error) {
	var c BinaryConfig
	if err := jsonconf.Decode(r, &c); err != nil {
		return Binary{}, configErrorf("%w", err)
	}
	switch {
	case c.P == nil:
		return Binary{}, configErrorf("field \"p\" is missing: want P(X = 1) in [0, 1]")
	case c.QY == nil:
		return Binary{}, configErrorf("field \"q_y\" is missing: want the reconstructor's crossover probability in [0, 1]")
	}
	if len(c.QZ) == 0 {
		return Binary{}, configErrorf("field \"q_z\" is missing or empty: want one crossover probability in [0, 1] per adversary")
	}
	if len(c.QZ) > MaxAdversaries {
		return Binary{}, configErrorf("field \"q_z\" has %d entries: at most %d adversaries", len(c.QZ), MaxAdversaries)
	}
	m := Binary{P: *c.P, QY: *c.QY, QZ: c.QZ}
	if err := m.validate("field \"p\"", "field \"q_y\"", "field \"q_z\"[%d]", 0); err != nil {
		return Binary{}, configErrorf("%w", err)
	}
	return m, nil
}
