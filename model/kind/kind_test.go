package kind

import (
	"encoding/json"
	"errors"
	"testing"
)

// The text form is what results.json, reports and certificates have always
// written ("model": "gauss"); anything else is ErrConfig.
func TestKindText(t *testing.T) {
	for _, c := range []struct {
		k                      Kind
		name                   string
		finiteX, binaryRelease bool
	}{{Gauss, "gauss", false, false}, {Binary, "binary", true, true}, {Finite, "finite", true, false}} {
		b, err := json.Marshal(struct {
			Model Kind `json:"model"`
		}{c.k})
		if err != nil || string(b) != `{"model":"`+c.name+`"}` {
			t.Errorf("%v: %s, %v", c.k, b, err)
		}
		var back struct {
			Model Kind `json:"model"`
		}
		if err := json.Unmarshal(b, &back); err != nil || back.Model != c.k {
			t.Errorf("%s read back as %v, %v", b, back.Model, err)
		}
		if !c.k.Valid() || c.k.FiniteX() != c.finiteX || c.k.BinaryRelease() != c.binaryRelease {
			t.Errorf("%v: Valid %v, FiniteX %v, BinaryRelease %v", c.k, c.k.Valid(), c.k.FiniteX(), c.k.BinaryRelease())
		}
	}
	for _, bad := range []string{"", "Gauss", "poisson", "gauss "} {
		if _, err := Parse(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("Parse(%q): %v, want ErrConfig", bad, err)
		}
	}
	for _, k := range []Kind{0, 4, -1} {
		if _, err := k.MarshalText(); !errors.Is(err, ErrConfig) || k.Valid() {
			t.Errorf("MarshalText(%d): %v, want ErrConfig", int(k), err)
		}
	}
	if got, want := Want(false), "gauss, binary or finite"; got != want {
		t.Errorf("Want(false) = %q, want %q", got, want)
	}
	if got, want := Want(true), `"gauss", "binary" or "finite"`; got != want {
		t.Errorf("Want(true) = %q, want %q", got, want)
	}
	if got := Kind(7).String(); got != "Kind(7)" {
		t.Errorf("Kind(7).String() = %q", got)
	}
}
