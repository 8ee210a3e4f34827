package learn

import (
	"errors"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/model/kind"
)

// Algorithm 1 trains exactly the kinds with a preset of Section V (V-A:
// Gaussian, V-B: binary), each with its own optimization; the labels
// method trains every kind; a finite model is V-B's with |X| = n; no kind
// is refused by name.
func TestPresetKinds(t *testing.T) {
	for _, c := range []struct {
		k      kind.Kind
		alg1   bool
		rho    float64
		opt    Method
		errSub string
	}{
		{kind.Gauss, true, 1000, Adam, ""},
		{kind.Binary, true, 1, RAdam, ""},
		{kind.Finite, true, 1, RAdam, ""},
		{kind.Kind(0), false, 0, 0, `must be "gauss", "binary" or "finite"`},
	} {
		if got := MethodAlg1.Trains(c.k); got != c.alg1 {
			t.Errorf("MethodAlg1.Trains(%v) = %v, want %v", c.k, got, c.alg1)
		}
		if got := MethodLabels.Trains(c.k); got != c.k.Valid() {
			t.Errorf("MethodLabels.Trains(%v) = %v, want %v", c.k, got, c.k.Valid())
		}
		cfg, err := Preset(PresetPaper, c.k)
		if c.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), c.errSub) {
				t.Errorf("Preset(%v): %v, want an error saying %q", c.k, err, c.errSub)
			}
			continue
		}
		if err != nil || cfg.Model != c.k || cfg.Rho != c.rho || cfg.Optimizer != c.opt || cfg.Epochs != 1000 {
			t.Errorf("Preset(%v) = model %v, ρ %v, %v, %d epochs, %v", c.k, cfg.Model, cfg.Rho, cfg.Optimizer, cfg.Epochs, err)
		}
	}
}

// TestPresetName: the presets read back from their names, which are the
// --preset values; an unknown name, or no preset, is refused with
// ErrPreset; a preset's configuration, its grid and its points agree.
func TestPresetName(t *testing.T) {
	for p, c := range map[PresetName]struct {
		name   string
		points int
	}{PresetPaper: {"paper", 30}, PresetQuick: {"quick", 4}} {
		got, err := ParsePreset(c.name)
		if err != nil || got != p || p.String() != c.name || PresetPoints(p) != c.points {
			t.Errorf("%s: parsed %v, %v; String %q, %d points", c.name, got, err, p, PresetPoints(p))
		}
		if b, err := p.MarshalText(); err != nil || string(b) != c.name {
			t.Errorf("%s: MarshalText %q, %v", c.name, b, err)
		}
	}
	for _, s := range []string{"", "Paper", "quick ", "fast", "PresetName(1)"} {
		p := PresetQuick
		if err := p.UnmarshalText([]byte(s)); !errors.Is(err, ErrPreset) || p != PresetQuick {
			t.Errorf("UnmarshalText(%q): %v, value %v", s, err, p)
		}
	}
	for _, p := range []PresetName{0, 3, -1} {
		if _, err := p.MarshalText(); !errors.Is(err, ErrPreset) {
			t.Errorf("MarshalText(%d): %v", int(p), err)
		}
		if _, err := PresetFor(p, kind.Finite, MethodLabels, 0); !errors.Is(err, ErrPreset) {
			t.Errorf("PresetFor(%d, labels): %v, want ErrPreset", int(p), err)
		}
		if PresetPoints(p) != 0 {
			t.Errorf("PresetPoints(%d) = %d", int(p), PresetPoints(p))
		}
	}
}
