package mip

import (
	"fmt"
	"io"

	"github.com/mmds-project/mmds/internal/jsonconf"
)

// FiniteConfig is the JSON form of a Finite model:
//
//	{
//	  "prior": [0.5, 0.3, 0.2],
//	  "reconstructor": {"channel": [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]},
//	  "adversaries": [{"channel": [[...], [...], [...]], "loss": [[...], [...], [...]]}]
//	}
//
// channel[x][v] = P(V=v | X=x); loss[x][a] = L(x, a), optional (default
// 0-1 on {0..n−1}).
type FiniteConfig struct {
	Prior         []float64        `json:"prior"`
	Reconstructor *ObserverConfig  `json:"reconstructor"`
	Adversaries   []ObserverConfig `json:"adversaries"`
}

// ObserverConfig is one observer in a FiniteConfig.
type ObserverConfig struct {
	Channel [][]float64 `json:"channel"`
	Loss    [][]float64 `json:"loss,omitempty"`
}

// maxAlphabet bounds every alphabet in a config file, so a typo cannot ask
// for a model no method here can solve.
const maxAlphabet = 64

// ParseFiniteConfig decodes and validates one JSON object describing a
// finite model. Unknown fields, trailing data, missing fields, sizes that do
// not match, entries outside their range and rows that do not sum to 1 are
// errors wrapping ErrConfig that name the matrix, row and entry.
func ParseFiniteConfig(r io.Reader) (Finite, error) {
	var c FiniteConfig
	if err := jsonconf.Decode(r, &c); err != nil {
		return Finite{}, configErrorf("%w", err)
	}
	switch {
	case len(c.Prior) == 0:
		return Finite{}, configErrorf("field \"prior\" is missing or empty: want P(X = x) for x = 0..n−1")
	case len(c.Prior) > maxAlphabet:
		return Finite{}, configErrorf("field \"prior\" has %d entries: at most %d", len(c.Prior), maxAlphabet)
	case c.Reconstructor == nil:
		return Finite{}, configErrorf("field \"reconstructor\" is missing: want {\"channel\": [[P(Y=y|X=x)]]}")
	case len(c.Adversaries) == 0:
		return Finite{}, configErrorf("field \"adversaries\" is missing or empty: want one {\"channel\": ...} per adversary")
	case len(c.Adversaries) > MaxAdversaries:
		return Finite{}, configErrorf("field \"adversaries\" has %d entries: at most %d", len(c.Adversaries), MaxAdversaries)
	}
	m := Finite{Prior: c.Prior, Recon: Observer(*c.Reconstructor)}
	for _, a := range c.Adversaries {
		m.Adv = append(m.Adv, Observer(a))
	}
	for i, o := range m.Observers() {
		name := "reconstructor"
		if i > 0 {
			name = fmt.Sprintf("adversaries[%d]", i-1)
		}
		if len(o.Channel) == 0 {
			return Finite{}, configErrorf("%s.channel is missing or empty: want one row P(·|X=x) per x", name)
		}
		for x, row := range o.Channel {
			if len(row) > maxAlphabet {
				return Finite{}, configErrorf("%s.channel row %d has %d entries: at most %d", name, x, len(row), maxAlphabet)
			}
		}
		if o.Loss != nil && len(o.Loss) == 0 {
			return Finite{}, configErrorf("%s.loss is empty: omit it for the 0-1 loss, or give one row per x", name)
		}
		for x, row := range o.Loss {
			if len(row) > maxAlphabet {
				return Finite{}, configErrorf("%s.loss row %d has %d entries: at most %d", name, x, len(row), maxAlphabet)
			}
		}
	}
	if err := m.Validate(); err != nil {
		return Finite{}, configErrorf("%w", err)
	}
	return m, nil
}

// Config returns the JSON form of m.
func (m Finite) Config() FiniteConfig {
	rc := ObserverConfig(m.Recon)
	c := FiniteConfig{Prior: m.Prior, Reconstructor: &rc}
	for _, a := range m.Adv {
		c.Adversaries = append(c.Adversaries, ObserverConfig(a))
	}
	return c
}
