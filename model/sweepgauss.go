package model

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
)

// ErrSamples reports a Monte Carlo sample count too small for the model
// (GaussSweep.Samples).
var ErrSamples = gauss.ErrSamples

// GaussSweep are the options of a Gaussian model's sweep (gauss.Model.Solve);
// the zero value computes Proposition 1 and the bracket alone.
type GaussSweep struct {
	// MonteCarlo also estimates every loss by Monte Carlo (the paper's
	// protocol): Samples a point, point i drawn from PCG(Seed, i).
	MonteCarlo bool
	Seed       uint64
	Samples    int
	// Kernels also runs the kernel search at every threshold (about 10 s
	// each); Optimum the optimum search over posteriors (seconds each).
	Kernels bool
	Optimum bool
	// Workers is the number of kernel searches and optimum-search scans
	// run at once (0: GOMAXPROCS); the results do not depend on it.
	Workers int
}

// GaussCurves are a Gaussian sweep's figure: on a fine grid of D,
// Proposition 1 (the linear-Gaussian class), erasure, the best achievable
// envelope and the upper bound; each binning family's Pareto points alone
// (against the reconstructor's loss); and, with GaussSweep.Optimum, at
// every threshold searched, the certified mechanism and the numerical
// estimate of the grid problem (an estimate, not a bound).
type GaussCurves struct {
	Linear, Erasure, Best, Upper Curve
	Families                     []FamilyCurve // modulo, nested, quantizer
	Searched                     bool
	Mechanism, Estimate          Curve
}

// FamilyCurve is a mechanism family's Pareto points.
type FamilyCurve struct {
	Family string
	Curve
}

// gaussSweep is a Gaussian model's sweep: every stage of gauss.Model.Solve
// revisits the thresholds, so its output is written once all are solved.
type gaussSweep struct {
	m   *gauss.Model
	r   SweepRequest
	w   io.Writer
	sol *gauss.Solution
}

func (g GaussModel) newSweep(r SweepRequest, w io.Writer) kindSweep {
	return &gaussSweep{m: g.M, r: r, w: w}
}

// plan counts a unit a threshold and stage.
func (s *gaussSweep) plan(n int) (string, int, time.Duration) {
	o := s.r.Gauss
	per := 2 * time.Millisecond // the closed form and the bracket
	if o.MonteCarlo {
		per += time.Duration(o.Samples) * 200 * time.Nanosecond
	}
	units, total := n, per
	if o.Optimum {
		// a few seconds a threshold (gauss.DefaultOptimumSearch)
		units, total = units+n, total+4*time.Second
	}
	if o.Kernels {
		// about 10 s a threshold on each worker (gauss.DefaultKernelSearch)
		units, total = units+n, total+10*time.Second/time.Duration(max(o.Workers, 1))
	}
	return "steps", units, total * time.Duration(n) / time.Duration(max(units, 1))
}

func (s *gaussSweep) solve(ctx context.Context, bar *progress.Bar) (Swept, error) {
	o := s.r.Gauss
	so := gauss.SolveOptions{MaxPoints: s.r.MaxPoints, TimeLimit: s.r.TimeLimit, Workers: o.Workers}
	if o.MonteCarlo {
		so.MonteCarlo = &gauss.MonteCarloOptions{Seed: o.Seed, Samples: o.Samples}
	}
	if o.Kernels {
		ks := gauss.DefaultKernelSearch()
		so.Kernels = &ks
	}
	if o.Optimum {
		search := gauss.DefaultOptimumSearch()
		search.Workers = o.Workers
		so.Optimum = &search
	}
	stage := gauss.StagePoints
	so.Progress = func(st gauss.Stage, done int) {
		if st != stage {
			stage = st
			bar.Phase(map[gauss.Stage]string{gauss.StageOptimum: "optimum search", gauss.StageKernels: "kernel search"}[st])
		}
		bar.Set(done)
	}
	sol, err := s.m.Solve(ctx, s.r.D, so)
	if err != nil {
		return Swept{}, err
	}
	s.sol = sol
	return Swept{Solved: len(sol.Brackets), Stop: sol.Stop}, nil
}

func (s *gaussSweep) writeModel(float64, string) error {
	return fmt.Errorf("%w: a Gaussian sweep solves no LP", ErrUnsupported)
}

func (s *gaussSweep) witnessed(context.Context) ([]WitnessedOptimum, error) {
	return nil, fmt.Errorf("%w: a Gaussian optimum has no witness", ErrUnsupported)
}

// gaussPlotPoints is the number of thresholds of each exact curve.
const gaussPlotPoints = 200

func (s *gaussSweep) curves() (Curves, error) {
	m := s.m
	vy := m.VarRecon()
	env := m.Envelope()
	var c GaussCurves
	add := func(c *Curve, x, y float64) { c.X, c.Y = append(c.X, x), append(c.Y, y) }
	for i := range gaussPlotPoints + 1 {
		d := vy * float64(i) / gaussPlotPoints
		p, err := m.Optimum(d)
		if err != nil {
			return Curves{}, err
		}
		e, err := m.Losses(gauss.Erasure(1 - d/vy))
		if err != nil {
			return Curves{}, err
		}
		b, err := env.At(d)
		if err != nil {
			return Curves{}, err
		}
		add(&c.Linear, d, p.MinAdv)
		add(&c.Erasure, d, e.MinAdv)
		add(&c.Best, d, b.MinAdv)
		add(&c.Upper, d, m.UpperBound(d))
	}
	for _, f := range []string{gauss.FamilyModulo, gauss.FamilyNested, gauss.FamilyQuantizer} {
		fc := FamilyCurve{Family: f}
		for _, a := range env.Family(f) {
			add(&fc.Curve, a.Recon, a.MinAdv)
		}
		c.Families = append(c.Families, fc)
	}
	if c.Searched = s.r.Gauss.Optimum; c.Searched {
		for _, b := range s.sol.Brackets {
			if lo, hi, ok := b.Numerical(); ok {
				add(&c.Mechanism, b.D, lo)
				add(&c.Estimate, b.D, hi)
			}
		}
	}
	return Curves{Gauss: &c}, nil
}

func (s *gaussSweep) finish(rest []float64) error {
	human := s.r.Format == report.Table
	l := report.SweepLayout{Header: s.header(human), Whole: true}
	l.Status = slices.Index(l.Header, "status")
	if human {
		m := s.m
		l.Title = fmt.Sprintf("Gaussian model, Proposition 1 and the best achievable: private %s, reconstructor {%s}, %s",
			m.Private(), strings.Join(m.Reconstructor(), ","), report.Plural(m.K(), "adversary"))
		l.Status = slices.Index(l.Header, "its mechanism")
	}
	l.Head = struct {
		Model gauss.Summary `json:"model"`
		stoppedBy
	}{s.m.Summary(), stoppedBy{s.sol.Stop}}
	out, err := report.NewSweepWriter(s.w, s.r.Format, l)
	if err != nil {
		return err
	}
	for i := range s.sol.Brackets {
		if err := out.Row(gaussRow{s, i}); err != nil {
			return err
		}
	}
	var notes []string
	if human {
		notes = s.notes()
	}
	return out.Close(rest, notes, s.tail())
}

// gaussTail is the JSON document's members after "points" (docs/gauss.md).
type gaussTail struct {
	CrossCheck struct {
		MaxRelErr float64 `json:"max_rel_err"`
		Tolerance float64 `json:"tolerance"`
	} `json:"cross_check"`
	MonteCarlo *mcDoc `json:"monte_carlo,omitempty"`
	// OptimumSearch holds the optimum search's settings.
	OptimumSearch *gauss.OptimumSearch `json:"optimum_search,omitempty"`
}

type mcDoc struct {
	Seed       uint64           `json:"seed"`
	Samples    int              `json:"samples"`
	Train      int              `json:"train"`
	Test       int              `json:"test"`
	Confidence float64          `json:"confidence"`
	Results    []gauss.MCResult `json:"results"` // results[i] belongs to points[i]
}

func (s *gaussSweep) tail() gaussTail {
	var t gaussTail
	t.CrossCheck.MaxRelErr, t.CrossCheck.Tolerance = s.sol.MaxRelErr, gauss.CheckTol
	if o := s.r.Gauss; o.MonteCarlo {
		t.MonteCarlo = &mcDoc{Seed: o.Seed, Samples: o.Samples, Train: s.sol.Train, Test: s.sol.Test,
			Confidence: 0.95, Results: s.sol.MonteCarlo}
	}
	if s.r.Gauss.Optimum {
		o := gauss.DefaultOptimumSearch()
		t.OptimumSearch = &o
	}
	return t
}

// gaussRow is threshold i of a Gaussian sweep.
type gaussRow struct {
	s *gaussSweep
	i int
}

func (r gaussRow) JSON() any { return r.s.sol.Brackets[r.i] }

// Cells are the row for people (human: rounded, merged Monte Carlo cells)
// or the CSV schema of docs/gauss.md (every number as JSON has it, one
// value per cell).
func (r gaussRow) Cells(f report.Format) []string {
	s, human := r.s, f == report.Table
	b := s.sol.Brackets[r.i]
	p := b.Prop1Optimum
	num := csvNum
	if human {
		num = report.Num
	}
	row := report.Cells([]string{num(p.D), num(p.DEff), num(p.SNR), num(p.Recon)}, num, p.Adv)
	row = append(row, num(p.MinAdv))
	if human {
		row = append(row, report.Num(b.Achievable.MinAdv), b.Achievable.Mechanism.String(), report.Num(b.UpperBound))
		if s.r.Gauss.Optimum {
			row = append(row, "")
			if _, hi, ok := b.Numerical(); ok {
				row[len(row)-1] = report.Num(hi)
			}
		}
	} else {
		row = report.Cells(append(row, num(b.Achievable.Recon)), num, b.Achievable.Adv)
		row = append(row, num(b.Achievable.MinAdv))
		row = append(row, mechanismCells(b.Achievable.Mechanism)...)
		parts := b.Achievable.Mechanism.Parts
		if len(parts) > csvParts {
			panic(fmt.Sprintf("model: a mixture of %d parts; the CSV schema has %d", len(parts), csvParts))
		}
		for j := range csvParts {
			if j < len(parts) {
				row = append(row, num(parts[j].Weight))
				row = append(row, mechanismCells(parts[j].Mechanism)...)
			} else {
				row = append(row, make([]string, 1+len(mechanismColumns))...)
			}
		}
		row = append(row, num(b.UpperBound), "")
		if s.r.Gauss.Optimum {
			row = append(row, optimumCells(b)...)
		}
	}
	if s.r.Gauss.MonteCarlo {
		row = append(row, mcCells(s.sol.MonteCarlo[r.i], human)...)
	}
	return row
}

// optimumColumns are the CSV columns of the optimum search (docs/gauss.md).
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

func (s *gaussSweep) header(human bool) []string {
	m, o := s.m, s.r.Gauss
	if !human {
		h := slices.Concat([]string{"D", "D_eff", "snr", "recon_loss"}, report.Numbered("adv_loss_%d", m.K()),
			[]string{"min_adv_loss", "achievable_recon_loss"}, report.Numbered("achievable_adv_loss_%d", m.K()))
		h = append(h, "achievable_min_adv_loss")
		h = report.Cells(h, func(c string) string { return "achievable_" + c }, mechanismColumns)
		for j := 1; j <= csvParts; j++ {
			h = append(h, fmt.Sprintf("part_%d_weight", j))
			h = report.Cells(h, func(c string) string { return fmt.Sprintf("part_%d_%s", j, c) }, mechanismColumns)
		}
		h = append(h, "upper_bound", "status")
		if o.Optimum {
			h = append(h, optimumColumns...)
		}
		if o.MonteCarlo {
			h = append(h, mcHeader("recon")...)
			for _, a := range report.Numbered("adv_%d", m.K()) {
				h = append(h, mcHeader(a)...)
			}
		}
		return h
	}
	h := append([]string{"D", "D'", "SNR a²/b²", "recon MSE"}, AdversaryColumns(NewGauss(m))...)
	h = append(h, "min adv", "best achievable", "its mechanism", "upper bound")
	if o.Optimum {
		h = append(h, "num. estimate")
	}
	if o.MonteCarlo {
		h = append(h, "MC recon [95% CI]")
		h = append(h, report.Numbered("MC adv %d [95%% CI]", m.K())...)
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

func (s *gaussSweep) notes() []string {
	m, sol := s.m, s.sol
	n := []string{
		fmt.Sprintf("Var[%s] = %s", m.Private(), report.Num(m.VarX())),
		fmt.Sprintf("V_Y = Var[%s | %s] = %s  (D_max: for D ≥ V_Y, F is independent of %s)",
			m.Private(), sideName(m.Reconstructor()), report.Num(m.VarRecon()), m.Private()),
	}
	q := m.Q()
	for i, v := range m.VarAdv() {
		n = append(n, fmt.Sprintf("V_%d = Var[%s | %s] = %s,  Q_%d = 1/V_%d - 1/V_Y = %s",
			i+1, m.Private(), sideName(m.Adversary(i)), report.Num(v), i+1, i+1, report.Num(q[i])))
	}
	for i, c := range m.Coalitions() {
		n = append(n, fmt.Sprintf("coalition: Var[%s | %s] = %s", m.Private(), sideName(c), report.Num(m.VarCoalitions()[i])))
	}
	n = append(n,
		fmt.Sprintf("correlation matrix: smallest eigenvalue %s (%s)", report.Num(m.MinEigenvalue()), definiteness(m.MinEigenvalue())),
		fmt.Sprintf("cross-check 5(a): Schur complements of Cov(X, F, side) match the closed form within %.2g (tolerance %g)", sol.MaxRelErr, gauss.CheckTol),
		"columns D' to min adv: Proposition 1, optimal only among jointly Gaussian privatizers F = aX + bR (Appendix A); SNR = a²/b² = 1/D' - 1/V_Y",
		"best achievable: exact min adversary loss of the best mechanism known (erasure, modulo, nested, quantizer, linear, and time-sharing with the flag revealed; docs/gauss.md)",
		"upper bound: min_i U_i, U_i = Var[X | Z_i] if Q_i < 0, else Proposition 1's D'/(1 + Q_i D') (I-MMSE converse, docs/gauss.md)",
		s.openNote())
	if sol.OptimumImproved >= 0 {
		n = append(n, s.optimumNotes()...)
	}
	if sol.Improved >= 0 {
		n = append(n, fmt.Sprintf("kernel search (--kernels, cells %g wide, %d L-BFGS iterations): improved the best achievable at %d of %d thresholds",
			gauss.DefaultKernelSearch().Cell, gauss.DefaultKernelSearch().Iters, sol.Improved, len(sol.Brackets)))
	}
	if o := s.r.Gauss; o.MonteCarlo {
		n = append(n, fmt.Sprintf("Monte Carlo: seed %d, %d samples per point (%d train, %d test); linear MMSE fit on train, test MSE with 95%% CI",
			o.Seed, o.Samples, sol.Train, sol.Test))
	}
	return n
}

// optimumNotes describe the optimum search: its settings, what it
// improved, and the numerical bracket.
func (s *gaussSweep) optimumNotes() []string {
	o := gauss.DefaultOptimumSearch()
	var searched, inverted int
	widest, at := 0.0, 0.0
	for _, b := range s.sol.Brackets {
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
			int(2*o.Span/o.Step)+1, o.Step, o.Span, o.TriplePoints, o.TripleWeights, o.TripleWeights, o.Ascents),
		fmt.Sprintf("  its mechanism: the LP's posteriors as a kernel on cells, losses computed on the continuum as certify does (KernelLosses); it improved the best achievable at %d of %d thresholds", s.sol.OptimumImproved, len(s.sol.Brackets)),
		"  num. estimate: the LP dual plus the largest pricing violation found, capped by the upper bound — a NUMERICAL estimate of the grid problem, not a proven bound (docs/gauss.md)",
	}
	if searched > 0 {
		n = append(n, fmt.Sprintf("  numerical bracket [best achievable, num. estimate]: at most %.2g%% wide (at D = %s), searched at %d of %d thresholds; proven bracket: [best achievable, upper bound]",
			100*widest, report.Num(at), searched, len(s.sol.Brackets)))
	}
	if inverted > 0 {
		n = append(n, fmt.Sprintf("  at %d thresholds the certified mechanism exceeds the estimate: the grid problem is not the continuum one", inverted))
	}
	return n
}

// openNote says where the bracket [best achievable, upper bound] leaves the
// exact optimum open.
func (s *gaussSweep) openNote() string {
	open := 0
	for _, b := range s.sol.Brackets {
		if b.Open() {
			open++
		}
	}
	if open == 0 {
		return "bracket [best achievable, upper bound] closed (to 1e-9 relative) at every threshold shown"
	}
	return fmt.Sprintf("the exact optimum is OPEN at %d of %d thresholds: it lies in [best achievable, upper bound]", open, len(s.sol.Brackets))
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
	return report.Shortest(x)
}
