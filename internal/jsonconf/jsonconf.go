// Package jsonconf decodes the small JSON configuration files of mmds
// strictly: one object, no unknown fields, no trailing data, a size limit,
// and error messages that name the offending field for a person to fix.
package jsonconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxBytes bounds a configuration file: anything larger is not a config.
const MaxBytes = 16 << 20

// Decode reads one JSON object from r into v. allowed lists v's field names
// for the unknown-field message (e.g. "p, q_y, q_z"). Errors read as one
// line that names the field, the JSON value or the byte offset.
func Decode(r io.Reader, v any, allowed string) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if len(data) > MaxBytes {
		return fmt.Errorf("file larger than %d bytes", MaxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New(message(err, allowed))
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}

// message turns encoding/json errors into messages that name the field.
func message(err error, allowed string) string {
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
