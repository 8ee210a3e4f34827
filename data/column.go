package data

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
)

// Kind says how a column is read: as real numbers (Continuous) or as
// symbols, one per distinct value (Discrete). The zero value is no kind.
type Kind int

// The column kinds.
const (
	Continuous Kind = iota + 1
	Discrete
)

var kindText = enum.Text[Kind]{Type: "Kind", Names: []string{Continuous: "continuous", Discrete: "discrete"},
	BadValue: func(k Kind) error { return fmt.Errorf("%w: %v is not a column kind", ErrData, k) },
	BadText: func(b []byte, want string) error {
		return fmt.Errorf("%w: column kind %s: want %s", ErrData, safefile.Excerpt(string(b)), want)
	}}

// String returns "continuous" or "discrete".
func (k Kind) String() string { return kindText.String(k) }

// MarshalText implements encoding.TextMarshaler.
func (k Kind) MarshalText() ([]byte, error) { return kindText.Marshal(k) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) error { return kindText.Unmarshal(k, b) }

// MaxDiscreteValues is the most distinct values a column Detect calls
// discrete may hold: with a few thousand rows, each cell of an empirical
// joint law of two such columns still holds a few samples on average.
const MaxDiscreteValues = 16

// MaxSymbols is the most distinct values (or, for an observer with several
// discrete columns, distinct tuples) a discrete column may hold when it is
// declared discrete: the labels method's symbols are below it.
const MaxSymbols = 1024

// Detect returns the kind of a column by the rule of the package
// documentation: Discrete when every value is an integer and there are at
// most MaxDiscreteValues distinct values, else Continuous.
func Detect(col []float64) Kind {
	seen := map[float64]struct{}{}
	for _, v := range col {
		if v != math.Trunc(v) {
			return Continuous
		}
		if _, ok := seen[v]; !ok {
			if len(seen) == MaxDiscreteValues {
				return Continuous
			}
			seen[v] = struct{}{}
		}
	}
	return Discrete
}

// distinct returns the sorted distinct values of col (−0 read as 0).
func distinct(col []float64) []float64 {
	seen := map[float64]struct{}{}
	for _, v := range col {
		seen[v+0] = struct{}{}
	}
	return slices.Sorted(maps.Keys(seen))
}
