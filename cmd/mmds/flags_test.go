package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// eachFlag calls fn for every flag of every command below root.
func eachFlag(t *testing.T, fn func(path []string, f *pflag.Flag)) {
	t.Helper()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.Fields(strings.TrimPrefix(c.CommandPath(), "mmds"))
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && !f.Hidden {
				fn(path, f)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(nil, nil))
}

// inner is the type pflag gave a flag's value (guardFlags wraps it).
func inner(f *pflag.Flag) string {
	if g, ok := f.Value.(guarded); ok {
		return g.guardedFlag().Value.Type()
	}
	return f.Value.Type()
}

// TestNumbersAsPeopleWriteThem: every number flag of every command refuses
// what strconv would read but a person did not mean (hexadecimal, digit
// separators, inf, nan, a dangling exponent, an empty list entry) and an
// empty value, with exit 2 and one line that names the flag and the value,
// before any work.
func TestNumbersAsPeopleWriteThem(t *testing.T) {
	bad := map[string][]string{
		"float": {"1_0", "0x1p-2", "inf", "-Inf", "nan", "NaN", "1e", ".", "1,5", "", " ", "0b1", "1e400"},
		"int":   {"1_0", "0x10", "0o7", "1e3", "1.5", "inf", "", "+", "99999999999999999999"},
	}
	n := 0
	eachFlag(t, func(path []string, f *pflag.Flag) {
		kind := ""
		switch strings.TrimSuffix(inner(f), "Slice") {
		case "float64", "float32":
			kind = "float"
		case "int", "int64", "int32", "uint", "uint64", "uint32":
			kind = "int"
		default:
			return
		}
		for _, v := range bad[kind] {
			if strings.HasSuffix(inner(f), "Slice") && v == "1,5" {
				continue // a list of two
			}
			args := append(append([]string{}, path...), "--"+f.Name+"="+v)
			code, out, errs := runCLI(t, args...)
			n++
			if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--"+f.Name+" ") ||
				!strings.Contains(errs, `"`+v+`"`) || goInternals.MatchString(errs) || (strings.TrimSpace(v) != "" && !strings.Contains(errs, ": want ")) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line naming the flag, the value and what is wanted", args, code, out, errs)
			}
		}
	})
	if n < 100 {
		t.Errorf("only %d cases: the commands' number flags were not found", n)
	}
}

// TestEmptyValuesRefused: an empty value of any flag that takes one is
// refused (exit 2, one line saying what to give), never read as "unset"
// (-o ” would write to standard output, --out ” into a default folder).
func TestEmptyValuesRefused(t *testing.T) {
	n := 0
	eachFlag(t, func(path []string, f *pflag.Flag) {
		if inner(f) == "bool" {
			return
		}
		for _, v := range []string{"", "  "} {
			args := append(append([]string{}, path...), "--"+f.Name+"="+v)
			code, out, errs := runCLI(t, args...)
			n++
			if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--"+f.Name+" ") ||
				!strings.Contains(errs, "empty: give ") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and \"empty: give …\"", args, code, out, errs)
			}
		}
	})
	if n < 100 {
		t.Errorf("only %d cases", n)
	}
}

// TestNumberForms: the forms people write are read as they mean them,
// integers in base 10 whatever their leading zeros.
func TestNumberForms(t *testing.T) {
	for _, tt := range []struct{ typ, in, want string }{
		{"float64", ".5", ".5"}, {"float64", "5.", "5."}, {"float64", "-2.5e-3", "-2.5e-3"}, {"float64", "+1E2", "+1E2"},
		{"float64Slice", "0.1, .2,3", "0.1,.2,3"}, {"int", "010", "10"}, {"int", "+7", "7"}, {"uint64", "0042", "42"},
		{"intSlice", "1, 02,3", "1,2,3"}, {"string", "0x10", "0x10"}, {"duration", "1h30m", "1h30m"},
		{"uint64", "18446744073709551615", "18446744073709551615"}, {"uint64", "9223372036854775808", "9223372036854775808"},
	} {
		got, err := canonical(tt.typ, tt.in)
		if err != nil || got != tt.want {
			t.Errorf("canonical(%s, %q) = %q, %v; want %q", tt.typ, tt.in, got, err, tt.want)
		}
	}
}

// TestHelpTypeNames: help names every value in words (number, FILE, DIR,
// strings), never pflag's Go type names, and says a default once.
func TestHelpTypeNames(t *testing.T) {
	goTypes := []string{"float64", "float64Slice", "stringArray", "stringSlice", "intSlice", "uint64", "int64"}
	eachFlag(t, func(path []string, f *pflag.Flag) {
		name, usage := pflag.UnquoteUsage(f)
		for _, g := range goTypes {
			if name == g {
				t.Errorf("mmds %s --%s: help names the value %q", strings.Join(path, " "), f.Name, name)
			}
		}
		if strings.Contains(usage, "(default") && f.DefValue != "" {
			t.Errorf("mmds %s --%s: a default in words and pflag's (default %s)", strings.Join(path, " "), f.Name, f.DefValue)
		}
	})
}

// TestCompleteNumbersOffersNothing: the shells' completion (bash, zsh and
// fish all ask mmds __complete) offers nothing for a number or a duration
// and no file names either (cobra.ShellCompDirectiveNoFileComp), whatever
// the flag's name (one-letter names too: --d, --p, --k) and form (--x v,
// --x=v).
func TestCompleteNumbersOffersNothing(t *testing.T) {
	n := 0
	eachFlag(t, func(path []string, f *pflag.Flag) {
		switch strings.TrimSuffix(inner(f), "Slice") {
		case "float64", "float32", "int", "int64", "int32", "uint", "uint64", "uint32", "duration":
		default:
			if f.Name != "sweep" && f.Name != "n" { // numbers written as text: D0:D1:N, NMIN:NMAX
				return
			}
		}
		for _, req := range []string{cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd} {
			for _, last := range [][]string{{"--" + f.Name, ""}, {"--" + f.Name, "1"}, {"--" + f.Name + "="}} {
				args := append(append([]string{req}, path...), last...)
				code, out, _ := runCLI(t, args...)
				n++
				if code != 0 || out != fmt.Sprintf(":%d\n", cobra.ShellCompDirectiveNoFileComp) {
					t.Errorf("%v: exit %d, output %q; want only the directive :%d (no file names)", args, code, out, cobra.ShellCompDirectiveNoFileComp)
				}
			}
		}
	})
	if n < 100 {
		t.Errorf("only %d cases", n)
	}
}
