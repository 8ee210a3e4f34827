package mip

import (
	"errors"
	"fmt"
	"io"

	"github.com/mmds-project/mmds/internal/jsonconf"
)

// ErrConfig marks a malformed or invalid model configuration file.
var ErrConfig = errors.New("invalid config")

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
		return Binary{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	switch {
	case c.P == nil:
		return Binary{}, fmt.Errorf("%w: field \"p\" is missing: want P(X = 1) in [0, 1]", ErrConfig)
	case c.QY == nil:
		return Binary{}, fmt.Errorf("%w: field \"q_y\" is missing: want the reconstructor's crossover probability in [0, 1]", ErrConfig)
	}
	if len(c.QZ) == 0 {
		return Binary{}, fmt.Errorf("%w: field \"q_z\" is missing or empty: want one crossover probability in [0, 1] per adversary", ErrConfig)
	}
	checks := []struct {
		name string
		v    float64
	}{{"field \"p\"", *c.P}, {"field \"q_y\"", *c.QY}}
	for i, q := range c.QZ {
		checks = append(checks, struct {
			name string
			v    float64
		}{fmt.Sprintf("field \"q_z\"[%d]", i), q})
	}
	for _, ch := range checks {
		if err := checkProb(ch.name, ch.v); err != nil {
			return Binary{}, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	return Binary{P: *c.P, QY: *c.QY, QZ: c.QZ}, nil
}
