package model

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
)

// The bounds and defaults of a finite sweep's options (package mip's).
const (
	MaxOutputs        = mip.MaxOutputs        // the largest FiniteSweep.Alphabet
	ProvenGap         = mip.ProvenGap         // the gap that proves optimality, the least FiniteSweep.GapTol
	DefaultMaxSubsets = mip.DefaultMaxSubsets // FiniteSweep.MaxSubsets's default
	AutoRayMaxN       = mip.AutoRayMaxN       // the largest n MethodAuto solves by the ray LP
)

// FiniteTimeLimit is a finite sweep's time budget unless one is given: the
// global optimum of a large model may take hours.
const FiniteTimeLimit = 60 * time.Second

// PaperFinite is the paper's binary model (Section V-B) as a finite model.
func PaperFinite() FiniteModel { return NewFinite(mip.PaperBinary().Finite()) }

// FiniteSweep are the options of a finite model's sweep (mip.SolveFinite);
// the zero value is the global optimum by MethodAuto, proven optimal.
type FiniteSweep struct {
	// Alphabet > 0 restricts the privatizer to that many outputs (a MIP);
	// 0 optimizes over every privatizer.
	Alphabet int
	// Method is the global optimum's solver: auto, rays or colgen.
	Method mip.Method
	// GapTol stops column generation at this certified relative gap (0:
	// ProvenGap); MaxSubsets bounds the ray enumeration (0:
	// DefaultMaxSubsets).
	GapTol     float64
	MaxSubsets int64
	// Mechanisms prints every point's mechanism below a table (it does
	// with a single threshold anyway).
	Mechanisms bool
}

// finiteSweep is a finite model's sweep. Its points stream to the output;
// it keeps only what the end of the output needs: the points whose notes
// say that column generation answered for the global LP, every point when
// a table prints their mechanisms, and the points a witness file proves.
type finiteSweep struct {
	m       mip.Finite
	r       SweepRequest
	w       io.Writer
	out     *report.SweepWriter
	sol     mip.FiniteSolution // Method, Global and the bounds
	kept    []mip.FiniteOptimum
	proved  []mip.FiniteOptimum // the points solved, for a witness file
	keepAll bool
}

func (f FiniteModel) newSweep(r SweepRequest, w io.Writer) kindSweep {
	return &finiteSweep{m: f.M, r: r, w: w,
		keepAll: r.Format == report.Table && (r.Finite.Mechanisms || len(r.D) == 1)}
}

func (s *finiteSweep) plan(n int) (string, int, time.Duration) {
	o := s.r.Finite
	if o.Alphabet > 0 || o.Method == mip.MethodColGen || s.m.N() > mip.AutoRayMaxN {
		return "thresholds", n, time.Second // column generation or a MIP: seconds a threshold are typical
	}
	return "thresholds", n, 50 * time.Microsecond // the ray LP, its pieces amortized
}

func (s *finiteSweep) solve(ctx context.Context, bar *progress.Bar) (Swept, error) {
	o := s.r.Finite
	var startErr error
	sol, err := s.m.SolveFinite(ctx, s.r.D, mip.FiniteSolveOptions{
		Method: o.Method, Alphabet: o.Alphabet, TimeLimit: s.r.TimeLimit, MaxPoints: s.r.MaxPoints,
		GapTol: o.GapTol, MaxSubsets: o.MaxSubsets, Solver: mip.DefaultSolver(),
		Progress: bar.Set,
		Iteration: func(it mip.ColGenIteration) {
			bar.Describe(fmt.Sprintf("iteration %d, bracket [%.6g, %.6g]", it.Iteration, it.Lower, it.Upper))
		},
		Ready: func(sol mip.FiniteSolution) { startErr = s.start(sol) },
		Emit: func(p mip.FiniteOptimum) error {
			if startErr != nil {
				return startErr
			}
			return s.point(p)
		},
	})
	s.sol = sol
	if err == nil && startErr == nil && s.out == nil {
		startErr = s.start(sol) // stopped before the method was chosen
	}
	if err == nil {
		err = startErr
	}
	return Swept{Solved: sol.Solved, Stop: sol.Stopped}, err
}

// start writes the head of the output, once the method is known.
func (s *finiteSweep) start(sol mip.FiniteSolution) error {
	m, csv := s.m, s.r.Format == report.CSV
	l := report.SweepLayout{
		Title: fmt.Sprintf("Finite model: n = %d, K = %d; D_min = %.4g, D_max = %.4g, adversaries saturate at %s",
			m.N(), m.K(), m.DMin(), m.DMax(), joinFloats(m.AdvSaturation())),
		Header: finiteHeader(m.K(), csv),
	}
	l.Status = slices.Index(l.Header, "status")
	// a streamed table's least widths: D, numbers, outputs, the longest
	// method and status texts, milliseconds
	l.MinWidths = minWidths(s.r.D, 3+m.K()+1, 3, len("column generation"), len("no solution"), 8)
	head := struct {
		Model  finiteModelDoc `json:"model"`
		Solver solverDoc      `json:"solver"`
		Method mip.Algorithm  `json:"method"`
		Global *globalDoc     `json:"global,omitempty"`
	}{Solver: highsDoc(), Method: sol.Method}
	head.Model.N, head.Model.K = m.N(), m.K()
	head.Model.DMin, head.Model.DMax, head.Model.AdvSaturation = m.DMin(), m.DMax(), m.AdvSaturation()
	head.Model.Config = m.Config()
	if g := sol.Global; g != nil {
		head.Global = &globalDoc{Rays: len(g.Rays()), Hyperplanes: g.Hyperplanes, Subsets: g.Subsets, EnumMS: msOf(g.EnumTime)}
	}
	l.Head = head
	var err error
	s.out, err = report.NewSweepWriter(s.w, s.r.Format, l)
	return err
}

func (s *finiteSweep) point(p mip.FiniteOptimum) error {
	if s.keepAll || p.Fallback != "" {
		s.kept = append(s.kept, p)
	}
	if s.r.Witness != "" {
		s.proved = append(s.proved, p)
	}
	return s.out.Row(finiteRow{p, s.m.K()})
}

func (s *finiteSweep) writeModel(d float64, path string) error {
	if a := s.r.Finite.Alphabet; a > 0 {
		return report.WriteFileAtomic(path, func(tmp string) error {
			return s.m.WriteFixedModel(d, mip.FixedOptions{Outputs: a, Hull: true}, tmp)
		})
	}
	g := s.sol.Global
	if g == nil {
		return ErrNoRayLP
	}
	return report.WriteFileAtomic(path, func(tmp string) error { return g.WriteLP(d, tmp) })
}

func (s *finiteSweep) witnessed(ctx context.Context) ([]WitnessedOptimum, error) {
	out := make([]WitnessedOptimum, len(s.proved))
	for i, p := range s.proved {
		var err error
		if out[i], err = WitnessFinite(ctx, s.m, s.sol, p, Options{}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *finiteSweep) curves() (Curves, error) {
	return Curves{}, fmt.Errorf("%w: a finite sweep has no figure", ErrUnsupported)
}

func (s *finiteSweep) finish(rest []float64) error {
	sol := s.sol
	sol.Points = s.kept
	if err := s.out.Close(rest, finiteNotes(sol), stoppedBy{sol.Stopped}); err != nil {
		return err
	}
	if s.keepAll {
		return writeMechanisms(s.w, s.kept)
	}
	return nil
}

// finiteModelDoc is the finite model in a JSON document.
type finiteModelDoc struct {
	N             int              `json:"n"`
	K             int              `json:"k"`
	DMin          float64          `json:"d_min"`
	DMax          float64          `json:"d_max"`
	AdvSaturation []float64        `json:"adv_saturation"`
	Config        mip.FiniteConfig `json:"config"`
}

// globalDoc is the ray LP in a JSON document.
type globalDoc struct {
	Rays        int     `json:"rays"`
	Hyperplanes int     `json:"hyperplanes"`
	Subsets     int64   `json:"linear_systems"`
	EnumMS      float64 `json:"enumeration_ms"`
}

// finiteHeader is the header: the CSV schema of docs/finite.md or the
// table's.
func finiteHeader(k int, csv bool) []string {
	if csv {
		return slices.Concat([]string{"D", "gamma", "upper_bound", "recon_loss"}, report.Numbered("adv_loss_%d", k),
			[]string{"min_adv_loss", "outputs", "method", "status", "mip_gap", "nodes", "solve_ms"})
	}
	return slices.Concat([]string{"D", "γ", "upper", "L_recon"}, report.Numbered("L_adv,%d", k),
		[]string{"min L_adv", "outputs", "method", "status", "ms"})
}

// finiteRow is a threshold of a finite sweep on a model of k adversaries.
type finiteRow struct {
	o mip.FiniteOptimum
	k int
}

// Cells are numbers in full for CSV (empty for NaN), to four decimals for
// the table ("—" for NaN).
func (r finiteRow) Cells(f report.Format) []string {
	o, csv := r.o, f == report.CSV
	nan, format := "—", fixed4
	if csv {
		nan, format = "", report.Shortest
	}
	num := func(x float64) string {
		if math.IsNaN(x) {
			return nan
		}
		return format(x)
	}
	row := []string{num(o.D), num(o.Gamma), num(o.Upper), num(o.Recon)}
	for i := 0; i < r.k; i++ {
		a := math.NaN()
		if i < len(o.Adv) {
			a = o.Adv[i]
		}
		row = append(row, num(a))
	}
	ms := msOf(o.SolveTime)
	if csv {
		return append(row, num(o.MinAdv), strconv.Itoa(o.Mechanism.Outputs()), methodLabel(o),
			o.StatusText(), report.Shortest(o.MIPGap), strconv.FormatInt(o.Nodes, 10), report.Shortest(ms))
	}
	outputs := "—" // no privatizer found (infeasible D, or stopped before one)
	if o.Mechanism != nil {
		outputs = strconv.Itoa(o.Mechanism.Outputs())
	}
	return append(row, num(o.MinAdv), outputs, methodLabel(o), o.StatusText(), report.Fixed(ms, 2))
}

// finitePoint is a threshold's JSON; numbers are null where the point has
// no privatizer (status "infeasible" or a time limit before the first).
type finitePoint struct {
	D          float64  `json:"D"`
	Gamma      *float64 `json:"gamma"`
	UpperBound *float64 `json:"upper_bound"`
	// recon_loss, adv_loss, min_adv_loss: null without a privatizer, whose
	// losses are NaN with no adv_loss (mip.FiniteOptimum)
	loss.Nullable[[]float64]
	Outputs    int            `json:"outputs"`
	Mechanism  [][]float64    `json:"mechanism"`
	Method     string         `json:"method"`
	Alphabet   int            `json:"alphabet"`
	LowerBound bool           `json:"lower_bound"`
	Status     string         `json:"status"`
	MIPGap     float64        `json:"mip_gap"`
	Nodes      int64          `json:"nodes"`
	SolveMS    float64        `json:"solve_ms"`
	Cert       *mip.DualBound `json:"certificate,omitempty"`
	// Fallback: why the global LP did not answer where column generation
	// did (the point's method).
	Fallback   string            `json:"fallback,omitempty"`
	Iterations []finiteIteration `json:"iterations,omitempty"`
}

type finiteIteration struct {
	Iteration int         `json:"iteration"`
	Lower     float64     `json:"lower"`
	Upper     float64     `json:"upper"`
	Columns   int         `json:"columns"`
	Pricing   mip.Pricing `json:"pricing"`
	ElapsedMS float64     `json:"elapsed_ms"`
}

func (r finiteRow) JSON() any {
	o := r.o
	p := finitePoint{
		D: o.D, Gamma: finiteOrNil(o.Gamma), UpperBound: finiteOrNil(o.Upper), Nullable: loss.NullableOf[[]float64](&o.Losses),
		Outputs: o.Mechanism.Outputs(), Mechanism: o.Mechanism, Method: methodLabel(o),
		Alphabet: o.Alphabet, LowerBound: o.LowerBound, Status: o.StatusText(), MIPGap: o.MIPGap, Nodes: o.Nodes,
		SolveMS: msOf(o.SolveTime), Cert: o.DualBound, Fallback: o.Fallback,
	}
	for _, it := range o.Iterations {
		p.Iterations = append(p.Iterations, finiteIteration{Iteration: it.Iteration, Lower: it.Lower, Upper: it.Upper,
			Columns: it.Columns, Pricing: it.Pricing, ElapsedMS: msOf(it.Elapsed)})
	}
	return p
}

// finiteOrNil returns &x, or nil for NaN and infinities (JSON has neither).
func finiteOrNil(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func methodLabel(o mip.FiniteOptimum) string {
	if o.Alphabet > 0 {
		return fmt.Sprintf("MIP m=%d", o.Alphabet)
	}
	return o.Method.String()
}

// finiteNotes say how the solution was found and what γ and upper mean.
func finiteNotes(sol mip.FiniteSolution) []string {
	var notes []string
	if g := sol.Global; g != nil {
		notes = append(notes, fmt.Sprintf("Global LP over %d candidate rays (%d hyperplanes, %d linear systems, enumerated in %s).",
			len(g.Rays()), g.Hyperplanes, g.Subsets, g.EnumTime.Round(time.Microsecond)))
	}
	colgen := sol.Method == mip.AlgorithmColGen
	for _, o := range sol.Points {
		if o.Fallback != "" {
			colgen = true
			notes = append(notes, fmt.Sprintf("D = %.6g: %s answered; the global LP did not (%s).", o.D, o.Method, o.Fallback))
		}
	}
	if colgen {
		notes = append(notes, "Column generation: γ is the master LP's value (the best privatizer found); upper is the Lagrangian bound certified by branch and bound over the reconstructor's decision rules (docs/finite.md).")
	}
	if sol.Method == mip.AlgorithmFixedMIP {
		notes = append(notes, "Fixed alphabet: upper bounds the optimum over privatizers with m outputs only (HiGHS's dual bound).")
	}
	return append(notes, "Losses are exact Bayes risks recomputed from the reported mechanism; γ is the solver's objective.")
}

// writeMechanisms writes one P(F|X) table per point.
func writeMechanisms(w io.Writer, opts []mip.FiniteOptimum) error {
	for _, o := range opts {
		if o.Mechanism == nil {
			continue
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		g := &report.Grid{Header: []string{"x"}}
		for f := 0; f < o.Mechanism.Outputs(); f++ {
			g.Header = append(g.Header, fmt.Sprintf("f=%d", f))
		}
		for x, row := range o.Mechanism {
			g.Rows = append(g.Rows, report.Cells([]string{strconv.Itoa(x)}, fixed4, row))
		}
		what := "Optimal mechanism"
		if !o.Proven() {
			what = "Best mechanism found (" + o.StatusText() + ")"
		}
		g.Title = fmt.Sprintf("%s at D = %.6g: P(F = f | X = x), %s", what, o.D, report.Plural(o.Mechanism.Outputs(), "output"))
		if err := g.RenderTable(w); err != nil {
			return err
		}
	}
	return nil
}
