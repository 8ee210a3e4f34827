package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/plot"
)

// gaussOpts holds the flags of mmds gauss.
type gaussOpts struct {
	config, sweep, format, out string
	plot                       string // --plot FILE: the exact curves alone
	d                          float64
	monteCarlo                 bool
	kernels                    bool // --kernels: the slow stochastic-kernel search
	seed                       uint64
	samples                    int
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
  mmds gauss --d 4.5 --kernels`,
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
	f.StringVarP(&o.out, "out", "o", "", "write to this file (atomically; - is standard output) instead of standard output")
	f.BoolVar(&o.monteCarlo, "monte-carlo", false, "also estimate every loss by Monte Carlo (paper's protocol)")
	f.Uint64Var(&o.seed, "seed", 1, "Monte Carlo seed (point i uses PCG(seed, i))")
	f.IntVar(&o.samples, "samples", defaultSamples, "Monte Carlo samples per point; 1/6 of them are the test split")
	f.BoolVar(&o.kernels, "kernels", false, "also search optimized stochastic kernels at every threshold (slow: about 10 s each)")
	f.StringVar(&o.plot, "plot", "", "also draw Proposition 1, every family, the best achievable envelope and the upper bound into this .png or .svg file")
	return cmd
}

// gaussRun is everything mmds gauss computed, ready to print.
type gaussRun struct {
	model   *gauss.Model
	points  []gauss.Point
	bracket []gauss.Bracket // points[i] with the best achievable and the upper bound
	maxErr  float64         // largest cross-check 5(a) discrepancy
	mc      []gauss.MCResult
	opts    gaussOpts
	nTrain  int
	nTestMC int
	kernels int // thresholds the kernel search improved (-1: not run)
}

// searchKernels runs the optional kernel search at every threshold, in
// parallel (each threshold is independent, so the result does not depend on
// scheduling).
func (r *gaussRun) searchKernels(ctx context.Context) error {
	errs := make([]error, len(r.bracket))
	better := make([]bool, len(r.bracket))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				better[i], errs[i] = r.model.ImproveBracket(ctx, &r.bracket[i], gauss.DefaultKernelSearch)
			}
		}()
	}
	for i := range r.bracket {
		next <- i
	}
	close(next)
	wg.Wait()
	r.kernels = 0
	for i, err := range errs {
		if err != nil {
			return err
		}
		if better[i] {
			r.kernels++
		}
	}
	return nil
}

func runGauss(cmd *cobra.Command, o gaussOpts) error {
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return usageError{err}
	}
	if err := checkMCFlags(cmd, o); err != nil {
		return err
	}
	if err := checkPlotPath(o.plot); err != nil {
		return err
	}
	o.out = stdoutPath(o.out)
	if err := checkPaths(report.In("--config", o.config), report.Out("--out", o.out), report.Out("--plot", o.plot)); err != nil {
		return err
	}
	m, err := loadGaussModel(cmd.Context(), o.config)
	if err != nil {
		return err
	}
	ds, err := gaussThresholds(cmd, o, m)
	if err != nil {
		return err
	}
	r, err := computeGauss(m, ds, o)
	if err != nil {
		return err
	}
	if o.kernels {
		if err := r.searchKernels(cmd.Context()); err != nil {
			return err
		}
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
		if err := writePlot(o.plot, spec); err != nil {
			return err
		}
	}
	return writeOutput(cmd.OutOrStdout(), o.out, buf.Bytes())
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

func loadGaussModel(ctx context.Context, path string) (*gauss.Model, error) {
	if path == "" {
		return gauss.Paper(), nil
	}
	b, err := safefile.Read(ctx, path, jsonconf.MaxBytes)
	if err != nil {
		return nil, usageError{fmt.Errorf("--config: %w", err)}
	}
	c, err := gauss.ParseConfig(bytes.NewReader(b))
	if err == nil {
		var m *gauss.Model
		if m, err = gauss.New(c); err == nil {
			return m, nil
		}
	}
	return nil, usageError{fmt.Errorf("--config %s: %w", path, err)}
}

func gaussThresholds(cmd *cobra.Command, o gaussOpts, m *gauss.Model) ([]float64, error) {
	return thresholds(cmd, o.d, o.sweep, m.DefaultSweep())
}

// computeGauss runs the closed form, cross-check 5(a) at every point and,
// if asked, the Monte Carlo cross-check 5(b).
func computeGauss(m *gauss.Model, ds []float64, o gaussOpts) (*gaussRun, error) {
	pts, err := m.Sweep(ds)
	if err != nil {
		return nil, usageError{err}
	}
	r := &gaussRun{model: m, points: pts, opts: o, kernels: -1}
	for _, p := range pts {
		e, err := m.Check(p)
		if err != nil {
			return nil, err // exit 1: a computation failed
		}
		r.maxErr = math.Max(r.maxErr, e)
		b, err := m.Bracket(p.D)
		if err != nil {
			return nil, err
		}
		r.bracket = append(r.bracket, b)
	}
	if !o.monteCarlo {
		return r, nil
	}
	r.nTrain, r.nTestMC = gauss.SplitSamples(o.samples)
	for i, p := range pts {
		rng := rand.New(rand.NewPCG(o.seed, uint64(i)))
		res, err := m.MonteCarlo(rng, p.Privatizer(), r.nTrain, r.nTestMC)
		if err != nil {
			return nil, usageError{fmt.Errorf("--samples %d: %w", o.samples, err)}
		}
		r.mc = append(r.mc, res)
	}
	return r, nil
}

func writeOutput(stdout io.Writer, path string, b []byte) error {
	if path == "" {
		_, err := stdout.Write(b)
		return err
	}
	return report.WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func (r *gaussRun) render(w io.Writer, f report.Format) error {
	switch f {
	case report.JSON:
		return report.WriteJSON(w, r.jsonDoc())
	case report.CSV:
		g := r.grid(false)
		return g.RenderCSV(w)
	}
	g := r.grid(true)
	return g.RenderTable(w)
}

// gaussJSON is the JSON contract of mmds gauss (see docs/gauss.md).
type gaussJSON struct {
	Model      gauss.Summary   `json:"model"`
	Points     []gauss.Bracket `json:"points"`
	CrossCheck crossCheckJSON  `json:"cross_check"`
	MonteCarlo *mcJSON         `json:"monte_carlo,omitempty"`
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
	doc := gaussJSON{Model: r.model.Summary(), Points: r.bracket,
		CrossCheck: crossCheckJSON{MaxRelErr: r.maxErr, Tolerance: gauss.CheckTol}}
	if r.mc != nil {
		doc.MonteCarlo = &mcJSON{Seed: r.opts.seed, Samples: r.opts.samples, Train: r.nTrain,
			Test: r.nTestMC, Confidence: 0.95, Results: r.mc}
	}
	return doc
}

// grid lays the points out as rows; human adds a title, notes and merged
// Monte Carlo cells (CSV gets one plain number per cell).
func (r *gaussRun) grid(human bool) *report.Grid {
	m := r.model
	g := &report.Grid{Header: r.header(human)}
	for i, p := range r.points {
		row := []string{num(p.D), num(p.DEff), num(p.SNR), num(p.Recon)}
		for _, a := range p.Adv {
			row = append(row, num(a))
		}
		row = append(row, num(p.MinAdv))
		b := r.bracket[i]
		if human {
			row = append(row, num(b.Achievable.MinAdv), b.Achievable.Mechanism.String(), num(b.UpperBound))
		} else {
			row = append(row, num(b.Achievable.Recon), num(b.Achievable.MinAdv), b.Achievable.Mechanism.Family,
				b.Achievable.Mechanism.String(), num(b.UpperBound))
		}
		if r.mc != nil {
			row = append(row, mcCells(r.mc[i], human)...)
		}
		g.Rows = append(g.Rows, row)
	}
	if human {
		g.Title = fmt.Sprintf("Gaussian model, Proposition 1 and the best achievable: private %s, reconstructor {%s}, %s",
			m.Private(), strings.Join(m.Reconstructor(), ","), plural(m.K(), "adversary"))
		g.Notes = r.notes()
	}
	return g
}

func (r *gaussRun) header(human bool) []string {
	m := r.model
	if !human {
		h := []string{"D", "D_eff", "snr", "recon_loss"}
		for i := 0; i < m.K(); i++ {
			h = append(h, fmt.Sprintf("adv_loss_%d", i+1))
		}
		h = append(h, "min_adv_loss", "achievable_recon_loss", "achievable_min_adv_loss", "achievable_family",
			"achievable_mechanism", "upper_bound")
		if r.mc != nil {
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
	if r.mc != nil {
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
			out = append(out, num(e.MSE), num(e.Lo), num(e.Hi))
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
		fmt.Sprintf("cross-check 5(a): Schur complements of Cov(X, F, side) match the closed form within %.2g (tolerance %g)", r.maxErr, gauss.CheckTol),
		"columns D' to min adv: Proposition 1, optimal only among jointly Gaussian privatizers F = aX + bR (Appendix A); SNR = a²/b² = 1/D' - 1/V_Y",
		"best achievable: exact min adversary loss of the best mechanism known (erasure, modulo, nested, quantizer, linear, and time-sharing with the flag revealed; docs/gauss.md)",
		"upper bound: min_i U_i, U_i = Var[X | Z_i] if Q_i <= 0, else Proposition 1's D'/(1 + Q_i D') (I-MMSE converse, docs/gauss.md)",
		r.openNote())
	if r.kernels >= 0 {
		n = append(n, fmt.Sprintf("kernel search (--kernels, cells %g wide, %d L-BFGS iterations): improved the best achievable at %d of %d thresholds",
			gauss.DefaultKernelSearch.Cell, gauss.DefaultKernelSearch.Iters, r.kernels, len(r.bracket)))
	}
	if r.mc != nil {
		n = append(n, fmt.Sprintf("Monte Carlo: seed %d, %d samples per point (%d train, %d test); linear MMSE fit on train, test MSE with 95%% CI",
			r.opts.seed, r.opts.samples, r.nTrain, r.nTestMC))
	}
	return n
}

// openNote says where the bracket [best achievable, upper bound] leaves the
// exact optimum open.
func (r *gaussRun) openNote() string {
	open := 0
	for _, b := range r.bracket {
		if b.Open() {
			open++
		}
	}
	if open == 0 {
		return "bracket [best achievable, upper bound] closed (to 1e-9 relative) at every threshold shown"
	}
	return fmt.Sprintf("the exact optimum is OPEN at %d of %d thresholds: it lies in [best achievable, upper bound]", open, len(r.bracket))
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

// num formats a number for tables and CSV: 6 significant digits, "inf" for +Inf.
func num(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return report.Float(x, 6)
}
