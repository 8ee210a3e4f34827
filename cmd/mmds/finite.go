package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/mip"
)

type finiteFlags struct {
	config, alphabet, sweep, format, writeModel string
	d                                           float64
	mechanisms                                  bool
	timeLimit                                   time.Duration
	maxSubsets                                  int64
}

func newFiniteCmd() *cobra.Command {
	var f finiteFlags
	cmd := &cobra.Command{
		Use:   "finite",
		Short: "Exact optimum of a general finite model: over all privatizers (global LP) or a fixed output alphabet (MIP)",
		Long: `finite solves a general finite model: X ∈ {0..n−1} with a prior, the
reconstructor's channel P(Y|X), one channel P(Z_i|X) per adversary, and loss
matrices (default 0-1). For each D it maximizes the smallest adversarial Bayes
risk subject to the reconstructor's Bayes risk ≤ D.

--alphabet global (the default) optimizes over every randomized privatizer,
whatever its output alphabet, by one LP over the extreme rays of the common
refinement of all observers' decision regions; the optimal mechanism needs at
most n + K + 1 outputs. --alphabet m restricts F to m outputs and solves a
mixed-integer program. Without --config it solves the paper's binary model
(p = 0.54, q_Y = 0.2, q_Z = 0.44).`,
		Example: `  mmds finite --config examples/finite-ternary.json
  mmds finite --config examples/finite-paper-binary.json --d 0.1
  mmds finite --config examples/finite-ternary.json --alphabet 2 --format json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runFinite(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "JSON model file (default: the paper's binary model)")
	fl.StringVar(&f.alphabet, "alphabet", "global", "output alphabet: global (every privatizer) or a size m in [1, 64]")
	fl.Float64Var(&f.d, "d", 0, "a single distortion threshold D ≥ D_min")
	fl.StringVar(&f.sweep, "sweep", "", "thresholds D0:D1:N (default 11 values from D_min to D_max)")
	fl.StringVar(&f.format, "format", "table", "output format: table, csv or json")
	fl.BoolVar(&f.mechanisms, "mechanisms", false, "print every point's optimal mechanism P(F|X) (always with a single --d)")
	fl.DurationVar(&f.timeLimit, "time-limit", 0, "HiGHS time limit per MIP solve, e.g. 30s (0: none)")
	fl.Int64Var(&f.maxSubsets, "max-subsets", mip.DefaultMaxSubsets, "budget of linear systems for the global ray enumeration; beyond it the global optimum falls back on fixed-alphabet MIPs")
	fl.StringVar(&f.writeModel, "write-model", "", "also write each LP/MIP to this .mps or .lp file (a sweep inserts -NN before the extension)")
	return cmd
}

// loadFinite reads --config, or returns the paper's binary model.
func loadFinite(path string) (mip.Finite, error) {
	if path == "" {
		return mip.PaperBinary().Finite(), nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return mip.Finite{}, badInput("--config: %v", err)
	}
	defer fh.Close()
	m, err := mip.ParseFiniteConfig(fh)
	if err != nil {
		return mip.Finite{}, badInput("--config %s: %v", path, err)
	}
	return m, nil
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

func runFinite(cmd *cobra.Command, f finiteFlags) error {
	m, err := loadFinite(f.config)
	if err != nil {
		return err
	}
	alpha, err := parseAlphabet(f.alphabet)
	if err != nil {
		return err
	}
	format, err := outputFormat(f.format)
	if err != nil {
		return err
	}
	if f.timeLimit < 0 {
		return badInput("--time-limit %v: must be ≥ 0", f.timeLimit)
	}
	if f.maxSubsets < 1 {
		return badInput("--max-subsets %d: must be ≥ 1", f.maxSubsets)
	}
	def := sweep.Spec{D0: m.DMin(), D1: m.DMax(), N: 11}
	if def.D1 <= def.D0 {
		def = sweep.Spec{D0: def.D0, D1: def.D0, N: 1}
	}
	ds, err := thresholds(cmd, f.d, f.sweep, def)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if d < m.DMin()-1e-12 {
			return badInput("D = %g: infeasible, below D_min = %.6g, the smallest reconstructor loss any privatizer achieves (that of F = X)", d, m.DMin())
		}
	}
	var files []string
	if f.writeModel != "" {
		if files, err = modelFileNames(f.writeModel, len(ds)); err != nil {
			return err
		}
	}
	so := mip.DefaultSolver()
	so.TimeLimit = f.timeLimit
	var (
		opts []mip.FiniteOptimum
		g    *mip.Global
	)
	if alpha == 0 {
		opts, g, err = m.GlobalOrFallback(cmd.Context(), ds, mip.GlobalOptions{MaxSubsets: f.maxSubsets}, so)
	} else {
		opts, err = m.SweepFixed(cmd.Context(), ds, mip.FixedOptions{Outputs: alpha, Hull: true}, so)
	}
	if err != nil {
		return err
	}
	for i, path := range files {
		d := ds[i]
		write := func(tmp string) error {
			if g != nil {
				return g.WriteLP(d, tmp)
			}
			return m.WriteFixedModel(d, mip.FixedOptions{Outputs: max(alpha, m.GlobalOutputs()), Hull: true}, tmp)
		}
		if alpha > 0 {
			write = func(tmp string) error { return m.WriteFixedModel(d, mip.FixedOptions{Outputs: alpha, Hull: true}, tmp) }
		}
		if err := report.WriteFileAtomic(path, write); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if format == report.JSON {
		return report.WriteJSON(w, finiteJSON(m, g, opts))
	}
	if err := emit(w, format, finiteGrid(m, g, opts, format), nil); err != nil {
		return err
	}
	if format == report.Table && (f.mechanisms || len(opts) == 1) {
		return printMechanisms(w, opts)
	}
	return nil
}

// printMechanisms prints one P(F|X) table per point.
func printMechanisms(w io.Writer, opts []mip.FiniteOptimum) error {
	for _, o := range opts {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		g := mechanismGrid(o.Mechanism)
		g.Title = fmt.Sprintf("Optimal mechanism at D = %.6g: P(F = f | X = x), %s", o.D, plural(o.Mechanism.Outputs(), "output"))
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
	switch {
	case o.Alphabet == 0:
		return "global LP"
	case o.LowerBound:
		return fmt.Sprintf("MIP m=%d (lower bound)", o.Alphabet)
	}
	return fmt.Sprintf("MIP m=%d", o.Alphabet)
}

func finiteGrid(m mip.Finite, g *mip.Global, opts []mip.FiniteOptimum, f report.Format) *report.Grid {
	num := func(x float64) string { return report.Fixed(x, 4) }
	if f == report.CSV {
		num = func(x float64) string { return report.Float(x, -1) }
	}
	k := m.K()
	grid := &report.Grid{
		Title: fmt.Sprintf("Finite model: n = %d, K = %d; D_min = %.4g, D_max = %.4g, adversaries saturate at %s",
			m.N(), k, m.DMin(), m.DMax(), joinFloats(m.AdvSaturation())),
	}
	if f == report.CSV {
		grid.Header = []string{"D", "gamma", "recon_loss"}
		for i := 1; i <= k; i++ {
			grid.Header = append(grid.Header, fmt.Sprintf("adv_loss_%d", i))
		}
		grid.Header = append(grid.Header, "min_adv_loss", "outputs", "method", "lower_bound", "status", "mip_gap", "nodes", "solve_ms")
	} else {
		grid.Header = []string{"D", "γ*", "L_recon"}
		for i := 1; i <= k; i++ {
			grid.Header = append(grid.Header, fmt.Sprintf("L_adv,%d", i))
		}
		grid.Header = append(grid.Header, "min L_adv", "outputs", "method", "status", "ms")
	}
	for _, o := range opts {
		row := []string{num(o.D), num(o.Gamma), num(o.ReconLoss)}
		for _, a := range o.AdvLoss {
			row = append(row, num(a))
		}
		ms := float64(o.SolveTime.Microseconds()) / 1000
		if f == report.CSV {
			row = append(row, num(o.MinAdvLoss), strconv.Itoa(o.Mechanism.Outputs()), methodLabel(o), strconv.FormatBool(o.LowerBound),
				o.Status, report.Float(o.MIPGap, -1), strconv.FormatInt(o.Nodes, 10), report.Float(ms, -1))
		} else {
			row = append(row, num(o.MinAdvLoss), strconv.Itoa(o.Mechanism.Outputs()), methodLabel(o), o.Status, report.Fixed(ms, 2))
		}
		grid.Rows = append(grid.Rows, row)
	}
	if g != nil {
		grid.Notes = append(grid.Notes, fmt.Sprintf("Global LP over %d candidate rays (%d hyperplanes, %d linear systems, enumerated in %s).",
			len(g.Rays()), g.Hyperplanes, g.Subsets, g.EnumTime.Round(time.Microsecond)))
	}
	grid.Notes = append(grid.Notes, "Losses are exact Bayes risks recomputed from the reported mechanism; γ* is the solver's objective.")
	for _, o := range opts {
		if o.LowerBound {
			grid.Notes = append(grid.Notes, "Lower bound: the ray enumeration exceeded --max-subsets and the MIP with m = n + K + 1 outputs did not finish; the value is the best fixed alphabet HiGHS proved optimal.")
			break
		}
	}
	return grid
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
	Global *globalDoc    `json:"global,omitempty"`
	Points []finitePoint `json:"points"`
}

type globalDoc struct {
	Rays        int     `json:"rays"`
	Hyperplanes int     `json:"hyperplanes"`
	Subsets     int64   `json:"linear_systems"`
	EnumMS      float64 `json:"enumeration_ms"`
}

type finitePoint struct {
	D          float64     `json:"D"`
	Gamma      float64     `json:"gamma"`
	ReconLoss  float64     `json:"recon_loss"`
	AdvLoss    []float64   `json:"adv_loss"`
	MinAdvLoss float64     `json:"min_adv_loss"`
	Outputs    int         `json:"outputs"`
	Mechanism  [][]float64 `json:"mechanism"`
	Method     string      `json:"method"`
	Alphabet   int         `json:"alphabet"`
	LowerBound bool        `json:"lower_bound"`
	Status     string      `json:"status"`
	MIPGap     float64     `json:"mip_gap"`
	Nodes      int64       `json:"nodes"`
	SolveMS    float64     `json:"solve_ms"`
}

func finiteJSON(m mip.Finite, g *mip.Global, opts []mip.FiniteOptimum) finiteDoc {
	var doc finiteDoc
	doc.Model.N, doc.Model.K = m.N(), m.K()
	doc.Model.DMin, doc.Model.DMax, doc.Model.AdvSaturation = m.DMin(), m.DMax(), m.AdvSaturation()
	doc.Model.Config = m.Config()
	doc.Solver = solverDoc{Name: "HiGHS", Version: mip.HiGHSVersion, FeasibilityJump: mip.DefaultSolver().FeasibilityJump}
	if g != nil {
		doc.Global = &globalDoc{Rays: len(g.Rays()), Hyperplanes: g.Hyperplanes, Subsets: g.Subsets, EnumMS: float64(g.EnumTime.Microseconds()) / 1000}
	}
	doc.Points = make([]finitePoint, len(opts))
	for i, o := range opts {
		doc.Points[i] = finitePoint{
			D: o.D, Gamma: o.Gamma, ReconLoss: o.ReconLoss, AdvLoss: o.AdvLoss, MinAdvLoss: o.MinAdvLoss,
			Outputs: o.Mechanism.Outputs(), Mechanism: o.Mechanism, Method: methodLabel(o), Alphabet: o.Alphabet,
			LowerBound: o.LowerBound, Status: o.Status, MIPGap: o.MIPGap, Nodes: o.Nodes,
			SolveMS: float64(o.SolveTime.Microseconds()) / 1000,
		}
	}
	return doc
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
	Points []binaryGlobalPoint `json:"points"`
}

func runBinaryGlobal(cmd *cobra.Command, format report.Format, m mip.Binary, ds []float64, opts []mip.Optimum) error {
	g, err := m.Finite().PrepareGlobal(mip.GlobalOptions{})
	if err != nil {
		return err
	}
	gl, err := g.Sweep(cmd.Context(), ds, mip.DefaultSolver())
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if format == report.JSON {
		doc := binaryGlobalDoc{binaryDoc: binaryJSON(m, opts)}
		for i, p := range doc.binaryDoc.Points {
			doc.Points = append(doc.Points, binaryGlobalPoint{binaryPoint: p,
				GlobalMinAdvLoss: gl[i].MinAdvLoss, GlobalOutputs: gl[i].Mechanism.Outputs(), Mechanism: gl[i].Mechanism})
		}
		return report.WriteJSON(w, doc)
	}
	grid := binaryGrid(m, opts, format)
	num := func(x float64) string { return report.Fixed(x, 4) }
	if format == report.CSV {
		num = func(x float64) string { return report.Float(x, -1) }
		grid.Header = append(grid.Header, "global_min_adv_loss", "global_outputs")
	} else {
		grid.Header = append(grid.Header, "global", "gain", "outputs")
		grid.Title += "\nColumn global: the optimum over every privatizer, whatever its output alphabet (global LP); gain = global / Proposition 2."
	}
	for i := range grid.Rows {
		grid.Rows[i] = append(grid.Rows[i], num(gl[i].MinAdvLoss))
		if format != report.CSV {
			gain := "—"
			if opts[i].MinAdvLoss > 0 {
				gain = report.Fixed(gl[i].MinAdvLoss/opts[i].MinAdvLoss, 3) + "×"
			}
			grid.Rows[i] = append(grid.Rows[i], gain)
		}
		grid.Rows[i] = append(grid.Rows[i], strconv.Itoa(gl[i].Mechanism.Outputs()))
	}
	if err := emit(w, format, grid, nil); err != nil {
		return err
	}
	if format == report.Table && len(gl) == 1 {
		return printMechanisms(w, gl)
	}
	return nil
}
