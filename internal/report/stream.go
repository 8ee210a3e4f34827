package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A sweep of many thresholds is written as it is solved, so that its memory
// does not grow with its length: SweepWriter writes a Grid's rows as they
// come (a table or CSV), JSONStream an object whose last array is written
// item by item.

// lines escapes each line of s (as printable does for a title or a note).
func lines(s string) string { return strings.Join(esc(strings.Split(s, "\n")), "\n") }

// JSONStream writes, in WriteJSON's layout, a JSON object whose members are
// those of a head value, then one array member written item by item, then
// those of a tail value: the bytes WriteJSON writes for the same object
// with its members in that order.
type JSONStream struct {
	w     io.Writer
	items int
}

// NewJSONStream writes head's members (head must marshal to a JSON
// object) and opens the array member named key.
func NewJSONStream(w io.Writer, head any, key string) (*JSONStream, error) {
	b, err := members(head)
	if err != nil {
		return nil, err
	}
	k, err := json.Marshal(key)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString("{")
	if len(b) > 0 {
		buf.Write(b)
		buf.WriteString(",")
	}
	buf.WriteString("\n  ")
	buf.Write(k)
	buf.WriteString(": [")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	return &JSONStream{w: w}, nil
}

// Item writes one item of the array.
func (s *JSONStream) Item(v any) error {
	b, err := json.MarshalIndent(v, "    ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n    "
	if s.items == 0 {
		sep = "\n    "
	}
	s.items++
	if _, err := io.WriteString(s.w, sep); err != nil {
		return err
	}
	_, err = s.w.Write(b)
	return err
}

// Close closes the array, writes tail's members (tail must marshal to a
// JSON object; nil: none) and ends the object.
func (s *JSONStream) Close(tail any) error {
	var buf bytes.Buffer
	if s.items == 0 {
		buf.WriteString("]")
	} else {
		buf.WriteString("\n  ]")
	}
	if tail != nil {
		b, err := members(tail)
		if err != nil {
			return err
		}
		if len(b) > 0 {
			buf.WriteString(",")
			buf.Write(b)
		}
	}
	buf.WriteString("\n}\n")
	_, err := s.w.Write(buf.Bytes())
	return err
}

// members is v's JSON object in WriteJSON's layout without its braces and
// final newline ("\n  \"a\": 1,\n  \"b\": 2"), empty for an empty object.
func members(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("report: JSON stream: %T is not an object", v)
	}
	b = b[1 : len(b)-1]
	return bytes.TrimSuffix(b, []byte("\n")), nil
}
