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
