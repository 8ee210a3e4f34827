package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/bench"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/plot"
)

// benchDoc is the JSON output: every raw run (one per seed), the
// per-instance results over the seeds, the summaries and the wins.
type benchDoc struct {
	Source          map[string]any     `json:"source"`
	StartedAt       string             `json:"started_at"`
	Interrupted     bool               `json:"interrupted"`
	Machine         bench.Machine      `json:"machine"`
	Solvers         []bench.SolverInfo `json:"solvers"`
	TimeLimitS      float64            `json:"time_limit_s"`
	Seeds           int                `json:"seeds"`
	Workers         int                `json:"workers"`
	FirstSeed       int                `json:"first_seed"`
	ShiftS          float64            `json:"shift_s"`
	TimeoutPolicy   string             `json:"timeout_policy"`
	FailurePenalty  float64            `json:"failure_penalty"`
	Tolerances      bench.Tolerances   `json:"tolerances"`
	FieldTolerances bench.Tolerances   `json:"field_tolerances"`
	Runs            []benchRun         `json:"runs"`
	Results         []benchResult      `json:"results"`
	Summary         []benchSummary     `json:"summary"`
	Wins            []benchWins        `json:"wins"`
}

type benchRun struct {
	Instance     string       `json:"instance"`
	Problem      string       `json:"problem"`
	Source       string       `json:"source"`
	Variant      string       `json:"variant"`
	Tier         string       `json:"tier"`
	N            int          `json:"n"`
	K            int          `json:"k"`
	Fraction     float64      `json:"fraction"`
	Solver       string       `json:"solver"`
	Seed         int          `json:"seed"`
	Status       bench.Status `json:"status"`
	SolverStatus string       `json:"solver_status"`
	Seconds      float64      `json:"seconds"`
	Objective    *float64     `json:"objective"`
	OptimalValue *float64     `json:"optimal_value"`
	BestBound    *float64     `json:"best_bound"`
	Nodes        *int64       `json:"nodes"`
	MaxViolation float64      `json:"max_violation"`
	Violation    string       `json:"violation,omitempty"`
	Wrong        string       `json:"wrong,omitempty"`
	Imprecise    string       `json:"imprecise,omitempty"`
	Error        string       `json:"error,omitempty"`
	File         string       `json:"file,omitempty"`
}

type benchResult struct {
	Instance   string       `json:"instance"`
	Variant    string       `json:"variant"`
	Tier       string       `json:"tier"`
	Solver     string       `json:"solver"`
	Seeds      int          `json:"seeds"`
	Status     bench.Status `json:"status"`
	Solved     bool         `json:"solved"`
	MedianS    float64      `json:"median_s"`
	MinS       float64      `json:"min_s"`
	MaxS       float64      `json:"max_s"`
	WrongSeeds []int        `json:"wrong_seeds,omitempty"`
	Imprecise  int          `json:"imprecise_seeds,omitempty"`
}

type benchSummary struct {
	Solver       string  `json:"solver"`
	Variant      string  `json:"variant"`
	Runs         int     `json:"runs"` // instances (each over every seed)
	Solved       int     `json:"solved"`
	Imprecise    int     `json:"imprecise"`
	TimeLimited  int     `json:"time_limited"`
	Failed       int     `json:"failed"`
	Wrong        int     `json:"wrong"`
	SGM          float64 `json:"shifted_geomean_s"`
	Shift        float64 `json:"shift_s"`
	TimeoutAtS   float64 `json:"timeout_counted_at_s"`
	FailureCostS float64 `json:"failure_counted_at_s"`
}

type benchWins struct {
	Solver string `json:"solver"`
	Solved int    `json:"solved"`
	Wins   int    `json:"wins"`
}

func optFloat(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

// solveAndReport runs the solvers on ins, then prints and draws. On Ctrl-C
// it reports what finished, marked interrupted, and returns an error.
func solveAndReport(cmd *cobra.Command, f solveFlags, format report.Format, ins []bench.Instance, files map[string]string, dir, title string, source map[string]any) error {
	ctx := cmd.Context()
	started := time.Now().UTC()
	solvers := f.solvers(ctx)
	var infos []bench.SolverInfo
	for _, s := range solvers {
		info := s.Info()
		infos = append(infos, info)
		if !info.Available {
			_ = report.Sayf(cmd.ErrOrStderr(), "mmds bench: %s unavailable: %s", info.Name, info.Reason)
		}
	}
	check := bench.DefaultCheck()
	spec := bench.RunSpec{Solvers: solvers, TimeLimit: f.timeLimit, Seeds: f.seeds, FirstSeed: f.solverSeed, Dir: dir, Check: check, Workers: f.workers}
	runs, err := bench.Solve(ctx, ins, files, spec, progressLine(cmd.ErrOrStderr(), f, len(ins)*f.seeds*availableCount(infos)))
	interrupted := err != nil && ctx.Err() != nil
	if err != nil && !interrupted {
		return err
	}
	for i := range runs {
		switch {
		case f.libFiles != nil:
			runs[i].File = f.libFiles[runs[i].Instance]
		case f.dropFiles:
			runs[i].File = ""
		}
	}
	lim := bench.EffectiveLimit(runs, f.timeLimit)
	results := bench.Results(runs, f.timeLimit)
	sums := bench.Summarize(results, lim, f.shift.Seconds())
	wins := bench.CountWins(results)
	doc := benchJSON(source, started, infos, f, check, runs, results, sums, wins)
	doc.Interrupted = interrupted
	var wrote []string
	if err := writeBenchOutputs(f, title, doc, results, infos, &wrote); err != nil {
		return err
	}
	var buf bytes.Buffer
	switch format {
	case report.JSON:
		err = report.WriteJSON(&buf, doc)
	case report.CSV:
		err = runsGrid(runs, true).RenderCSV(&buf)
	default:
		err = printBenchTables(&buf, results, sums, wins, infos, f, interrupted)
	}
	if err == nil {
		err = writeOutput(cmd.OutOrStdout(), stdoutPath(f.output), buf.Bytes())
	}
	if err != nil || !interrupted {
		return err
	}
	where := "standard output"
	if out := stdoutPath(f.output); out != "" {
		where = out
	}
	if len(wrote) > 0 {
		where += " and " + strings.Join(wrote, ", ")
	}
	return keptError{fmt.Sprintf("%d of %d solves finished, written (marked \"interrupted\") to %s",
		len(runs), len(ins)*f.seeds*availableCount(infos), where), context.Cause(ctx)}
}

// progressLine prints one line per finished solve unless --quiet.
func progressLine(w io.Writer, f solveFlags, total int) func(bench.Run) {
	if f.quiet {
		return nil
	}
	done := 0
	start := time.Now()
	return func(r bench.Run) {
		done++
		_ = report.Sayf(w, "[%d/%d %s] %s %s seed %d: %s %.3f s", done, total, time.Since(start).Round(time.Second), r.Instance, r.Solver, r.Seed, r.Status, r.Seconds)
	}
}

// writeBenchOutputs writes the figures and the JSON file asked for and
// appends their paths to wrote.
func writeBenchOutputs(f solveFlags, title string, doc benchDoc, results []bench.Result, infos []bench.SolverInfo, wrote *[]string) error {
	if f.profile != "" {
		if err := writeProfile(f.profile, title, results, infos); err != nil {
			return err
		}
		*wrote = append(*wrote, f.profile)
	}
	if f.plot != "" {
		// One series per formulation with one solver, per solver with several
		// (the medians then run over every formulation).
		series := func(r bench.Result) string { return r.Solver + " " + r.Variant }
		if availableCount(infos) > 1 {
			series = func(r bench.Result) string { return r.Solver }
		}
		var pts []plot.BenchPoint
		for _, r := range results {
			if r.Solved() || r.Status == bench.StatusTimeLimit {
				pts = append(pts, plot.BenchPoint{Series: series(r), N: r.N, Seconds: r.Median, Limited: !r.Solved()})
			}
		}
		if err := plot.Write(plot.BenchScalingSpec(fmt.Sprintf("%s, time limit %v, median of %s", title, f.timeLimit, report.Plural(f.seeds, "seed")), pts), f.plot); err != nil {
			return err
		}
		*wrote = append(*wrote, f.plot)
	}
	if f.jsonOut != "" {
		if err := report.WriteAtomic(f.jsonOut, func(w io.Writer) error { return report.WriteJSON(w, doc) }); err != nil {
			return err
		}
		*wrote = append(*wrote, f.jsonOut)
	}
	return nil
}

func writeProfile(path, title string, results []bench.Result, infos []bench.SolverInfo) error {
	series := func(r bench.Result) string { return r.Solver }
	problem := func(r bench.Result) string { return r.Instance }
	what := "solvers"
	if availableCount(infos) < 2 {
		// One solver: compare the formulations of each sanitization problem.
		series = func(r bench.Result) string { return r.Variant }
		problem = func(r bench.Result) string { return r.Problem }
		what = "formulations with " + infos[0].Name
	}
	return plot.Write(plot.ProfileSpec("Performance profile of the "+what+", median times: "+title, bench.Profile(results, series, problem)), path)
}

func benchJSON(source map[string]any, started time.Time, infos []bench.SolverInfo, f solveFlags, check bench.Check,
	runs []bench.Run, results []bench.Result, sums []bench.Summary, wins []bench.Wins) benchDoc {
	doc := benchDoc{Source: source, StartedAt: started.Format(time.RFC3339), Machine: bench.ThisMachine(), Solvers: infos,
		TimeLimitS: f.timeLimit.Seconds(), Seeds: f.seeds, Workers: f.workers, FirstSeed: f.solverSeed, ShiftS: f.shift.Seconds(), TimeoutPolicy: timeoutPolicy(f.timeLimit),
		FailurePenalty: bench.FailurePenalty, Tolerances: check.Precise, FieldTolerances: check.Field,
		Runs: []benchRun{}, Results: []benchResult{}, Summary: []benchSummary{}, Wins: []benchWins{}}
	for _, r := range runs {
		jr := benchRun{Instance: r.Instance, Problem: r.Problem, Source: r.Source, Variant: r.Variant, Tier: r.Tier, N: r.N, K: r.K,
			Fraction: r.Fraction, Solver: r.Solver, Seed: r.Seed, Status: r.Status, SolverStatus: r.SolverStatus, Seconds: r.Seconds,
			Objective: optFloat(r.Objective), OptimalValue: optFloat(r.Optimal), BestBound: optFloat(r.Bound),
			MaxViolation: r.MaxViolation, Violation: r.Violation, Wrong: r.Wrong, Imprecise: r.Imprecise, Error: r.Err, File: r.File}
		if r.Nodes >= 0 {
			n := r.Nodes
			jr.Nodes = &n
		}
		doc.Runs = append(doc.Runs, jr)
	}
	for _, r := range results {
		doc.Results = append(doc.Results, benchResult{Instance: r.Instance, Variant: r.Variant, Tier: r.Tier, Solver: r.Solver, Seeds: r.Seeds,
			Status: r.Status, Solved: r.Solved(), MedianS: r.Median, MinS: r.Min, MaxS: r.Max, WrongSeeds: r.WrongSeeds, Imprecise: r.Imprecise})
	}
	for _, s := range sums {
		doc.Summary = append(doc.Summary, benchSummary{Solver: s.Solver, Variant: s.Variant, Runs: s.Instances, Solved: s.Solved,
			Imprecise: s.Imprecise, TimeLimited: s.TimeLimited, Failed: s.Failed, Wrong: s.Wrong, SGM: s.SGM, Shift: s.Shift,
			TimeoutAtS: s.CountedLimit, FailureCostS: bench.FailurePenalty * s.CountedLimit})
	}
	for _, w := range wins {
		doc.Wins = append(doc.Wins, benchWins{Solver: w.Solver, Solved: w.Solved, Wins: w.Wins})
	}
	return doc
}

func timeoutPolicy(limit time.Duration) string {
	at := "the time limit"
	if limit == 0 {
		at = "the longest time of any run (no limit was set)"
	}
	return fmt.Sprintf("a time-out counts at %s; a failure (error, wrong, false infeasible) at %d× that", at, bench.FailurePenalty)
}

func runsGrid(runs []bench.Run, csv bool) *report.Grid {
	num := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		if csv {
			return report.Float(x, -1)
		}
		return report.Fixed(x, 6)
	}
	g := &report.Grid{
		Title:  "mmds bench: one row per solve (objective: −γ, recomputed exactly from the returned solution)",
		Header: []string{"instance", "solver", "seed", "variant", "status", "objective", "certified", "ms", "nodes", "max violation", "note"},
	}
	for _, r := range runs {
		nodes := "—"
		if r.Nodes >= 0 {
			nodes = strconv.FormatInt(r.Nodes, 10)
		}
		ms := report.Fixed(r.Seconds*1000, 1)
		if csv {
			ms = report.Float(r.Seconds*1000, -1)
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

func resultsGrid(results []bench.Result, seeds int) *report.Grid {
	g := &report.Grid{
		Title:  fmt.Sprintf("mmds bench: one row per instance and solver, over %s (times in s; a time-out counts at the limit, a failure at 2×)", report.Plural(seeds, "seed")),
		Header: []string{"instance", "solver", "status", "median", "min", "max", "note"},
	}
	for _, r := range results {
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

func summaryGrid(sums []bench.Summary, limit, shift time.Duration, seeds int) *report.Grid {
	g := &report.Grid{Title: "Summary per solver and formulation",
		Header: []string{"solver", "variant", "solved", "imprecise", "time limit", "failed", "wrong", "SGM s"}}
	for _, s := range sums {
		g.Rows = append(g.Rows, []string{s.Solver, s.Variant, fmt.Sprintf("%d/%d", s.Solved, s.Instances), strconv.Itoa(s.Imprecise),
			strconv.Itoa(s.TimeLimited), strconv.Itoa(s.Failed), strconv.Itoa(s.Wrong), report.Fixed(s.SGM, 4)})
	}
	g.Notes = []string{
		fmt.Sprintf("SGM: shifted geometric mean exp(mean ln(t + s)) − s of the per-instance medians over %s, shift s = %v; %s.", report.Plural(seeds, "seed"), shift, timeoutPolicy(limit)),
		"solved = claimed optimal on every seed and within MIPLIB's tolerances (imprecise: beyond mmds's tighter ones); wrong = beyond MIPLIB's on some seed.",
		"virtual best: on each instance the fastest median of the solvers that solved it.",
	}
	return g
}

func winsGrid(wins []bench.Wins) *report.Grid {
	g := &report.Grid{Title: "Wins: instances on which a solver's median was the fastest of those that solved it (ties count for each)",
		Header: []string{"solver", "solved", "wins"}}
	for _, w := range wins {
		g.Rows = append(g.Rows, []string{w.Solver, strconv.Itoa(w.Solved), strconv.Itoa(w.Wins)})
	}
	return g
}

func printBenchTables(w io.Writer, results []bench.Result, sums []bench.Summary, wins []bench.Wins, infos []bench.SolverInfo, f solveFlags, interrupted bool) error {
	grids := []*report.Grid{resultsGrid(results, f.seeds), summaryGrid(sums, f.timeLimit, f.shift, f.seeds)}
	if availableCount(infos) > 1 {
		grids = append(grids, winsGrid(wins))
	}
	for i, g := range grids {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := g.RenderTable(w); err != nil {
			return err
		}
	}
	m := bench.ThisMachine()
	fmt.Fprintf(w, "\nmachine: %s/%s, %s, %s; time limit %v per solve; %s from %d; %s at once\n", m.OS, m.Arch, m.CPU, report.Plural(m.Cores, "core"), f.timeLimit, report.Plural(f.seeds, "seed"), f.solverSeed, report.Plural(f.workers, "solve"))
	if interrupted {
		fmt.Fprintln(w, "INTERRUPTED: only the solves that finished are counted")
	}
	if f.part != "" {
		fmt.Fprintf(w, "library: %s\n", f.part)
	}
	for _, i := range infos {
		if !i.Available {
			fmt.Fprintf(w, "solver %s: unavailable (%s)\n", i.Name, i.Reason)
			continue
		}
		fmt.Fprintf(w, "solver %s %s: threads %d, seeds by %s, %s\n", i.Name, i.Version, i.Threads, i.SeedOption, i.Options)
	}
	return nil
}

func availableCount(infos []bench.SolverInfo) int {
	n := 0
	for _, i := range infos {
		if i.Available {
			n++
		}
	}
	return n
}
