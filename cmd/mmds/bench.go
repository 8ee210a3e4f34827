package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/bench"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/plot"
)

// solveFlags are shared by `mmds bench` and `mmds bench run`.
type solveFlags struct {
	format, profile, plot string
	jsonOut               string
	timeLimit, shift      time.Duration
	threads, solverSeed   int
	cbc, glpk, highsFile  bool
	progress              bool
	dropFiles             bool // the MPS files are temporary: do not report them
}

func (f *solveFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&f.timeLimit, "time-limit", 10*time.Second, "time limit per solve (0: none)")
	fl.StringVar(&f.format, "format", "table", "output format: table, csv or json")
	fl.BoolVar(&f.cbc, "cbc", false, "also solve with cbc from PATH (reported unavailable when it does not run)")
	fl.BoolVar(&f.glpk, "glpk", false, "also solve with GLPK's glpsol from PATH (reported unavailable when it does not run)")
	fl.BoolVar(&f.highsFile, "highs-file", false, "also solve with HiGHS reading the MPS file (parity with the external solvers)")
	fl.IntVar(&f.threads, "threads", 1, "threads per solver (0: each solver's default), in [0, 64]")
	fl.IntVar(&f.solverSeed, "solver-seed", 0, "random seed given to HiGHS and CBC, in [0, 2147483647]")
	fl.DurationVar(&f.shift, "shift", time.Second, "shift of the shifted geometric mean of times (> 0)")
	fl.StringVar(&f.profile, "profile", "", "write the Dolan–Moré performance profile to this .png or .svg file")
	fl.BoolVar(&f.progress, "progress", false, "print one line per solve to stderr as it finishes")
	fl.StringVar(&f.jsonOut, "json-out", "", "also write the JSON document (as --format json prints it) to this file")
	fl.StringVar(&f.plot, "plot", "", "write the scaling plot (median time against n) to this .png or .svg file")
}

func checkFigurePath(flag, path string) error {
	if path == "" {
		return nil
	}
	ext := strings.ToLower(path[strings.LastIndex(path, ".")+1:])
	if !strings.Contains(path, ".") || (ext != "png" && ext != "svg") {
		return badInput("--%s %q: the file name must end in .png or .svg", flag, path)
	}
	return nil
}

func (f *solveFlags) validate() (report.Format, error) {
	format, err := outputFormat(f.format)
	if err != nil {
		return "", err
	}
	switch {
	case f.timeLimit < 0:
		return "", badInput("--time-limit %v: must be ≥ 0", f.timeLimit)
	case f.shift <= 0:
		return "", badInput("--shift %v: must be > 0", f.shift)
	case f.threads < 0 || f.threads > 64:
		return "", badInput("--threads %d: must be in [0, 64]", f.threads)
	case f.solverSeed < 0:
		return "", badInput("--solver-seed %d: must be in [0, 2147483647]", f.solverSeed)
	}
	if err := checkFigurePath("profile", f.profile); err != nil {
		return "", err
	}
	return format, checkFigurePath("plot", f.plot)
}

// outputs are the files bench and bench run write.
func (f *solveFlags) outputs() []report.Path {
	return []report.Path{report.Out("--profile", f.profile), report.Out("--plot", f.plot), report.Out("--json-out", f.jsonOut)}
}

func (f *solveFlags) solvers(ctx context.Context) []bench.Solver {
	c := bench.SolverConfig{Threads: f.threads, Seed: f.solverSeed}
	s := []bench.Solver{bench.HiGHS{Config: c}}
	if f.highsFile {
		s = append(s, bench.HiGHS{Config: c, File: true})
	}
	if f.cbc {
		s = append(s, bench.NewCBC(ctx, "", c))
	}
	if f.glpk {
		s = append(s, bench.NewGLPK(ctx, ""))
	}
	return s
}

type benchFlags struct {
	solveFlags
	n, writeMPS string
	ks          []int
	fractions   []float64
	models      int
	seed        uint64
	maxSubsets  int64
}

func newBenchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark solvers and MIP formulations on sanitization instances with certified optima",
		Long: `bench draws a seeded family of finite models (n = |Y| = |Z| = m, K adversaries,
random priors and channels, 0-1 losses) and formulates each at D = fraction · D_max
as the fixed-alphabet MIP with m = n outputs in every formulation (M = 1 vs derived
M, symmetry breaking on/off, convex hull) and as the global LP. Every instance is a
minimization of −γ; its optimum is certified by the global LP's bracket where it
can be. HiGHS solves each in-process; --highs-file, --cbc and --glpk add HiGHS on
the MPS file, CBC and GLPK (a solver whose binary does not run is reported as
unavailable). Every answer is re-checked (rows, bounds, integrality, objective
against the certified optimum); one that fails is "wrong". The summary gives the
shifted geometric mean of times per solver and formulation; --profile draws the
performance profile. Subcommands: library writes the versioned instance library,
run solves a library.`,
		Example: `  mmds bench
  mmds bench --n 2:4 --k 2 --fractions 0.25,0.5,0.75 --cbc --glpk --profile profile.svg
  mmds bench library lib/ && mmds bench run lib/ --cbc --glpk --highs-file --format json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runBench(cmd, f) },
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.n, "n", "2:3", "size range NMIN:NMAX for n = |Y| = |Z| = m, within [2, 8]")
	fl.IntSliceVar(&f.ks, "k", []int{1, 2, 3}, "numbers of adversaries, each in [1, 8]")
	fl.Float64SliceVar(&f.fractions, "fractions", []float64{0.5}, "thresholds as fractions of D_max, each in [0, 1]")
	fl.IntVar(&f.models, "instances", 1, "random models per (n, K), in [1, 1000]")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the model family")
	fl.Int64Var(&f.maxSubsets, "max-subsets", mip.DefaultMaxSubsets, "ray-enumeration budget of the global LP (beyond it: no global LP, no certified value)")
	fl.StringVar(&f.writeMPS, "write-mps", "", "export every instance to this existing folder as MPS (else file-reading solvers use a temporary folder)")
	cmd.AddCommand(newBenchLibraryCmd(), newBenchRunCmd())
	return cmd
}

func parseRange(flag, s string) (int, int, error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || lo < 2 || hi < lo || hi > 8 {
		return 0, 0, badInput("--%s %q: want NMIN:NMAX with 2 ≤ NMIN ≤ NMAX ≤ 8", flag, s)
	}
	return lo, hi, nil
}

func runBench(cmd *cobra.Command, f benchFlags) error {
	lo, hi, err := parseRange("n", f.n)
	if err != nil {
		return err
	}
	format, err := f.validate()
	if err != nil {
		return err
	}
	if len(f.ks) == 0 {
		return badInput("--k: give at least one number of adversaries")
	}
	for _, k := range f.ks {
		if k < 1 || k > 8 {
			return badInput("--k %d: must be in [1, 8]", k)
		}
	}
	if len(f.fractions) == 0 {
		return badInput("--fractions: give at least one fraction of D_max")
	}
	for _, x := range f.fractions {
		if math.IsNaN(x) || x < 0 || x > 1 {
			return badInput("--fractions %v: each must be in [0, 1]", x)
		}
	}
	switch {
	case f.models < 1 || f.models > 1000:
		return badInput("--instances %d: must be in [1, 1000]", f.models)
	case f.maxSubsets < 1:
		return badInput("--max-subsets %d: must be ≥ 1", f.maxSubsets)
	}
	if err := checkPaths(append(f.outputs(), report.OutFolder("--write-mps", f.writeMPS, ""))...); err != nil {
		return err
	}
	spec := bench.Spec{NMin: lo, NMax: hi, Ks: f.ks, Fractions: f.fractions, Models: f.models, Seed: f.seed, MaxSubsets: f.maxSubsets}
	ins, err := spec.Build(cmd.Context())
	if err != nil {
		return err
	}
	dir := f.writeMPS
	if dir == "" {
		tmp, err := bench.TempDir()
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
		f.dropFiles = true // they are gone when the report is read
	}
	title := fmt.Sprintf("mmds bench: seed %d, n %d:%d, K %v, D/D_max %v", f.seed, lo, hi, f.ks, f.fractions)
	return solveAndReport(cmd, f.solveFlags, format, ins, nil, dir, title, map[string]any{
		"family": map[string]any{"n_min": lo, "n_max": hi, "k": f.ks, "fractions": f.fractions, "instances": f.models,
			"seed": f.seed, "max_subsets": f.maxSubsets, "outputs": "m = n"}})
}

type benchLibraryFlags struct {
	seed uint64
}

func newBenchLibraryCmd() *cobra.Command {
	var f benchLibraryFlags
	cmd := &cobra.Command{
		Use:   "library DIR",
		Short: "Write the versioned instance library (MPS files, manifest.json, manifest.csv) to DIR",
		Long: `library writes the instance library of version ` + bench.LibraryVersion + ` to DIR (created if
needed): Proposition 2's MIP for random binary models, the fixed-alphabet MIPs of
random finite models in every formulation (m = n + K + 1 outputs) and their global
LPs, as free-format MPS files that minimize −γ, with manifest.json and manifest.csv
(name, file, sense, optimal_value when certified, best_bound, how it was certified,
size, rows, columns, integers, nonzeros, SHA-256). The same version and --seed give
the same bytes.`,
		Example: "  mmds bench library lib/\n  mmds bench library --seed 2 lib2/",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPaths(report.OutFolder("DIR", args[0], report.BenchLibrary)); err != nil {
				return err
			}
			man, err := bench.WriteLibrary(cmd.Context(), args[0], bench.DefaultLibrary(f.seed))
			if err != nil {
				return err
			}
			certified := 0
			for _, e := range man.Instances {
				if e.OptimalValue != nil {
					certified++
				}
			}
			_ = sayf(cmd.OutOrStdout(), "wrote %d instances (%d with a certified optimal value) and %s/manifest.json, manifest.csv: library version %s, seed %d",
				len(man.Instances), certified, strings.TrimSuffix(args[0], "/"), man.Version, man.Seed)
			return nil
		},
	}
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed of the library's random models")
	return cmd
}

func newBenchRunCmd() *cobra.Command {
	var f solveFlags
	var tiers []string
	cmd := &cobra.Command{
		Use:   "run DIR",
		Short: "Solve every instance of a library written by `mmds bench library`",
		Long: `run reads DIR/manifest.json, checks each MPS file against its SHA-256, and solves
it with HiGHS (the model read from the file) and the solvers asked for; every answer is
checked against the file's model and the manifest's certified optimum and bound.`,
		Example: "  mmds bench run lib/ --cbc --glpk --highs-file --time-limit 10s --profile profile.svg",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := f.validate()
			if err != nil {
				return err
			}
			dir := args[0]
			if err := checkPaths(append(f.outputs(), report.InFolder("DIR", dir, report.BenchLibrary))...); err != nil {
				return err
			}
			man, err := bench.ReadManifest(dir)
			if err != nil {
				return badInput("library %q: %v", dir, err)
			}
			if man.Instances, err = bench.SelectTiers(man.Instances, tiers); err != nil {
				return badInput("--tier %v", err)
			}
			var ins []bench.Instance
			files := map[string]string{}
			for _, e := range man.Instances {
				in, err := bench.LoadInstance(dir, e)
				if err != nil {
					return badInput("library %q: %v", dir, err)
				}
				ins = append(ins, in)
				files[in.Name] = dir + string(os.PathSeparator) + e.File
			}
			title := fmt.Sprintf("mmds bench run: library v%s, seed %d", man.Version, man.Seed)
			lib := map[string]any{"dir": dir, "version": man.Version, "seed": man.Seed, "instances": len(man.Instances)}
			if len(tiers) > 0 {
				title += ", tiers " + strings.Join(tiers, ", ")
				lib["tiers"] = tiers
			}
			return solveAndReport(cmd, f, format, ins, files, "", title, map[string]any{"library": lib})
		},
	}
	f.register(cmd)
	cmd.Flags().StringSliceVar(&tiers, "tier", nil, "solve only the instances of these tiers (easy, medium, hard, open; comma-separated; default all)")
	return cmd
}

// benchDoc is the JSON output: {"runs": [...], "summary": [...], ...}.
type benchDoc struct {
	Source         map[string]any     `json:"source"`
	StartedAt      string             `json:"started_at"`
	Machine        bench.Machine      `json:"machine"`
	Solvers        []bench.SolverInfo `json:"solvers"`
	TimeLimitS     float64            `json:"time_limit_s"`
	ShiftS         float64            `json:"shift_s"`
	TimeoutPolicy  string             `json:"timeout_policy"`
	FailurePenalty float64            `json:"failure_penalty"`
	Tolerances     bench.Tolerances   `json:"tolerances"`
	Runs           []benchRun         `json:"runs"`
	Summary        []benchSummary     `json:"summary"`
}

type benchRun struct {
	Instance     string   `json:"instance"`
	Problem      string   `json:"problem"`
	Source       string   `json:"source"`
	Variant      string   `json:"variant"`
	Tier         string   `json:"tier"`
	N            int      `json:"n"`
	K            int      `json:"k"`
	Fraction     float64  `json:"fraction"`
	Solver       string   `json:"solver"`
	Status       string   `json:"status"`
	SolverStatus string   `json:"solver_status"`
	Seconds      float64  `json:"seconds"`
	Objective    *float64 `json:"objective"`
	OptimalValue *float64 `json:"optimal_value"`
	BestBound    *float64 `json:"best_bound"`
	Nodes        *int64   `json:"nodes"`
	MaxViolation float64  `json:"max_violation"`
	Wrong        string   `json:"wrong,omitempty"`
	Error        string   `json:"error,omitempty"`
	File         string   `json:"file,omitempty"`
}

type benchSummary struct {
	Solver       string  `json:"solver"`
	Variant      string  `json:"variant"`
	Runs         int     `json:"runs"`
	Solved       int     `json:"solved"`
	TimeLimited  int     `json:"time_limited"`
	Failed       int     `json:"failed"`
	Wrong        int     `json:"wrong"`
	SGM          float64 `json:"shifted_geomean_s"`
	Shift        float64 `json:"shift_s"`
	TimeoutAtS   float64 `json:"timeout_counted_at_s"`
	FailureCostS float64 `json:"failure_counted_at_s"`
}

func optFloat(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

// solveAndReport runs the solvers on ins, then prints and draws.
func solveAndReport(cmd *cobra.Command, f solveFlags, format report.Format, ins []bench.Instance, files map[string]string, dir, title string, source map[string]any) error {
	ctx := cmd.Context()
	started := time.Now().UTC()
	solvers := f.solvers(ctx)
	var infos []bench.SolverInfo
	for _, s := range solvers {
		info := s.Info()
		infos = append(infos, info)
		if !info.Available {
			_ = sayf(cmd.ErrOrStderr(), "mmds bench: %s unavailable: %s", info.Name, info.Reason)
		}
	}
	tol := bench.DefaultTolerances()
	var progress func(bench.Run)
	if f.progress {
		done := 0
		progress = func(r bench.Run) {
			done++
			_ = sayf(cmd.ErrOrStderr(), "[%d] %s %s: %s %.3f s", done, r.Instance, r.Solver, r.Status, r.Seconds)
		}
	}
	runs, err := bench.Solve(ctx, ins, files, bench.RunSpec{Solvers: solvers, TimeLimit: f.timeLimit, Dir: dir, Tol: tol}, progress)
	if err != nil {
		return err
	}
	if f.dropFiles {
		for i := range runs {
			runs[i].File = ""
		}
	}
	sums := bench.Summarize(runs, f.timeLimit, f.shift.Seconds())
	if f.profile != "" {
		if err := writeProfile(f.profile, title, runs, infos); err != nil {
			return err
		}
	}
	if f.plot != "" {
		// One series per formulation with one solver, per solver with several
		// (the medians then run over every formulation).
		series := func(r bench.Run) string { return r.Solver + " " + r.Variant }
		if availableCount(infos) > 1 {
			series = func(r bench.Run) string { return r.Solver }
		}
		var pts []plot.BenchPoint
		for _, r := range runs {
			if r.Status == bench.StatusOptimal || r.Status == bench.StatusTimeLimit {
				pts = append(pts, plot.BenchPoint{Series: series(r), N: r.N, Seconds: r.Seconds, Limited: r.Status == bench.StatusTimeLimit})
			}
		}
		if err := plot.BenchScaling(f.plot, fmt.Sprintf("%s, limit %v", title, f.timeLimit), pts); err != nil {
			return err
		}
	}
	doc := benchJSON(source, started, infos, f, tol, runs, sums)
	if f.jsonOut != "" {
		if err := report.WriteAtomic(f.jsonOut, func(w io.Writer) error { return report.WriteJSON(w, doc) }); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	switch format {
	case report.JSON:
		return report.WriteJSON(w, doc)
	case report.CSV:
		return runsGrid(runs, true).RenderCSV(w)
	}
	return printBenchTables(w, runs, sums, infos, f)
}

func writeProfile(path, title string, runs []bench.Run, infos []bench.SolverInfo) error {
	avail := availableCount(infos)
	series := func(r bench.Run) string { return r.Solver }
	problem := func(r bench.Run) string { return r.Instance }
	what := "solvers"
	if avail < 2 {
		// One solver: compare the formulations of each sanitization problem.
		series = func(r bench.Run) string { return r.Variant }
		problem = func(r bench.Run) string { return r.Problem }
		what = "formulations (" + infos[0].Name + ")"
	}
	var curves []plot.ProfileCurve
	for _, c := range bench.Profile(runs, series, problem) {
		curves = append(curves, plot.ProfileCurve{Label: c.Label, Tau: c.Tau, Rho: c.Rho})
	}
	return plot.PerformanceProfile(path, "Performance profile of the "+what+": "+title, curves)
}

func benchJSON(source map[string]any, started time.Time, infos []bench.SolverInfo, f solveFlags, tol bench.Tolerances, runs []bench.Run, sums []bench.Summary) benchDoc {
	doc := benchDoc{Source: source, StartedAt: started.Format(time.RFC3339), Machine: bench.ThisMachine(), Solvers: infos,
		TimeLimitS: f.timeLimit.Seconds(), ShiftS: f.shift.Seconds(), TimeoutPolicy: timeoutPolicy(f.timeLimit),
		FailurePenalty: bench.FailurePenalty, Tolerances: tol, Runs: []benchRun{}, Summary: []benchSummary{}}
	for _, r := range runs {
		jr := benchRun{Instance: r.Instance, Problem: r.Problem, Source: r.Source, Variant: r.Variant, Tier: r.Tier, N: r.N, K: r.K,
			Fraction: r.Fraction, Solver: r.Solver, Status: r.Status, SolverStatus: r.SolverStatus, Seconds: r.Seconds,
			Objective: optFloat(r.Objective), OptimalValue: optFloat(r.Optimal), BestBound: optFloat(r.Bound),
			MaxViolation: r.MaxViolation, Wrong: r.Wrong, Error: r.Err, File: r.File}
		if r.Nodes >= 0 {
			n := r.Nodes
			jr.Nodes = &n
		}
		doc.Runs = append(doc.Runs, jr)
	}
	for _, s := range sums {
		doc.Summary = append(doc.Summary, benchSummary{Solver: s.Solver, Variant: s.Variant, Runs: s.Runs, Solved: s.Solved,
			TimeLimited: s.TimeLimited, Failed: s.Failed, Wrong: s.Wrong, SGM: s.SGM, Shift: s.Shift,
			TimeoutAtS: s.CountedLimit, FailureCostS: bench.FailurePenalty * s.CountedLimit})
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
		Title:  "mmds bench: one row per solve (objective: −γ, recomputed from the returned solution)",
		Header: []string{"instance", "solver", "variant", "status", "objective", "certified", "ms", "nodes", "note"},
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
		note := r.Wrong
		if note == "" {
			note = r.Err
		}
		if !csv && len(note) > 60 {
			note = note[:57] + "..."
		}
		g.Rows = append(g.Rows, []string{r.Instance, r.Solver, r.Variant, r.Status, num(r.Objective), num(r.Optimal), ms, nodes, note})
	}
	return g
}

func summaryGrid(sums []bench.Summary, limit, shift time.Duration) *report.Grid {
	g := &report.Grid{Title: "Summary per solver and formulation",
		Header: []string{"solver", "variant", "solved", "time limit", "failed", "wrong", "SGM s"}}
	for _, s := range sums {
		g.Rows = append(g.Rows, []string{s.Solver, s.Variant, fmt.Sprintf("%d/%d", s.Solved, s.Runs), strconv.Itoa(s.TimeLimited),
			strconv.Itoa(s.Failed), strconv.Itoa(s.Wrong), report.Fixed(s.SGM, 4)})
	}
	g.Notes = []string{
		fmt.Sprintf("SGM: shifted geometric mean exp(mean ln(t + s)) − s of the times, shift s = %v; %s.", shift, timeoutPolicy(limit)),
		"solved = claimed optimal and passed mmds's check against the certified optimum; wrong = failed the check.",
	}
	return g
}

func printBenchTables(w io.Writer, runs []bench.Run, sums []bench.Summary, infos []bench.SolverInfo, f solveFlags) error {
	if err := runsGrid(runs, false).RenderTable(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := summaryGrid(sums, f.timeLimit, f.shift).RenderTable(w); err != nil {
		return err
	}
	m := bench.ThisMachine()
	fmt.Fprintf(w, "\nmachine: %s/%s, %s, %d cores; time limit %v per solve\n", m.OS, m.Arch, m.CPU, m.Cores, f.timeLimit)
	for _, i := range infos {
		if !i.Available {
			fmt.Fprintf(w, "solver %s: unavailable (%s)\n", i.Name, i.Reason)
			continue
		}
		seed := "none"
		if i.Seed != nil {
			seed = strconv.Itoa(*i.Seed)
		}
		fmt.Fprintf(w, "solver %s %s: threads %d, seed %s, %s\n", i.Name, i.Version, i.Threads, seed, i.Options)
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
