package learn

import (
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/model/kind"
)

// Choices are a training run's settings as a person gives them (the
// command line's flags, named in the errors): the preset, the method, its
// labels and observers, and the protocol's overrides. Given reports which
// were set; an unset one is the preset's. Their errors match ErrTrain.
type Choices struct {
	Preset, Method, Observers           string
	Labels, Epochs, Accept, MaxAttempts int
	Tau                                 float64
	Given                               func(name string) bool
}

func choiceError(format string, args ...any) error {
	return &markedError{ErrTrain, fmt.Errorf(format, args...)}
}

// PresetName reads the preset.
func (c Choices) PresetName() (PresetName, error) {
	p, err := ParsePreset(c.Preset)
	if err != nil {
		return 0, choiceError("--preset %s: must be %q or %q", safefile.Excerpt(c.Preset), PresetPaper, PresetQuick)
	}
	return p, nil
}

// TrainMethod reads the method.
func (c Choices) TrainMethod() (TrainMethod, error) {
	m, err := ParseMethod(c.Method)
	if err != nil {
		return 0, choiceError("--method %s: must be alg1 or labels", safefile.Excerpt(c.Method))
	}
	return m, nil
}

// Band is the selection band given (0: the default, half the grid's
// step as in Section V).
func (c Choices) Band() (float64, error) {
	if !c.Given("tau") {
		return 0, nil
	}
	if math.IsNaN(c.Tau) || math.IsInf(c.Tau, 0) || c.Tau <= 0 {
		return 0, choiceError("--tau %v: must be a finite number > 0", c.Tau)
	}
	return c.Tau, nil
}

// Config is preset's configuration of a model of kind k with c's method,
// labels, observers and protocol.
func (c Choices) Config(k kind.Kind, preset PresetName) (Config, error) {
	method, err := c.TrainMethod()
	if err != nil {
		return Config{}, err
	}
	if method != MethodLabels {
		names := []string{"labels", "observers"}
		if k.CategoricalRelease() { // Algorithm 1's release has --labels outcomes
			names = names[1:]
		}
		for _, name := range names {
			if c.Given(name) {
				return Config{}, choiceError("--%s applies to --method labels only (the method is %v)", name, method)
			}
		}
	}
	if method == MethodLabels && !k.FiniteX() && c.Observers != ObserversLaw.String() {
		// the observers of the data's empirical law need a finite X
		return Config{}, choiceError("--observers %s: on the gauss model the labels method's observers are the law's exact MMSE estimators: want law", safefile.Excerpt(c.Observers))
	}
	if (method == MethodLabels || c.Given("labels")) && (c.Labels < 2 || c.Labels > MaxLabels) {
		return Config{}, choiceError("--labels %d: must be in [2, %d]", c.Labels, MaxLabels)
	}
	obs, err := ParseObservers(c.Observers)
	if err != nil {
		return Config{}, choiceError("--observers %s: must be law or data", safefile.Excerpt(c.Observers))
	}
	cfg, err := PresetFor(preset, k, method, c.Labels)
	if err != nil {
		return Config{}, choiceError("--method %v: %v", method, err)
	}
	if cfg.Labels != nil {
		cfg.Labels.Observers = obs
	}
	if method == MethodAlg1 && c.Given("labels") {
		cfg.Outputs = c.Labels
	}
	return cfg, c.protocol(&cfg)
}

// DataConfig is preset's configuration of a data run's plan (kind k,
// method): the labels method's observers are the training split's.
func (c Choices) DataConfig(k kind.Kind, method TrainMethod, preset PresetName) (Config, error) {
	if method != MethodLabels && c.Given("labels") {
		return Config{}, choiceError("--labels applies to the labels method only (this run trains with %v)", method)
	}
	if method == MethodLabels && (c.Labels < 2 || c.Labels > MaxLabels) {
		return Config{}, choiceError("--labels %d: must be in [2, %d]", c.Labels, MaxLabels)
	}
	cfg, err := PresetFor(preset, k, method, c.Labels)
	if err != nil {
		return Config{}, choiceError("%v", err)
	}
	if cfg.Labels != nil {
		cfg.Labels.Observers = ObserversData
	}
	return cfg, c.protocol(&cfg)
}

// protocol applies the epochs, accepted trials and cap given to cfg.
func (c Choices) protocol(cfg *Config) error {
	for _, o := range []struct {
		name string
		v    int
		dst  *int
	}{{"epochs", c.Epochs, &cfg.Epochs}, {"accept", c.Accept, &cfg.Protocol.Accept}, {"max-attempts", c.MaxAttempts, &cfg.Protocol.MaxAttempts}} {
		if !c.Given(o.name) {
			continue
		}
		if o.v < 1 || o.v > 1_000_000 {
			return choiceError("--%s %d: must be in [1, 1000000]", o.name, o.v)
		}
		*o.dst = o.v
	}
	if c.Given("accept") && !c.Given("max-attempts") {
		cfg.Protocol.MaxAttempts = 0 // the default cap for the new Accept
	}
	if cfg.Protocol.MaxAttempts != 0 && cfg.Protocol.MaxAttempts < cfg.Protocol.Accept {
		return choiceError("--max-attempts %d: must be ≥ --accept %d", cfg.Protocol.MaxAttempts, cfg.Protocol.Accept)
	}
	return nil
}
