package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/bench"
	"github.com/mmds-project/mmds/internal/figure"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/mip"
)

type benchFlags struct {
	n, format, writeMPS, plot string
	ks                        []int
	fractions                 []float64
	instances                 int
	seed                      uint64
	timeLimit                 time.Duration
	maxSubsets                int64
	cbc                       bool
}

func newBenchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark the MIP formulations and the global LP on a seeded family of finite models",
		Long: `bench draws a seeded family of finite models (n = |Y| = |Z| = m, K adversaries,
random priors and channels, 0-1 losses) and solves each at D = fraction · D_max
with every fixed-alphabet MIP formulation (M = 1 vs derived M, symmetry breaking
on/off, convex hull) and with the global LP where the ray enumeration is within
--max-subsets. It prints HiGHS's status, time, nodes and gap per solve and a
summary per formulation. --write-mps exports every model; --cbc also solves the
exported files with a cbc binary from PATH; --plot draws the scaling plot.`,
		Example: `  mmds bench
  mmds bench --n 2:4 --k 2 --fractions 0.25,0.5,0.75 --time-limit 10s --plot bench.png
  mmds bench --n 3:3 --write-mps models/ --cbc --format csv`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runBench(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.n, "n", "2:3", "size range NMIN:NMAX for n = |Y| = |Z| = m, within [2, 8]")
	fl.IntSliceVar(&f.ks, "k", []int{1, 2, 3}, "numbers of adversaries, each in [1, 8]")
	fl.Float64SliceVar(&f.fractions, "fractions", []float64{0.5}, "thresholds as fractions of D_max, each in [0, 1]")
	fl.IntVar(&f.instances, "instances", 1, "random models per (n, K), in [1, 1000]")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the model family")
	fl.DurationVar(&f.timeLimit, "time-limit", 10*time.Second, "time limit per solve (0: none)")
	fl.Int64Var(&f.maxSubsets, "max-subsets", mip.DefaultMaxSubsets, "ray-enumeration budget of the global LP (beyond it: \"too large\")")
	fl.StringVar(&f.format, "format", "table", "output format: table, csv or json")
	fl.StringVar(&f.writeMPS, "write-mps", "", "export every model to this existing folder as MPS")
	fl.BoolVar(&f.cbc, "cbc", false, "also solve the exported files with cbc from PATH (needs --write-mps)")
	fl.StringVar(&f.plot, "plot", "", "write the scaling plot (median time against n) to this .png or .svg file")
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
	format, err := outputFormat(f.format)
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
	case f.instances < 1 || f.instances > 1000:
		return badInput("--instances %d: must be in [1, 1000]", f.instances)
	case f.timeLimit < 0:
		return badInput("--time-limit %v: must be ≥ 0", f.timeLimit)
	case f.maxSubsets < 1:
		return badInput("--max-subsets %d: must be ≥ 1", f.maxSubsets)
	case f.cbc && f.writeMPS == "":
		return badInput("--cbc solves the exported files: give --write-mps DIR too")
	}
	if f.writeMPS != "" {
		if fi, err := os.Stat(f.writeMPS); err != nil || !fi.IsDir() {
			return badInput("--write-mps %q: not an existing folder", f.writeMPS)
		}
	}
	if f.plot != "" {
		if ext := strings.ToLower(f.plot[strings.LastIndex(f.plot, ".")+1:]); !strings.Contains(f.plot, ".") || (ext != "png" && ext != "svg") {
			return badInput("--plot %q: the file name must end in .png or .svg", f.plot)
		}
	}
	spec := bench.Spec{NMin: lo, NMax: hi, Ks: f.ks, Fractions: f.fractions, Instances: f.instances, Seed: f.seed,
		TimeLimit: f.timeLimit, MaxSubsets: f.maxSubsets, MPSDir: f.writeMPS}
	if f.cbc {
		path, err := exec.LookPath("cbc")
		if err != nil {
			return badInput("--cbc: no cbc binary on PATH (install coinor-cbc, or drop --cbc)")
		}
		spec.CBC = path
	}
	rows, err := bench.Run(cmd.Context(), spec, nil)
	if err != nil {
		return err
	}
	if f.plot != "" {
		var pts []figure.BenchPoint
		for _, r := range rows {
			if r.Status == "too large" || r.Status == "error" {
				continue
			}
			pts = append(pts, figure.BenchPoint{Series: r.Solver + " " + r.Variant, N: r.N, Seconds: r.Time.Seconds()})
		}
		title := fmt.Sprintf("mmds bench: seed %d, K in %v, D/D_max in %v, limit %v", f.seed, f.ks, f.fractions, f.timeLimit)
		if err := figure.BenchScaling(f.plot, title, pts); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	switch format {
	case report.JSON:
		return report.WriteJSON(w, benchJSON(spec, rows))
	case report.CSV:
		return benchGrid(rows, true).RenderCSV(w)
	}
	if err := benchGrid(rows, false).RenderTable(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return benchSummary(rows).RenderTable(w)
}

func benchGrid(rows []bench.Row, csv bool) *report.Grid {
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
		Title:  "mmds bench: one row per solve (objective γ*; time includes the ray enumeration for the global LP)",
		Header: []string{"n", "K", "instance", "fraction", "D", "solver", "variant", "status", "objective", "ms", "nodes", "gap", "rays", "file"},
	}
	if !csv {
		g.Header = g.Header[:len(g.Header)-1]
	}
	for _, r := range rows {
		nodes := strconv.FormatInt(r.Nodes, 10)
		if r.Nodes < 0 {
			nodes = "—"
		}
		gap := "—"
		if !math.IsNaN(r.Gap) {
			gap = report.Float(r.Gap, 2)
		}
		ms := float64(r.Time.Microseconds()) / 1000
		msS := report.Fixed(ms, 1)
		if csv {
			msS = report.Float(ms, -1)
		}
		row := []string{strconv.Itoa(r.N), strconv.Itoa(r.K), strconv.Itoa(r.Instance), report.Float(r.Fraction, -1), num(r.D),
			r.Solver, r.Variant, r.Status, num(r.Objective), msS, nodes, gap, strconv.Itoa(r.Rays)}
		if csv {
			row = append(row, r.File)
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// benchSummary: per solver and variant, how many solves were proven
// optimal, and the median and largest time.
func benchSummary(rows []bench.Row) *report.Grid {
	type key struct{ solver, variant string }
	var keys []key
	times := map[key][]float64{}
	solved := map[key]int{}
	for _, r := range rows {
		k := key{r.Solver, r.Variant}
		if _, ok := times[k]; !ok {
			keys = append(keys, k)
		}
		times[k] = append(times[k], r.Time.Seconds()*1000)
		if r.Status == "Optimal" {
			solved[k]++
		}
	}
	g := &report.Grid{Title: "Summary per formulation", Header: []string{"solver", "variant", "optimal", "median ms", "max ms"}}
	for _, k := range keys {
		ts := slices.Clone(times[k])
		slices.Sort(ts)
		med := ts[len(ts)/2]
		if len(ts)%2 == 0 {
			med = (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
		}
		g.Rows = append(g.Rows, []string{k.solver, k.variant, fmt.Sprintf("%d/%d", solved[k], len(ts)), report.Fixed(med, 1), report.Fixed(ts[len(ts)-1], 1)})
	}
	g.Notes = []string{"A solve stopped by --time-limit counts at its run time; \"too large\" marks a global LP whose ray enumeration exceeds --max-subsets."}
	return g
}

type benchDoc struct {
	Spec struct {
		NMin       int       `json:"n_min"`
		NMax       int       `json:"n_max"`
		Ks         []int     `json:"k"`
		Fractions  []float64 `json:"fractions"`
		Instances  int       `json:"instances"`
		Seed       uint64    `json:"seed"`
		TimeLimitS float64   `json:"time_limit_s"`
		MaxSubsets int64     `json:"max_subsets"`
	} `json:"spec"`
	Solver solverDoc      `json:"solver"`
	Rows   []benchJSONRow `json:"rows"`
}

type benchJSONRow struct {
	N         int      `json:"n"`
	K         int      `json:"k"`
	Instance  int      `json:"instance"`
	Fraction  float64  `json:"fraction"`
	D         float64  `json:"D"`
	Solver    string   `json:"solver"`
	Variant   string   `json:"variant"`
	Status    string   `json:"status"`
	Objective *float64 `json:"objective"`
	MS        float64  `json:"ms"`
	Nodes     *int64   `json:"nodes"`
	Gap       *float64 `json:"gap"`
	Rays      int      `json:"rays,omitempty"`
	File      string   `json:"file,omitempty"`
	Error     string   `json:"error,omitempty"`
}

func benchJSON(s bench.Spec, rows []bench.Row) benchDoc {
	var doc benchDoc
	doc.Spec.NMin, doc.Spec.NMax, doc.Spec.Ks, doc.Spec.Fractions = s.NMin, s.NMax, s.Ks, s.Fractions
	doc.Spec.Instances, doc.Spec.Seed, doc.Spec.TimeLimitS, doc.Spec.MaxSubsets = s.Instances, s.Seed, s.TimeLimit.Seconds(), s.MaxSubsets
	doc.Solver = solverDoc{Name: "HiGHS", Version: mip.HiGHSVersion, FeasibilityJump: mip.DefaultSolver().FeasibilityJump}
	for _, r := range rows {
		jr := benchJSONRow{N: r.N, K: r.K, Instance: r.Instance, Fraction: r.Fraction, D: r.D, Solver: r.Solver, Variant: r.Variant,
			Status: r.Status, MS: float64(r.Time.Microseconds()) / 1000, Rays: r.Rays, File: r.File, Error: r.Err}
		if !math.IsNaN(r.Objective) {
			jr.Objective = &r.Objective
		}
		if r.Nodes >= 0 {
			jr.Nodes = &r.Nodes
		}
		if !math.IsNaN(r.Gap) {
			jr.Gap = &r.Gap
		}
		doc.Rows = append(doc.Rows, jr)
	}
	return doc
}
