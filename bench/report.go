package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/mmds-project/mmds/internal/report"
)

// Options are how a benchmark runs beside its instances: the solvers, the
// limits and seeds of each solve, and the shift of the shifted geometric
// mean.
type Options struct {
	TimeLimit time.Duration // per solve; 0: none
	Shift     time.Duration // of the shifted geometric mean (> 0)
	Threads   int           // per solver; 0: each solver's default
	FirstSeed int           // the first solve's seed
	Seeds     int           // solves per instance and solver
	Workers   int           // solves at once
	// The solvers beside HiGHS in-process; All: every one of them.
	HiGHSFile, CBC, GLPK, SYMPHONY, LPSolve, All bool
	// LibraryFiles maps an instance to its file in a library, reported
	// instead of the copy solved.
	LibraryFiles map[string]string
}

// Validate checks the ranges of o, naming the command line's flags.
func (o Options) Validate() error {
	switch {
	case o.TimeLimit < 0:
		return inputf("--time-limit %v: must be ≥ 0", o.TimeLimit)
	case o.Shift <= 0:
		return inputf("--shift %v: must be > 0", o.Shift)
	case o.Threads < 0 || o.Threads > 64:
		return inputf("--threads %d: must be in [0, 64]", o.Threads)
	case o.FirstSeed < 0 || o.FirstSeed > math.MaxInt32-100:
		return inputf("--solver-seed %d: must be in [0, 2147483547]", o.FirstSeed)
	case o.Seeds < 1 || o.Seeds > MaxSeeds:
		return inputf("--seeds %d: must be in [1, %d]", o.Seeds, MaxSeeds)
	case o.Workers < 1 || o.Workers > 64:
		return inputf("--workers %d: must be in [1, 64]", o.Workers)
	}
	return nil
}

// Solvers are the solvers o asks for: HiGHS in-process first.
func (o Options) Solvers(ctx context.Context) []Solver {
	c := SolverConfig{Threads: o.Threads, Seed: o.FirstSeed}
	s := []Solver{HiGHS{Config: c}}
	if o.HiGHSFile || o.All {
		s = append(s, HiGHS{Config: c, File: true})
	}
	for _, p := range []struct {
		on   bool
		prog program
	}{{o.CBC, cbc}, {o.GLPK, glpk}, {o.SYMPHONY, symphony}, {o.LPSolve, lpSolve}} {
		if p.on || o.All {
			s = append(s, newExternal(ctx, p.prog, "", c))
		}
	}
	return s
}

// Report is a benchmark's outcome: every run, the per-instance results
// over the seeds, the summaries and the wins, with what produced them.
type Report struct {
	Options
	Source      map[string]any // the instances' origin, as the JSON document records it
	Started     time.Time
	Interrupted bool
	Solvers     []SolverInfo
	Check       Check
	// Part says what a library's manifest left out of the selection ("":
	// nothing).
	Part    string
	Runs    []Run
	Results []Result
	Summary []Summary
	Wins    []Wins
}

// Benchmark solves ins in dir (""; a temporary folder, removed at the
// end, whose files the report does not name) with the solvers o asks for
// and aggregates the runs. announce, when not nil, gets the solvers' descriptions before
// any solve and returns the function called after each run (nil: none).
// When ctx is cancelled Benchmark returns the report of the runs that
// finished, marked Interrupted, with ctx's error.
func Benchmark(ctx context.Context, ins []Instance, dir string, o Options, announce func([]SolverInfo) func(Run)) (*Report, error) {
	r := &Report{Options: o, Started: time.Now().UTC(), Check: DefaultCheck()}
	temp := dir == ""
	if temp {
		tmp, err := os.MkdirTemp("", "mmds-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	solvers := o.Solvers(ctx)
	for _, s := range solvers {
		r.Solvers = append(r.Solvers, s.Info())
	}
	var progress func(Run)
	if announce != nil {
		progress = announce(r.Solvers)
	}
	runs, err := Solve(ctx, ins, RunSpec{Options: o, Solvers: solvers, Dir: dir, Check: r.Check}, progress)
	r.Interrupted = err != nil && ctx.Err() != nil
	if err != nil && !r.Interrupted {
		return nil, err
	}
	for i := range runs {
		switch {
		case o.LibraryFiles != nil:
			runs[i].File = o.LibraryFiles[runs[i].Instance]
		case temp:
			runs[i].File = ""
		}
	}
	r.Runs = runs
	r.tally(o.Shift.Seconds())
	return r, err
}

// tally computes r's per-instance results, summaries (with the shift in
// seconds) and wins from its runs.
func (r *Report) tally(shift float64) {
	r.Results = Results(r.Runs, r.TimeLimit)
	r.Summary = Summarize(r.Results, EffectiveLimit(r.Runs, r.TimeLimit), shift)
	r.Wins = CountWins(r.Results)
}

// Available counts the solvers that ran their probe.
func Available(infos []SolverInfo) int {
	n := 0
	for _, i := range infos {
		if i.Available {
			n++
		}
	}
	return n
}

// Doc is the JSON document of a report: every raw run (one per seed), the
// per-instance results over the seeds, the summaries and the wins.
type Doc struct {
	Source          map[string]any `json:"source"`
	StartedAt       string         `json:"started_at"`
	Interrupted     bool           `json:"interrupted"`
	Machine         Machine        `json:"machine"`
	Solvers         []SolverInfo   `json:"solvers"`
	TimeLimitS      float64        `json:"time_limit_s"`
	Seeds           int            `json:"seeds"`
	Workers         int            `json:"workers"`
	FirstSeed       int            `json:"first_seed"`
	ShiftS          float64        `json:"shift_s"`
	TimeoutPolicy   string         `json:"timeout_policy"`
	FailurePenalty  float64        `json:"failure_penalty"`
	Tolerances      Tolerances     `json:"tolerances"`
	FieldTolerances Tolerances     `json:"field_tolerances"`
	Runs            []docRun       `json:"runs"`
	Results         []docResult    `json:"results"`
	Summary         []Summary      `json:"summary"`
	Wins            []Wins         `json:"wins"`
}

type docRun struct {
	Instance     string   `json:"instance"`
	Problem      string   `json:"problem"`
	Source       string   `json:"source"`
	Variant      string   `json:"variant"`
	Tier         string   `json:"tier"`
	N            int      `json:"n"`
	K            int      `json:"k"`
	Fraction     float64  `json:"fraction"`
	Solver       string   `json:"solver"`
	Seed         int      `json:"seed"`
	Status       Status   `json:"status"`
	SolverStatus string   `json:"solver_status"`
	Seconds      float64  `json:"seconds"`
	Objective    *float64 `json:"objective"`
	OptimalValue *float64 `json:"optimal_value"`
	BestBound    *float64 `json:"best_bound"`
	Nodes        *int64   `json:"nodes"`
	MaxViolation float64  `json:"max_violation"`
	Violation    string   `json:"violation,omitempty"`
	Wrong        string   `json:"wrong,omitempty"`
	Imprecise    string   `json:"imprecise,omitempty"`
	Error        string   `json:"error,omitempty"`
	File         string   `json:"file,omitempty"`
}

type docResult struct {
	Instance   string  `json:"instance"`
	Variant    string  `json:"variant"`
	Tier       string  `json:"tier"`
	Solver     string  `json:"solver"`
	Seeds      int     `json:"seeds"`
	Status     Status  `json:"status"`
	Solved     bool    `json:"solved"`
	MedianS    float64 `json:"median_s"`
	MinS       float64 `json:"min_s"`
	MaxS       float64 `json:"max_s"`
	WrongSeeds []int   `json:"wrong_seeds,omitempty"`
	Imprecise  int     `json:"imprecise_seeds,omitempty"`
}

// optFloat is x, or nil (null in JSON) for NaN.
func optFloat(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

// Doc is r's JSON document.
func (r *Report) Doc() Doc {
	doc := Doc{Source: r.Source, StartedAt: r.Started.Format(time.RFC3339), Interrupted: r.Interrupted, Machine: ThisMachine(), Solvers: r.Solvers,
		TimeLimitS: r.TimeLimit.Seconds(), Seeds: r.Seeds, Workers: r.Workers, FirstSeed: r.FirstSeed, ShiftS: r.Shift.Seconds(), TimeoutPolicy: timeoutPolicy(r.TimeLimit),
		FailurePenalty: FailurePenalty, Tolerances: r.Check.Precise, FieldTolerances: r.Check.Field,
		Runs: []docRun{}, Results: []docResult{}, Summary: append([]Summary{}, r.Summary...), Wins: append([]Wins{}, r.Wins...)}
	for _, r := range r.Runs {
		jr := docRun{Instance: r.Instance, Problem: r.Problem, Source: r.Source, Variant: r.Variant, Tier: r.Tier, N: r.N, K: r.K,
			Fraction: r.Fraction, Solver: r.Solver, Seed: r.Seed, Status: r.Status, SolverStatus: r.SolverStatus, Seconds: r.Seconds,
			Objective: optFloat(r.Objective), OptimalValue: optFloat(r.Optimal), BestBound: optFloat(r.Bound),
			MaxViolation: r.MaxViolation, Violation: r.Violation, Wrong: r.Wrong, Imprecise: r.Imprecise, Error: r.Err, File: r.File}
		if r.Nodes >= 0 {
			n := r.Nodes
			jr.Nodes = &n
		}
		doc.Runs = append(doc.Runs, jr)
	}
	for _, r := range r.Results {
		doc.Results = append(doc.Results, docResult{Instance: r.Instance, Variant: r.Variant, Tier: r.Tier, Solver: r.Solver, Seeds: r.Seeds,
			Status: r.Status, Solved: r.Solved(), MedianS: r.Median, MinS: r.Min, MaxS: r.Max, WrongSeeds: r.WrongSeeds, Imprecise: r.Imprecise})
	}
	return doc
}

func timeoutPolicy(limit time.Duration) string {
	at := "the time limit"
	if limit == 0 {
		at = "the longest time of any run (no limit was set)"
	}
	return fmt.Sprintf("a time-out counts at %s; a failure (error, wrong, false infeasible) at %d× that", at, FailurePenalty)
}

// RunsGrid is one row per solve: for CSV (csv) every digit, else rounded
// for a table.
func (r *Report) RunsGrid(csv bool) *report.Grid {
	num := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		if csv {
			return report.Shortest(x)
		}
		return report.Fixed(x, 6)
	}
	g := &report.Grid{
		Title:  "mmds bench: one row per solve (objective: −γ, recomputed exactly from the returned solution)",
		Header: []string{"instance", "solver", "seed", "variant", "status", "objective", "certified", "ms", "nodes", "max violation", "note"},
	}
	for _, r := range r.Runs {
		nodes := "—"
		if r.Nodes >= 0 {
			nodes = strconv.FormatInt(r.Nodes, 10)
		}
		ms := report.Fixed(r.Seconds*1000, 1)
		if csv {
			ms = report.Shortest(r.Seconds * 1000)
		}
		note := r.Wrong + r.Imprecise
		if note == "" {
			note = r.Err
		}
		if !csv && len(note) > 60 {
			note = note[:57] + "..."
		}
		g.Rows = append(g.Rows, []string{r.Instance, r.Solver, strconv.Itoa(r.Seed), r.Variant, r.Status.String(), num(r.Objective), num(r.Optimal),
			ms, nodes, report.Float(r.MaxViolation, 2), note})
	}
	return g
}

func (r *Report) resultsGrid() *report.Grid {
	g := &report.Grid{
		Title:  fmt.Sprintf("mmds bench: one row per instance and solver, over %s (times in s; a time-out counts at the limit, a failure at 2×)", report.Plural(r.Seeds, "seed")),
		Header: []string{"instance", "solver", "status", "median", "min", "max", "note"},
	}
	for _, r := range r.Results {
		note := ""
		if len(r.WrongSeeds) > 0 {
			note = fmt.Sprintf("wrong with seed %v", r.WrongSeeds)
		} else if r.Imprecise > 0 {
			note = report.Plural(r.Imprecise, "seed") + " imprecise"
		}
		g.Rows = append(g.Rows, []string{r.Instance, r.Solver, r.Status.String(), report.Fixed(r.Median, 3), report.Fixed(r.Min, 3), report.Fixed(r.Max, 3), note})
	}
	return g
}

func (r *Report) summaryGrid() *report.Grid {
	g := &report.Grid{Title: "Summary per solver and formulation",
		Header: []string{"solver", "variant", "solved", "imprecise", "time limit", "failed", "wrong", "SGM s"}}
	for _, s := range r.Summary {
		g.Rows = append(g.Rows, []string{s.Solver, s.Variant, fmt.Sprintf("%d/%d", s.Solved, s.Instances), strconv.Itoa(s.Imprecise),
			strconv.Itoa(s.TimeLimited), strconv.Itoa(s.Failed), strconv.Itoa(s.Wrong), report.Fixed(s.SGM, 4)})
	}
	g.Notes = []string{
		fmt.Sprintf("SGM: shifted geometric mean exp(mean ln(t + s)) − s of the per-instance medians over %s, shift s = %v; %s.", report.Plural(r.Seeds, "seed"), r.Shift, timeoutPolicy(r.TimeLimit)),
		"solved = claimed optimal on every seed and within MIPLIB's tolerances (imprecise: beyond mmds's tighter ones); wrong = beyond MIPLIB's on some seed.",
		"virtual best: on each instance the fastest median of the solvers that solved it.",
	}
	return g
}

func (r *Report) winsGrid() *report.Grid {
	g := &report.Grid{Title: "Wins: instances on which a solver's median was the fastest of those that solved it (ties count for each)",
		Header: []string{"solver", "solved", "wins"}}
	for _, w := range r.Wins {
		g.Rows = append(g.Rows, []string{w.Solver, strconv.Itoa(w.Solved), strconv.Itoa(w.Wins)})
	}
	return g
}

// WriteTables writes r's tables (per instance, the summary, the wins of
// several solvers) and the machine and solvers they ran on.
func (r *Report) WriteTables(w io.Writer) error {
	grids := []*report.Grid{r.resultsGrid(), r.summaryGrid()}
	if Available(r.Solvers) > 1 {
		grids = append(grids, r.winsGrid())
	}
	for i, g := range grids {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := g.RenderTable(w); err != nil {
			return err
		}
	}
	m := ThisMachine()
	fmt.Fprintln(w)
	_ = report.SayWrapped(w, "machine: %s/%s, %s, %s; time limit %v per solve; %s from %d; %s at once", m.OS, m.Arch, m.CPU, report.Plural(m.Cores, "core"), r.TimeLimit, report.Plural(r.Seeds, "seed"), r.FirstSeed, report.Plural(r.Workers, "solve"))
	if r.Interrupted {
		fmt.Fprintln(w, "INTERRUPTED: only the solves that finished are counted")
	}
	if r.Part != "" {
		fmt.Fprintf(w, "library: %s\n", r.Part)
	}
	for _, i := range r.Solvers {
		if !i.Available {
			fmt.Fprintf(w, "solver %s: unavailable (%s)\n", i.Name, i.Reason)
			continue
		}
		if err := report.SayWrapped(w, "solver %s %s: threads %d, seeds by %s, %s", i.Name, i.Version, i.Threads, i.SeedOption, i.Options); err != nil {
			return err
		}
	}
	return nil
}
