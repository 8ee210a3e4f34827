package learn

import (
	"errors"
	"fmt"
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

var methodNames = [...]string{MethodAlg1: "alg1", MethodLabels: "labels"}

// Methods lists the methods in the order help texts name them.
func Methods() []TrainMethod { return []TrainMethod{MethodAlg1, MethodLabels} }

// String returns the method's name: "alg1" or "labels".
func (m TrainMethod) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("TrainMethod(%d)", int(m))
}

// ParseMethod returns the method named s; an unknown name is an error
// wrapping ErrMethod.
func ParseMethod(s string) (TrainMethod, error) {
	for _, m := range Methods() {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w %q: want alg1 or labels", ErrMethod, s)
}

// MarshalText implements encoding.TextMarshaler.
func (m TrainMethod) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(methodNames) {
		return nil, fmt.Errorf("%w: %d", ErrMethod, int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *TrainMethod) UnmarshalText(b []byte) error {
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

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

var observerNames = [...]string{ObserversLaw: "law", ObserversData: "data"}

// String returns "law" or "data".
func (o ObserverKind) String() string {
	if o >= 0 && int(o) < len(observerNames) {
		return observerNames[o]
	}
	return fmt.Sprintf("ObserverKind(%d)", int(o))
}

// ParseObservers returns the observer kind named s; an unknown name is an
// error wrapping ErrObservers.
func ParseObservers(s string) (ObserverKind, error) {
	for k, n := range observerNames {
		if n == s {
			return ObserverKind(k), nil
		}
	}
	return 0, fmt.Errorf("%w %q: want law or data", ErrObservers, s)
}

// MarshalText implements encoding.TextMarshaler.
func (o ObserverKind) MarshalText() ([]byte, error) {
	if o < 0 || int(o) >= len(observerNames) {
		return nil, fmt.Errorf("%w: %d", ErrObservers, int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *ObserverKind) UnmarshalText(b []byte) error {
	v, err := ParseObservers(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}
