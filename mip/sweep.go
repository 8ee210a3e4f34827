package mip

import (
	"context"
	"time"

	"github.com/mmds-project/mmds/internal/sweep"
)

// Stop is why a sweep ended before its last threshold: StopNone,
// StopMaxPoints or StopTimeLimit (a Stop marshals as "", "max points" or
// "time limit").
type Stop = sweep.Stop

// The reasons a sweep stops early.
const (
	StopNone      = sweep.StopNone
	StopMaxPoints = sweep.StopMaxPoints
	StopTimeLimit = sweep.StopTimeLimit
)

// StatusNotReached is the status of a threshold a sweep's limit stopped
// it before: it was never solved.
const StatusNotReached = sweep.NotReached

// SweepOptions bound a sweep and report its progress; the zero value
// solves every threshold silently. Every solve path (Proposition 2, the
// ray LP, column generation, the fixed-alphabet MIP) gives them one
// meaning: thresholds are solved in order, and a threshold starts only
// while fewer than MaxPoints are solved and TimeLimit has not passed since
// the sweep began; the rest are not reached. Results are not retained
// beyond the points returned, so a sweep of a million thresholds stopped by
// a limit holds only what it solved.
type SweepOptions struct {
	MaxPoints int           // 0: every threshold
	TimeLimit time.Duration // 0: none
	// Progress, when set, is called after each solved threshold with the
	// number solved so far (from the sweep's goroutine).
	Progress func(done int)
	// Now is the clock of TimeLimit (time.Now when nil).
	Now func() time.Time
}

func (sw SweepOptions) budget() sweep.Budget {
	return sweep.NewBudget(sw.MaxPoints, sw.TimeLimit, sw.Now)
}

// sweepEach solves at every threshold in ds, in order, within sw and the
// started budget b, and returns what was solved so far with the first
// error or when ctx is cancelled.
func sweepEach[T any](ctx context.Context, ds []float64, sw SweepOptions, b sweep.Budget, solve func(i int, d float64) (T, error)) ([]T, Stop, error) {
	return collect(len(ds), func(emit func(T) error) (int, Stop, error) { return sweepEmit(ctx, ds, sw, b, solve, emit) })
}

// collect runs a sweep of n thresholds that hands its points to emit, and
// returns them in a slice grown as they are solved: a limit that stops a
// long sweep early must not have paid for its whole length up front.
func collect[T any](n int, run func(emit func(T) error) (int, Stop, error)) ([]T, Stop, error) {
	out := make([]T, 0, min(n, 1024))
	_, stop, err := run(func(opt T) error {
		out = append(out, opt)
		return nil
	})
	return out, stop, err
}

// reach is the prefix of ds a sweep within sw can solve.
func (sw SweepOptions) reach(ds []float64) []float64 {
	if sw.MaxPoints > 0 && sw.MaxPoints < len(ds) {
		return ds[:sw.MaxPoints]
	}
	return ds
}

// sweepEmit solves at every threshold in ds, in order, within b, and hands
// each solved point to emit before the next starts; it returns how many
// were emitted, with the first error (of solve or emit) or when ctx is
// cancelled. Nothing is retained.
func sweepEmit[T any](ctx context.Context, ds []float64, sw SweepOptions, b sweep.Budget, solve func(i int, d float64) (T, error), emit func(T) error) (int, Stop, error) {
	n := 0
	for i, d := range ds {
		if err := ctx.Err(); err != nil {
			return n, StopNone, err
		}
		if stop := b.Stop(i); stop != StopNone {
			return n, stop, nil
		}
		opt, err := solve(i, d)
		if err != nil {
			return n, StopNone, err
		}
		if err := emit(opt); err != nil {
			return n, StopNone, err
		}
		n++
		if sw.Progress != nil {
			sw.Progress(n)
		}
	}
	return n, StopNone, nil
}
