package mip

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/sweep"
)

func loadExample(t testing.TB, name string) Finite {
	t.Helper()
	f, err := os.Open("../examples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ParseFiniteConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSweepLimitsEveryPath bounds a sweep on every solve path with
// --max-points and --time-limit: the points solved are a prefix, the
// reason is reported, and 1 ns is honoured (nothing starts).
func TestSweepLimitsEveryPath(t *testing.T) {
	ds := sweep.Spec{D0: 0.01, D1: 0.2, N: 12}.Values()
	bin := PaperBinary()
	ternary := loadExample(t, "finite-ternary.json")
	g, err := ternary.PrepareGlobal(GlobalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type run func(sw SweepOptions) (int, Stop, error)
	finite := func(o FiniteSolveOptions) run {
		return func(sw SweepOptions) (int, Stop, error) {
			o.MaxPoints, o.TimeLimit, o.Progress, o.Solver = sw.MaxPoints, sw.TimeLimit, sw.Progress, DefaultSolver()
			sol, err := ternary.SolveFinite(context.Background(), ds, o)
			return len(sol.Points), sol.Stopped, err
		}
	}
	paths := []struct {
		name string
		run  run
	}{
		{"proposition 2", func(sw SweepOptions) (int, Stop, error) {
			opts, stop, err := bin.SweepProp2Within(context.Background(), ds, DefaultSolver(), sw)
			return len(opts), stop, err
		}},
		{"global sweep", func(sw SweepOptions) (int, Stop, error) {
			opts, stop, err := g.SweepWithin(context.Background(), ds, DefaultSolver(), sw)
			return len(opts), stop, err
		}},
		{"ray LP", finite(FiniteSolveOptions{Method: MethodRays})},
		{"column generation", finite(FiniteSolveOptions{Method: MethodColGen})},
		{"fixed MIP", finite(FiniteSolveOptions{Alphabet: 2})},
	}
	for _, p := range paths {
		for _, tc := range []struct {
			name     string
			sw       SweepOptions
			want     int
			wantStop Stop
		}{
			{"max points", SweepOptions{MaxPoints: 3}, 3, StopMaxPoints},
			{"1ns", SweepOptions{TimeLimit: time.Nanosecond}, 0, StopTimeLimit},
			{"max points beyond N", SweepOptions{MaxPoints: 100}, len(ds), StopNone},
		} {
			if tc.want == len(ds) && p.name == "column generation" {
				continue // a full column generation sweep is covered by its own tests
			}
			done := 0
			tc.sw.Progress = func(n int) {
				if n != done+1 {
					t.Errorf("%s, %s: progress %d after %d", p.name, tc.name, n, done)
				}
				done = n
			}
			n, stop, err := p.run(tc.sw)
			if err != nil {
				t.Fatalf("%s, %s: %v", p.name, tc.name, err)
			}
			if n != tc.want || stop != tc.wantStop || done != n {
				t.Errorf("%s, %s: %d points (progress %d), stopped by %q; want %d, %q", p.name, tc.name, n, done, stop, tc.want, tc.wantStop)
			}
		}
	}
}

// TestLongSweepStopsAtTimeLimit: a million thresholds with a 200 ms limit
// stop once the clock passes it and hold only the points solved. The clock
// ticks a millisecond each time it is read, so the test does not depend on
// how fast the machine is (TestSweepLimitsEveryPath reads the real one).
func TestLongSweepStopsAtTimeLimit(t *testing.T) {
	ds := sweep.Spec{D0: 0, D1: 0.2, N: sweep.MaxPoints}.Values()
	sol, err := PaperBinary().Finite().SolveFinite(context.Background(), ds,
		FiniteSolveOptions{TimeLimit: 200 * time.Millisecond, Solver: DefaultSolver(), Now: tickingClock(time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Stopped != StopTimeLimit || len(sol.Points) == 0 || len(sol.Points) > 200 || cap(sol.Points) > 2*len(sol.Points)+1024 {
		t.Errorf("%d points (capacity %d), stopped by %q; want at most 200, one a clock reading", len(sol.Points), cap(sol.Points), sol.Stopped)
	}
	opts, stop, err := PaperBinary().SweepProp2Within(context.Background(), ds, DefaultSolver(),
		SweepOptions{TimeLimit: 200 * time.Millisecond, Now: tickingClock(time.Millisecond)})
	if err != nil || stop != StopTimeLimit || len(opts) == 0 || len(opts) > 200 {
		t.Errorf("proposition 2: %d points, stopped by %q, %v; want at most 200", len(opts), stop, err)
	}
}

// tickingClock is a clock that moves on by step each time it is read.
func tickingClock(step time.Duration) func() time.Time {
	var reads atomic.Int64
	return func() time.Time { return time.Unix(0, 0).Add(time.Duration(reads.Add(1)) * step) }
}

// TestSweepCancelStops: a cancelled context stops a long sweep on the ray
// LP path, long before its million thresholds. The bound on the time it
// takes is generous (a sweep that ignored the context would run for
// minutes), so that a loaded machine does not fail it.
func TestSweepCancelStops(t *testing.T) {
	ds := sweep.Spec{D0: 0, D1: 0.2, N: sweep.MaxPoints}.Values()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := PaperBinary().Finite().SolveFinite(ctx, ds, FiniteSolveOptions{Solver: DefaultSolver()})
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("cancelled sweep: %v, want ErrInterrupted", err)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("cancel took %v", el)
	}
}

func TestFiniteDefaultSweep(t *testing.T) {
	m := PaperBinary().Finite()
	got := m.DefaultSweep()
	if got.D0 != m.DMin() || got.D1 != m.DMax() || got.N != DefaultFinitePoints {
		t.Errorf("paper binary: %v, want %g:%g:%d", got, m.DMin(), m.DMax(), DefaultFinitePoints)
	}
	// Y determines X: D_min = D_max = 0, a single threshold
	m.Recon.Channel = [][]float64{{1, 0}, {0, 1}}
	if got := m.DefaultSweep(); got.D0 != m.DMin() || got.D1 != m.DMin() || got.N != 1 {
		t.Errorf("Y = X: %v, want the single threshold %g", got, m.DMin())
	}
}
