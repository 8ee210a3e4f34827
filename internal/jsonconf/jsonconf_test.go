package jsonconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	X string `json:"x"`
}

type embedded struct {
	E     int `json:"e"`
	A     int `json:"a"` // hidden by sample.A
	Plain int // no tag: named Plain
}

type sample struct {
	A float64        `json:"a"`
	B []float64      `json:"b"`
	C *inner         `json:"c,omitempty"`
	M map[string]int `json:"m"`
	embedded
	Skip int `json:"-"`
}

// custom has its own UnmarshalJSON that decodes through Unmarshal.
type custom struct{ V int }

func (c *custom) UnmarshalJSON(b []byte) error {
	var w struct {
		V int `json:"v"`
	}
	if err := Unmarshal(b, &w); err != nil {
		return err
	}
	c.V = w.V
	return nil
}

type withCustom struct {
	Cs []custom `json:"cs"`
}

func TestUnmarshal(t *testing.T) {
	var s sample
	in := ` {"a": 1.5, "b": [2], "c": {"x": "y"}, "m": {"k": 1, "K2": 2}, "e": 3, "Plain": 4} `
	if err := Unmarshal([]byte(in), &s); err != nil || s.A != 1.5 || len(s.B) != 1 || s.C.X != "y" || s.M["K2"] != 2 || s.E != 3 || s.Plain != 4 {
		t.Fatalf("got %+v, %v", s, err)
	}
	var w withCustom
	if err := Unmarshal([]byte(`{"cs": [{"v": 1}, {"v": 2}]}`), &w); err != nil || len(w.Cs) != 2 || w.Cs[1].V != 2 {
		t.Fatalf("got %+v, %v", w, err)
	}
	var l []inner
	if err := Unmarshal([]byte(`[{"x": "a"}]`), &l); err != nil || len(l) != 1 {
		t.Fatalf("got %+v, %v", l, err)
	}
}

func TestUnmarshalRefuses(t *testing.T) {
	long := strings.Repeat("k", 200)
	bad := []struct {
		in, want string
		v        func() any
	}{
		{``, "empty file: want a JSON object", nil},
		{`{"a": 1,`, "malformed JSON: unexpected end of file", nil},
		{`{"a": 1}}`, "unexpected data after the JSON value", nil},
		{`{"a": 1} {"a": 2}`, "unexpected data after the JSON value", nil},
		{`{"a": "x"}`, `field "a": cannot use JSON string as a number`, nil},
		{`{"b": [1, true]}`, `field "b": cannot use JSON bool`, nil},
		{`{"z": 1}`, `unknown field "z" (allowed: a, b, c, m, e, Plain)`, nil},
		{`{"a": 1e999}`, `field "a"`, nil},
		{`{"a" 1}`, `malformed JSON at line 1, column 6 (byte 6): unexpected "1"`, nil},
		{"{\n  \"a\": NaN}", `malformed JSON at line 2, column 8 (byte 10): "NaN": NaN and Infinity are not JSON`, nil},
		{`{"a": -Infinity}`, `"-Infinity": NaN and Infinity are not JSON`, nil},
		{`{"a": Nope}`, `unexpected "Nope"`, nil},
		{`Nothing`, `malformed JSON at line 1, column 1 (byte 1): unexpected "Nothing"`, nil},
		{"\xff\xfe{\x00}\x00", "is UTF-16 (little-endian) text (its byte order mark is FF FE): save it as UTF-8", nil},
		{"\xfe\xff\x00{\x00}", "is UTF-16 (big-endian) text (its byte order mark is FE FF)", nil},
		{"\xff\xfe\x00\x00{\x00\x00\x00", "is UTF-32 (little-endian) text", nil},
		{"{\x00\"\x00a\x00\"\x00:\x001\x00}\x00", "looks like UTF-16 text without a byte order mark", nil},
		{"\x08\x01\x12\x00garbage", "is binary data, not text (byte 3 is 0)", nil},
		// One file, one meaning: duplicates and case variants.
		{`{"a": 1, "a": 2}`, `key "a" appears twice in the top-level object`, nil},
		{`{"a": 1, "A": 2}`, `keys "a" and "A" in the top-level object differ only in case`, nil},
		{`{"A": 2}`, `key "A" differs from the field "a" only in case: write "a"`, nil},
		{`{"PLAIN": 2}`, `key "PLAIN" differs from the field "Plain" only in case`, nil},
		{`{"c": {"X": "y"}}`, `key "X" in "c" differs from the field "x" only in case`, nil},
		{`{"c": {"x": "y", "q": 1}}`, `unknown field "q" in "c" (allowed: x)`, nil},
		{`{"m": {"k": 1, "K": 2}}`, `keys "k" and "K" in object "m" differ only in case`, nil},
		{`{"m": {"\u212a": 1, "k": 2}}`, `differ only in case`, nil}, // Kelvin sign folds to k
		{`{"cs": [{"v": 1}, {"V": 2}]}`, `key "V" differs from the field "v" only in case`, func() any { return new(withCustom) }},
		{`{"cs": [{"v": 1, "v": 2}]}`, `key "v" appears twice in object "cs[0]"`, func() any { return new(withCustom) }},
		{`{"cs": [{"w": 1}]}`, `unknown field "w" (allowed: v)`, func() any { return new(withCustom) }},
		{`{"` + long + `": 1}`, `unknown field "` + long[:40] + `"…`, nil},
		{`{"a": "` + long + `"}`, `cannot use JSON string as a number`, nil},
		{`{"a": 1` + strings.Repeat("0", 200) + `e999}`, `field "a"`, nil},
		{`{"b": ` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, `nested deeper than 256 levels`, nil},
	}
	for _, c := range bad {
		var v any = new(sample)
		if c.v != nil {
			v = c.v()
		}
		err := Unmarshal([]byte(c.in), v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: got %v, want an error containing %q", c.in, err, c.want)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, long[:41]) || strings.Contains(msg, "\n") || len(msg) > 300 {
			t.Errorf("%.40q: message %q quotes too much or has several lines", c.in, msg)
		}
	}
	if err := Decode(strings.NewReader(`{"a": 1}`+strings.Repeat(" ", MaxBytes)), new(sample)); err == nil || !strings.Contains(err.Error(), "file larger than") {
		t.Errorf("oversized: got %v", err)
	}
}

// firstWins decodes data into a generic value, keeping the first of repeated
// keys, as most JSON readers other than Go's do.
func firstWins(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('['):
		out := []any{}
		for dec.More() {
			v, err := firstWins(dec)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		_, err := dec.Token()
		return out, err
	case json.Delim('{'):
		out := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := firstWins(dec)
			if err != nil {
				return nil, err
			}
			if _, ok := out[k.(string)]; !ok {
				out[k.(string)] = v
			}
		}
		_, err := dec.Token()
		return out, err
	}
	return tok, nil
}

// reference builds a sample from the first-key-wins value, matching keys
// exactly.
func reference(v any) (sample, bool) {
	var s sample
	m, ok := v.(map[string]any)
	if !ok {
		return s, false
	}
	num := func(x any) float64 { n, _ := x.(json.Number); f, _ := n.Float64(); return f }
	integer := func(x any) int { n, _ := x.(json.Number); i, _ := n.Int64(); return int(i) }
	if a, ok := m["a"]; ok {
		s.A = num(a)
	}
	if b, ok := m["b"].([]any); ok {
		s.B = []float64{}
		for _, x := range b {
			s.B = append(s.B, num(x))
		}
	}
	if c, ok := m["c"].(map[string]any); ok {
		s.C = &inner{}
		s.C.X, _ = c["x"].(string)
	}
	if mm, ok := m["m"].(map[string]any); ok {
		s.M = map[string]int{}
		for k, x := range mm {
			s.M[k] = integer(x)
		}
	}
	for _, k := range []string{"e", "Plain"} {
		if x, ok := m[k]; ok {
			if k == "e" {
				s.E = integer(x)
			} else {
				s.Plain = integer(x)
			}
		}
	}
	return s, true
}

// FuzzUnmarshal: an accepted input means the same to a reader that keeps
// the first of repeated keys and matches keys exactly.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "b": [1, 2]}`, `{"a": nul`, `{"a": 1, "A": 2}`, `{"c": {"x": "y"}, "m": {"k": 1}}`,
		`{"e": 1, "Plain": 2, "m": {"a": 1, "b": 2}}`, `{"a": 1, "a": 2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var s sample
		err := Unmarshal([]byte(in), &s)
		if err != nil {
			if err.Error() == "" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("bad message %q", err)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.UseNumber()
		g, gerr := firstWins(dec)
		if gerr != nil {
			t.Fatalf("accepted, but a first-wins reader fails: %v", gerr)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Fatal("accepted trailing data")
		}
		want, ok := reference(g)
		if ok && !reflect.DeepEqual(s, want) {
			t.Fatalf("%q: decoded %+v, a first-wins exact reader gives %+v", in, s, want)
		}
	})
}

// Messages name JSON's kinds of values, never Go types, and a byte order
// mark is named rather than decoded as "invalid character 'ï'".
func TestMessagesInJSONWords(t *testing.T) {
	type inner struct {
		X float64 `json:"x"`
	}
	var v struct {
		F  float64     `json:"f"`
		N  int         `json:"n"`
		L  [][]float64 `json:"l"`
		In inner       `json:"in"`
	}
	for _, c := range []struct{ in, want string }{
		{`{"f": "x"}`, `field "f": cannot use JSON string as a number`},
		{`{"n": 1.5}`, `field "n": cannot use JSON number 1.5 as a whole number`},
		{`{"l": [1]}`, `cannot use JSON number as a list of numbers`},
		{`{"l": "x"}`, `cannot use JSON string as a list of lists of numbers`},
		{`{"in": 3}`, `cannot use JSON number as an object`},
		{`[1, 2]`, `the file holds a JSON array: want an object`},
		{"\uFEFF{\"f\": 1}", "starts with a UTF-8 byte order mark"},
	} {
		err := Unmarshal([]byte(c.in), &v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "float64") || strings.Contains(err.Error(), "jsonconf.") || strings.Contains(err.Error(), "ï")) {
			t.Errorf("%q: %v names a Go type or a mangled byte", c.in, err)
		}
	}
}

var errShade = errors.New("unknown shade")

// shade is an enum in the shape of mmds's: an integer with a text form.
type shade int

func (s *shade) UnmarshalText(b []byte) error {
	switch string(b) {
	case "dark":
		*s = 1
	case "light":
		*s = 2
	default:
		return fmt.Errorf("%w %q: want dark or light", errShade, b)
	}
	return nil
}

// A name the enum refuses is reported with its field, wrapping the enum's
// error, however deep the field; a number where a name belongs is a type
// error in words, not Go's.
func TestText(t *testing.T) {
	type doc struct {
		S     shade              `json:"s"`
		Inner struct{ P *shade } `json:"inner"`
		List  []shade            `json:"list"`
	}
	var d doc
	if err := Unmarshal([]byte(`{"s": "dark", "inner": {"P": "light"}, "list": ["light"]}`), &d); err != nil || d.S != 1 || *d.Inner.P != 2 || d.List[0] != 2 {
		t.Fatalf("got %+v, %v", d, err)
	}
	for in, want := range map[string]string{
		`{"s": "grey"}`:            `field "s": unknown shade "grey": want dark or light`,
		`{"inner": {"P": "Dark"}}`: `field "inner.P": unknown shade "Dark": want dark or light`,
		`{"list": ["dark", ""]}`:   `field "list[1]": unknown shade "": want dark or light`,
		`{"s": 1}`:                 `field "s": cannot use JSON number as a string (at byte 7)`,
	} {
		err := Unmarshal([]byte(in), &d)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", in, err, want)
		}
		if strings.Contains(want, "unknown shade") != errors.Is(err, errShade) {
			t.Errorf("%s: %v wraps errShade: %v", in, err, errors.Is(err, errShade))
		}
	}
}

// TestMeasure: what a document decodes to, counted without decoding:
// every number token and array, and a compact table's labels × rows dense
// entries and its rows.
func TestMeasure(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Size
	}{
		{`{"a": 1, "b": [1, 2, 3], "c": "4"}`, Size{4, 1}},
		{`[[0.5, 0.5], [1, 0]]`, Size{4, 3}},
		{`{"prob": {"labels": 1000, "rows": [[0, 1], [999, 1]]}}`, Size{1 + 4 + 2000, 3 + 2}},
		{`{"edges": [], "prob": []}`, Size{0, 2}},
	} {
		got, err := Measure([]byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("Measure(%s) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if _, err := Measure([]byte(`{"a": 1, "a": 2}`)); err == nil {
		t.Error("a duplicated key measured")
	}
}

func TestFloatsJSON(t *testing.T) {
	b, err := json.Marshal(Floats{1.5, math.NaN(), math.Inf(1), -2})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "[1.5,null,null,-2]" {
		t.Errorf("Marshal = %s", b)
	}
	var f Floats
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f) != 4 || f[0] != 1.5 || !math.IsNaN(f[1]) || f[3] != -2 {
		t.Errorf("Unmarshal = %v", f)
	}
}
