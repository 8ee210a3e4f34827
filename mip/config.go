package mip

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrConfig marks a malformed or invalid model configuration file.
var ErrConfig = errors.New("invalid config")

// maxConfigBytes bounds a configuration file.
const maxConfigBytes = 1 << 20

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
	data, err := io.ReadAll(io.LimitReader(r, maxConfigBytes+1))
	if err != nil {
		return Binary{}, fmt.Errorf("%w: read: %w", ErrConfig, err)
	}
	if len(data) > maxConfigBytes {
		return Binary{}, fmt.Errorf("%w: file larger than %d bytes", ErrConfig, maxConfigBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c BinaryConfig
	if err := dec.Decode(&c); err != nil {
		return Binary{}, fmt.Errorf("%w: %s", ErrConfig, jsonMessage(err, "p, q_y, q_z"))
	}
	if _, err := dec.Token(); err != io.EOF {
		return Binary{}, fmt.Errorf("%w: unexpected data after the JSON object", ErrConfig)
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

// jsonMessage turns encoding/json errors into messages that name the field;
// allowed lists the valid field names for the unknown-field message.
func jsonMessage(err error, allowed string) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("field %q: cannot use JSON %s as %s (at byte %d)", te.Field, te.Value, te.Type, te.Offset)
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	case errors.Is(err, io.EOF):
		return "empty file: want a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: unexpected end of file"
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "unknown field " + f + " (allowed: " + allowed + ")"
	}
	return "malformed JSON: " + err.Error()
}
