// Package decimal reads numbers as people write them, the one syntax of
// every number mmds reads from a command line or a text file:
//
//	[+-]digits[.digits][(e|E)[+-]digits], also .5 and 5.
//
// and integers as [+-]digits. strconv accepts more: hexadecimal (0x1p-2 is
// 0.25), octal (010 is 8 to ParseInt with base 0), digit separators (1_0 is
// 10), inf, infinity and nan, all of which a person who typed them meant
// differently or not at all; this package refuses them.
package decimal

import (
	"errors"
	"strconv"
	"strings"
)

// Errors of Float and Int.
var (
	// ErrSyntax: not a number in the package's syntax.
	ErrSyntax = errors.New("decimal: not a number")
	// ErrRange: a number too large in magnitude for its type.
	ErrRange = errors.New("decimal: out of range")
)

// Float parses s as a decimal floating-point number. A magnitude beyond
// the largest float64 is ErrRange; one below the smallest rounds to 0.
func Float(s string) (float64, error) {
	if !isFloat(s) {
		return 0, ErrSyntax
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, ErrRange // the syntax is checked: only the range is left
	}
	return v, nil
}

// Int parses s as a decimal integer (leading zeros are decimal: 010 is 10).
func Int(s string) (int64, error) {
	if !isInt(s) {
		return 0, ErrSyntax
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, ErrRange
	}
	return v, nil
}

// Uint parses s as a decimal integer ≥ 0 (an optional + sign; leading
// zeros are decimal), up to 2⁶⁴ − 1: the range of a seed.
func Uint(s string) (uint64, error) {
	if !isInt(s) {
		return 0, ErrSyntax
	}
	if strings.HasPrefix(s, "-") {
		if strings.Trim(s[1:], "0") == "" {
			return 0, nil // −0 is 0
		}
		return 0, ErrRange
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 64)
	if err != nil {
		return 0, ErrRange
	}
	return v, nil
}

// NonFinite reports whether s spells NaN or an infinity as spreadsheets,
// Python and Go write them (nan, inf, infinity, any case, signed), for a
// message that says so rather than "not a number".
func NonFinite(s string) bool {
	switch strings.ToLower(sign(s)) {
	case "nan", "inf", "infinity":
		return true
	}
	return false
}

// isInt: [+-]digits.
func isInt(s string) bool {
	s = sign(s)
	return s != "" && digits(s) == len(s)
}

// isFloat: [+-]digits[.digits][e[+-]digits] with digits on at least one
// side of the point.
func isFloat(s string) bool {
	s = sign(s)
	n := digits(s)
	s = s[n:]
	if s != "" && s[0] == '.' {
		s = s[1:]
		m := digits(s)
		n += m
		s = s[m:]
	}
	if n == 0 {
		return false
	}
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = sign(s[1:])
		m := digits(s)
		if m == 0 {
			return false
		}
		s = s[m:]
	}
	return s == ""
}

// sign drops one leading + or -.
func sign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

// digits counts the ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
