package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model/kind"
)

// TestParseBad: every malformed file is an *Error wrapping ErrData that
// names the row (and line) and the column, with an excerpt of the value.
func TestParseBad(t *testing.T) {
	cases := []struct {
		name, in string
		row      int
		col      string
		want     string
	}{
		{"empty", "", 0, "", "empty file"},
		{"spaces only", " \n\n", 0, "", "empty file"},
		{"bom", "\ufeffx,y\n1,2\n", 0, "", "byte-order mark"},
		{"header only", "x,y\n", 0, "", "no data rows"},
		{"duplicate header", "x,y,x\n1,2,3\n", 0, "x", "header fields 1 and 3"},
		{"empty header name", "x,,y\n1,2,3\n", 0, "", "header field 2 is empty"},
		{"control in name", "x,a\x1bb\n1,2\n", 0, "", `"a\x1bb"`},
		{"non-numeric", "x,y\n1,2\n3,abc\n", 2, "y", `= "abc": not a decimal number`},
		{"nan", "x,y\n1,NaN\n", 1, "y", "not a finite number"},
		{"inf", "x,y\n-inf,1\n", 1, "x", "not a finite number"},
		{"infinity word", "x,y\n1,Infinity\n", 1, "y", "not a finite number"},
		{"out of range", "x,y\n1e400,1\n", 1, "x", "outside the range"},
		{"hex float", "x,y\n0x1p3,1\n", 1, "x", "not a decimal number"},
		{"digit separator", "x,y\n1_000,1\n", 1, "x", "not a decimal number"},
		{"empty cell", "x,y\n1,2\n3,\n", 2, "y", `= "": empty cell`},
		{"ragged short", "x,y,z\n1,2,3\n4,5\n", 2, "", "has 2 fields, the header has 3"},
		{"ragged long", "x,y\n1,2\n3,4,5\n", 2, "", "has 3 fields, the header has 2"},
		{"bare quote", "x,y\n1,2\n3,4\"\n", 2, "", "not valid CSV"},
		{"long value excerpted", "x,y\n1," + strings.Repeat("z", 200) + "\n", 1, "y", "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.in), "f.csv")
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrData) {
				t.Fatalf("Parse: %v; want an *Error wrapping ErrData", err)
			}
			if e.Row != c.row || e.Column != c.col || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q (row %d, column %q); want row %d, column %q, mentioning %q", err, e.Row, e.Column, c.row, c.col, c.want)
			}
			if c.row > 0 && !strings.Contains(err.Error(), fmt.Sprintf("row %d (line ", c.row)) {
				t.Errorf("error %q does not name row %d", err, c.row)
			}
			if len(err.Error()) > 300 {
				t.Errorf("error is %d bytes long: the value must be excerpted", len(err.Error()))
			}
		})
	}
}

// TestParseGood: spaces around cells, CRLF line endings, quoted fields and
// blank lines are read; line numbers follow the file.
func TestParseGood(t *testing.T) {
	tab, err := Parse([]byte("x,\"y\"\r\n 1.5 ,-2\r\n\r\n3,4e-1\r\n"), "f.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Names, []string{"x", "y"}) || tab.Rows != 2 ||
		!slices.Equal(tab.Cols[0], []float64{1.5, 3}) || !slices.Equal(tab.Cols[1], []float64{-2, 0.4}) {
		t.Fatalf("table %+v", tab)
	}
	if !slices.Equal(tab.Lines, []int{2, 4}) {
		t.Errorf("lines %v, want [2 4]", tab.Lines)
	}
}

// FuzzParse: Parse never panics, and what it accepts is a rectangular
// table of finite numbers under distinct non-empty names.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"x,y\n1,2\n", "x,y\n1,\n", "\ufeffx\n1\n", "a,b,a\n1,2,3\n", "x\n\"1\"\n", "x,y\r\n1,2\r\n3,4"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := Parse(b, "fuzz.csv")
		if err != nil {
			if !errors.Is(err, ErrData) {
				t.Fatalf("error %v does not wrap ErrData", err)
			}
			return
		}
		if tab.Rows < 1 || len(tab.Names) != len(tab.Cols) || len(tab.Lines) != tab.Rows {
			t.Fatalf("table shape: %d rows, %d names, %d columns", tab.Rows, len(tab.Names), len(tab.Cols))
		}
		seen := map[string]bool{}
		for j, n := range tab.Names {
			if n == "" || seen[n] {
				t.Fatalf("name %q empty or repeated", n)
			}
			seen[n] = true
			if len(tab.Cols[j]) != tab.Rows {
				t.Fatalf("column %q has %d values, %d rows", n, len(tab.Cols[j]), tab.Rows)
			}
			for _, v := range tab.Cols[j] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("column %q holds %v", n, v)
				}
			}
		}
	})
}

// TestDetect: the discrete rule (integers, at most MaxDiscreteValues
// distinct values).
func TestDetect(t *testing.T) {
	many := make([]float64, MaxDiscreteValues+1)
	for k := range many {
		many[k] = float64(k)
	}
	cases := []struct {
		col  []float64
		want Kind
	}{
		{[]float64{0, 1, 1, 0}, Discrete},
		{[]float64{-3, 7, 7, 100}, Discrete},
		{[]float64{0, 0.5}, Continuous},
		{many[:MaxDiscreteValues], Discrete},
		{many, Continuous},
		{[]float64{1e300, 2}, Discrete},
	}
	for _, c := range cases {
		if got := Detect(c.col); got != c.want {
			t.Errorf("Detect(%v) = %v, want %v", c.col, got, c.want)
		}
	}
	for _, k := range []Kind{Continuous, Discrete} {
		b, _ := k.MarshalText()
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("round trip of %v: %v, %v", k, back, err)
		}
	}
	var k Kind
	if err := k.UnmarshalText([]byte("ordinal")); !errors.Is(err, ErrData) {
		t.Errorf("UnmarshalText(ordinal) = %v, want ErrData", err)
	}
}

// table builds a table of n rows: x = r mod 3, y = (r/3) mod 2, c constant,
// w = r/7 (continuous-looking: many values), h = w·1e160 and t = w·1e-170
// (w in units where squared errors overflow, or underflow).
func table(n int) *Table {
	t := &Table{Names: []string{"x", "y", "c", "w", "h", "t"}, Cols: make([][]float64, 6), Rows: n}
	for r := range n {
		t.Cols[0] = append(t.Cols[0], float64(r%3))
		t.Cols[1] = append(t.Cols[1], float64(r/3%2))
		t.Cols[2] = append(t.Cols[2], 5)
		t.Cols[3] = append(t.Cols[3], float64(r)/7)
		t.Cols[4] = append(t.Cols[4], float64(r)/7*1e160)
		t.Cols[5] = append(t.Cols[5], float64(r)/7*1e-170)
		t.Lines = append(t.Lines, r+2)
	}
	return t
}

// TestNewSpecBad: column choices that cannot work name the column.
func TestNewSpecBad(t *testing.T) {
	tab := table(120)
	base := func() Choice {
		return Choice{Private: "x", Reconstructor: []string{"y"}, Adversaries: [][]string{{"w"}}}
	}
	cases := []struct {
		name string
		edit func(*Choice)
		want string
	}{
		{"missing private", func(c *Choice) { c.Private = "nope" }, `column "nope": no such column`},
		{"missing side", func(c *Choice) { c.Adversaries = [][]string{{"y", "zz"}} }, `column "zz": no such column`},
		{"constant", func(c *Choice) { c.Reconstructor = []string{"c"} }, `row 1 (line 2), column "c" = "5": the column is constant`},
		{"x as side", func(c *Choice) { c.Adversaries = [][]string{{"x"}} }, "is the private column X"},
		{"twice", func(c *Choice) { c.Reconstructor = []string{"y", "y"} }, "named twice"},
		{"both kinds", func(c *Choice) { c.Discrete, c.Continuous = []string{"w"}, []string{"w"} }, "declared both"},
		{"override unknown", func(c *Choice) { c.Discrete = []string{"q"} }, `column "q": declared discrete, but there is no such column`},
		{"no adversary", func(c *Choice) { c.Adversaries = nil }, "at least one adversary"},
		{"X in units whose squares overflow", func(c *Choice) { c.Private = "h" }, `row 120 (line 121), column "h" = "1.7e+161": beyond ±1e+100: squared errors in these units overflow`},
		{"a side column too", func(c *Choice) { c.Adversaries = [][]string{{"h"}} }, `column "h" = "1.7e+161": beyond ±1e+100`},
		{"X in units whose squares underflow", func(c *Choice) { c.Private = "t" }, `column "t": its values span 1.7e-169, less than 1e-100: squared errors in these units underflow to 0`},
		{"declared discrete, any scale", func(c *Choice) { c.Private, c.Discrete = "x", []string{"x"} }, ""},
	}
	for _, c := range cases {
		ch := base()
		c.edit(&ch)
		_, err := NewSpec(tab, "f.csv", strings.Repeat("0", 64), ch)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want ErrData mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := NewSpec(table(MinRows-1), "f.csv", "", base()); err == nil {
		t.Errorf("%d rows accepted", MinRows-1)
	}
}

// TestSplitDeterministic: the split is a permutation fixed by the seed;
// another seed gives another one; Prepare puts rows in that order, and the
// spec survives its encoding.
func TestSplitDeterministic(t *testing.T) {
	a, b, c := Permutation(7, 500), Permutation(7, 500), Permutation(8, 500)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave two permutations")
	}
	if slices.Equal(a, c) {
		t.Fatal("seeds 7 and 8 gave the same permutation")
	}
	s := slices.Clone(a)
	slices.Sort(s)
	for k, v := range s {
		if v != k {
			t.Fatalf("not a permutation: %v", a[:10])
		}
	}
	tab := table(120)
	spec, err := NewSpec(tab, "f.csv", strings.Repeat("a", 64), Choice{Private: "x", Reconstructor: []string{"y"}, Adversaries: [][]string{{"w"}, {"y"}}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Split.Train != 100 || spec.Split.Test != 20 {
		t.Errorf("split %+v, want 100 + 20 (5/6, 1/6)", spec.Split)
	}
	p, err := Prepare(tab, spec)
	if err != nil {
		t.Fatal(err)
	}
	perm := Permutation(3, 120)
	for k, r := range perm {
		if p.X[k] != tab.Cols[0][r] || p.Side[1][0][k] != tab.Cols[3][r] {
			t.Fatalf("row %d of the split is not row %d of the file", k, r)
		}
	}
	enc, err := spec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !IsFile(enc) {
		t.Fatalf("IsFile(%s) = false", enc)
	}
	back, err := DecodeFile(enc, "model.json")
	if err != nil {
		t.Fatal(err)
	}
	h1, _ := spec.Hash()
	h2, _ := back.Hash()
	if h1 != h2 {
		t.Errorf("hash changed through the encoding")
	}
}

// TestChoosePlan: the defaults and the refusals of ChoosePlan.
func TestChoosePlan(t *testing.T) {
	tab := table(120)
	tab.Names = append(tab.Names, "b")
	col := make([]float64, 120)
	for r := range col {
		col[r] = float64(r % 2)
	}
	tab.Cols = append(tab.Cols, col)
	alg1, labels := learn.MethodAlg1, learn.MethodLabels
	cases := []struct {
		private, side string
		method        *learn.TrainMethod
		want          Plan
		err           string
	}{
		{"w", "y", nil, Plan{kind.Gauss, alg1}, ""},
		{"w", "y", &labels, Plan{}, "X) is continuous"},
		{"x", "y", nil, Plan{kind.Finite, labels}, ""},
		{"x", "y", &alg1, Plan{kind.Finite, alg1}, ""},
		{"b", "y", &alg1, Plan{kind.Binary, alg1}, ""},
		{"b", "w", nil, Plan{kind.Binary, alg1}, ""},
		{"b", "w", &labels, Plan{}, `side column "w" is continuous`},
		{"x", "w", nil, Plan{}, "takes 3 values and side column \"w\" is continuous"},
	}
	for _, c := range cases {
		spec, err := NewSpec(tab, "f.csv", strings.Repeat("a", 64), Choice{Private: c.private, Reconstructor: []string{c.side}, Adversaries: [][]string{{c.side}}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(tab, spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.ChoosePlan(c.method)
		if c.err != "" {
			if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("X %s, side %s: %v; want ErrData mentioning %q", c.private, c.side, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("X %s, side %s: %+v, %v; want %+v", c.private, c.side, got, err, c.want)
		}
	}
}
