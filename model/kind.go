package model

import (
	"fmt"
	"strings"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model/kind"
)

// Kind names a model family: the one kind enum of mmds, defined in package
// kind so that package learn, which does not import model, names it too
// (the same type).
type Kind = kind.Kind

// The model kinds, in the order help texts name them.
const (
	Gauss  = kind.Gauss
	Binary = kind.Binary
	Finite = kind.Finite
)

// ErrConfig wraps every error about a model's configuration (kind.ErrConfig:
// an unknown kind is one).
var ErrConfig = kind.ErrConfig

// Kinds lists the model kinds in the order help texts name them.
func Kinds() []Kind { return kind.All() }

// ParseKind returns the kind named s; another name is an error wrapping
// ErrConfig.
func ParseKind(s string) (Kind, error) { return kind.Parse(s) }

// A kindFile is what model knows of a kind's --config file and default:
// adding a kind is a Kind in package kind, its type implementing Model,
// and its entry here (docs/design.md, "Adding a model kind").
type kindFile struct {
	parse func([]byte) (Model, error)
	// paper is the paper's model of the kind (Section V); nil: the kind
	// has no default.
	paper func() Model
	// own are the top-level keys only the kind's files use (detectKind);
	// fields names a file's fields, for the message of a file no kind
	// reads.
	own    []string
	fields string
	// title describes the kind in a word, for shell completions.
	title string
}

var kindFiles = map[Kind]kindFile{
	Gauss: {parse: parseGauss,
		paper:  func() Model { return NewGauss(gauss.Paper()) },
		own:    []string{"names", "mean", "var", "corr", "cov", "private", "coalitions"},
		fields: `"names", "cov" or "var" and "corr", "private", …`, title: "the Gaussian model (Section V-A)"},
	Binary: {parse: parseBinary,
		paper: func() Model { return NewBinary(mip.PaperBinary()) },
		own:   []string{"p", "q_y", "q_z"}, fields: `"p", "q_y", "q_z"`, title: "the binary model (Section V-B)"},
	Finite: {parse: parseFinite,
		own: []string{"prior"}, fields: `"prior", "reconstructor", "adversaries"`, title: "a finite model (--config)"},
}

// KindTitle describes kind k in a few words ("the binary model (Section
// V-B)"), for shell completions.
func KindTitle(k Kind) string { return kindFiles[k].title }

// KindsWant lists the kinds as a message names the valid ones, "gauss,
// binary or finite", each quoted (%q) when quoted is set.
func KindsWant(quoted bool) string { return kind.Want(quoted) }

// KindsUsage names the kinds as a usage line does: gauss|binary|finite.
func KindsUsage() string {
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.String())
	}
	return strings.Join(names, "|")
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
	// the losses are the best privatizer's found, FiniteDetail.UpperBound
	// the proven bound.
	AllBracketed
	// AllLowerBound: the losses are a lower bound of the optimum's.
	AllLowerBound
)

var classText = enum.Text[Class]{Type: "Class",
	Names: []string{LinearGaussian: "linear-gaussian", BinaryOutput: "binary-output", All: "all",
		AllBracketed: "all (bracketed)", AllLowerBound: "all (lower bound)"},
	BadValue: func(c Class) error { return fmt.Errorf("model: Class(%d) is not an optimum class", int(c)) },
	BadText: func(b []byte, _ string) error {
		return fmt.Errorf("%w: optimum class %s: want one of linear-gaussian, binary-output, all, all (bracketed), all (lower bound)", ErrConfig, safefile.Excerpt(string(b)))
	}}

// String is the class as reports write it ("linear-gaussian", …).
func (c Class) String() string { return classText.String(c) }

// MarshalText implements encoding.TextMarshaler.
func (c Class) MarshalText() ([]byte, error) { return classText.Marshal(c) }

// UnmarshalText implements encoding.TextUnmarshaler; an unknown class is an
// error wrapping ErrConfig.
func (c *Class) UnmarshalText(b []byte) error { return classText.Unmarshal(c, b) }
