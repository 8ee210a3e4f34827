package bench

import (
	"maps"
	"math"
	"slices"
	"time"
)

// FailurePenalty is the multiple of the time limit at which a failure
// (error, wrong, a false infeasible) counts in the shifted geometric mean:
// more than a time-out, so a wrong answer never scores better than giving up.
const FailurePenalty = 2

// DefaultShift is the shift of the shifted geometric mean, 10 s, as in
// Mittelmann's MILP benchmarks and open-energy-transition's
// solver-benchmark.
const DefaultShift = 10 * time.Second

// ShiftedGeomean is exp(mean ln(t_i + shift)) − shift.
func ShiftedGeomean(ts []float64, shift float64) float64 {
	if len(ts) == 0 {
		return math.NaN()
	}
	var s float64
	for _, t := range ts {
		s += math.Log(t + shift)
	}
	return math.Exp(s/float64(len(ts))) - shift
}

// CountedTime is the time a run counts at in the aggregates: its time when
// solved (capped at the limit), the limit when stopped by it, and
// FailurePenalty × limit when it failed. limit must be > 0.
func CountedTime(r Run, limit float64) float64 {
	switch {
	case r.Status.Solved():
		return math.Min(r.Seconds, limit)
	case r.Status == StatusTimeLimit:
		return limit
	}
	return FailurePenalty * limit
}

// EffectiveLimit is the time limit the aggregates use: the run's limit, or
// with none the longest time of any run (so a failure still costs more
// than any success).
func EffectiveLimit(runs []Run, limit time.Duration) float64 {
	if limit > 0 {
		return limit.Seconds()
	}
	var mx float64
	for _, r := range runs {
		mx = math.Max(mx, r.Seconds)
	}
	return math.Max(mx, 1e-3)
}

// Result is one solver on one instance over all its seeds.
type Result struct {
	Instance, Problem, Variant, Tier string
	N                                int
	Solver                           string
	Seeds                            int
	// Status: optimal (or imprecise, when any seed was) when every seed
	// solved the instance; otherwise wrong when any seed was wrong, else the
	// first failure (error, infeasible), else time limit.
	Status Status
	// Median, Min and Max are over the seeds' counted times (CountedTime),
	// seconds.
	Median, Min, Max float64
	WrongSeeds       []int // the seeds that gave a wrong answer
	Imprecise        int   // seeds judged imprecise
}

// Solved reports whether every seed solved the instance.
func (r Result) Solved() bool { return r.Status.Solved() }

// Median is the median of xs (the mean of the two middle values for an
// even count); NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Results groups runs by (instance, solver), in order of first appearance.
func Results(runs []Run, limit time.Duration) []Result {
	lim := EffectiveLimit(runs, limit)
	group, keys := groupBy(runs, func(r Run) [2]string { return [2]string{r.Instance, r.Solver} })
	out := make([]Result, 0, len(keys))
	for _, k := range keys {
		out = append(out, aggregate(group[k], lim))
	}
	return out
}

func aggregate(rs []Run, lim float64) Result {
	first := rs[0]
	res := Result{Instance: first.Instance, Problem: first.Problem, Variant: first.Variant, Tier: first.Tier, N: first.N,
		Solver: first.Solver, Seeds: len(rs), Status: StatusOptimal}
	ts := make([]float64, len(rs))
	failure := Status(-1)
	allSolved := true
	for i, r := range rs {
		ts[i] = CountedTime(r, lim)
		switch {
		case r.Status == StatusImprecise:
			res.Imprecise++
		case r.Status == StatusWrong:
			res.WrongSeeds = append(res.WrongSeeds, r.Seed)
		}
		if !r.Status.Solved() {
			allSolved = false
			if r.Status.Failed() && failure < 0 {
				failure = r.Status
			}
		}
	}
	switch {
	case allSolved && res.Imprecise > 0:
		res.Status = StatusImprecise
	case allSolved:
	case len(res.WrongSeeds) > 0:
		res.Status = StatusWrong
	case failure >= 0:
		res.Status = failure
	default:
		res.Status = StatusTimeLimit
	}
	res.Median, res.Min, res.Max = Median(ts), slices.Min(ts), slices.Max(ts)
	return res
}

// VirtualBest is the name of the virtual best solver: on each instance the
// fastest median of the solvers that solved it.
const VirtualBest = "virtual best"

// VirtualBestResults returns, per instance that every solver was given,
// the virtual best solver's result: the smallest median among the solvers
// that solved it (every seed), or a time-out at the limit when none did.
func VirtualBestResults(results []Result, limit float64) []Result {
	instances, order := groupBy(results, func(r Result) string { return r.Instance })
	var out []Result
	for _, name := range order {
		rs := instances[name]
		best := Result{Instance: name, Problem: rs[0].Problem, Variant: rs[0].Variant, Tier: rs[0].Tier, N: rs[0].N,
			Solver: VirtualBest, Seeds: rs[0].Seeds, Status: StatusTimeLimit, Median: limit, Min: limit, Max: limit}
		for _, r := range rs {
			if r.Solved() && (!best.Solved() || r.Median < best.Median) {
				best.Status, best.Median, best.Min, best.Max = StatusOptimal, r.Median, r.Median, r.Median
			}
		}
		out = append(out, best)
	}
	return out
}

// groupBy groups xs by key, the keys in order of first appearance.
func groupBy[K comparable, V any](xs []V, key func(V) K) (map[K][]V, []K) {
	by := map[K][]V{}
	var order []K
	for _, x := range xs {
		k := key(x)
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], x)
	}
	return by, order
}

// Wins counts, per solver, the instances on which its median was the
// smallest among the solvers that solved it; a tie gives each tied solver
// a win. Solvers appear in order of first appearance, with 0 when they won
// nothing.
type Wins struct {
	Solver string `json:"solver"`
	Solved int    `json:"solved"` // instances solved on every seed
	Wins   int    `json:"wins"`
}

// CountWins returns the wins table of results.
func CountWins(results []Result) []Wins {
	best := map[string]float64{} // per instance, the virtual best median
	for _, v := range VirtualBestResults(results, math.Inf(1)) {
		best[v.Instance] = v.Median
	}
	var out []Wins
	idx := map[string]int{}
	for _, r := range results {
		if _, ok := idx[r.Solver]; !ok {
			idx[r.Solver] = len(out)
			out = append(out, Wins{Solver: r.Solver})
		}
		if r.Solved() {
			out[idx[r.Solver]].Solved++
			if r.Median == best[r.Instance] {
				out[idx[r.Solver]].Wins++
			}
		}
	}
	return out
}

// Summary aggregates the results of one solver on one formulation; its
// JSON form is a report document's.
type Summary struct {
	Solver       string  `json:"solver"`
	Variant      string  `json:"variant"`
	Instances    int     `json:"runs"`      // instances (each over every seed)
	Solved       int     `json:"solved"`    // every seed optimal or imprecise
	Imprecise    int     `json:"imprecise"` // solved, with at least one seed imprecise
	TimeLimited  int     `json:"time_limited"`
	Failed       int     `json:"failed"`               // error, wrong or a false infeasible on some seed, not solved
	Wrong        int     `json:"wrong"`                // some seed wrong
	SGM          float64 `json:"shifted_geomean_s"`    // shifted geometric mean of the medians, seconds
	Shift        float64 `json:"shift_s"`              // seconds
	CountedLimit float64 `json:"timeout_counted_at_s"` // the time a time-out counts at, seconds
	FailureCost  float64 `json:"failure_counted_at_s"` // the time a failure counts at: FailurePenalty × CountedLimit
}

// Summarize returns one Summary per (solver, variant) in order of first
// appearance, then one per solver over all variants (Variant "all") when
// the solver has more than one, then the virtual best solver's over all
// variants when there are several solvers. The shifted geometric mean is
// taken over the per-instance medians.
func Summarize(results []Result, limit float64, shift float64) []Summary {
	type key struct{ solver, variant string }
	var keys []key
	meds := map[key][]float64{}
	sums := map[key]*Summary{}
	add := func(k key, r Result) {
		s, ok := sums[k]
		if !ok {
			s = &Summary{Solver: k.solver, Variant: k.variant, Shift: shift, CountedLimit: limit, FailureCost: FailurePenalty * limit}
			sums[k] = s
			keys = append(keys, k)
		}
		s.Instances++
		switch {
		case r.Status == StatusImprecise:
			s.Solved++
			s.Imprecise++
		case r.Solved():
			s.Solved++
		case r.Status == StatusTimeLimit:
			s.TimeLimited++
		default:
			s.Failed++
		}
		if r.Status == StatusWrong {
			s.Wrong++
		}
		meds[k] = append(meds[k], r.Median)
	}
	variants := map[string]int{}
	solvers := map[string]bool{}
	for _, r := range results {
		if _, seen := sums[key{r.Solver, r.Variant}]; !seen {
			variants[r.Solver]++
		}
		solvers[r.Solver] = true
		add(key{r.Solver, r.Variant}, r)
	}
	for _, r := range results {
		if variants[r.Solver] > 1 {
			add(key{r.Solver, "all"}, r)
		}
	}
	if len(solvers) > 1 {
		for _, r := range VirtualBestResults(results, limit) {
			add(key{VirtualBest, "all"}, r)
		}
	}
	out := make([]Summary, 0, len(keys))
	for _, k := range keys {
		s := sums[k]
		s.SGM = ShiftedGeomean(meds[k], shift)
		out = append(out, *s)
	}
	return out
}

// ProfileCurve is one solver's performance profile: ρ(τ) is the fraction
// of problems solved within a factor τ of the fastest solver, a step
// function that rises at each Tau.
type ProfileCurve struct {
	Label string
	Tau   []float64 // sorted ratios at which ρ steps up (finite)
	Rho   []float64 // ρ just after each Tau
}

// MinProfileTime floors times in the performance profile: below a
// millisecond the ratios measure timer and process start-up noise.
const MinProfileTime = 1e-3

// Profile computes Dolan and Moré's performance profiles on the results'
// medians. series names the curve of a result and problem the problem it
// solves; a problem counts only when every series ran on it. A result
// counts as solved when every seed solved it.
func Profile(results []Result, series, problem func(Result) string) []ProfileCurve {
	var names, probs []string
	t := map[string]map[string]float64{}
	for _, r := range results {
		s, p := series(r), problem(r)
		if !slices.Contains(names, s) {
			names = append(names, s)
		}
		if t[p] == nil {
			t[p] = map[string]float64{}
			probs = append(probs, p)
		}
		v := math.Inf(1)
		if r.Solved() {
			v = math.Max(r.Median, MinProfileTime)
		}
		t[p][s] = v
	}
	kept := slices.DeleteFunc(probs, func(p string) bool { return len(t[p]) != len(names) })
	out := make([]ProfileCurve, len(names))
	for i, s := range names {
		var ratios []float64
		for _, p := range kept {
			if !math.IsInf(t[p][s], 1) {
				ratios = append(ratios, t[p][s]/slices.Min(slices.Collect(maps.Values(t[p]))))
			}
		}
		slices.Sort(ratios)
		c := ProfileCurve{Label: s}
		for k, r := range ratios {
			if k+1 < len(ratios) && ratios[k+1] == r {
				continue
			}
			c.Tau = append(c.Tau, r)
			c.Rho = append(c.Rho, float64(k+1)/float64(len(kept)))
		}
		out[i] = c
	}
	return out
}
