package learn

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/model/kind"
)

// Choices name the flag, the value and the range of what is out of range,
// as errors matching ErrTrain, and leave what is not given to the preset.
func TestChoices(t *testing.T) {
	given := func(names ...string) func(string) bool {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	base := Choices{Preset: "quick", Method: "alg1", Observers: "law", Labels: DefaultLabels, Given: given()}
	cfg, err := base.Config(kind.Binary, PresetQuick)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := PresetFor(PresetQuick, kind.Binary, MethodAlg1, DefaultLabels)
	if cfg.Epochs != want.Epochs || cfg.Protocol != want.Protocol {
		t.Errorf("nothing given: epochs %d, protocol %+v; want the preset's %d, %+v", cfg.Epochs, cfg.Protocol, want.Epochs, want.Protocol)
	}
	for _, c := range []struct {
		edit func(*Choices)
		want string
	}{
		{func(c *Choices) { c.Preset = "fast" }, `--preset "fast": must be "paper" or "quick"`},
		{func(c *Choices) { c.Method = "sgd" }, `--method "sgd": must be alg1 or labels`},
		{func(c *Choices) { c.Epochs, c.Given = 0, given("epochs") }, "--epochs 0: must be in [1, 1000000]"},
		{func(c *Choices) { c.Accept, c.MaxAttempts, c.Given = 5, 3, given("accept", "max-attempts") }, "--max-attempts 3: must be ≥ --accept 5"},
		{func(c *Choices) { c.Given = given("observers") }, "--observers applies to --method labels only"},
		{func(c *Choices) { c.Tau, c.Given = -1, given("tau") }, "--tau -1: must be a finite number > 0"},
	} {
		c2 := base
		c.edit(&c2)
		_, err := c2.PresetName()
		if err == nil {
			_, err = c2.Config(kind.Binary, PresetQuick)
		}
		if err == nil {
			_, err = c2.Band()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrTrain) {
			t.Errorf("%s: %v, want %q (ErrTrain)", c.want, err, c.want)
		}
	}
}
