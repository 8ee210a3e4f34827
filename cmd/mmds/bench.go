package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/bench"
	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/plot"
)

// solveFlags are shared by `mmds bench` and `mmds bench run`.
type solveFlags struct {
	bench.Options
	format, profile, plot string
	jsonOut               string
	output                string // -o/--output FILE: the rendered output (--format) instead of standard output
	progress, quiet       bool
	part                  string // what a library's manifest left out of the selection ("" for nothing)
}

func (f *solveFlags) register(cmd *cobra.Command, defaultSeeds int) {
	fl := cmd.Flags()
	fl.IntVar(&f.Seeds, "seeds", defaultSeeds, "solves per instance and solver, with seeds --solver-seed, +1, …; a solver without a seed reads the file with rows and columns permuted by the seed; in [1, 100]")
	fl.BoolVar(&f.SYMPHONY, "symphony", false, "also solve with COIN-OR SYMPHONY from PATH (reported unavailable when it does not run)")
	fl.BoolVar(&f.LPSolve, "lp-solve", false, "also solve with lp_solve from PATH (reported unavailable when it does not run)")
	fl.BoolVar(&f.All, "all", false, "every solver: --highs-file --cbc --glpk --symphony --lp-solve")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	fl.IntVar(&f.Workers, "workers", 1, "solves run at once, each with --threads threads (2 on 2 cores with --threads 1); in [1, 64]")
	fl.DurationVar(&f.TimeLimit, "time-limit", 10*time.Second, "time limit per solve (0: none)")
	fl.StringVar(&f.format, "format", "table", "output format: table, csv or json")
	fl.BoolVar(&f.CBC, "cbc", false, "also solve with cbc from PATH (reported unavailable when it does not run)")
	fl.BoolVar(&f.GLPK, "glpk", false, "also solve with GLPK's glpsol from PATH (reported unavailable when it does not run)")
	fl.BoolVar(&f.HiGHSFile, "highs-file", false, "also solve with HiGHS reading the MPS file (parity with the external solvers)")
	fl.IntVar(&f.Threads, "threads", 1, "threads per solver (0: each solver's default), in [0, 64]")
	fl.IntVar(&f.FirstSeed, "solver-seed", 0, "the first solve's seed, in [0, 2147483647]")
	fl.DurationVar(&f.Shift, "shift", bench.DefaultShift, "shift of the shifted geometric mean of times (> 0)")
	fl.StringVar(&f.profile, "profile", "", "write the Dolan–Moré performance profile to this .png or .svg file")
	fl.BoolVar(&f.progress, "progress", false, "print one line per solve to stderr (the default now)")
	_ = fl.MarkDeprecated("progress", "progress lines are on by default; --quiet turns them off")
	outputFlag(fl, &f.output)
	fl.StringVar(&f.jsonOut, "json-out", "", "also write the JSON document (as --format json prints it) to this file")
	fl.StringVar(&f.plot, "plot", "", "write the scaling plot (median time against n) to this .png or .svg file")
}

// checkFigurePaths checks the names of --profile and --plot, when given.
func checkFigurePaths(profile, scaling string) error {
	for _, f := range [][2]string{{"profile", profile}, {"plot", scaling}} {
		if _, err := plot.FormatOf(f[1]); f[1] != "" && err != nil {
			return badInput("--%s %q: the file name must end in .png or .svg", f[0], f[1])
		}
	}
	return nil
}

func (f *solveFlags) validate() (report.Format, error) {
	format, err := outputFormat(f.format)
	if err != nil {
		return "", err
	}
	if err := f.Options.Validate(); err != nil {
		return "", usageError{err}
	}
	return format, checkFigurePaths(f.profile, f.plot)
}

// outputs are the files bench and bench run write.
func (f *solveFlags) outputs() []report.Path {
	return []report.Path{report.Out("--output", stdoutPath(f.output)), report.Out("--profile", f.profile), report.Out("--plot", f.plot), report.Out("--json-out", f.jsonOut)}
}

// solveAndReport has bench.Benchmark solve ins, then prints and draws. On
// Ctrl-C it reports what finished, marked interrupted, and returns an error.
func solveAndReport(cmd *cobra.Command, f solveFlags, format report.Format, ins []bench.Instance, dir, title string, source map[string]any) error {
	ctx := cmd.Context()
	total := 0
	rep, err := bench.Benchmark(ctx, ins, dir, f.Options, func(infos []bench.SolverInfo) func(bench.Run) {
		for _, info := range infos {
			if !info.Available {
				_ = report.Sayf(cmd.ErrOrStderr(), "mmds bench: %s unavailable: %s", info.Name, info.Reason)
			}
		}
		total = len(ins) * f.Seeds * bench.Available(infos)
		return progressLine(cmd.ErrOrStderr(), f.quiet, total)
	})
	if rep == nil {
		return err
	}
	rep.Source, rep.Part = source, f.part
	wrote, err := plot.WriteBench(rep, title, f.profile, f.plot)
	if err != nil {
		return err
	}
	if f.jsonOut != "" {
		if err := report.WriteAtomic(f.jsonOut, func(w io.Writer) error { return report.WriteJSON(w, rep.Doc()) }); err != nil {
			return err
		}
		wrote = append(wrote, f.jsonOut)
	}
	werr := writeOutput(cmd.OutOrStdout(), stdoutPath(f.output), func(w io.Writer) error {
		switch format {
		case report.JSON:
			return report.WriteJSON(w, rep.Doc())
		case report.CSV:
			return rep.RunsGrid(true).RenderCSV(w)
		}
		return rep.WriteTables(w)
	})
	if werr != nil || !rep.Interrupted {
		return werr
	}
	where := "standard output"
	if out := stdoutPath(f.output); out != "" {
		where = out
	}
	if len(wrote) > 0 {
		where += " and " + strings.Join(wrote, ", ")
	}
	return keptError{fmt.Sprintf("%d of %d solves finished, written (marked \"interrupted\") to %s",
		len(rep.Runs), total, where), context.Cause(ctx)}
}

// progressLine prints one line per finished solve unless quiet.
func progressLine(w io.Writer, quiet bool, total int) func(bench.Run) {
	if quiet {
		return nil
	}
	done := 0
	start := time.Now()
	return func(r bench.Run) {
		done++
		_ = report.Sayf(w, "[%d/%d %s] %s %s seed %d: %s %.3f s", done, total, time.Since(start).Round(time.Second), r.Instance, r.Solver, r.Seed, r.Status, r.Seconds)
	}
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
	f.register(cmd, 1)
	fl := cmd.Flags()
	fl.StringVar(&f.n, "n", "2:3", "size range NMIN:NMAX for n = |Y| = |Z| = m, within [2, 8]")
	fl.IntSliceVar(&f.ks, "k", []int{1, 2, 3}, "numbers of adversaries, each in [1, 8]")
	fl.Float64SliceVar(&f.fractions, "fractions", []float64{0.5}, "thresholds as fractions of D_max, each in [0, 1]")
	fl.IntVar(&f.models, "instances", 1, "random models per (n, K), in [1, 1000]")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the model family")
	fl.Int64Var(&f.maxSubsets, "max-subsets", model.DefaultMaxSubsets, "ray-enumeration budget of the global LP (beyond it: no global LP, no certified value)")
	fl.StringVar(&f.writeMPS, "write-mps", "", "export every instance to this existing folder as MPS (else file-reading solvers use a temporary folder)")
	cmd.AddCommand(newBenchLibraryCmd(), newBenchRunCmd(), newBenchPlotCmd())
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
	spec := bench.Spec{NMin: lo, NMax: hi, Ks: f.ks, Fractions: f.fractions, Models: f.models, Seed: f.seed, MaxSubsets: f.maxSubsets}
	if err := spec.Validate(); err != nil {
		return usageError{err}
	}
	if err := checkPaths(append(f.outputs(), report.OutFolder("--write-mps", f.writeMPS, ""))...); err != nil {
		return err
	}
	ins, err := spec.Build(cmd.Context())
	if err != nil {
		return err
	}
	title, source := spec.Describe()
	return solveAndReport(cmd, f.solveFlags, format, ins, f.writeMPS, title, source)
}

type benchLibraryFlags struct {
	seed  uint64
	openN []int
	quiet bool
}

func newBenchLibraryCmd() *cobra.Command {
	var f benchLibraryFlags
	cmd := &cobra.Command{
		Use:   "library DIR",
		Short: "Write the versioned instance library (gzipped MPS, mmds.solu, metadata.csv, manifests) to DIR",
		Long: `library writes the instance library of version ` + bench.LibraryVersion + ` to DIR (created if
needed): Proposition 2's MIP for random binary models, the fixed-alphabet MIPs of
random finite models in every formulation (m = n + K + 1 outputs) and their global
LPs, as gzipped free-format MPS files (NAME.mps.gz) that minimize −γ; mmds.solu,
the certified optimal values in MIPLIB's .solu format (=opt= NAME VALUE); benchmark.test,
the files of the benchmark set (every easy and medium instance; of the hard and the
open tier, the smallest size's model 0 in hull+sym and as the global LP); metadata.csv
(rows, columns, integers, nonzeros, tier, set, model, D, how the optimum is certified);
and manifest.json and manifest.csv (every field, with the SHA-256 of each MPS text).
--open-n adds larger open-tier instances (K = 1, D = D_max/4, two models, derivedM
and hull+sym), certified by the global LP or, beyond its ray budget (n ≥ 6), by
column generation; a size neither certifies is refused (exit 3). The same version,
--seed and --open-n give the same bytes.`,
		Example: "  mmds bench library lib/\n  mmds bench library --seed 2 lib2/",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, n := range f.openN {
				if n < bench.MinOpenN || n > bench.MaxOpenN {
					return badInput("--open-n %d: each must be in [%d, %d] (n = 4 is already in the library)", n, bench.MinOpenN, bench.MaxOpenN)
				}
			}
			if err := checkPaths(report.OutFolder("DIR", args[0], report.BenchLibrary)); err != nil {
				return err
			}
			spec := bench.DefaultLibrary(f.seed)
			spec.OpenN = f.openN
			w := cmd.ErrOrStderr()
			bar := progress.New(w, progress.Options{Label: "mmds bench library", Unit: "instances written", Quiet: f.quiet, Terminal: progress.IsTerminal(w)})
			bar.Describe("drawing the models and certifying their optima")
			bar.Start()
			spec.Progress = func(written, total int) {
				bar.Describe("")
				bar.SetTotal(total)
				bar.Set(written)
			}
			man, err := bench.WriteLibrary(cmd.Context(), args[0], spec)
			endBar(bar, err)
			if err != nil && cmd.Context().Err() != nil {
				if fi, e := os.Stat(args[0]); e == nil && fi.IsDir() {
					return keptError{fmt.Sprintf("%s holds the instance files written so far, without a manifest; run the same command again to write the library", args[0]), err}
				}
			}
			if errors.Is(err, bench.ErrUncertified) {
				return exitError{exitCannotCertify, err}
			}
			if err != nil {
				return err
			}
			_ = report.Sayf(cmd.OutOrStdout(), "wrote %d instances (%d with a certified optimal value) and %s/%s, %s, manifest.json, manifest.csv: library version %s, seed %d",
				len(man.Instances), man.Certified(), strings.TrimSuffix(args[0], "/"), bench.SoluFile, bench.MetadataFile, man.Version, man.Seed)
			return nil
		},
	}
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed of the library's random models")
	cmd.Flags().IntSliceVar(&f.openN, "open-n", nil, "add open-tier instances of these sizes n, each in [5, 8]")
	cmd.Flags().BoolVar(&f.quiet, "quiet", false, quietUsage)
	return cmd
}

func newBenchRunCmd() *cobra.Command {
	var f solveFlags
	var tiers []string
	var setName string
	cmd := &cobra.Command{
		Use:   "run DIR",
		Short: "Solve every instance of a library written by `mmds bench library`",
		Long: `run reads DIR/manifest.json, checks each MPS file against its SHA-256, regenerates
each instance from the library's version and seed (the same MPS text, or the instance is
refused) and certifies its optimum again, and solves it with HiGHS (the model read from
the file) and the solvers asked for; every answer is checked against the file's model and
the optimum and bound mmds recomputed. An instance whose listed optimum or bound mmds does
not recompute is refused (exit 2).
By default it solves the library's benchmark set (the instances of benchmark.test,
sized so that every solver with 3 seeds at 60 s fits 30 minutes on 2 cores with
--workers 2); --set collection (or all) solves every instance.`,
		Example: "  mmds bench run lib/ --all --workers 2 --time-limit 60s --profile profile.svg\n  mmds bench run lib/ --set collection --tier open --cbc --seeds 1",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := f.validate()
			if err != nil {
				return err
			}
			set, err := bench.ParseSet(setName)
			if err != nil {
				return badInput("--set %q: must be benchmark, collection or all", setName)
			}
			if err := checkPaths(append(f.outputs(), report.InFolder("DIR", args[0], report.BenchLibrary))...); err != nil {
				return err
			}
			sel, err := bench.Select(cmd.Context(), args[0], tiers, set)
			if errors.Is(err, bench.ErrInput) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			// Solvers read plain MPS copies of the (gzipped) files, written
			// from the bytes the SHA-256 was checked on into a temporary folder.
			f.LibraryFiles = sel.Files
			title, part, source := sel.Describe()
			f.part = part
			return solveAndReport(cmd, f, format, sel.Instances, "", title, source)
		},
	}
	f.register(cmd, 3)
	cmd.Flags().StringSliceVar(&tiers, "tier", nil, "solve only the instances of these tiers (easy, medium, hard, open; comma-separated; default all)")
	cmd.Flags().StringVar(&setName, "set", "benchmark", "instances to solve: benchmark (the library's benchmark set), collection or all (every instance)")
	return cmd
}

type benchPlotFlags struct {
	profile, plot string
	quiet         bool
}

func newBenchPlotCmd() *cobra.Command {
	var f benchPlotFlags
	cmd := &cobra.Command{
		Use:   "plot FILE",
		Short: "Draw the figures of a benchmark again from its JSON document",
		Long: `plot draws the figures of mmds bench's JSON document (--json-out, --format json) as
the run did, from its runs (the medians, summaries and wins are computed again).`,
		Example: "  mmds bench plot runs.json --profile profile.svg --plot scaling.svg",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.profile == "" && f.plot == "" {
				return badInput("give --profile FILE, --plot FILE or both: nothing to draw")
			}
			if err := checkFigurePaths(f.profile, f.plot); err != nil {
				return err
			}
			if err := checkPaths(report.In("FILE", args[0]), report.Out("--profile", f.profile), report.Out("--plot", f.plot)); err != nil {
				return err
			}
			rep, title, err := bench.OpenReport(cmd.Context(), args[0])
			if errors.Is(err, bench.ErrInput) {
				return usageError{err}
			} else if err != nil {
				return err
			}
			wrote, err := plot.WriteBench(rep, title, f.profile, f.plot)
			for _, path := range wrote {
				if !f.quiet {
					_ = report.Sayf(cmd.OutOrStdout(), "wrote %s", path)
				}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&f.profile, "profile", "", "write the Dolan–Moré performance profile to this .png or .svg file")
	cmd.Flags().StringVar(&f.plot, "plot", "", "write the scaling plot (median time against n) to this .png or .svg file")
	cmd.Flags().BoolVar(&f.quiet, "quiet", false, "no line naming each file written")
	return cmd
}
