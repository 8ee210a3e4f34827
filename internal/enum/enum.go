// Package enum implements the text form of mmds's enums: an integer type
// whose values have names (a status, a method, a verdict). Text[T] holds
// the names of T, indexed by value, and T's String, MarshalText and
// UnmarshalText are one call each; the errors stay the owning package's,
// through two hooks, so that every enum keeps its own sentinel and
// wording.
//
// Names are matched exactly (case and blanks count). An integer whose
// entry is "" or out of range is no value: String gives "Type(n)" as fmt
// would write an unnamed integer type, and MarshalText refuses it. The one
// exception is an option whose default is written as nothing (Text.Empty):
// its zero value is a value whose text is "", so that a field tagged
// omitempty leaves the default out of JSON and "" reads back as it.
package enum

import (
	"fmt"
	"strings"
)

// Text is the text form of the enum T.
type Text[T ~int] struct {
	// Type is T's name: the String of an integer that is no value is
	// "Type(n)".
	Type string
	// Names[v] is value v's text; "" marks an integer that is no value.
	Names []string
	// Empty makes the zero value a value whose text is "" (Names[0] must
	// be ""): an option whose default is unnamed.
	Empty bool
	// BadValue returns MarshalText's error for v, which is no value.
	BadValue func(v T) error
	// BadText returns the error for text that names no value; want lists
	// the names as Want does.
	BadText func(text []byte, want string) error
}

// Valid reports whether v is a value of T.
func (t Text[T]) Valid(v T) bool {
	return v >= 0 && int(v) < len(t.Names) && (t.Names[v] != "" || v == 0 && t.Empty)
}

// String returns v's name, or "Type(n)" for an integer that is no value.
func (t Text[T]) String(v T) string {
	if !t.Valid(v) {
		return fmt.Sprintf("%s(%d)", t.Type, int(v))
	}
	return t.Names[v]
}

// Marshal is T's MarshalText: v's name, or BadValue(v).
func (t Text[T]) Marshal(v T) ([]byte, error) {
	if !t.Valid(v) {
		return nil, t.BadValue(v)
	}
	return []byte(t.Names[v]), nil
}

// Parse returns the value named s, or BadText's error.
func (t Text[T]) Parse(s string) (T, error) {
	for i, n := range t.Names {
		if n == s && t.Valid(T(i)) {
			return T(i), nil
		}
	}
	return 0, t.BadText([]byte(s), t.Want())
}

// Unmarshal is T's UnmarshalText: it sets *v to the value named text, or
// returns BadText's error and leaves *v alone.
func (t Text[T]) Unmarshal(v *T, text []byte) error {
	p, err := t.Parse(string(text))
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// Want lists the names in value order as error messages give the valid
// ones: "a", "a or b", "a, b or c"; the empty name of Text.Empty is
// written `""`.
func (t Text[T]) Want() string {
	var names []string
	for i, n := range t.Names {
		switch {
		case n != "":
			names = append(names, n)
		case t.Valid(T(i)):
			names = append(names, `""`)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// IntError returns a BadValue reading "<err>: <n>", n the integer, that
// wraps err.
func IntError[T ~int](err error) func(T) error {
	return func(v T) error { return fmt.Errorf("%w: %d", err, int(v)) }
}

// QuotedError returns a BadText reading "<err>: <text as %q>" that wraps
// err.
func QuotedError(err error) func([]byte, string) error {
	return func(text []byte, _ string) error { return fmt.Errorf("%w: %q", err, text) }
}
