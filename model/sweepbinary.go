package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
)

// MaxAdversaries is the most adversaries a binary model has.
const MaxAdversaries = mip.MaxAdversaries

// NewBinaryOf is the binary model with P(X = 1) = p, the reconstructor's
// crossover probability qy and one adversary's per element of qz
// (unchecked: Sweep refuses parameters out of range).
func NewBinaryOf(p, qy float64, qz []float64) BinaryModel {
	return NewBinary(mip.Binary{P: p, QY: qy, QZ: qz})
}

// CheckedBinary is NewBinaryOf after checking its probabilities and
// adversaries, named as the command line's flags (--p, --qy, --qz) name
// them.
func CheckedBinary(p, qy float64, qz []float64) (BinaryModel, error) {
	prob := func(name string, v float64) error {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return fmt.Errorf("%s = %v: must be a probability in [0, 1]", name, v)
		}
		return nil
	}
	if err := prob("--p", p); err != nil {
		return BinaryModel{}, err
	}
	if err := prob("--qy", qy); err != nil {
		return BinaryModel{}, err
	}
	if len(qz) == 0 {
		return BinaryModel{}, errors.New("--qz: give at least one adversary")
	}
	if len(qz) > MaxAdversaries {
		return BinaryModel{}, fmt.Errorf("--qz: %d adversaries: at most %d", len(qz), MaxAdversaries)
	}
	for i, q := range qz {
		if err := prob(fmt.Sprintf("--qz (adversary %d)", i+1), q); err != nil {
			return BinaryModel{}, err
		}
	}
	return NewBinaryOf(p, qy, qz), nil
}

// BinarySweep are the options of a binary model's sweep.
type BinarySweep struct {
	// Global also solves the optimum over all privatizers (any output
	// alphabet, the global LP) at every threshold, beside Proposition 2's
	// binary-output one, with its mechanism; the output is then written
	// once both are solved.
	Global bool
}

// binarySweep is a binary model's sweep: Proposition 2 (mip.Binary's
// parametric sweep) and, with BinarySweep.Global, the global optimum.
type binarySweep struct {
	m      mip.Binary
	r      SweepRequest
	w      io.Writer
	out    *report.SweepWriter // streaming Proposition 2 alone
	stop   mip.Stop
	opts   []mip.Prop2Optimum  // kept for Global, the witnesses and the figure
	global []mip.FiniteOptimum // Global: one a point of opts
	g      *mip.Global         // Global: the ray LP
}

func (b BinaryModel) newSweep(r SweepRequest, w io.Writer) kindSweep {
	return &binarySweep{m: b.M, r: r, w: w}
}

// prop2PerPoint is the typical cost of a threshold of a Proposition 2
// sweep (the leaves' LPs amortized and the point's proof).
const prop2PerPoint = 20 * time.Microsecond

func (s *binarySweep) plan(n int) (string, int, time.Duration) {
	if s.r.Binary.Global {
		return "solves", 2 * n, 2 * time.Millisecond // Proposition 2, then the global LP
	}
	return "solves", n, prop2PerPoint
}

func (s *binarySweep) solve(ctx context.Context, bar *progress.Bar) (Swept, error) {
	if s.r.Binary.Global {
		return s.solveGlobal(ctx, bar)
	}
	var err error
	if s.out, err = report.NewSweepWriter(s.w, s.r.Format, s.layout()); err != nil {
		return Swept{}, err
	}
	keep := s.r.Witness != "" || s.r.Plot != nil
	n, stop, err := s.m.SweepProp2Each(ctx, s.r.D, mip.DefaultSolver(), s.r.sweepOptions(bar), func(o mip.Prop2Optimum) error {
		if keep {
			s.opts = append(s.opts, o)
		}
		return s.out.Row(prop2Row{o})
	})
	s.stop = stop
	return Swept{Solved: n, Stop: stop}, err
}

// solveGlobal solves Proposition 2, then the global optimum at the
// thresholds it reached, within one budget.
func (s *binarySweep) solveGlobal(ctx context.Context, bar *progress.Bar) (Swept, error) {
	start := time.Now()
	var err error
	s.opts, s.stop, err = s.m.SweepProp2Within(ctx, s.r.D, mip.DefaultSolver(), s.r.sweepOptions(bar))
	if err != nil {
		return Swept{Solved: len(s.opts), Stop: s.stop}, err
	}
	if s.g, err = s.m.Finite().PrepareGlobal(mip.GlobalOptions{Context: ctx}); err != nil {
		return Swept{Solved: len(s.opts), Stop: s.stop}, err
	}
	rest := s.r
	if rest.TimeLimit > 0 {
		rest.TimeLimit = max(rest.TimeLimit-time.Since(start), time.Nanosecond)
	}
	gw := rest.sweepOptions(bar)
	gw.Progress = func(n int) { bar.Set(len(s.opts) + n) }
	var stop mip.Stop
	s.global, stop, err = s.g.SweepWithin(ctx, s.r.D[:len(s.opts)], mip.DefaultSolver(), gw)
	if len(s.global) < len(s.opts) {
		s.opts, s.stop = s.opts[:len(s.global)], stop
	}
	return Swept{Solved: len(s.opts), Stop: s.stop}, err
}

func (s *binarySweep) writeModel(d float64, path string) error {
	return report.WriteFileAtomic(path, func(tmp string) error { return s.m.WriteProp2Model(d, tmp) })
}

func (s *binarySweep) witnessed(ctx context.Context) ([]WitnessedOptimum, error) {
	out := make([]WitnessedOptimum, len(s.opts))
	for i, o := range s.opts {
		var g *mip.FiniteOptimum
		if s.global != nil {
			g = &s.global[i]
		}
		var err error
		if out[i], err = WitnessProp2(ctx, s.m, o, g, s.g, Options{}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *binarySweep) curves() (Curves, error) {
	var c Curves
	for _, o := range s.opts {
		c.Prop2.X, c.Prop2.Y = append(c.Prop2.X, o.D), append(c.Prop2.Y, o.MinAdv)
	}
	if s.r.Binary.Global {
		c.Global = new(Curve)
		for _, o := range s.global {
			c.Global.X, c.Global.Y = append(c.Global.X, o.D), append(c.Global.Y, o.MinAdv)
		}
	}
	return c, nil
}

func (s *binarySweep) finish(rest []float64) error {
	notes := []string{binaryNote}
	if !s.r.Binary.Global {
		return s.out.Close(rest, notes, stoppedBy{s.stop})
	}
	out, err := report.NewSweepWriter(s.w, s.r.Format, s.layout())
	if err != nil {
		return err
	}
	for i, o := range s.opts {
		if err := out.Row(globalRow{o, s.global[i]}); err != nil {
			return err
		}
	}
	if err := out.Close(rest, notes, nil); err != nil {
		return err
	}
	if s.r.Format == report.Table && len(s.r.D) == 1 {
		return writeMechanisms(s.w, s.global)
	}
	return nil
}

// binaryNote is the note below a Proposition 2 table.
const binaryNote = "s0* = P(F=0|X=0), s1* = P(F=1|X=1), oriented so that s0* + s1* ≥ 1; losses are exact MAP errors at (s0*, s1*)."

// layout lays the sweep out: Proposition 2's columns, with Global the
// global optimum's after them.
func (s *binarySweep) layout() report.SweepLayout {
	m, k, f := s.m, len(s.m.QZ), s.r.Format
	l := report.SweepLayout{
		Title: fmt.Sprintf("Proposition 2, binary model: p = %g, q_Y = %g, q_Z = %s; D_max = %.4g, adversaries saturate at %s",
			m.P, m.QY, joinFloats(m.QZ), m.DMax(), joinFloats(m.AdvSaturation())),
	}
	if f == report.CSV {
		l.Header = slices.Concat([]string{"D", "s0", "s1", "recon_loss"}, report.Numbered("adv_loss_%d", k),
			[]string{"min_adv_loss", "gamma", "status", "mip_gap", "nodes", "solve_ms"})
	} else {
		l.Header = slices.Concat([]string{"D", "s0*", "s1*", "L_recon"}, report.Numbered("L_adv,%d", k),
			[]string{"min L_adv", "status", "gap", "nodes", "ms"})
	}
	l.Status = slices.Index(l.Header, "status")
	head := struct {
		Model  binaryModelDoc `json:"model"`
		Solver solverDoc      `json:"solver"`
		stoppedBy
	}{binaryModelDoc{m.P, m.QY, m.QZ, m.DMax(), m.AdvSaturation()}, highsDoc(), stoppedBy{}}
	if !s.r.Binary.Global {
		// a streamed table's columns: the widest D, probabilities,
		// "Optimal", a gap in two digits with its exponent, node counts and
		// milliseconds
		l.MinWidths = minWidths(s.r.D, 3+k+1, 7, 8, 5, 8)
		l.Head = head // stopped_by follows the points
		return l
	}
	l.Whole, head.StoppedBy = true, s.stop
	l.Head = head
	if f == report.CSV {
		l.Header = append(l.Header, "global_min_adv_loss", "global_outputs")
	} else {
		l.Header = append(l.Header, "global", "gain", "outputs")
		l.Title += "\nColumn global: the optimum over every privatizer, whatever its output alphabet (global LP); gain = global / Proposition 2."
	}
	return l
}

// binaryModelDoc is the binary model in a JSON document.
type binaryModelDoc struct {
	P             float64   `json:"p"`
	QY            float64   `json:"q_y"`
	QZ            []float64 `json:"q_z"`
	DMax          float64   `json:"d_max"`
	AdvSaturation []float64 `json:"adv_saturation"`
}

// prop2Row is a threshold of a Proposition 2 sweep.
type prop2Row struct{ o mip.Prop2Optimum }

// prop2Point is a threshold's JSON.
type prop2Point struct {
	D           float64 `json:"D"`
	S0          float64 `json:"s0"`
	S1          float64 `json:"s1"`
	Gamma       float64 `json:"gamma"`
	loss.Losses         // recon_loss, adv_loss, min_adv_loss
	Status      string  `json:"status"`
	MIPGap      float64 `json:"mip_gap"`
	Nodes       int64   `json:"nodes"`
	SolveMS     float64 `json:"solve_ms"`
}

func (r prop2Row) JSON() any { return r.point() }

func (r prop2Row) point() prop2Point {
	o := r.o
	return prop2Point{D: o.D, S0: o.S.S0, S1: o.S.S1, Gamma: o.Gamma, Losses: o.Losses,
		Status: o.Status.String(), MIPGap: o.MIPGap, Nodes: o.Nodes, SolveMS: msOf(o.SolveTime)}
}

func (r prop2Row) Cells(f report.Format) []string {
	o, num := r.o, fixed4
	if f == report.CSV {
		num = report.Shortest
	}
	row := report.Cells([]string{num(o.D), num(o.S.S0), num(o.S.S1), num(o.Recon)}, num, o.Adv)
	row = append(row, num(o.MinAdv))
	ms := msOf(o.SolveTime)
	if f == report.CSV {
		// the solver's objective (the table shows the exact losses only);
		// every number as JSON has it
		return append(row, num(o.Gamma), o.Status.String(), num(o.MIPGap), strconv.FormatInt(o.Nodes, 10), num(ms))
	}
	return append(row, o.Status.String(), report.Float(o.MIPGap, 2), strconv.FormatInt(o.Nodes, 10), report.Fixed(ms, 2))
}

// globalRow is a threshold of a sweep with BinarySweep.Global: Proposition
// 2's optimum and the global one beside it.
type globalRow struct {
	o mip.Prop2Optimum
	g mip.FiniteOptimum
}

func (r globalRow) JSON() any {
	return struct {
		prop2Point
		GlobalMinAdvLoss float64     `json:"global_min_adv_loss"`
		GlobalOutputs    int         `json:"global_outputs"`
		Mechanism        [][]float64 `json:"mechanism"`
	}{prop2Row{r.o}.point(), r.g.MinAdv, r.g.Mechanism.Outputs(), r.g.Mechanism}
}

func (r globalRow) Cells(f report.Format) []string {
	row := prop2Row{r.o}.Cells(f)
	outputs := strconv.Itoa(r.g.Mechanism.Outputs())
	if f == report.CSV {
		return append(row, report.Shortest(r.g.MinAdv), outputs)
	}
	gain := "—"
	if r.o.MinAdv > 0 {
		gain = report.Fixed(r.g.MinAdv/r.o.MinAdv, 3) + "×"
	}
	return append(row, fixed4(r.g.MinAdv), gain, outputs)
}

func fixed4(x float64) string { return report.Fixed(x, 4) }

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = report.Float(x, 4)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// minWidths are a streamed table's least column widths: the widest
// threshold of d to four decimals, n numbers of width 6, then rest.
func minWidths(d []float64, n int, rest ...int) []int {
	w := []int{len(report.Fixed(slices.Max(d), 4))}
	return append(append(w, slices.Repeat([]int{6}, n)...), rest...)
}
