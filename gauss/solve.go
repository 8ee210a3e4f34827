package gauss

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/mmds-project/mmds/internal/sweep"
)

// ErrSamples reports a Monte Carlo sample count too small for the model
// (MonteCarlo needs ≥ 2(d + 2) training and ≥ 2 test samples).
var ErrSamples = errors.New("gauss: too few Monte Carlo samples")

// MonteCarloOptions are the settings of cross-check 5(b): point i draws
// Samples joint samples from PCG(Seed, i), split by SplitSamples.
type MonteCarloOptions struct {
	Seed    uint64
	Samples int
}

// Stage is the part of a Solve that a progress report counts.
type Stage int

// The stages of Solve, in order.
const (
	StagePoints  Stage = iota // the closed form, cross-check 5(a), the bracket, Monte Carlo
	StageOptimum              // the optimum search over posteriors
	StageKernels              // the kernel search
)

// SolveOptions bound a Solve and say what it computes beside Proposition 1
// and the bracket; the zero value solves every threshold silently.
type SolveOptions struct {
	MaxPoints int           // 0: every threshold
	TimeLimit time.Duration // 0: none
	// MonteCarlo, when set, estimates every loss by Monte Carlo.
	MonteCarlo *MonteCarloOptions
	// Optimum, when set, runs the optimum search over posteriors
	// (OptimumSearcher) at every threshold solved whose bracket is open,
	// in order, each threshold's search starting from the last one's
	// posteriors, under the same bounds.
	Optimum *OptimumSearch
	// Kernels, when set, runs the kernel search at every threshold solved
	// under the same bounds.
	Kernels *KernelSearch
	// Workers is the number of kernel searches run at once (0:
	// GOMAXPROCS); the solution does not depend on it.
	Workers int
	// Progress, when set, is called with the stage and the units done so
	// far: one a threshold in StagePoints, then one a threshold in
	// StageOptimum and one a threshold searched in StageKernels (so at
	// most 3·len(ds)); it may be called from several goroutines, never at
	// once.
	Progress func(s Stage, done int)
	// Now is the clock of TimeLimit (time.Now when nil).
	Now func() time.Time
}

// Solution is what Solve computed: Brackets[i] (Proposition 1's optimum
// with the best achievable and the upper bound) and, with Monte Carlo,
// MonteCarlo[i] belong to ds[i] for the first len(Brackets) thresholds;
// Stop says which bound stopped the rest.
type Solution struct {
	Brackets   []Bracket
	MaxRelErr  float64 // largest cross-check 5(a) discrepancy
	MonteCarlo []MCResult
	Train      int // Monte Carlo training samples a point
	Test       int // Monte Carlo test samples a point
	// Improved is the number of thresholds the kernel search improved the
	// best achievable at, -1 when it did not run.
	Improved int
	// OptimumImproved is the number of thresholds the optimum search's
	// mechanisms improved the best achievable at, -1 when it did not run.
	OptimumImproved int
	Stop            sweep.Stop
}

// Solve computes, threshold by threshold in order and within o's bounds,
// Proposition 1 with cross-check 5(a), the bracket [best achievable,
// upper bound] and, if asked, Monte Carlo cross-check 5(b) (Section V-A);
// then, if asked, the kernel search at every threshold solved. A threshold
// starts only while fewer than MaxPoints are solved and TimeLimit has not
// passed; the rest are not reached. An error wrapping ErrSamples means the
// sample count is too small for the model.
func (m *Model) Solve(ctx context.Context, ds []float64, o SolveOptions) (*Solution, error) {
	s := &Solution{Improved: -1, OptimumImproved: -1}
	var searcher *OptimumSearcher
	if o.Optimum != nil {
		var err error
		if searcher, err = m.NewOptimumSearcher(*o.Optimum); err != nil {
			return nil, err
		}
	}
	if o.MonteCarlo != nil {
		s.Train, s.Test = SplitSamples(o.MonteCarlo.Samples)
	}
	b := sweep.NewBudget(o.MaxPoints, o.TimeLimit, o.Now)
	for i, d := range ds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.Stop = b.Stop(i); s.Stop != sweep.StopNone {
			break
		}
		if err := m.solvePoint(s, o.MonteCarlo, i, d); err != nil {
			return nil, err
		}
		o.progress(StagePoints, i+1)
	}
	if s.Stop != sweep.StopNone {
		return s, nil
	}
	solved := len(s.Brackets)
	if searcher != nil {
		if err := m.searchOptimum(ctx, s, searcher, b, func(done int) { o.progress(StageOptimum, solved+done) }); err != nil {
			return nil, err
		}
		if s.Stop != sweep.StopNone {
			return s, nil
		}
		solved += len(s.Brackets)
	}
	if o.Kernels == nil {
		return s, nil
	}
	if err := m.searchKernels(ctx, s, *o.Kernels, b, o.Workers, func(done int) { o.progress(StageKernels, solved+done) }); err != nil {
		return nil, err
	}
	return s, nil
}

func (o SolveOptions) progress(s Stage, done int) {
	if o.Progress != nil {
		o.Progress(s, done)
	}
}

// solvePoint appends threshold i, D = d, to s: Proposition 1 cross-checked,
// the bracket, and the Monte Carlo estimate when mc is set.
func (m *Model) solvePoint(s *Solution, mc *MonteCarloOptions, i int, d float64) error {
	p, err := m.Optimum(d)
	if err != nil {
		return err
	}
	e, err := m.Check(p)
	if err != nil {
		return err
	}
	s.MaxRelErr = math.Max(s.MaxRelErr, e)
	bk, err := m.Bracket(p.D)
	if err != nil {
		return err
	}
	s.Brackets = append(s.Brackets, bk)
	if mc == nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(mc.Seed, uint64(i)))
	res, err := m.MonteCarlo(rng, p.Privatizer(), s.Train, s.Test)
	if err != nil {
		return &markedError{ErrSamples, err}
	}
	s.MonteCarlo = append(s.MonteCarlo, res)
	return nil
}

// searchKernels runs the kernel search at every threshold of s, in
// parallel (each threshold is independent, so the result does not depend
// on scheduling). A search starts only within b; the thresholds after the
// first that cannot start are cut from s (not reached).
func (m *Model) searchKernels(ctx context.Context, s *Solution, ks KernelSearch, b sweep.Budget, workers int, report func(done int)) error {
	n := len(s.Brackets)
	errs := make([]error, n)
	better := make([]bool, n)
	var mu sync.Mutex
	done := 0
	// the budget's point bound is already applied (s holds at most
	// MaxPoints thresholds): only its deadline can stop a search
	more := func(int) bool {
		s.Stop = b.Stop(0)
		return s.Stop == sweep.StopNone && ctx.Err() == nil
	}
	started := parallel(n, workers, more, func(i int) {
		better[i], errs[i] = m.ImproveBracket(ctx, &s.Brackets[i], ks)
		mu.Lock()
		done++
		report(done)
		mu.Unlock()
	})
	if err := firstErr(errs); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.Improved = 0
	for _, ok := range better {
		if ok {
			s.Improved++
		}
	}
	s.cut(started)
	return nil
}

// searchOptimum runs the optimum search at every threshold of s whose
// bracket is open, in order (each from the last one's posteriors), then
// offers every threshold the time-sharing of all the mechanisms found
// (Envelope.withPoints). A search starts only within b; the thresholds
// after the first that cannot start are cut from s (not reached).
func (m *Model) searchOptimum(ctx context.Context, s *Solution, o *OptimumSearcher, b sweep.Budget, report func(done int)) error {
	var warm []column
	var found []Achievable
	before := make([]float64, len(s.Brackets))
	for i, br := range s.Brackets {
		before[i] = br.Achievable.MinAdv
	}
	for i := range s.Brackets {
		if s.Stop = b.Stop(0); s.Stop != sweep.StopNone {
			s.cut(i)
			break
		}
		br := &s.Brackets[i]
		if br.D > 0 && br.D < m.vRecon && br.Open() {
			est, basis, err := o.estimate(ctx, br.D, warm)
			if err != nil {
				return err
			}
			warm = basis
			br.Optimum = &est
			found = append(found, est.kernel)
			if _, err := br.offer(est.Mechanism); err != nil {
				return err
			}
		}
		report(i + 1)
	}
	env := m.Envelope().withPoints(found)
	for i := range s.Brackets {
		br := &s.Brackets[i]
		if br.Optimum == nil {
			continue
		}
		a, err := env.At(br.D)
		if err != nil {
			return err
		}
		if _, err := br.offer(a); err != nil {
			return err
		}
	}
	s.OptimumImproved = 0
	for i, br := range s.Brackets {
		if br.Achievable.MinAdv > before[i] {
			s.OptimumImproved++
		}
	}
	return nil
}

func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// cut keeps the first k thresholds solved; the rest are not reached.
func (s *Solution) cut(k int) {
	s.Brackets = s.Brackets[:k]
	if s.MonteCarlo != nil {
		s.MonteCarlo = s.MonteCarlo[:k]
	}
}

// parallel calls work(i) for i = 0, 1, …, n−1 on workers goroutines (0:
// GOMAXPROCS).
// Indices are handed out in order while more(i) holds (more nil: always);
// parallel returns how many were handed out, after every work call has
// returned. Each call should write only its own slot, so that results do
// not depend on scheduling.
func parallel(n, workers int, more func(i int) bool, work func(i int)) int {
	var wg sync.WaitGroup
	next := make(chan int)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range workers {
		wg.Go(func() {
			for i := range next {
				work(i)
			}
		})
	}
	started := 0
	for i := range n {
		if more != nil && !more(i) {
			break
		}
		next <- i
		started++
	}
	close(next)
	wg.Wait()
	return started
}
