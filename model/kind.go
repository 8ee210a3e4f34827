package model

import (
	"fmt"

	"github.com/mmds-project/mmds/internal/safefile"
)

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

var kindNames = [...]string{Gauss: "gauss", Binary: "binary", Finite: "finite"}

// Kinds lists the model kinds in the order help texts name them.
func Kinds() []Kind { return []Kind{Gauss, Binary, Finite} }

// String is the kind's name, "Kind(n)" for a value that is not one.
func (k Kind) String() string {
	if k < Gauss || k > Finite {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// MarshalText implements encoding.TextMarshaler; a value that is not a kind
// is an error wrapping ErrConfig.
func (k Kind) MarshalText() ([]byte, error) {
	if k < Gauss || k > Finite {
		return nil, fmt.Errorf("%w: %v is not a model kind", ErrConfig, k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler (ParseKind).
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// ParseKind returns the kind named s; another name is an error wrapping
// ErrConfig.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w: model kind %s: want gauss, binary or finite", ErrConfig, safefile.Excerpt(s))
}

// Class says over which privatizers an Optimum is optimal.
type Class int

// The classes of an optimum.
const (
	// LinearGaussian: Proposition 1, optimal among F = aX + bR (Gaussian
	// models).
	LinearGaussian Class = iota + 1
	// BinaryOutput: Proposition 2, optimal among privatizers with a binary
	// release (binary models).
	BinaryOutput
	// All: the global LP, optimal among all privatizers (finite models).
	All
	// AllBracketed: column generation stopped before it proved optimality;
	// the losses are the best privatizer's found, FiniteOptimum.UpperBound
	// the proven bound.
	AllBracketed
	// AllLowerBound: the losses are a lower bound of the optimum's.
	AllLowerBound
)

var classNames = [...]string{LinearGaussian: "linear-gaussian", BinaryOutput: "binary-output", All: "all",
	AllBracketed: "all (bracketed)", AllLowerBound: "all (lower bound)"}

// String is the class as reports write it ("linear-gaussian", …).
func (c Class) String() string {
	if c < LinearGaussian || c > AllLowerBound {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// MarshalText implements encoding.TextMarshaler.
func (c Class) MarshalText() ([]byte, error) {
	if c < LinearGaussian || c > AllLowerBound {
		return nil, fmt.Errorf("model: %v is not an optimum class", c)
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; an unknown class is an
// error wrapping ErrConfig.
func (c *Class) UnmarshalText(b []byte) error {
	for v := LinearGaussian; v <= AllLowerBound; v++ {
		if classNames[v] == string(b) {
			*c = v
			return nil
		}
	}
	return fmt.Errorf("%w: optimum class %s: want one of linear-gaussian, binary-output, all, all (bracketed), all (lower bound)", ErrConfig, safefile.Excerpt(string(b)))
}
