package gauss

import (
	"context"
	"errors"
	"testing"

	"github.com/mmds-project/mmds/internal/sweep"
)

func TestSolve(t *testing.T) {
	m := Paper()
	ds := []float64{0.05, 0.1, 0.2}
	for _, tc := range []struct {
		name    string
		o       SolveOptions
		points  int
		stop    sweep.Stop
		wantErr error
	}{
		{"all", SolveOptions{}, 3, sweep.StopNone, nil},
		{"max points", SolveOptions{MaxPoints: 2}, 2, sweep.StopMaxPoints, nil},
		{"monte carlo", SolveOptions{MonteCarlo: &MonteCarloOptions{Seed: 1, Samples: 600}}, 3, sweep.StopNone, nil},
		{"too few samples", SolveOptions{MonteCarlo: &MonteCarloOptions{Seed: 1, Samples: 6}}, 0, sweep.StopNone, ErrSamples},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var last int
			tc.o.Progress = func(s Stage, done int) {
				if s != StagePoints || done != last+1 {
					t.Errorf("progress (%d, %d) after %d", s, done, last)
				}
				last = done
			}
			s, err := m.Solve(context.Background(), ds, tc.o)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if len(s.Brackets) != tc.points || s.Stop != tc.stop || s.Improved != -1 {
				t.Fatalf("%d brackets, stop %q, improved %d", len(s.Brackets), s.Stop, s.Improved)
			}
			if tc.o.MonteCarlo != nil && len(s.MonteCarlo) != tc.points {
				t.Errorf("%d Monte Carlo results, want %d", len(s.MonteCarlo), tc.points)
			}
			// every point as Optimum and Bracket give it, the cross-check within tolerance
			for i, b := range s.Brackets {
				want, _ := m.Optimum(ds[i])
				if b.MinAdv != want.MinAdv || b.D != ds[i] {
					t.Errorf("point %d: min adv %g, want %g", i, b.MinAdv, want.MinAdv)
				}
			}
			if s.MaxRelErr > CheckTol {
				t.Errorf("cross-check discrepancy %g > %g", s.MaxRelErr, CheckTol)
			}
		})
	}
}

func TestParallelHandsOutAPrefix(t *testing.T) {
	const n = 50
	hit := make([]bool, n)
	got := parallel(n, 3, func(i int) bool { return i < 17 }, func(i int) { hit[i] = true })
	if got != 17 {
		t.Fatalf("started %d, want 17", got)
	}
	for i, h := range hit {
		if h != (i < 17) {
			t.Errorf("index %d run = %v", i, h)
		}
	}
}
