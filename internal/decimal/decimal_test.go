package decimal

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

func TestFloat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		err  error
	}{
		{"0.25", 0.25, nil}, {"1e-3", 1e-3, nil}, {"1E3", 1000, nil}, {"+2", 2, nil}, {"-2.5", -2.5, nil},
		{".5", 0.5, nil}, {"5.", 5, nil}, {"-.5", -0.5, nil}, {"007", 7, nil}, {"1e+2", 100, nil}, {"0", 0, nil},
		{"1e-400", 0, nil}, {"1e400", 0, ErrRange}, {"-1e400", 0, ErrRange},
		{"", 0, ErrSyntax}, {".", 0, ErrSyntax}, {"+", 0, ErrSyntax}, {"e3", 0, ErrSyntax}, {"1e", 0, ErrSyntax},
		{"1e+", 0, ErrSyntax}, {"1_0", 0, ErrSyntax}, {"0x1p-2", 0, ErrSyntax}, {"0x10", 0, ErrSyntax},
		{"inf", 0, ErrSyntax}, {"+Inf", 0, ErrSyntax}, {"infinity", 0, ErrSyntax}, {"nan", 0, ErrSyntax},
		{"NaN", 0, ErrSyntax}, {" 1", 0, ErrSyntax}, {"1 ", 0, ErrSyntax}, {"1,5", 0, ErrSyntax},
		{"--1", 0, ErrSyntax}, {"1.2.3", 0, ErrSyntax}, {"1e2.5", 0, ErrSyntax}, {"١", 0, ErrSyntax}, {"0b1", 0, ErrSyntax},
	} {
		got, err := Float(tt.in)
		if !errors.Is(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("Float(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestInt(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		err  error
	}{
		{"10", 10, nil}, {"010", 10, nil}, {"+3", 3, nil}, {"-3", -3, nil}, {"9223372036854775807", math.MaxInt64, nil},
		{"9223372036854775808", 0, ErrRange}, {"", 0, ErrSyntax}, {"1_0", 0, ErrSyntax}, {"0x10", 0, ErrSyntax},
		{"0o7", 0, ErrSyntax}, {"1e3", 0, ErrSyntax}, {"1.0", 0, ErrSyntax}, {"-", 0, ErrSyntax}, {" 1", 0, ErrSyntax},
	} {
		got, err := Int(tt.in)
		if !errors.Is(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("Int(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestUint(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
		err  error
	}{
		{"10", 10, nil}, {"010", 10, nil}, {"+3", 3, nil}, {"-0", 0, nil}, {"9223372036854775808", 1 << 63, nil},
		{"18446744073709551615", math.MaxUint64, nil}, {"18446744073709551616", 0, ErrRange}, {"-3", 0, ErrRange},
		{"", 0, ErrSyntax}, {"1_0", 0, ErrSyntax}, {"0x10", 0, ErrSyntax}, {"1e3", 0, ErrSyntax}, {"+", 0, ErrSyntax},
	} {
		got, err := Uint(tt.in)
		if !errors.Is(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("Uint(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// FuzzFloat: whatever Float accepts, strconv reads the same, finite; and
// it never accepts a letter other than e.
func FuzzFloat(f *testing.F) {
	for _, s := range []string{"0.25", "1e-3", ".5", "5.", "0x1p-2", "1_0", "inf", "nan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Float(s)
		if err != nil {
			return
		}
		w, err2 := strconv.ParseFloat(s, 64)
		if err2 != nil || v != w || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("Float(%q) = %v, strconv %v, %v", s, v, w, err2)
		}
		for _, r := range s {
			if (r < '0' || r > '9') && r != '.' && r != 'e' && r != 'E' && r != '+' && r != '-' {
				t.Fatalf("Float(%q) accepted %q", s, r)
			}
		}
	})
}
