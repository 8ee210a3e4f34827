package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/plot"
)

type finiteFlags struct {
	config, alphabet, method, sweep, format, writeModel string
	output                                              string // -o/--output FILE
	witness                                             string // --witness FILE: the optima's witnesses
	d                                                   float64
	mechanisms                                          bool
	limits                                              limitFlags
	gap                                                 float64
	maxSubsets                                          int64
}

func newFiniteCmd() *cobra.Command {
	var f finiteFlags
	cmd := &cobra.Command{
		Use:   "finite",
		Short: "Exact optimum of a general finite model over all privatizers (ray LP or column generation) or a fixed output alphabet (MIP)",
		Long: `finite solves a general finite model: X ∈ {0..n−1} with a prior, the
reconstructor's channel P(Y|X), one channel P(Z_i|X) per adversary, and loss
matrices (default 0-1). For each D it maximizes the smallest adversarial Bayes
risk subject to the reconstructor's Bayes risk ≤ D.

--alphabet global (the default) optimizes over every randomized privatizer,
whatever its output alphabet. --method auto uses the LP over the extreme rays
of the common refinement of all decision regions while they can be enumerated
(n ≤ 4 and within --max-subsets), and column generation beyond: a master LP
over the columns found so far, priced exactly by branch and bound over the
reconstructor's decision rules. Every point gets a status: "optimal" once
proven, or "gap X%" with the certified bracket [min_adv_loss, upper_bound]
when --time-limit (the whole run's budget) ends the search; an infeasible D is
a row with status "infeasible". --alphabet m restricts F to m outputs and
solves a mixed-integer program. Without --config it solves the paper's binary
model (p = 0.54, q_Y = 0.2, q_Z = 0.44). Ctrl-C stops within a second (exit
130) and prints nothing.`,
		Example: `  mmds finite --config examples/finite-ternary.json
  mmds finite --config examples/finite-paper-binary.json --d 0.1
  mmds finite --config model.json --d 0.05 --time-limit 10s --format json
  mmds finite --config examples/finite-ternary.json --alphabet 2 --format json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withOutput(cmd, f.output, func() error { return runFinite(cmd, f) })
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "JSON model file (default: the paper's binary model)")
	fl.StringVar(&f.alphabet, "alphabet", "global", "output alphabet: global (every privatizer) or a size m in [1, 64]")
	fl.StringVar(&f.method, "method", "auto", "global solver: auto, rays (ray LP) or colgen (column generation)")
	fl.Float64Var(&f.d, "d", 0, "a single distortion threshold D ≥ 0")
	fl.StringVar(&f.sweep, "sweep", "", "thresholds D0:D1:N (default 11 values from D_min to D_max)")
	fl.StringVar(&f.format, "format", "table", "output format: table, csv or json")
	outputFlag(fl, &f.output)
	fl.BoolVar(&f.mechanisms, "mechanisms", false, "print every point's mechanism P(F|X) (always with a single --d)")
	fl.Float64Var(&f.gap, "gap", mip.ProvenGap, "column generation stops once the certified relative gap (upper − lower)/upper is at most this; the default proves optimality")
	fl.Int64Var(&f.maxSubsets, "max-subsets", mip.DefaultMaxSubsets, "budget of linear systems for the ray enumeration; beyond it --method auto uses column generation")
	fl.StringVar(&f.writeModel, "write-model", "", "also write each LP/MIP to this .mps or .lp file (ray LP or fixed alphabet; a sweep inserts -NN before the extension)")
	fl.StringVar(&f.witness, "witness", "", "also write what proves each global optimum to this JSON file, for mmds-check (docs/check.md); not with --alphabet m")
	f.limits.register(fl, 60*time.Second)
	return cmd
}

// finiteModel reads --config, a finite model file; without one the
// command's default is the paper's binary model (Section V-B) as a finite
// model.
func finiteModel(ctx context.Context, path string) (mip.Finite, error) {
	if path == "" {
		return mip.PaperBinary().Finite(), nil
	}
	m, err := model.LoadFinite(ctx, path)
	if err != nil {
		return mip.Finite{}, badInput("--config %v", err)
	}
	return m.M, nil
}

// parseAlphabet reads --alphabet: 0 for global, else m.
func parseAlphabet(s string) (int, error) {
	if s == "global" {
		return 0, nil
	}
	m, err := strconv.Atoi(s)
	if err != nil || m < 1 || m > mip.MaxOutputs {
		return 0, badInput("--alphabet %q: must be global or an integer m in [1, %d]", s, mip.MaxOutputs)
	}
	return m, nil
}

// parseMethod reads --method.
func parseMethod(s string) (mip.Method, error) {
	m, err := mip.ParseMethod(s)
	if err != nil {
		return 0, badInput("--method %q: must be auto, rays or colgen", s)
	}
	return m, nil
}

// finiteRun is mmds finite's input, every flag checked.
type finiteRun struct {
	m      mip.Finite
	alpha  int // 0: global
	method mip.Method
	format report.Format
	ds     []float64
	files  []string // --write-model: one per threshold
}

func runFinite(cmd *cobra.Command, f finiteFlags) error {
	in, err := f.parse(cmd)
	if err != nil {
		return err
	}
	out := newFiniteOut(cmd.OutOrStdout(), in.format, in.m, in.ds, f.mechanisms)
	sol, err := solveFinite(cmd, f, in, out)
	if errors.Is(err, mip.ErrInterrupted) {
		return exitError{130, err}
	}
	if err != nil {
		return err
	}
	if err := in.writeModels(sol); err != nil {
		return err
	}
	if f.witness != "" {
		if err := writeFiniteWitness(cmd, f.witness, in.m, sol); err != nil {
			return err
		}
	}
	if err := out.close(sol); err != nil {
		return err
	}
	return warnStopped(cmd, f.limits, sol.Stopped, sol.Solved, len(in.ds))
}

// parse reads and checks every flag and path, before any work.
func (f finiteFlags) parse(cmd *cobra.Command) (finiteRun, error) {
	var in finiteRun
	var err error
	if in.m, err = finiteModel(cmd.Context(), f.config); err != nil {
		return in, err
	}
	if in.alpha, err = parseAlphabet(f.alphabet); err != nil {
		return in, err
	}
	if in.method, err = parseMethod(f.method); err != nil {
		return in, err
	}
	if in.format, err = outputFormat(f.format); err != nil {
		return in, err
	}
	if err := f.checkBounds(in.m); err != nil {
		return in, err
	}
	if in.ds, err = thresholds(cmd, f.d, f.sweep, in.m.DefaultSweep()); err != nil {
		return in, err
	}
	if in.files, err = f.modelFiles(in); err != nil {
		return in, err
	}
	if f.witness != "" && in.alpha > 0 {
		return in, badInput("--witness %q: a fixed-alphabet optimum (--alphabet %d) has no witness; --witness proves the global optimum (--alphabet global)", f.witness, in.alpha)
	}
	paths := []report.Path{report.In("--config", f.config), report.Out("--output", stdoutPath(f.output)), report.Out("--witness", f.witness)}
	for _, p := range in.files {
		paths = append(paths, report.Out("--write-model", p))
	}
	return in, checkPaths(paths...)
}

// checkBounds checks --max-points, --time-limit, --max-subsets, --gap and
// the model's size.
func (f finiteFlags) checkBounds(m mip.Finite) error {
	if err := f.limits.check(); err != nil {
		return err
	}
	if f.maxSubsets < 1 {
		return badInput("--max-subsets %d: must be ≥ 1", f.maxSubsets)
	}
	if !(f.gap >= mip.ProvenGap && f.gap < 1) {
		return badInput("--gap %v: must be in [%g, 1)", f.gap, mip.ProvenGap)
	}
	if err := m.CheckSize(); err != nil {
		return badInput("--config %s: %v", f.config, err)
	}
	return nil
}

// modelFiles are --write-model's file names, one per threshold; none
// without the flag.
func (f finiteFlags) modelFiles(in finiteRun) ([]string, error) {
	if f.writeModel == "" {
		return nil, nil
	}
	m := in.m
	if in.alpha == 0 && (in.method == mip.MethodColGen || (in.method == mip.MethodAuto && m.N() > mip.AutoRayMaxN)) {
		return nil, badInput("--write-model %q: with --method auto, a model of n = %d > %d values is solved by column generation, which has no single model to write; use --method rays or --alphabet m", f.writeModel, m.N(), mip.AutoRayMaxN)
	}
	return modelFileNames(f.writeModel, len(in.ds))
}

// writeModels writes the LP or MIP of every threshold solved to its
// --write-model file.
func (in finiteRun) writeModels(sol mip.FiniteSolution) error {
	files := in.files[:min(len(in.files), sol.Solved)]
	for i, path := range files {
		d := in.ds[i]
		write := func(tmp string) error {
			return in.m.WriteFixedModel(d, mip.FixedOptions{Outputs: in.alpha, Hull: true}, tmp)
		}
		if in.alpha == 0 {
			if sol.Global == nil {
				return fmt.Errorf("--write-model: the ray enumeration exceeded --max-subsets, so there is no ray LP to write")
			}
			write = func(tmp string) error { return sol.Global.WriteLP(d, tmp) }
		}
		if err := report.WriteFileAtomic(path, write); err != nil {
			return err
		}
	}
	return nil
}

// solveFinite solves m at every threshold within the bounds, with
// progress (and column generation's bracket as it closes).
func solveFinite(cmd *cobra.Command, f finiteFlags, in finiteRun, out *finiteOut) (mip.FiniteSolution, error) {
	m, ds, alpha, method := in.m, in.ds, in.alpha, in.method
	per := 50 * time.Microsecond // the ray LP, its pieces amortized
	if alpha > 0 || method == mip.MethodColGen || m.N() > mip.AutoRayMaxN {
		per = time.Second // column generation or a MIP: seconds a threshold are typical
	}
	bar := newBar(cmd, f.limits.quiet, "thresholds", f.limits.points(len(ds)), per)
	var startErr error
	var witnessed []mip.FiniteOptimum
	sol, err := m.SolveFinite(cmd.Context(), ds, mip.FiniteSolveOptions{
		Method: method, Alphabet: alpha, TimeLimit: f.limits.timeLimit, MaxPoints: f.limits.maxPoints,
		GapTol: f.gap, MaxSubsets: f.maxSubsets, Solver: mip.DefaultSolver(),
		Progress: bar.Set,
		Iteration: func(it mip.ColGenIteration) {
			bar.Describe(fmt.Sprintf("iteration %d, bracket [%.6g, %.6g]", it.Iteration, it.Lower, it.Upper))
		},
		Ready: func(sol mip.FiniteSolution) { startErr = out.start(sol) },
		Emit: func(p mip.FiniteOptimum) error {
			if startErr != nil {
				return startErr
			}
			if f.witness != "" {
				witnessed = append(witnessed, p)
			}
			return out.point(p)
		},
	})
	sol.Points = witnessed // what --witness proves; the rest went to out
	if err == nil && startErr == nil && out.rows == nil && out.json == nil {
		startErr = out.start(sol) // stopped before the method was chosen
	}
	if err == nil {
		err = startErr
	}
	bar.Finish(doneOrStopped(err, sol.Stopped))
	return sol, err
}

// writeFiniteWitness writes the witness of every point solved to path,
// atomically.
func writeFiniteWitness(cmd *cobra.Command, path string, m mip.Finite, sol mip.FiniteSolution) error {
	wf, err := model.NewWitnessFile(model.NewFinite(m))
	if err != nil {
		return err
	}
	for _, p := range sol.Points {
		w, err := model.WitnessFinite(cmd.Context(), m, sol, p, model.Options{})
		if err != nil {
			return err
		}
		wf.Optima = append(wf.Optima, w)
	}
	return report.WriteAtomic(path, wf.WriteJSON)
}

// printMechanisms prints one P(F|X) table per point.
func printMechanisms(w io.Writer, opts []mip.FiniteOptimum) error {
	for _, o := range opts {
		if o.Mechanism == nil {
			continue
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		g := mechanismGrid(o.Mechanism)
		what := "Optimal mechanism"
		if !o.Proven() {
			what = "Best mechanism found (" + o.StatusText() + ")"
		}
		g.Title = fmt.Sprintf("%s at D = %.6g: P(F = f | X = x), %s", what, o.D, plural(o.Mechanism.Outputs(), "output"))
		if err := g.RenderTable(w); err != nil {
			return err
		}
	}
	return nil
}

func mechanismGrid(p mip.Mechanism) *report.Grid {
	g := &report.Grid{Header: []string{"x"}}
	for f := 0; f < p.Outputs(); f++ {
		g.Header = append(g.Header, fmt.Sprintf("f=%d", f))
	}
	for x, row := range p {
		r := []string{strconv.Itoa(x)}
		for _, v := range row {
			r = append(r, report.Fixed(v, 4))
		}
		g.Rows = append(g.Rows, r)
	}
	return g
}

func methodLabel(o mip.FiniteOptimum) string {
	if o.Alphabet > 0 {
		return fmt.Sprintf("MIP m=%d", o.Alphabet)
	}
	return o.Method.String()
}

func finiteGrid(m mip.Finite, sol mip.FiniteSolution, f report.Format) *report.Grid {
	csv := f == report.CSV
	grid := &report.Grid{
		Title: fmt.Sprintf("Finite model: n = %d, K = %d; D_min = %.4g, D_max = %.4g, adversaries saturate at %s",
			m.N(), m.K(), m.DMin(), m.DMax(), joinFloats(m.AdvSaturation())),
		Header: finiteHeader(m.K(), csv),
	}
	for _, o := range sol.Points {
		grid.Rows = append(grid.Rows, finiteRow(o, m.K(), csv))
	}
	grid.Notes = finiteNotes(sol)
	return grid
}

// finiteHeader is the grid's header: the CSV schema of docs/finite.md or
// the table's.
func finiteHeader(k int, csv bool) []string {
	if csv {
		h := []string{"D", "gamma", "upper_bound", "recon_loss"}
		for i := 1; i <= k; i++ {
			h = append(h, fmt.Sprintf("adv_loss_%d", i))
		}
		return append(h, "min_adv_loss", "outputs", "method", "status", "mip_gap", "nodes", "solve_ms")
	}
	h := []string{"D", "γ", "upper", "L_recon"}
	for i := 1; i <= k; i++ {
		h = append(h, fmt.Sprintf("L_adv,%d", i))
	}
	return append(h, "min L_adv", "outputs", "method", "status", "ms")
}

// finiteRow is one point's row: numbers in full for CSV (empty for NaN),
// to four decimals for the table ("—" for NaN).
func finiteRow(o mip.FiniteOptimum, k int, csv bool) []string {
	num := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return report.Fixed(x, 4)
	}
	if csv {
		num = func(x float64) string {
			if math.IsNaN(x) {
				return ""
			}
			return report.Float(x, -1)
		}
	}
	row := []string{num(o.D), num(o.Gamma), num(o.Upper), num(o.Recon)}
	for i := 0; i < k; i++ {
		a := math.NaN()
		if i < len(o.Adv) {
			a = o.Adv[i]
		}
		row = append(row, num(a))
	}
	ms := float64(o.SolveTime.Microseconds()) / 1000
	if csv {
		return append(row, num(o.MinAdv), strconv.Itoa(o.Mechanism.Outputs()), methodLabel(o),
			o.StatusText(), report.Float(o.MIPGap, -1), strconv.FormatInt(o.Nodes, 10), report.Float(ms, -1))
	}
	outputs := "—" // no privatizer found (infeasible D, or stopped before one)
	if o.Mechanism != nil {
		outputs = strconv.Itoa(o.Mechanism.Outputs())
	}
	return append(row, num(o.MinAdv), outputs, methodLabel(o), o.StatusText(), report.Fixed(ms, 2))
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

type finiteDoc struct {
	Model struct {
		N             int              `json:"n"`
		K             int              `json:"k"`
		DMin          float64          `json:"d_min"`
		DMax          float64          `json:"d_max"`
		AdvSaturation []float64        `json:"adv_saturation"`
		Config        mip.FiniteConfig `json:"config"`
	} `json:"model"`
	Solver solverDoc     `json:"solver"`
	Method mip.Algorithm `json:"method"`
	// StoppedBy names the bound that stopped the sweep ("max points" or
	// "time limit"); absent when every threshold was solved.
	StoppedBy mip.Stop                `json:"stopped_by,omitempty"`
	Global    *globalDoc              `json:"global,omitempty"`
	Points    pointsJSON[finitePoint] `json:"points"`
}

type globalDoc struct {
	Rays        int     `json:"rays"`
	Hyperplanes int     `json:"hyperplanes"`
	Subsets     int64   `json:"linear_systems"`
	EnumMS      float64 `json:"enumeration_ms"`
}

// finitePoint is one threshold's JSON; numbers are null where the point
// has no privatizer (status "infeasible" or a time limit before the first).
type finitePoint struct {
	D          float64  `json:"D"`
	Gamma      *float64 `json:"gamma"`
	UpperBound *float64 `json:"upper_bound"`
	// recon_loss, adv_loss, min_adv_loss: null without a privatizer, whose
	// losses are NaN with no adv_loss (mip.FiniteOptimum)
	loss.Nullable[[]float64]
	Outputs    int              `json:"outputs"`
	Mechanism  [][]float64      `json:"mechanism"`
	Method     string           `json:"method"`
	Alphabet   int              `json:"alphabet"`
	LowerBound bool             `json:"lower_bound"`
	Status     string           `json:"status"`
	MIPGap     float64          `json:"mip_gap"`
	Nodes      int64            `json:"nodes"`
	SolveMS    float64          `json:"solve_ms"`
	Cert       *mip.Certificate `json:"certificate,omitempty"`
	// Fallback: why the global LP did not answer where column generation
	// did (the point's method).
	Fallback   string             `json:"fallback,omitempty"`
	Iterations []finiteIterationJ `json:"iterations,omitempty"`
}

type finiteIterationJ struct {
	Iteration int         `json:"iteration"`
	Lower     float64     `json:"lower"`
	Upper     float64     `json:"upper"`
	Columns   int         `json:"columns"`
	Pricing   mip.Pricing `json:"pricing"`
	ElapsedMS float64     `json:"elapsed_ms"`
}

// finite returns &x, or nil for NaN (JSON has no NaN).
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func finiteJSON(m mip.Finite, sol mip.FiniteSolution, ds []float64) finiteDoc {
	var doc finiteDoc
	doc.Model.N, doc.Model.K = m.N(), m.K()
	doc.Model.DMin, doc.Model.DMax, doc.Model.AdvSaturation = m.DMin(), m.DMax(), m.AdvSaturation()
	doc.Model.Config = m.Config()
	doc.Solver = solverDoc{Name: "HiGHS", Version: mip.HiGHSVersion, FeasibilityJump: mip.DefaultSolver().FeasibilityJump}
	doc.Method = sol.Method
	if g := sol.Global; g != nil {
		doc.Global = &globalDoc{Rays: len(g.Rays()), Hyperplanes: g.Hyperplanes, Subsets: g.Subsets, EnumMS: float64(g.EnumTime.Microseconds()) / 1000}
	}
	doc.StoppedBy = sol.Stopped
	doc.Points.rest = ds[min(len(sol.Points), len(ds)):]
	doc.Points.solved = make([]finitePoint, len(sol.Points))
	for i, o := range sol.Points {
		doc.Points.solved[i] = finitePointOf(o)
	}
	return doc
}

// lossNullable is o's losses as JSON (null without a privatizer).
func lossNullable(o mip.FiniteOptimum) loss.Nullable[[]float64] {
	return loss.NullableOf[[]float64](&o.Losses)
}

// binaryGlobal is the --global block of mmds binary: the global optimum of
// the same binary model beside Proposition 2's binary-output one.
type binaryGlobalPoint struct {
	binaryPoint
	GlobalMinAdvLoss float64     `json:"global_min_adv_loss"`
	GlobalOutputs    int         `json:"global_outputs"`
	Mechanism        [][]float64 `json:"mechanism"`
}

type binaryGlobalDoc struct {
	binaryDoc
	Points pointsJSON[binaryGlobalPoint] `json:"points"`
}

func runBinaryGlobal(cmd *cobra.Command, format report.Format, m mip.Binary, sw binarySweep, plotPath string) error {
	opts, gl := sw.opts, sw.global
	if plotPath != "" {
		if err := writePlot(plotPath, plot.BinaryGlobalSpec(opts, gl)); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if format == report.JSON {
		doc := binaryGlobalDoc{binaryDoc: binaryJSON(m, sw)}
		doc.Points.rest = sw.notReached()
		for i, o := range opts {
			doc.Points.solved = append(doc.Points.solved, binaryGlobalPoint{binaryPoint: binaryPointOf(o),
				GlobalMinAdvLoss: gl[i].MinAdv, GlobalOutputs: gl[i].Mechanism.Outputs(), Mechanism: gl[i].Mechanism})
		}
		return report.WriteJSON(w, doc)
	}
	grid := binaryGrid(m, sw, format)
	num := func(x float64) string { return report.Fixed(x, 4) }
	if format == report.CSV {
		num = func(x float64) string { return report.Float(x, -1) }
		grid.Header = append(grid.Header, "global_min_adv_loss", "global_outputs")
	} else {
		grid.Header = append(grid.Header, "global", "gain", "outputs")
		grid.Title += "\nColumn global: the optimum over every privatizer, whatever its output alphabet (global LP); gain = global / Proposition 2."
	}
	for i := range grid.Rows {
		grid.Rows[i] = append(grid.Rows[i], num(gl[i].MinAdv))
		if format != report.CSV {
			gain := "—"
			if opts[i].MinAdv > 0 {
				gain = report.Fixed(gl[i].MinAdv/opts[i].MinAdv, 3) + "×"
			}
			grid.Rows[i] = append(grid.Rows[i], gain)
		}
		grid.Rows[i] = append(grid.Rows[i], strconv.Itoa(gl[i].Mechanism.Outputs()))
	}
	if err := emitSweep(w, format, grid, nil, notReachedIn(grid, sw.notReached(), "status")); err != nil {
		return err
	}
	if format == report.Table && len(sw.ds) == 1 {
		return printMechanisms(w, gl)
	}
	return nil
}
