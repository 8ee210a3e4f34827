package jsonconf

import (
	"strings"
	"testing"
)

type sample struct {
	A float64   `json:"a"`
	B []float64 `json:"b"`
}

func TestDecode(t *testing.T) {
	var s sample
	if err := Decode(strings.NewReader(` {"a": 1.5, "b": [2]} `), &s, "a, b"); err != nil || s.A != 1.5 || len(s.B) != 1 {
		t.Fatalf("got %+v, %v", s, err)
	}
	bad := []struct{ in, want string }{
		{``, "empty file: want a JSON object"},
		{`{"a": 1,`, "malformed JSON: unexpected end of file"},
		{`{"a": 1}}`, "unexpected data after the JSON object"},
		{`{"a": 1} {"a": 2}`, "unexpected data after the JSON object"},
		{`{"a": "x"}`, `field "a": cannot use JSON string as float64`},
		{`{"b": [1, true]}`, `field "b": cannot use JSON bool`},
		{`{"c": 1}`, `unknown field "c" (allowed: a, b)`},
		{`{"a": 1e999}`, `field "a"`},
		{`{"a" 1}`, "malformed JSON at byte"},
		{`{"a": 1}` + strings.Repeat(" ", MaxBytes), "file larger than"},
	}
	for _, c := range bad {
		var s sample
		err := Decode(strings.NewReader(c.in), &s, "a, b")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			name := c.in
			if len(name) > 40 {
				name = name[:40] + "…"
			}
			t.Errorf("%q: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(`{"a": 1, "b": [1, 2]}`)
	f.Add(`{"a": nul`)
	f.Fuzz(func(t *testing.T, in string) {
		var s sample
		if err := Decode(strings.NewReader(in), &s, "a, b"); err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
	})
}
