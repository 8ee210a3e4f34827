package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/plot"
)

type binaryFlags struct {
	p, qy      float64
	qz         []float64
	d          float64
	sweep      string
	format     string
	writeModel string
	plot       string // --plot FILE: the exact curve alone
	output     string // -o/--output FILE
	config     string
	global     bool
	witness    string // --witness FILE: the optima's witnesses
	limits     limitFlags
}

func newBinaryCmd() *cobra.Command {
	var f binaryFlags
	cmd := &cobra.Command{
		Use:   "binary",
		Short: "Exact optimum of the binary model (Proposition 2) via HiGHS",
		Long: `Solves Proposition 2 of the paper for the binary model: X ~ Bernoulli(p), the
reconstructor sees Y = BSC(q_Y)(X), adversary i sees Z_i = BSC(q_Zi)(X), and
the privatizer releases a bit F with s0 = P(F=0|X=0), s1 = P(F=1|X=1). For
each D it maximizes the smallest adversarial MAP error subject to the
reconstructor's MAP error ≤ D, as a mixed-integer program solved by HiGHS.

With no flags it solves the paper's setup (p = 0.54, q_Y = 0.2, q_Z = 0.44)
at 30 values of D from 0.0025 to D_max = 0.2.`,
		Example: `  mmds binary
  mmds binary --qz 0.44 --qz 0.3 --sweep 0:0.2:11 --format csv
  mmds binary --d 0.1 --format json --write-model prop2.mps`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runBinary(cmd, f) },
	}
	fl := cmd.Flags()
	fl.Float64Var(&f.p, "p", 0.54, "P(X = 1), in [0, 1]")
	fl.Float64Var(&f.qy, "qy", 0.2, "crossover probability of the reconstructor's BSC, in [0, 1]")
	fl.Float64SliceVar(&f.qz, "qz", []float64{0.44}, "crossover probability of an adversary's BSC, in [0, 1]; repeat (or comma-separate) for several adversaries")
	fl.Float64Var(&f.d, "d", 0, "a single distortion threshold D ≥ 0")
	fl.StringVar(&f.sweep, "sweep", "", "thresholds D0:D1:N, N evenly spaced values (default 0.0025:D_max:30)")
	fl.StringVar(&f.format, "format", "table", "output format: table, csv or json")
	outputFlag(fl, &f.output)
	fl.StringVar(&f.config, "config", "", `JSON model file {"p": …, "q_y": …, "q_z": […]} (instead of --p, --qy, --qz)`)
	fl.BoolVar(&f.global, "global", false, "also solve the global optimum over every privatizer (any output alphabet) and print it beside Proposition 2's, with the optimal mechanism")
	fl.StringVar(&f.writeModel, "write-model", "", "also write each MIP to this .mps or .lp file (a sweep inserts -NN before the extension)")
	fl.StringVar(&f.witness, "witness", "", "also write what proves each optimum (and, with --global, the global one) to this JSON file, for mmds-check (docs/check.md)")
	fl.StringVar(&f.plot, "plot", "", "also draw the optimal min adversarial loss against D into this .png or .svg file")
	f.limits.register(fl, 0)
	return cmd
}

func runBinary(cmd *cobra.Command, f binaryFlags) error {
	m, err := binaryModel(cmd, f)
	if err != nil {
		return err
	}
	format, err := outputFormat(f.format)
	if err != nil {
		return err
	}
	ds, err := thresholds(cmd, f.d, f.sweep, m.DefaultSweep())
	if err != nil {
		return err
	}
	if err := checkPlotPath(f.plot); err != nil {
		return err
	}
	if err := f.limits.check(); err != nil {
		return err
	}
	return withOutput(cmd, f.output, func() error { return runBinarySweep(cmd, f, m, format, ds) })
}

// binaryModel reads --config, or builds the model from --p, --qy and --qz.
func binaryModel(cmd *cobra.Command, f binaryFlags) (mip.Binary, error) {
	if f.config != "" {
		for _, name := range []string{"p", "qy", "qz"} {
			if cmd.Flags().Changed(name) {
				return mip.Binary{}, badInput("--config and --%s are mutually exclusive: give the model one way", name)
			}
		}
		m, err := model.LoadBinary(cmd.Context(), f.config)
		if err != nil {
			return mip.Binary{}, usageError{fmt.Errorf("--config %w", err)}
		}
		return m.M, nil
	}
	m := mip.Binary{P: f.p, QY: f.qy, QZ: f.qz}
	for _, c := range []struct {
		flag string
		v    float64
	}{{"p", f.p}, {"qy", f.qy}} {
		if err := mip.CheckProbability("--"+c.flag, c.v); err != nil {
			return mip.Binary{}, usageError{err}
		}
	}
	if len(f.qz) == 0 {
		return mip.Binary{}, badInput("--qz: give at least one adversary")
	}
	if len(f.qz) > mip.MaxAdversaries {
		return mip.Binary{}, badInput("--qz: %d adversaries: at most %d", len(f.qz), mip.MaxAdversaries)
	}
	for i, q := range f.qz {
		if err := mip.CheckProbability(fmt.Sprintf("--qz (adversary %d)", i+1), q); err != nil {
			return mip.Binary{}, usageError{err}
		}
	}
	return m, nil
}

func runBinarySweep(cmd *cobra.Command, f binaryFlags, m mip.Binary, format report.Format, ds []float64) error {
	var err error
	var files []string
	if f.writeModel != "" {
		if files, err = modelFileNames(f.writeModel, len(ds)); err != nil {
			return err
		}
	}
	paths := []report.Path{report.In("--config", f.config), report.Out("--plot", f.plot), report.Out("--output", stdoutPath(f.output)),
		report.Out("--witness", f.witness)}
	for _, p := range files {
		paths = append(paths, report.Out("--write-model", p))
	}
	if err := checkPaths(paths...); err != nil {
		return err
	}

	if !f.global {
		return streamBinary(cmd, f, m, format, ds, files)
	}
	sw, err := solveBinary(cmd, f, m, ds)
	if err != nil {
		return err
	}
	if err := writeBinaryModels(m, ds[:len(sw.opts)], files); err != nil {
		return err
	}
	if f.witness != "" {
		if err := writeBinaryWitness(cmd, f.witness, m, sw); err != nil {
			return err
		}
	}
	// the global optimum beside Proposition 2; see finite.go
	if err := runBinaryGlobal(cmd, format, m, sw, f.plot); err != nil {
		return err
	}
	return sw.warn(cmd, f.limits)
}

// writeBinaryModels writes the MIP of each threshold solved to its
// --write-model file.
func writeBinaryModels(m mip.Binary, solved []float64, files []string) error {
	for i, d := range solved[:min(len(files), len(solved))] {
		if err := report.WriteFileAtomic(files[i], func(tmp string) error { return m.WriteProp2Model(d, tmp) }); err != nil {
			return err
		}
	}
	return nil
}

// streamBinary solves Proposition 2 at every threshold within the limits
// and writes each point as it is solved (mip.Binary.SweepProp2Each): the
// output's memory does not grow with the sweep (the points are kept only
// for --plot).
func streamBinary(cmd *cobra.Command, f binaryFlags, m mip.Binary, format report.Format, ds []float64, files []string) error {
	bar := newBar(cmd, f.limits.quiet, "solves", f.limits.points(len(ds)), prop2PerPoint)
	out, err := newBinaryOut(cmd.OutOrStdout(), format, m, ds)
	if err != nil {
		bar.Finish("failed")
		return err
	}
	var curve []mip.Optimum
	n, stop, err := m.SweepProp2Each(cmd.Context(), ds, mip.DefaultSolver(), f.limits.sweepOptions(bar), func(o mip.Optimum) error {
		if f.plot != "" || f.witness != "" {
			curve = append(curve, o)
		}
		return out.point(o)
	})
	bar.Finish(doneOrStopped(err, stop))
	if err != nil {
		return err
	}
	if err := out.close(ds[n:], stop); err != nil {
		return err
	}
	if err := writeBinaryModels(m, ds[:n], files); err != nil {
		return err
	}
	if f.witness != "" {
		if err := writeBinaryWitness(cmd, f.witness, m, binarySweep{ds: ds[:n], opts: curve}); err != nil {
			return err
		}
	}
	if err := writePlot(f.plot, plot.BinaryCurveSpec(curve)); err != nil {
		return err
	}
	return warnStopped(cmd, f.limits, stop, n, len(ds))
}

// prop2PerPoint is the typical cost of a threshold of a Proposition 2
// sweep (the leaves' LPs amortized and the point's proof), which the
// progress report forecasts with.
const prop2PerPoint = 20 * time.Microsecond

// binaryOut writes a Proposition 2 sweep point by point in one format.
type binaryOut struct {
	w      io.Writer
	format report.Format
	k      int
	rows   *report.RowStream  // table or CSV
	json   *report.JSONStream // JSON
	cols   int                // columns of a row
	status int                // the status column
}

func newBinaryOut(w io.Writer, format report.Format, m mip.Binary, ds []float64) (*binaryOut, error) {
	o := &binaryOut{w: w, format: format, k: len(m.QZ)}
	if format == report.JSON {
		doc := binaryJSON(m, binarySweep{})
		head := struct {
			Model  any       `json:"model"`
			Solver solverDoc `json:"solver"`
		}{doc.Model, doc.Solver}
		var err error
		o.json, err = report.NewJSONStream(w, head, "points")
		return o, err
	}
	g := binaryGrid(m, binarySweep{}, format)
	o.cols, o.status = len(g.Header), slices.Index(g.Header, "status")
	// a streamed table's columns: the widest D, probabilities, "Optimal",
	// a gap in two digits with its exponent, node counts and milliseconds
	minw := []int{len(report.Fixed(slices.Max(ds), 4))}
	for range 3 + o.k + 1 {
		minw = append(minw, 6)
	}
	minw = append(minw, 7, 8, 5, 8)
	var err error
	o.rows, err = report.NewRowStream(w, format, g, minw)
	return o, err
}

func (o *binaryOut) point(opt mip.Optimum) error {
	if o.json != nil {
		return o.json.Item(binaryPointOf(opt))
	}
	return o.rows.Append(binaryRow(opt, o.format))
}

// close writes the thresholds not reached and ends the output.
func (o *binaryOut) close(rest []float64, stop mip.Stop) error {
	if o.json != nil {
		for _, d := range rest {
			if err := o.json.Item(notReachedPoint(d)); err != nil {
				return err
			}
		}
		return o.json.Close(struct {
			StoppedBy mip.Stop `json:"stopped_by,omitempty"`
		}{stop})
	}
	nr := notReached{ds: rest, cols: o.cols, status: o.status}
	if o.format == report.CSV {
		if err := o.rows.Flush(); err != nil {
			return err
		}
		return nr.writeCSV(o.w)
	}
	return nr.closeTable(o.rows, []string{binaryNote})
}

// binarySweep is a solved binary sweep: Proposition 2 (and, with --global,
// the global optimum) at the first len(opts) thresholds of ds; a bound
// stopped it before the others.
type binarySweep struct {
	ds     []float64
	opts   []mip.Optimum
	global []mip.FiniteOptimum // nil without --global, else len(opts) points
	g      *mip.Global         // the ray LP of the global optima
	stop   mip.Stop
}

// writeBinaryWitness writes the witness of every optimum solved (and of
// the global ones with --global) to path, atomically.
func writeBinaryWitness(cmd *cobra.Command, path string, m mip.Binary, sw binarySweep) error {
	wf, err := model.NewWitnessFile(model.NewBinary(m))
	if err != nil {
		return err
	}
	for i, o := range sw.opts {
		var g *mip.FiniteOptimum
		if sw.global != nil {
			g = &sw.global[i]
		}
		w, err := model.WitnessProp2(cmd.Context(), m, o, g, sw.g, model.Options{})
		if err != nil {
			return err
		}
		wf.Optima = append(wf.Optima, w)
	}
	return report.WriteAtomic(path, wf.WriteJSON)
}

// notReached is the thresholds the sweep did not reach.
func (s binarySweep) notReached() []float64 { return s.ds[len(s.opts):] }

func (s binarySweep) warn(cmd *cobra.Command, l limitFlags) error {
	return warnStopped(cmd, l, s.stop, len(s.opts), len(s.ds))
}

// solveBinary solves Proposition 2 and, with --global, the global optimum
// at every threshold within --max-points and --time-limit (one budget for
// both), with progress.
func solveBinary(cmd *cobra.Command, f binaryFlags, m mip.Binary, ds []float64) (binarySweep, error) {
	ctx := cmd.Context()
	start := time.Now()
	units, per := f.limits.points(len(ds)), 3*time.Millisecond
	if f.global {
		units, per = 2*units, 2*time.Millisecond
	}
	bar := newBar(cmd, f.limits.quiet, "solves", units, per)
	sw := binarySweep{ds: ds}
	var err error
	sw.opts, sw.stop, err = m.SweepProp2Within(ctx, ds, mip.DefaultSolver(), f.limits.sweepOptions(bar))
	if err != nil || !f.global {
		bar.Finish(doneOrStopped(err, sw.stop))
		return sw, err
	}
	g, err := m.Finite().PrepareGlobal(mip.GlobalOptions{Context: ctx})
	if err != nil {
		bar.Finish("failed")
		return sw, err
	}
	sw.g = g
	rest := f.limits
	if rest.timeLimit > 0 {
		rest.timeLimit = max(rest.timeLimit-time.Since(start), time.Nanosecond)
	}
	gw := rest.sweepOptions(bar)
	gw.Progress = func(n int) { bar.Set(len(sw.opts) + n) }
	var stop mip.Stop
	sw.global, stop, err = g.SweepWithin(ctx, ds[:len(sw.opts)], mip.DefaultSolver(), gw)
	if len(sw.global) < len(sw.opts) {
		sw.opts, sw.stop = sw.opts[:len(sw.global)], stop
	}
	bar.Finish(doneOrStopped(err, sw.stop))
	return sw, err
}

// binaryJSON is the stable machine-readable form of a Proposition 2 sweep.
type binaryDoc struct {
	Model struct {
		P             float64   `json:"p"`
		QY            float64   `json:"q_y"`
		QZ            []float64 `json:"q_z"`
		DMax          float64   `json:"d_max"`
		AdvSaturation []float64 `json:"adv_saturation"`
	} `json:"model"`
	Solver solverDoc `json:"solver"`
	// StoppedBy names the bound that stopped the sweep ("max points" or
	// "time limit"); absent when every threshold was solved.
	StoppedBy mip.Stop `json:"stopped_by,omitempty"`
	// Points: a binaryPoint per solved threshold, then {"D", "status"}
	// per threshold a bound stopped the sweep before.
	Points pointsJSON[binaryPoint] `json:"points"`
}

type solverDoc struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	FeasibilityJump bool   `json:"feasibility_jump"`
}

type binaryPoint struct {
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

func binaryJSON(m mip.Binary, sw binarySweep) binaryDoc {
	var doc binaryDoc
	doc.Model.P, doc.Model.QY, doc.Model.QZ = m.P, m.QY, m.QZ
	doc.Model.DMax, doc.Model.AdvSaturation = m.DMax(), m.AdvSaturation()
	doc.Solver = solverDoc{Name: "HiGHS", Version: mip.HiGHSVersion, FeasibilityJump: mip.DefaultSolver().FeasibilityJump}
	doc.StoppedBy = sw.stop
	doc.Points.rest = sw.notReached()
	for _, o := range sw.opts {
		doc.Points.solved = append(doc.Points.solved, binaryPointOf(o))
	}
	return doc
}

func binaryPointOf(o mip.Optimum) binaryPoint {
	return binaryPoint{
		D: o.D, S0: o.S.S0, S1: o.S.S1, Gamma: o.Gamma,
		Losses: o.Losses,
		Status: o.Status.String(), MIPGap: o.MIPGap, Nodes: o.Nodes,
		SolveMS: float64(o.SolveTime.Microseconds()) / 1000,
	}
}

// binaryGrid lays a sweep out as a table (rounded for reading) or CSV (full precision).
func binaryGrid(m mip.Binary, sw binarySweep, f report.Format) *report.Grid {
	k := len(m.QZ)
	g := &report.Grid{
		Title: fmt.Sprintf("Proposition 2, binary model: p = %g, q_Y = %g, q_Z = %s; D_max = %.4g, adversaries saturate at %s",
			m.P, m.QY, joinFloats(m.QZ), m.DMax(), joinFloats(m.AdvSaturation())),
	}
	if f == report.CSV {
		g.Header = []string{"D", "s0", "s1", "recon_loss"}
		for i := 1; i <= k; i++ {
			g.Header = append(g.Header, fmt.Sprintf("adv_loss_%d", i))
		}
		g.Header = append(g.Header, "min_adv_loss", "gamma", "status", "mip_gap", "nodes", "solve_ms")
	} else {
		g.Header = []string{"D", "s0*", "s1*", "L_recon"}
		for i := 1; i <= k; i++ {
			g.Header = append(g.Header, fmt.Sprintf("L_adv,%d", i))
		}
		g.Header = append(g.Header, "min L_adv", "status", "gap", "nodes", "ms")
	}
	for _, o := range sw.opts {
		g.Rows = append(g.Rows, binaryRow(o, f))
	}
	g.Notes = []string{binaryNote}
	return g
}

// binaryNote is the note below a Proposition 2 table.
const binaryNote = "s0* = P(F=0|X=0), s1* = P(F=1|X=1), oriented so that s0* + s1* ≥ 1; losses are exact MAP errors at (s0*, s1*)."

// binaryRow is one point of a sweep in binaryGrid's columns.
func binaryRow(o mip.Optimum, f report.Format) []string {
	num := func(x float64) string { return report.Fixed(x, 4) }
	if f == report.CSV {
		num = func(x float64) string { return report.Float(x, -1) }
	}
	row := []string{num(o.D), num(o.S.S0), num(o.S.S1), num(o.Recon)}
	for _, a := range o.Adv {
		row = append(row, num(a))
	}
	ms := float64(o.SolveTime.Microseconds()) / 1000
	row = append(row, num(o.MinAdv))
	if f == report.CSV {
		// the solver's objective (the table shows the exact losses only);
		// every number as JSON has it
		return append(row, num(o.Gamma), o.Status.String(), num(o.MIPGap), fmt.Sprint(o.Nodes), num(ms))
	}
	return append(row, o.Status.String(), report.Float(o.MIPGap, 2), fmt.Sprint(o.Nodes), report.Fixed(ms, 2))
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = report.Float(x, 4)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
