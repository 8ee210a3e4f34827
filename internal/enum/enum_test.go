package enum

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

var errColor = errors.New("unknown color")

// color keeps 0 free, as enums whose zero value means "unset" do.
type color int

var colorText = Text[color]{Type: "color", Names: []string{1: "red", 2: "light blue", 3: "green"},
	BadValue: IntError[color](errColor),
	BadText: func(text []byte, want string) error {
		return fmt.Errorf("%w %q: want %s", errColor, text, want)
	}}

func (c color) String() string                { return colorText.String(c) }
func (c color) MarshalText() ([]byte, error)  { return colorText.Marshal(c) }
func (c *color) UnmarshalText(b []byte) error { return colorText.Unmarshal(c, b) }

// Every value reads back as itself; names match exactly; the zero value,
// an unnamed integer and a negative one are no values, named as fmt names
// an integer type; the errors are the hooks'.
func TestText(t *testing.T) {
	for v, name := range map[color]string{1: "red", 2: "light blue", 3: "green"} {
		b, err := json.Marshal(v)
		if err != nil || string(b) != `"`+name+`"` {
			t.Errorf("%d: %s, %v", int(v), b, err)
		}
		var back color
		if err := json.Unmarshal(b, &back); err != nil || back != v || v.String() != name {
			t.Errorf("%s: read back %d, %v", b, int(back), err)
		}
	}
	for _, v := range []color{0, 4, -1} {
		if _, err := v.MarshalText(); !errors.Is(err, errColor) || err.Error() != fmt.Sprintf("unknown color: %d", int(v)) {
			t.Errorf("MarshalText(%d): %v", int(v), err)
		}
		if got, want := v.String(), fmt.Sprintf("color(%d)", int(v)); got != want {
			t.Errorf("String(%d) = %q, want %q", int(v), got, want)
		}
	}
	for _, s := range []string{"", "Red", "red ", "blue", "color(1)"} {
		c := color(3)
		err := c.UnmarshalText([]byte(s))
		if !errors.Is(err, errColor) || c != 3 {
			t.Errorf("UnmarshalText(%q): %v, value %d", s, err, int(c))
		}
		if want := fmt.Sprintf("unknown color %q: want red, light blue or green", s); err.Error() != want {
			t.Errorf("UnmarshalText(%q): %q, want %q", s, err, want)
		}
	}
	if err := QuotedError(errColor)([]byte("x"), "a or b"); err.Error() != `unknown color: "x"` {
		t.Errorf("QuotedError: %q", err)
	}
}

func TestWant(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"", "a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := (Text[color]{Names: c.names}).Want(); got != c.want {
			t.Errorf("Want(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

// option's default is unnamed (Text.Empty), as learn's options are.
type option int

var optionText = Text[option]{Type: "option", Names: []string{1: "best"}, Empty: true,
	BadValue: IntError[option](errColor),
	BadText: func(text []byte, want string) error {
		return fmt.Errorf("%w %q: want %s", errColor, text, want)
	}}

func (o option) MarshalText() ([]byte, error)  { return optionText.Marshal(o) }
func (o *option) UnmarshalText(b []byte) error { return optionText.Unmarshal(o, b) }

// The zero value of an Empty enum is a value written "": omitempty leaves
// it out of JSON, "" reads back as it, and Want names it.
func TestEmpty(t *testing.T) {
	type doc struct {
		A option `json:"a,omitempty"`
		B option `json:"b"`
	}
	for _, c := range []struct {
		d    doc
		json string
	}{{doc{}, `{"b":""}`}, {doc{1, 1}, `{"a":"best","b":"best"}`}} {
		b, err := json.Marshal(c.d)
		if err != nil || string(b) != c.json {
			t.Errorf("%v: %s, %v; want %s", c.d, b, err, c.json)
		}
		var back doc
		if err := json.Unmarshal(b, &back); err != nil || back != c.d {
			t.Errorf("%s: read back %v, %v", b, back, err)
		}
	}
	if got := optionText.String(0); got != "" || !optionText.Valid(0) {
		t.Errorf("String(0) = %q, Valid %v", got, optionText.Valid(0))
	}
	for _, v := range []option{2, -1} {
		if optionText.Valid(v) || optionText.String(v) != fmt.Sprintf("option(%d)", int(v)) {
			t.Errorf("%d: valid %v, %q", int(v), optionText.Valid(v), optionText.String(v))
		}
	}
	o := option(1)
	if err := o.UnmarshalText([]byte("worst")); !errors.Is(err, errColor) || o != 1 || err.Error() != `unknown color "worst": want "" or best` {
		t.Errorf("UnmarshalText(worst): %v, value %d", err, int(o))
	}
	if err := o.UnmarshalText(nil); err != nil || o != 0 {
		t.Errorf(`UnmarshalText(""): %v, value %d`, err, int(o))
	}
}
