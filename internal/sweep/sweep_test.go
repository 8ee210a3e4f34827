package sweep

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseAndValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
	}{
		{"0:1:5", []float64{0, 0.25, 0.5, 0.75, 1}},
		{"0.0025:0.2:2", []float64{0.0025, 0.2}},
		{" 0.3 : 0.3 : 1 ", []float64{0.3}},
		{"1e-3:2e-3:3", []float64{1e-3, 1.5e-3, 2e-3}},
	} {
		s, err := Parse("sweep", tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		got := s.Values()
		if len(got) != len(tc.want) {
			t.Fatalf("%q: %v, want %v", tc.in, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-15 {
				t.Errorf("%q: value %d = %.17g, want %.17g", tc.in, i, got[i], tc.want[i])
			}
		}
		if got[len(got)-1] != s.D1 {
			t.Errorf("%q: last value %.17g is not exactly D1", tc.in, got[len(got)-1])
		}
	}
	// The paper's binary sweep: 30 values, step (0.2 − 0.0025)/29.
	v := Spec{D0: 0.0025, D1: 0.2, N: 30}.Values()
	if step := v[1] - v[0]; math.Abs(step-(0.2-0.0025)/29) > 1e-15 {
		t.Errorf("step %g", step)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "want D0:D1:N"},
		{"1:2", "want D0:D1:N"},
		{"a:1:3", "D0 = \"a\""},
		{"0:NaN:3", "D1 = \"NaN\""},
		{"-1:1:3", "D0 = \"-1\""},
		{"0:Inf:3", "D1 = \"Inf\""},
		{"2:1:3", "must not exceed"},
		{"0:1:0", "N = \"0\""},
		{"0:1:x", "N = \"x\""},
		{"0:1:2000000", "N = \"2000000\""},
		{"0:1:1", "N = 1 needs D0 = D1"},
	} {
		_, err := Parse("sweep", tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "--sweep") {
			t.Errorf("Parse(%q) = %v, want an error naming --sweep and containing %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0:1:5", "0.0025:0.2:30", "::", "1e308:1e308:2", "0:1:1000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse("sweep", in)
		if err != nil {
			return
		}
		if s.N > 10000 {
			return // valid but too long to enumerate in a fuzz iteration
		}
		v := s.Values()
		if len(v) != s.N || v[0] != s.D0 || v[len(v)-1] != s.D1 {
			t.Fatalf("%q: %d values from %g to %g", in, len(v), v[0], v[len(v)-1])
		}
		for i, x := range v {
			if math.IsNaN(x) || x < 0 || (i > 0 && x < v[i-1]) {
				t.Fatalf("%q: value %d = %g breaks the grid", in, i, x)
			}
		}
		if again, err := Parse("sweep", s.String()); err != nil || again != s {
			t.Fatalf("%q: String() = %q does not parse back (%v)", in, s.String(), err)
		}
	})
}

func TestBudget(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, tc := range []struct {
		name    string
		max     int
		limit   time.Duration
		advance time.Duration
		i       int
		want    Stop
	}{
		{"no limits", 0, 0, time.Hour, 1_000_000, StopNone},
		{"within max points", 3, 0, 0, 2, StopNone},
		{"max points", 3, 0, 0, 3, StopMaxPoints},
		{"before the deadline", 0, time.Second, 999 * time.Millisecond, 5, StopNone},
		{"at the deadline", 0, time.Second, time.Second, 0, StopTimeLimit},
		{"1ns is honoured", 0, time.Nanosecond, time.Nanosecond, 0, StopTimeLimit},
		{"max points first", 2, time.Second, time.Hour, 2, StopMaxPoints},
	} {
		now = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		b := NewBudget(tc.max, tc.limit, clock)
		now = now.Add(tc.advance)
		if got := b.Stop(tc.i); got != tc.want {
			t.Errorf("%s: Stop(%d) = %v, want %v", tc.name, tc.i, got, tc.want)
		}
	}
	now = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewBudget(4, 8*time.Second, clock)
	if got := b.Share(0, 100); got != 2*time.Second {
		t.Errorf("Share(0, 100) with 4 points in 8 s = %v, want 2s", got)
	}
	if got := NewBudget(0, 0, clock).Share(0, 10); got != 0 {
		t.Errorf("Share without a deadline = %v, want 0", got)
	}
}

func TestStopText(t *testing.T) {
	for _, s := range []Stop{StopNone, StopMaxPoints, StopTimeLimit} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Stop
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%v: round trip %q → %v, %v", s, b, back, err)
		}
	}
	var s Stop
	if err := s.UnmarshalText([]byte("soon")); !errors.Is(err, ErrStop) {
		t.Errorf("unknown reason: %v, want ErrStop", err)
	}
}

// Thresholds reads --d or --sweep, never both, and nothing when neither is
// given.
func TestThresholds(t *testing.T) {
	for _, c := range []struct {
		dGiven, sweepGiven bool
		d                  float64
		s                  string
		want               []float64
		err                string
	}{
		{want: nil},
		{dGiven: true, d: 0.1, want: []float64{0.1}},
		{sweepGiven: true, s: "0:1:3", want: []float64{0, 0.5, 1}},
		{dGiven: true, sweepGiven: true, d: 0.1, s: "0:1:3", err: "--d and --sweep are mutually exclusive"},
		{dGiven: true, d: -1, err: "--d -1: must be a finite number ≥ 0"},
		{dGiven: true, d: math.Inf(1), err: "--d +Inf"},
		{sweepGiven: true, s: "1:0:3", err: "D0 = 1 must not exceed D1 = 0"},
	} {
		got, err := Thresholds(c.dGiven, c.d, c.sweepGiven, c.s)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: error %v, want %q", c, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, %v; want %v", c, got, err, c.want)
		}
	}
}
