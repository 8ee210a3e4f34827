package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/plot"
)

// gaussOpts holds the flags of mmds gauss.
type gaussOpts struct {
	config, sweep, format, out string
	plot                       string // --plot FILE: the exact curves alone
	d                          float64
	monteCarlo                 bool
	kernels                    bool // --kernels: the slow stochastic-kernel search
	optimum                    bool // --optimum: the optimum search over posteriors
	seed                       uint64
	samples                    int
	workers                    int // --workers: kernel searches at once
	limits                     limitFlags
}

// Monte Carlo defaults: the paper's 12,000 samples, one sixth held out for
// testing (10,000 train / 2,000 test, Section V-A).
const (
	defaultSamples = 12000
	minSamples     = 60
	maxSamples     = 10_000_000
)

func newGaussCmd() *cobra.Command {
	var o gaussOpts
	cmd := &cobra.Command{
		Use:   "gauss",
		Short: "Gaussian model: Proposition 1, the best achievable mechanism and the upper bound",
		Long: `gauss prints, for every distortion threshold D, Proposition 1's optimum among
jointly Gaussian privatizers F = aX + bR (Section III-A, K adversaries; every point
cross-checked against the Schur complements of Cov(X, F, side)), the best achievable
mechanism known over all privatizers (erasure, X mod Δ, nested and uniform
quantizers, linear, time-sharing; exact losses) and a proven upper bound. The exact
optimum lies between the last two; the output says where that bracket is open.
Without --config it uses the paper's Section V-A setup. See docs/gauss.md.`,
		Example: `  mmds gauss
  mmds gauss --config examples/gauss-coalition.json --format json
  mmds gauss --sweep 0:5.76:7 --monte-carlo --seed 3
  mmds gauss --plot gauss.png
  mmds gauss --d 4.5 --kernels
  mmds gauss --d 0.5 --optimum`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badInput("gauss takes no arguments, got %q", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runGauss(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "JSON model file (default: the paper's Section V-A setup)")
	f.Float64Var(&o.d, "d", 0, "a single distortion threshold D ≥ 0")
	f.StringVar(&o.sweep, "sweep", "", "thresholds D0:D1:N (default 30 values from 0.005 to V_Y = Var[X|Y])")
	f.StringVar(&o.format, "format", "table", "output format: table, csv or json")
	outputFlag(f, &o.out)
	f.BoolVar(&o.monteCarlo, "monte-carlo", false, "also estimate every loss by Monte Carlo (paper's protocol)")
	f.Uint64Var(&o.seed, "seed", 1, "Monte Carlo seed (point i uses PCG(seed, i))")
	f.IntVar(&o.samples, "samples", defaultSamples, "Monte Carlo samples per point; 1/6 of them are the test split")
	f.BoolVar(&o.kernels, "kernels", false, "also search optimized stochastic kernels at every threshold (slow: about 10 s each)")
	f.BoolVar(&o.optimum, "optimum", false, "also search the optimum over all privatizers on a grid (column generation over posteriors; seconds a threshold): a mechanism certified on the continuum and a numerical estimate of the grid problem")
	workersFlag(f, &o.workers, "kernel searches (--kernels) and the optimum search's scans (--optimum)")
	f.StringVar(&o.plot, "plot", "", "also draw Proposition 1, every family, the best achievable envelope and the upper bound into this .png or .svg file")
	o.limits.register(f, 0)
	return cmd
}

// gaussRun is everything mmds gauss computed, ready to print: ds are the
// thresholds asked for, of which the solution holds the first
// len(sol.Points).
type gaussRun struct {
	model *gauss.Model
	sol   *gauss.Solution
	opts  gaussOpts
	ds    []float64
}

func runGauss(cmd *cobra.Command, o gaussOpts) error {
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return usageError{err}
	}
	if err := checkMCFlags(cmd, o); err != nil {
		return err
	}
	if err := checkWorkers(o.workers); err != nil {
		return err
	}
	if cmd.Flags().Changed("workers") && !o.kernels && !o.optimum {
		return badInput("--workers applies to --kernels and --optimum only (the other stages take milliseconds)")
	}
	if err := checkPlotPath(o.plot); err != nil {
		return err
	}
	o.out = stdoutPath(o.out)
	if err := checkPaths(report.In("--config", o.config), report.Out("--output", o.out), report.Out("--plot", o.plot)); err != nil {
		return err
	}
	m, err := gaussModel(cmd.Context(), o.config)
	if err != nil {
		return err
	}
	ds, err := gaussThresholds(cmd, o, m)
	if err != nil {
		return err
	}
	if err := o.limits.check(); err != nil {
		return err
	}
	r, err := computeGauss(cmd, m, ds, o)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := r.render(&buf, format); err != nil {
		return err
	}
	if o.plot != "" {
		spec, err := plot.GaussEnvelope(m)
		if err != nil {
			return err
		}
		if o.optimum {
			spec = plot.GaussOptimum(spec, r.sol.Brackets)
		}
		if err := writePlot(o.plot, spec); err != nil {
			return err
		}
	}
	if err := writeOutput(cmd.OutOrStdout(), o.out, buf.Bytes()); err != nil {
		return err
	}
	return warnStopped(cmd, o.limits, r.sol.Stop, len(r.sol.Points), len(ds))
}

func checkMCFlags(cmd *cobra.Command, o gaussOpts) error {
	if !o.monteCarlo {
		for _, name := range []string{"seed", "samples"} {
			if cmd.Flags().Changed(name) {
				return badInput("--%s needs --monte-carlo", name)
			}
		}
		return nil
	}
	if o.samples < minSamples || o.samples > maxSamples {
		return badInput("--samples %d: must be in [%d, %d]", o.samples, minSamples, maxSamples)
	}
	return nil
}

// gaussModel reads --config, a Gaussian model file; without one the
// command's default is the paper's model (Section V-A).
func gaussModel(ctx context.Context, path string) (*gauss.Model, error) {
	if path == "" {
		return gauss.Paper(), nil
	}
	m, err := model.LoadGauss(ctx, path)
	if err != nil {
		return nil, usageError{fmt.Errorf("--config %w", err)}
	}
	return m.M, nil
}

func gaussThresholds(cmd *cobra.Command, o gaussOpts, m *gauss.Model) ([]float64, error) {
	return thresholds(cmd, o.d, o.sweep, m.DefaultSweep())
}

// computeGauss solves m at ds within --max-points and --time-limit
// (gauss.Model.Solve), with a progress bar that counts thresholds once per
// stage.
func computeGauss(cmd *cobra.Command, m *gauss.Model, ds []float64, o gaussOpts) (*gaussRun, error) {
	so := gauss.SolveOptions{MaxPoints: o.limits.maxPoints, TimeLimit: o.limits.timeLimit, Workers: o.workers}
	if o.monteCarlo {
		so.MonteCarlo = &gauss.MonteCarloOptions{Seed: o.seed, Samples: o.samples}
	}
	if o.kernels {
		ks := gauss.DefaultKernelSearch()
		so.Kernels = &ks
	}
	if o.optimum {
		search := gauss.DefaultOptimumSearch()
		search.Workers = o.workers
		so.Optimum = &search
	}
	bar := gaussBar(cmd, o, o.limits.points(len(ds)))
	stage := gauss.StagePoints
	so.Progress = func(s gauss.Stage, done int) {
		if s != stage {
			stage = s
			bar.Describe(map[gauss.Stage]string{gauss.StageOptimum: "optimum search", gauss.StageKernels: "kernel search"}[s])
		}
		bar.Set(done)
	}
	sol, err := m.Solve(cmd.Context(), ds, so)
	if errors.Is(err, gauss.ErrSamples) {
		err = badInput("--samples %d: %w", o.samples, err)
	}
	if err != nil {
		bar.Finish("stopped")
		return nil, err
	}
	bar.Finish(doneOrStopped(nil, sol.Stop))
	return &gaussRun{model: m, sol: sol, opts: o, ds: ds}, nil
}

// gaussBar is the progress bar of n thresholds, a unit per threshold and
// stage, with its forecast.
func gaussBar(cmd *cobra.Command, o gaussOpts, n int) *progress.Bar {
	per := 2 * time.Millisecond // the closed form and the bracket
	if o.monteCarlo {
		per += time.Duration(o.samples) * 200 * time.Nanosecond
	}
	units, total := n, per
	if o.optimum {
		// a few seconds a threshold (gauss.DefaultOptimumSearch)
		units, total = units+n, total+4*time.Second
	}
	if o.kernels {
		// about 10 s a threshold on each worker (gauss.DefaultKernelSearch)
		units, total = units+n, total+10*time.Second/time.Duration(max(o.workers, 1))
	}
	return newBar(cmd, o.limits.quiet, "steps", units, total*time.Duration(n)/time.Duration(max(units, 1)))
}

func (r *gaussRun) render(w io.Writer, f report.Format) error {
	switch f {
	case report.JSON:
		return report.WriteJSON(w, r.jsonDoc())
	case report.CSV:
		g := r.grid(false)
		return emitSweep(w, f, g, nil, notReachedIn(g, r.ds[len(r.sol.Points):], "status"))
	}
	g := r.grid(true)
	return emitSweep(w, f, g, nil, notReachedIn(g, r.ds[len(r.sol.Points):], "its mechanism"))
}

// gaussJSON is the JSON contract of mmds gauss (see docs/gauss.md).
type gaussJSON struct {
	Model gauss.Summary `json:"model"`
	// StoppedBy names the bound that stopped the sweep ("max points" or
	// "time limit"); absent when every threshold was solved.
	StoppedBy sweep.Stop `json:"stopped_by,omitempty"`
	// Points: a gauss.Bracket per solved threshold, then {"D", "status"}
	// per threshold a bound stopped the sweep before.
	Points     pointsJSON[gauss.Bracket] `json:"points"`
	CrossCheck crossCheckJSON            `json:"cross_check"`
	MonteCarlo *mcJSON                   `json:"monte_carlo,omitempty"`
	// OptimumSearch holds the optimum search's settings (--optimum).
	OptimumSearch *gauss.OptimumSearch `json:"optimum_search,omitempty"`
}

type crossCheckJSON struct {
	MaxRelErr float64 `json:"max_rel_err"`
	Tolerance float64 `json:"tolerance"`
}

type mcJSON struct {
	Seed       uint64           `json:"seed"`
	Samples    int              `json:"samples"`
	Train      int              `json:"train"`
	Test       int              `json:"test"`
	Confidence float64          `json:"confidence"`
	Results    []gauss.MCResult `json:"results"` // results[i] belongs to points[i]
}

func (r *gaussRun) jsonDoc() gaussJSON {
	doc := gaussJSON{Model: r.model.Summary(), StoppedBy: r.sol.Stop,
		CrossCheck: crossCheckJSON{MaxRelErr: r.sol.MaxRelErr, Tolerance: gauss.CheckTol}}
	doc.Points = pointsJSON[gauss.Bracket]{solved: r.sol.Brackets, rest: r.ds[len(r.sol.Brackets):]}
	if r.opts.optimum {
		s := gauss.DefaultOptimumSearch()
		doc.OptimumSearch = &s
	}
	if r.opts.monteCarlo {
		doc.MonteCarlo = &mcJSON{Seed: r.opts.seed, Samples: r.opts.samples, Train: r.sol.Train,
			Test: r.sol.Test, Confidence: 0.95, Results: r.sol.MonteCarlo}
	}
	return doc
}

// grid lays the points out as rows: a table for people (human: rounded,
// a title, notes, merged Monte Carlo cells) or the CSV schema of
// docs/gauss.md (every number as JSON has it, one value per cell).
func (r *gaussRun) grid(human bool) *report.Grid {
	m := r.model
	g := &report.Grid{Header: r.header(human)}
	for i, p := range r.sol.Points {
		g.Rows = append(g.Rows, r.row(human, p, r.sol.Brackets[i], i))
	}
	if human {
		g.Title = fmt.Sprintf("Gaussian model, Proposition 1 and the best achievable: private %s, reconstructor {%s}, %s",
			m.Private(), strings.Join(m.Reconstructor(), ","), plural(m.K(), "adversary"))
		g.Notes = r.notes()
	}
	return g
}

// row is threshold i's row.
func (r *gaussRun) row(human bool, p gauss.Point, b gauss.Bracket, i int) []string {
	f := csvNum
	if human {
		f = num
	}
	row := []string{f(p.D), f(p.DEff), f(p.SNR), f(p.Recon)}
	for _, a := range p.Adv {
		row = append(row, f(a))
	}
	row = append(row, f(p.MinAdv))
	if human {
		row = append(row, num(b.Achievable.MinAdv), b.Achievable.Mechanism.String(), num(b.UpperBound))
		if r.opts.optimum {
			row = append(row, "")
			if _, hi, ok := b.Numerical(); ok {
				row[len(row)-1] = num(hi)
			}
		}
	} else {
		row = append(row, f(b.Achievable.Recon))
		for _, a := range b.Achievable.Adv {
			row = append(row, f(a))
		}
		row = append(row, f(b.Achievable.MinAdv))
		row = append(row, mechanismCells(b.Achievable.Mechanism)...)
		parts := b.Achievable.Mechanism.Parts
		if len(parts) > csvParts {
			panic(fmt.Sprintf("gauss: a mixture of %d parts; the CSV schema has %d", len(parts), csvParts))
		}
		for j := range csvParts {
			if j < len(parts) {
				row = append(row, f(parts[j].Weight))
				row = append(row, mechanismCells(parts[j].Mechanism)...)
			} else {
				row = append(row, make([]string, 1+len(mechanismColumns))...)
			}
		}
		row = append(row, f(b.UpperBound), "")
		if r.opts.optimum {
			row = append(row, optimumCells(b)...)
		}
	}
	if r.opts.monteCarlo {
		row = append(row, mcCells(r.sol.MonteCarlo[i], human)...)
	}
	return row
}

// optimumColumns are the CSV columns of --optimum (docs/gauss.md).
var optimumColumns = []string{"optimum_grid_value", "optimum_estimate", "optimum_two_atom_bound", "optimum_mechanism_min_adv", "optimum_mechanism_recon_loss"}

// optimumCells are b's values for optimumColumns, empty where the search
// did not run; the estimate is capped by the upper bound, as printed.
func optimumCells(b gauss.Bracket) []string {
	c := make([]string, len(optimumColumns))
	if b.Optimum == nil {
		return c
	}
	o := b.Optimum
	return []string{csvNum(o.GridValue), csvNum(math.Min(o.Estimate, b.UpperBound)), csvNum(o.TwoAtomBound),
		csvNum(o.MechanismLosses.MinAdv), csvNum(o.MechanismLosses.Recon)}
}

// csvParts is the number of mixture parts the CSV schema has columns for:
// the envelope time-shares two mechanisms (gauss.Envelope.At).
const csvParts = 2

// mechanismColumns are a mechanism's CSV columns after a prefix; a
// parameter the family does not have is empty.
var mechanismColumns = []string{"family", "delta", "labels", "offset", "lambda", "snr"}

// mechanismCells are mech's values for mechanismColumns, as JSON has them
// (snr "inf" where JSON says snr_infinite).
func mechanismCells(mech gauss.Mechanism) []string {
	c := make([]string, len(mechanismColumns))
	c[0] = mech.Family
	if mech.Family == gauss.FamilyMixture {
		return c
	}
	if mech.Delta != 0 {
		c[1] = csvNum(mech.Delta)
	}
	if mech.Labels != 0 {
		c[2] = strconv.Itoa(mech.Labels)
	}
	opt := func(x *float64) string {
		if x == nil {
			return ""
		}
		return csvNum(*x)
	}
	c[3], c[4], c[5] = opt(mech.Offset), opt(mech.Lambda), opt(mech.SNR)
	if mech.SNRInfinite {
		c[5] = "inf"
	}
	return c
}

func (r *gaussRun) header(human bool) []string {
	m := r.model
	if !human {
		h := []string{"D", "D_eff", "snr", "recon_loss"}
		for i := 0; i < m.K(); i++ {
			h = append(h, fmt.Sprintf("adv_loss_%d", i+1))
		}
		h = append(h, "min_adv_loss", "achievable_recon_loss")
		for i := 0; i < m.K(); i++ {
			h = append(h, fmt.Sprintf("achievable_adv_loss_%d", i+1))
		}
		h = append(h, "achievable_min_adv_loss")
		for _, c := range mechanismColumns {
			h = append(h, "achievable_"+c)
		}
		for j := 1; j <= csvParts; j++ {
			h = append(h, fmt.Sprintf("part_%d_weight", j))
			for _, c := range mechanismColumns {
				h = append(h, fmt.Sprintf("part_%d_%s", j, c))
			}
		}
		h = append(h, "upper_bound", "status")
		if r.opts.optimum {
			h = append(h, optimumColumns...)
		}
		if r.opts.monteCarlo {
			h = append(h, mcHeader("recon")...)
			for i := 0; i < m.K(); i++ {
				h = append(h, mcHeader(fmt.Sprintf("adv_%d", i+1))...)
			}
		}
		return h
	}
	h := []string{"D", "D'", "SNR a²/b²", "recon MSE"}
	for i := 0; i < m.K(); i++ {
		h = append(h, fmt.Sprintf("adv %d {%s}", i+1, strings.Join(m.Adversary(i), ",")))
	}
	h = append(h, "min adv", "best achievable", "its mechanism", "upper bound")
	if r.opts.optimum {
		h = append(h, "num. estimate")
	}
	if r.opts.monteCarlo {
		h = append(h, "MC recon [95% CI]")
		for i := 0; i < m.K(); i++ {
			h = append(h, fmt.Sprintf("MC adv %d [95%% CI]", i+1))
		}
	}
	return h
}

func mcHeader(who string) []string {
	return []string{"mc_" + who + "_mse", "mc_" + who + "_ci_low", "mc_" + who + "_ci_high"}
}

func mcCells(res gauss.MCResult, human bool) []string {
	var out []string
	for _, e := range append([]gauss.Estimate{res.Recon}, res.Adv...) {
		if human {
			out = append(out, fmt.Sprintf("%s [%s, %s]", report.Float(e.MSE, 4), report.Float(e.Lo, 4), report.Float(e.Hi, 4)))
		} else {
			out = append(out, csvNum(e.MSE), csvNum(e.Lo), csvNum(e.Hi))
		}
	}
	return out
}

func (r *gaussRun) notes() []string {
	m := r.model
	n := []string{
		fmt.Sprintf("Var[%s] = %s", m.Private(), num(m.VarX())),
		fmt.Sprintf("V_Y = Var[%s | %s] = %s  (D_max: for D ≥ V_Y, F is independent of %s)",
			m.Private(), sideName(m.Reconstructor()), num(m.VarRecon()), m.Private()),
	}
	q := m.Q()
	for i, v := range m.VarAdv() {
		n = append(n, fmt.Sprintf("V_%d = Var[%s | %s] = %s,  Q_%d = 1/V_%d - 1/V_Y = %s",
			i+1, m.Private(), sideName(m.Adversary(i)), num(v), i+1, i+1, num(q[i])))
	}
	for i, c := range m.Coalitions() {
		n = append(n, fmt.Sprintf("coalition: Var[%s | %s] = %s", m.Private(), sideName(c), num(m.VarCoalitions()[i])))
	}
	n = append(n,
		fmt.Sprintf("correlation matrix: smallest eigenvalue %s (%s)", num(m.MinEigenvalue()), definiteness(m.MinEigenvalue())),
		fmt.Sprintf("cross-check 5(a): Schur complements of Cov(X, F, side) match the closed form within %.2g (tolerance %g)", r.sol.MaxRelErr, gauss.CheckTol),
		"columns D' to min adv: Proposition 1, optimal only among jointly Gaussian privatizers F = aX + bR (Appendix A); SNR = a²/b² = 1/D' - 1/V_Y",
		"best achievable: exact min adversary loss of the best mechanism known (erasure, modulo, nested, quantizer, linear, and time-sharing with the flag revealed; docs/gauss.md)",
		"upper bound: min_i U_i, U_i = Var[X | Z_i] if Q_i < 0, else Proposition 1's D'/(1 + Q_i D') (I-MMSE converse, docs/gauss.md)",
		r.openNote())
	if r.sol.OptimumImproved >= 0 {
		n = append(n, r.optimumNotes()...)
	}
	if r.sol.Improved >= 0 {
		n = append(n, fmt.Sprintf("kernel search (--kernels, cells %g wide, %d L-BFGS iterations): improved the best achievable at %d of %d thresholds",
			gauss.DefaultKernelSearch().Cell, gauss.DefaultKernelSearch().Iters, r.sol.Improved, len(r.sol.Brackets)))
	}
	if r.opts.monteCarlo {
		n = append(n, fmt.Sprintf("Monte Carlo: seed %d, %d samples per point (%d train, %d test); linear MMSE fit on train, test MSE with 95%% CI",
			r.opts.seed, r.opts.samples, r.sol.Train, r.sol.Test))
	}
	return n
}

// optimumNotes describe the optimum search (--optimum): its settings, what
// it improved, and the numerical bracket.
func (r *gaussRun) optimumNotes() []string {
	s := gauss.DefaultOptimumSearch()
	var searched, inverted int
	widest, at := 0.0, 0.0
	for _, b := range r.sol.Brackets {
		lo, hi, ok := b.Numerical()
		if !ok {
			continue
		}
		searched++
		if lo > hi {
			inverted++
		}
		if w := (hi - lo) / hi; w > widest {
			widest, at = w, b.D
		}
	}
	n := []string{
		fmt.Sprintf("optimum search (--optimum): column generation over posteriors on %d grid points of step %gσ_X on μ_X ± %gσ_X; pricing: every pair (certified tangent/chord bound), every triple of %d points at %d×%d weights, %d local ascents a round",
			int(2*s.Span/s.Step)+1, s.Step, s.Span, s.TriplePoints, s.TripleWeights, s.TripleWeights, s.Ascents),
		fmt.Sprintf("  its mechanism: the LP's posteriors as a kernel on cells, losses computed on the continuum as certify does (KernelLosses); it improved the best achievable at %d of %d thresholds", r.sol.OptimumImproved, len(r.sol.Brackets)),
		"  num. estimate: the LP dual plus the largest pricing violation found, capped by the upper bound — a NUMERICAL estimate of the grid problem, not a proven bound (docs/gauss.md)",
	}
	if searched > 0 {
		n = append(n, fmt.Sprintf("  numerical bracket [best achievable, num. estimate]: at most %.2g%% wide (at D = %s), searched at %d of %d thresholds; proven bracket: [best achievable, upper bound]",
			100*widest, num(at), searched, len(r.sol.Brackets)))
	}
	if inverted > 0 {
		n = append(n, fmt.Sprintf("  at %d thresholds the certified mechanism exceeds the estimate: the grid problem is not the continuum one", inverted))
	}
	return n
}

// openNote says where the bracket [best achievable, upper bound] leaves the
// exact optimum open.
func (r *gaussRun) openNote() string {
	open := 0
	for _, b := range r.sol.Brackets {
		if b.Open() {
			open++
		}
	}
	if open == 0 {
		return "bracket [best achievable, upper bound] closed (to 1e-9 relative) at every threshold shown"
	}
	return fmt.Sprintf("the exact optimum is OPEN at %d of %d thresholds: it lies in [best achievable, upper bound]", open, len(r.sol.Brackets))
}

func sideName(s []string) string {
	if len(s) == 0 {
		return "∅"
	}
	return strings.Join(s, ", ")
}

func definiteness(minEig float64) string {
	if minEig > 1e-10 {
		return "positive definite"
	}
	return "singular, positive semidefinite"
}

// csvNum formats a number for CSV as JSON has it: the shortest decimal
// that reads back to the same float64 (strconv 'g', -1), "inf" for +Inf
// and empty for NaN (null in JSON).
func csvNum(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsNaN(x):
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
