package learn

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrMethod is wrapped by every error about a training method's name.
var ErrMethod = errors.New("learn: unknown training method")

// TrainMethod names how a sweep trains its privatizers. The zero value is
// the paper's Algorithm 1.
type TrainMethod int

// The training methods.
const (
	// MethodAlg1 is Algorithm 1 of Section IV as the preset configures
	// it: a network privatizer k(x, r) and network observers.
	MethodAlg1 TrainMethod = iota
	// MethodLabels releases one of Config.Labels labels drawn from a
	// softmax over the codebook, and every observer's loss is the exact
	// expectation over the labels (docs/learn.md, "The labels method").
	MethodLabels
)

var methodText = enum.Text[TrainMethod]{Type: "TrainMethod",
	Names:    []string{MethodAlg1: "alg1", MethodLabels: "labels"},
	BadValue: enum.IntError[TrainMethod](ErrMethod), BadText: quotedWant(ErrMethod)}

// quotedWant returns the text error of learn's enums: "<err> <the text
// quoted, cut to an excerpt>: want <the names>", wrapping err.
func quotedWant(err error) func([]byte, string) error {
	return func(b []byte, want string) error {
		return fmt.Errorf("%w %s: want %s", err, safefile.Excerpt(string(b)), want)
	}
}

// String returns the method's name: "alg1" or "labels".
func (m TrainMethod) String() string { return methodText.String(m) }

// ParseMethod returns the method named s; an unknown name is an error
// wrapping ErrMethod.
func ParseMethod(s string) (TrainMethod, error) { return methodText.Parse(s) }

// MarshalText implements encoding.TextMarshaler.
func (m TrainMethod) MarshalText() ([]byte, error) { return methodText.Marshal(m) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *TrainMethod) UnmarshalText(b []byte) error { return methodText.Unmarshal(m, b) }

// ErrObservers is wrapped by every error about an observer kind's name.
var ErrObservers = errors.New("learn: unknown observer kind")

// ObserverKind says what the labels method's observers know (Config.Observers).
type ObserverKind int

// The observer kinds of the labels method on a finite X.
const (
	// ObserversLaw: exact Bayes observers of the model's law
	// (Config.Law): the training objective is the certified one.
	ObserversLaw ObserverKind = iota
	// ObserversData: exact Bayes observers of the training split's
	// empirical law, for data without a known law.
	ObserversData
)

var observerText = enum.Text[ObserverKind]{Type: "ObserverKind",
	Names:    []string{ObserversLaw: "law", ObserversData: "data"},
	BadValue: enum.IntError[ObserverKind](ErrObservers), BadText: quotedWant(ErrObservers)}

// String returns "law" or "data".
func (o ObserverKind) String() string { return observerText.String(o) }

// ParseObservers returns the observer kind named s; an unknown name is an
// error wrapping ErrObservers.
func ParseObservers(s string) (ObserverKind, error) { return observerText.Parse(s) }

// MarshalText implements encoding.TextMarshaler.
func (o ObserverKind) MarshalText() ([]byte, error) { return observerText.Marshal(o) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *ObserverKind) UnmarshalText(b []byte) error { return observerText.Unmarshal(o, b) }
