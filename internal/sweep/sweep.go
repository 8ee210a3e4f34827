// Package sweep parses and generates the grids of distortion thresholds D that
// every mmds command sweeps over: N evenly spaced values from D0 to D1,
// both ends included.
package sweep

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/decimal"
	"github.com/mmds-project/mmds/internal/enum"
)

// MaxPoints bounds N so a typo cannot ask for billions of solves.
const MaxPoints = 1_000_000

// Spec is a sweep of N evenly spaced values from D0 to D1 inclusive.
type Spec struct {
	D0, D1 float64
	N      int
}

// Parse reads "D0:D1:N". D0 and D1 must be finite and ≥ 0 with D0 ≤ D1;
// N must be in [1, MaxPoints]; N = 1 requires D0 = D1. flag names the flag in
// error messages.
func Parse(flag, s string) (Spec, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return Spec{}, fmt.Errorf("--%s %q: want D0:D1:N (for example 0.0025:0.2:30)", flag, s)
	}
	d0, err := parseNonNeg(flag, "D0", parts[0])
	if err != nil {
		return Spec{}, err
	}
	d1, err := parseNonNeg(flag, "D1", parts[1])
	if err != nil {
		return Spec{}, err
	}
	n64, err := decimal.Int(strings.TrimSpace(parts[2]))
	n := int(min(max(n64, -1), MaxPoints+1))
	if err != nil || n < 1 || n > MaxPoints {
		return Spec{}, fmt.Errorf("--%s %q: N = %q must be an integer in [1, %d]", flag, s, parts[2], MaxPoints)
	}
	if d0 > d1 {
		return Spec{}, fmt.Errorf("--%s %q: D0 = %g must not exceed D1 = %g", flag, s, d0, d1)
	}
	if n == 1 && d0 != d1 {
		return Spec{}, fmt.Errorf("--%s %q: N = 1 needs D0 = D1", flag, s)
	}
	return Spec{D0: d0, D1: d1, N: n}, nil
}

// Thresholds are the thresholds --d d or --sweep s give, which exclude
// each other (dGiven, sweepGiven: which the user gave); nil when neither
// is given.
func Thresholds(dGiven bool, d float64, sweepGiven bool, s string) ([]float64, error) {
	switch {
	case dGiven && sweepGiven:
		return nil, errors.New("--d and --sweep are mutually exclusive: give one")
	case dGiven:
		if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
			return nil, fmt.Errorf("--d %v: must be a finite number ≥ 0", d)
		}
		return []float64{d}, nil
	case sweepGiven:
		sp, err := Parse("sweep", s)
		if err != nil {
			return nil, err
		}
		return sp.Values(), nil
	}
	return nil, nil
}

func parseNonNeg(flag, name, s string) (float64, error) {
	v, err := decimal.Float(strings.TrimSpace(s))
	if err != nil || v < 0 {
		return 0, fmt.Errorf("--%s: %s = %q must be a finite number ≥ 0", flag, name, s)
	}
	return v, nil
}

// Values returns the N points D0 + i (D1 − D0)/(N − 1), i = 0..N−1, with the
// last one exactly D1.
func (s Spec) Values() []float64 {
	if s.N == 1 {
		return []float64{s.D0}
	}
	out := make([]float64, s.N)
	step := (s.D1 - s.D0) / float64(s.N-1)
	for i := range out {
		out[i] = s.D0 + float64(i)*step
	}
	out[s.N-1] = s.D1
	return out
}

// String returns the spec in the form Parse reads.
func (s Spec) String() string {
	return strconv.FormatFloat(s.D0, 'g', -1, 64) + ":" + strconv.FormatFloat(s.D1, 'g', -1, 64) + ":" + strconv.Itoa(s.N)
}

// NotReached is the status of a threshold a limit stopped the sweep
// before (Budget): it was never solved.
const NotReached = "not reached"

// Budget bounds a sweep with one semantics on every solve path: points are
// solved in order, and a point starts only while fewer than MaxPoints have
// been solved and the deadline has not passed; the points after the first
// refused one are not reached. A point that has started is not cut short
// by the budget (solvers with their own time limit get Share of it).
type Budget struct {
	MaxPoints int       // 0: no bound
	Deadline  time.Time // zero: none
	Now       func() time.Time
}

// NewBudget starts a budget now: maxPoints points at most (0: all) within
// limit (0: none).
func NewBudget(maxPoints int, limit time.Duration, now func() time.Time) Budget {
	if now == nil {
		now = time.Now
	}
	b := Budget{MaxPoints: maxPoints, Now: now}
	if limit > 0 {
		b.Deadline = now().Add(limit)
	}
	return b
}

// Stop says why point i (0-based) may not start: StopNone when it may.
func (b Budget) Stop(i int) Stop {
	switch {
	case b.MaxPoints > 0 && i >= b.MaxPoints:
		return StopMaxPoints
	case !b.Deadline.IsZero() && !b.now().Before(b.Deadline):
		return StopTimeLimit
	}
	return StopNone
}

// Share is point i's share of the time left when n points are asked for:
// the time left over the points still to solve (at least a millisecond;
// 0 without a deadline).
func (b Budget) Share(i, n int) time.Duration {
	if b.Deadline.IsZero() {
		return 0
	}
	if b.MaxPoints > 0 {
		n = min(n, b.MaxPoints)
	}
	return max(b.Deadline.Sub(b.now())/time.Duration(max(n-i, 1)), time.Millisecond)
}

func (b Budget) now() time.Time {
	if b.Now == nil {
		return time.Now()
	}
	return b.Now()
}

// Stop is why a Budget stopped a sweep.
type Stop int

// The reasons.
const (
	StopNone      Stop = iota // every point was reached
	StopMaxPoints             // the point bound (--max-points)
	StopTimeLimit             // the deadline (--time-limit)
)

// ErrStop is wrapped by UnmarshalText's errors.
var ErrStop = errors.New("sweep: unknown stop reason")

var stopText = enum.Text[Stop]{Type: "Stop", Names: []string{StopMaxPoints: "max points", StopTimeLimit: "time limit"},
	Empty: true, BadValue: enum.IntError[Stop](ErrStop), BadText: enum.QuotedError(ErrStop)}

// String is "" for StopNone, "max points" or "time limit".
func (s Stop) String() string { return stopText.String(s) }

// MarshalText writes String.
func (s Stop) MarshalText() ([]byte, error) { return stopText.Marshal(s) }

// UnmarshalText reads String's form.
func (s *Stop) UnmarshalText(b []byte) error { return stopText.Unmarshal(s, b) }
