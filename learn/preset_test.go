package learn

import (
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
		{kind.Kind(0), false, 0, 0, `must be "gauss" or "binary"`},
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
