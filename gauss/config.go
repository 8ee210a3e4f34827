package gauss

import (
	_ "embed" // the paper's setup is embedded as a JSON config
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/mmds-project/mmds/internal/jsonconf"
)

// ErrConfig is wrapped by every error that reports an invalid model
// description (malformed JSON, bad numbers, bad names, a non-PSD matrix).
var ErrConfig = errors.New("gauss: invalid gauss config")

// MaxVars bounds the number of variables a config may declare, so a hostile
// file cannot ask for a huge eigen-decomposition.
const MaxVars = 256

// paperJSON is the setup of Section V-A of the paper: means (4, 3, 4.5, 5),
// variances (16, 0.90, 12.25, 2.25) and the six correlations, reconstructor Y,
// adversaries Z1 and Z2. The coalitions are reported for information only.
//
//go:embed paper.json
var paperJSON string

// Config is the JSON description of a jointly Gaussian model. Exactly one of
// Cov or (Var and Corr) gives the second moments; Mean defaults to zeros.
type Config struct {
	Names         []string    `json:"names"`
	Mean          []float64   `json:"mean,omitempty"`
	Var           []float64   `json:"var,omitempty"`
	Corr          [][]float64 `json:"corr,omitempty"`
	Cov           [][]float64 `json:"cov,omitempty"`
	Private       string      `json:"private"`
	Reconstructor []string    `json:"reconstructor"`
	Adversaries   [][]string  `json:"adversaries"`
	// Coalitions lists extra side-information sets S whose Var[X|S] is
	// reported alongside the reconstructor's and adversaries' (e.g. Z1, Z2).
	Coalitions [][]string `json:"coalitions,omitempty"`
}

// clone returns a deep copy of c.
func (c Config) clone() Config {
	return Config{Names: slices.Clone(c.Names), Mean: slices.Clone(c.Mean), Var: slices.Clone(c.Var),
		Corr: cloneRows(c.Corr), Cov: cloneRows(c.Cov), Private: c.Private,
		Reconstructor: slices.Clone(c.Reconstructor), Adversaries: cloneRows(c.Adversaries),
		Coalitions: cloneRows(c.Coalitions)}
}

// cloneRows returns a deep copy of a (nil for nil).
func cloneRows[T any](a [][]T) [][]T {
	if a == nil {
		return nil
	}
	out := make([][]T, len(a))
	for i, row := range a {
		out[i] = slices.Clone(row)
	}
	return out
}

// PaperConfig returns the embedded default: the paper's Section V-A setup.
func PaperConfig() Config {
	c, err := ParseConfig(strings.NewReader(paperJSON))
	if err != nil {
		panic("gauss: embedded paper.json is invalid: " + err.Error()) // a build defect, caught by tests
	}
	return c
}

// ParseConfig decodes one JSON object. Unknown fields, trailing data and
// malformed JSON are errors wrapping ErrConfig. It does not validate the
// model: New does.
func ParseConfig(r io.Reader) (Config, error) {
	var c Config
	if err := jsonconf.Decode(r, &c); err != nil {
		return Config{}, &markedError{ErrConfig, err}
	}
	return c, nil
}

// configErr formats a validation error that wraps ErrConfig.
func configErr(format string, args ...any) error {
	return &markedError{ErrConfig, fmt.Errorf(format, args...)}
}

// markedError reads as its cause alone and matches the sentinel mark
// (ErrConfig: the caller names the file, and a chain of prefixes helps no
// one; ErrSamples: MonteCarlo's message) and the cause.
type markedError struct{ mark, err error }

func (e *markedError) Error() string   { return e.err.Error() }
func (e *markedError) Unwrap() []error { return []error{e.mark, e.err} }

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
