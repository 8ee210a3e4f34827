// Package kind names the model families of Section II: the Gaussian model
// (MSE losses, a continuous X), the binary model (0-1 losses, X ∈ {0, 1}
// through binary symmetric channels) and finite models (any finite
// alphabets and loss matrices).
//
// It is the one kind enum of mmds. Package model re-exports it as
// model.Kind. It is a package of its own, below both model and learn,
// which name the kind and do not import each other: a model knows nothing
// of training (learn asks it for samples through learn.Source), and the
// trainer nothing of certification.
package kind

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrConfig wraps every error about a model's configuration, an unknown
// kind among them. Package model re-exports it as model.ErrConfig.
var ErrConfig = errors.New("model: invalid configuration")

// Kind names a model family. Its text form ("gauss", "binary", "finite") is
// the first argument of mmds train and the "model" field of results.json,
// reports and certificates; the zero value is no kind.
type Kind int

// The model kinds, in the order help texts name them.
const (
	Gauss Kind = iota + 1
	Binary
	Finite
)

var text = enum.Text[Kind]{Type: "Kind", Names: []string{Gauss: "gauss", Binary: "binary", Finite: "finite"},
	BadValue: func(k Kind) error { return fmt.Errorf("%w: Kind(%d) is not a model kind", ErrConfig, int(k)) },
	BadText: func(b []byte, want string) error {
		return fmt.Errorf("%w: model kind %s: want %s", ErrConfig, safefile.Excerpt(string(b)), want)
	}}

// All lists the model kinds in the order help texts name them.
func All() []Kind { return []Kind{Gauss, Binary, Finite} }

// Want lists the kinds as a message names the valid ones, "gauss, binary
// or finite", each name quoted (%q) when quoted is set: no message spells
// the kinds out by hand.
func Want(quoted bool) string {
	if !quoted {
		return text.Want()
	}
	var names []string
	for _, k := range All() {
		names = append(names, fmt.Sprintf("%q", k))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Valid reports whether k is one of the kinds.
func (k Kind) Valid() bool { return text.Valid(k) }

// FiniteX reports whether the private X takes finitely many values (the
// binary and finite models), so that a privatizer is a channel P(F | X)
// and every observer's Bayes rule is a finite sum; the Gaussian model's X
// is continuous.
func (k Kind) FiniteX() bool { return k == Binary || k == Finite }

// BinaryRelease reports whether Algorithm 1 releases one bit on the kind
// (the binary model, Section V-B): p̂ = k(x, r) through a sigmoid and
// F ~ Bernoulli(p̂), a mechanism (s0, s1); every estimator outputs a
// probability through a sigmoid, is trained on the soft 0-1 loss, and its
// hard 0-1 decisions are recorded beside. On the Gaussian model (Section
// V-A) f = k(x, r) is real-valued and every loss is MSE; on a finite
// model the release is categorical (CategoricalRelease).
func (k Kind) BinaryRelease() bool { return k == Binary }

// CategoricalRelease reports whether Algorithm 1 releases one of m labels
// on the kind, F ~ Categorical(softmax(k(one-hot x, r))): Section V-B's
// one-bit release extended to a finite X with more than two values. Its
// privatizer is a categorical network (network.Network.Categorical),
// certified through the channel it induces.
func (k Kind) CategoricalRelease() bool { return k == Finite }

// String is the kind's name, "Kind(n)" for a value that is not one.
func (k Kind) String() string { return text.String(k) }

// MarshalText implements encoding.TextMarshaler; a value that is not a kind
// is an error wrapping ErrConfig.
func (k Kind) MarshalText() ([]byte, error) { return text.Marshal(k) }

// UnmarshalText implements encoding.TextUnmarshaler (Parse).
func (k *Kind) UnmarshalText(b []byte) error { return text.Unmarshal(k, b) }

// Parse returns the kind named s; another name is an error wrapping
// ErrConfig.
func Parse(s string) (Kind, error) { return text.Parse(s) }
