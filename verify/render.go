package verify

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
)

// The reports of mmds verify and mmds certify as a person or a program
// reads them: tables, CSV (the schemas of docs/verify.md and
// docs/certify.md), JSON, and the short summary.

// Render writes the report of run in format: the tables (the verdicts,
// then the learned mechanism or its linear fit), CSV (one row per
// threshold, every number in full), JSON, or with summary a few lines.
func (run *Run) Render(w io.Writer, rep *Report, format report.Format, summary bool) error {
	switch {
	case summary:
		return writeSummary(w, run, rep)
	case format == report.JSON:
		return report.WriteJSON(w, rep)
	case format == report.CSV:
		return verifyCSV(run, rep).RenderCSV(w)
	}
	return writeVerifyTables(w, run, rep)
}

// f4 formats a loss for tables: 4 significant digits, "—" for none.
func f4(x float64) string { return report.Float(x, 4) }

func writeVerifyTables(w io.Writer, run *Run, rep *Report) error {
	binary := run.Model.Kind().BinaryRelease() // soft and hard losses, the mechanism (s0, s1)
	names := model.AdversaryColumns(run.Model)
	main := &report.Grid{Title: verifyTitle(run, rep), Header: verifyHeader(binary, names)}
	detail := &report.Grid{Header: detailHeader(binary, names)}
	for _, p := range rep.Points {
		main.Rows = append(main.Rows, verifyRow(p, binary, len(main.Header)))
		if p.Finalized && p.Certified != nil && (p.Binary != nil || p.Gauss != nil) {
			// a channel (the labels method) has an exact certificate and no detail
			detail.Rows = append(detail.Rows, detailRow(p, binary))
		}
	}
	main.Notes = verifyNotes(run, rep)
	main.ReasonsBelow(len(main.Header)-1, func(r []string) string { return "D = " + r[0] })
	if err := main.RenderTable(w); err != nil {
		return err
	}
	if len(detail.Rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	if binary {
		detail.Title = "Learned mechanism (s0, s1) = (1 − E_r k(0,r), E_r k(1,r)), the optimum's (s0*, s1*), and the trained estimators' excess 0-1 error over MAP"
	} else {
		detail.Title = "Best linear-Gaussian fit F ≈ aX + bR + c (nonlinearity = residual/Var F; fit losses exact), and the trained estimators' excess MSE over Bayes"
	}
	return detail.RenderTable(w)
}

// verifyHeader is the main table's header; names are the adversaries'.
func verifyHeader(binary bool, names []string) []string {
	learnedHdr := "learned recon"
	if binary {
		learnedHdr = "learned recon (soft/hard)"
	}
	h := report.Cells([]string{"D", learnedHdr, "learned min adv", "certified recon"}, func(n string) string { return "certified " + n }, names)
	return append(h, "certified min adv", "optimum min adv", "gap", "gap at D", "gap tol", "verdict")
}

// verifyRow is p's row of the main table, of width cells; a threshold not
// finalized has only its D and verdict.
func verifyRow(p Point, binary bool, width int) []string {
	d := f4(p.D)
	if !p.Finalized || p.Certified == nil { // not finalized, or cannot certify: no numbers to show
		return append(append([]string{d}, slices.Repeat([]string{"—"}, width-2)...), p.Verdict)
	}
	l, c := p.Learned, p.Certified
	lr, la := f4(l.Recon), f4(l.MinAdv)
	if binary && l.ReconHard != nil && len(l.AdvHard) > 0 {
		lr += " / " + f4(*l.ReconHard)
		la += " / " + f4(loss.Min(l.AdvHard))
	}
	row := report.Cells([]string{d, lr, la, f4(c.Recon)}, f4, c.Adv)
	return append(row, f4(c.MinAdv), f4(p.Optimum.MinAdv), gapCell(*p.Gap), gapCell(*p.GapAtD), report.Float(*p.AdvTol, 3), p.Verdict)
}

// detailHeader is the detail table's header: the learned mechanism
// (binary) or its linear-Gaussian fit, and the estimators' excess losses.
func detailHeader(binary bool, names []string) []string {
	if binary {
		h := report.Cells([]string{"D", "s0", "s1", "s0*", "s1*", "recon excess (hard)"}, func(n string) string { return n + " excess (hard)" }, names)
		return append(h, "quadrature Δs")
	}
	h := report.Cells([]string{"D", "fit a", "fit b", "fit c", "nonlinearity", "fit recon", "fit min adv", "recon excess"}, func(n string) string { return n + " excess" }, names)
	return append(h, "stated error")
}

// f3 formats an excess loss for tables: 3 significant digits.
func f3(x float64) string { return report.Float(x, 3) }

// detailRow is p's row of the detail table.
func detailRow(p Point, binary bool) []string {
	d := f4(p.D)
	var dr []string
	if binary {
		b := p.Binary
		dr = []string{d, report.Fixed(b.S0, 4), report.Fixed(b.S1, 4), report.Fixed(p.Optimum.Binary().S0, 4), report.Fixed(p.Optimum.Binary().S1, 4), report.Float(p.Excess.Recon, 3)}
		return append(report.Cells(dr, f3, p.Excess.Adv), report.Float(b.Change, 2))
	}
	g := p.Gauss
	dr = []string{d, f4(g.Fit.A), f4(g.Fit.B), f4(g.Fit.C), report.Float(g.Fit.Nonlinearity, 3), f4(g.Fit.Recon), f4(g.Fit.MinAdv), report.Float(p.Excess.Recon, 3)}
	return append(report.Cells(dr, f3, p.Excess.Adv), report.Float(g.Change, 2))
}

func verifyTitle(run *Run, rep *Report) string {
	return fmt.Sprintf("Certificate of %s: %s model, %d thresholds, %d epochs; verifier's τ = %.4g, n = %d test rows",
		rep.Dir, rep.Model, len(rep.Points), rep.Epochs, rep.Tolerances.Tau, rep.Tolerances.TestSize)
}

func verifyNotes(run *Run, rep *Report) []string {
	t, d := rep.Tolerances, run.Model.Describe()
	n := []string{
		fmt.Sprintf("%d pass, %d fail, %d cannot certify, %d not finalized, %d not trained: %s", rep.Passed, rep.Failed, rep.CannotCertify, rep.NotFinalized, rep.NotTrained, passWord(rep.Pass)),
		fmt.Sprintf("tolerances: certified distortion in [max(0, D − %g·τ − %g·SE(D) − a), D + %g·SE(D) + a]; gap ≤ %g·SE(optimum) + a; stated error ≤ %g; a = %g × loss scale",
			t.BandTau, t.DistSE, t.DistSE, t.AdvSE, t.Quad, t.Abs),
		"gap: at the certified distortion D̂ (the verdict); gap at D: at the threshold asked for",
		referenceLine(d, t.Reference),
	}
	n = append(n, findings(rep)...)
	se := d.StdErr
	if run.Model.Kind().BinaryRelease() {
		se += "; learned losses are the soft ones Section V-B trains with, then the hard 0-1 errors"
	}
	return append(n, se, "optimum: "+d.Optimum)
}

func passWord(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// referenceLine says which optimum the verdicts use and what the "best" or
// "global" gap is.
func referenceLine(d model.Description, ref Reference) string {
	if ref == ReferenceBest {
		return d.BestVerdicts
	}
	return d.PaperVerdicts
}

// findings are the loud lines for learned privatizers that beat every
// mechanism mmds knows.
func findings(rep *Report) []string {
	var out []string
	for _, p := range rep.Points {
		if p.BeatsBest && p.BestKnown != nil {
			b := p.BestKnown
			out = append(out, fmt.Sprintf("FINDING: at D = %s the learned privatizer passes and beats every mechanism mmds knows: certified distortion %s, min adversarial loss %s; the best known at D = %s has %s (%s), by more than the margin %s of both numbers' errors (please report it, with this results directory)",
				f4(p.D), report.Shortest(p.Certified.Recon), report.Shortest(p.Certified.MinAdv), f4(b.D), report.Shortest(b.MinAdv), b.Source, report.Float(b.Margin, 2)))
		}
	}
	return out
}

// writeSummary prints a few lines per model: the counts, then
// summaryPoints.
func writeSummary(w io.Writer, run *Run, rep *Report) error {
	_ = report.SayWrapped(w, "%s: %s model, %d epochs: %d of %d thresholds pass, %d fail, %d cannot certify, %d not finalized, %d not trained: %s",
		rep.Dir, rep.Model, rep.Epochs, rep.Passed, len(rep.Points), rep.Failed, rep.CannotCertify, rep.NotFinalized, rep.NotTrained, passWord(rep.Pass))
	return summaryPoints(w, run.Model.Describe(), rep, nil)
}

// summaryPoints prints the body of the --summary of mmds verify and mmds
// certify, the same columns for the same model: the reference of the
// verdicts, the findings, and one line per point (after names[i], when
// given, the privatizer's file on a line of its own), with the gap to the
// wider optimum ("global", "best") where the model has one; a line longer
// than report.MaxWidth wraps.
func summaryPoints(w io.Writer, d model.Description, rep *Report, names []string) error {
	_ = report.Sayf(w, "  %s", referenceLine(d, rep.Tolerances.Reference))
	for _, l := range findings(rep) {
		_ = report.SayWrapped(w, "  %s", l)
	}
	for i, p := range rep.Points {
		head := fmt.Sprintf("  D = %-8s ", f4(p.D))
		if names != nil { // on a line of its own: a path may be long
			_ = report.Sayf(w, "  %s:", names[i])
		}
		if !p.Finalized || p.Certified == nil {
			_ = report.SayWrapped(w, "%s%s", head, p.Verdict)
			continue
		}
		alt := ""
		switch {
		case p.GapBest != nil:
			alt = fmt.Sprintf(" %s %-9s", d.Wider, gapCell(*p.GapBest))
		case p.GapGlobal != nil:
			alt = fmt.Sprintf(" %s %-9s", d.Wider, gapCell(*p.GapGlobal))
		}
		nums := fmt.Sprintf("%scertified distortion %-8s min adv %-8s optimum %-8s gap %-9s gap at D %-9s%s",
			head, f4(p.Certified.Recon), f4(p.Certified.MinAdv), f4(p.Optimum.MinAdv), gapCell(*p.Gap), gapCell(*p.GapAtD), alt)
		var err error
		if line := nums + " " + p.Verdict; twwidth.Width(line) <= report.MaxWidth {
			err = report.Sayf(w, "%s", line)
		} else { // the verdict whole on the next line
			_ = report.Sayf(w, "%s", strings.TrimRight(nums, " "))
			err = report.SayWrapped(w, "    %s", p.Verdict)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// verifyCSV is one row per threshold with every number at full precision.
func verifyCSV(run *Run, rep *Report) *report.Grid {
	binary := run.Model.Kind().BinaryRelease()
	k := run.Model.Adversaries()
	g := &report.Grid{Header: verifyCSVHeader(binary, k)}
	for _, p := range rep.Points {
		if !p.Finalized || p.Certified == nil { // not finalized, or cannot certify
			row := make([]string, len(g.Header))
			row[0], row[1] = report.Shortest(p.D), fmt.Sprint(p.Finalized)
			row[slices.Index(g.Header, "pass")] = "false"
			row[slices.Index(g.Header, "verdict")] = p.Verdict
			g.Rows = append(g.Rows, row)
			continue
		}
		g.Rows = append(g.Rows, verifyCSVRow(p, binary, k))
	}
	return g
}

// verifyCSVHeader is the CSV schema of docs/verify.md for k adversaries.
func verifyCSVHeader(binary bool, k int) []string {
	idx := func(base string) []string { return report.Numbered(base+"_%d", k) }
	h := []string{"D", "finalized", "learned_recon"}
	h = append(h, idx("learned_adv")...)
	h = append(h, "learned_min_adv")
	if binary {
		h = append(h, "learned_recon_hard")
		h = append(h, idx("learned_adv_hard")...)
	}
	h = append(h, "certified_recon")
	h = append(h, idx("certified_adv")...)
	h = append(h, "certified_min_adv", "optimum_D")
	h = append(h, idx("optimum_adv")...)
	h = append(h, "optimum_min_adv", "optimum_at_D_min_adv", "gap", "gap_at_D", "band_lo", "band_hi", "adv_tol", "pass", "verdict", "excess_recon")
	h = append(h, idx("excess_adv")...)
	if binary {
		return append(h, "s0", "s1", "optimum_s0", "optimum_s1", "quad_change")
	}
	return append(h, "fit_a", "fit_b", "fit_c", "nonlinearity", "fit_recon", "fit_min_adv", "quad_change")
}

// verifyCSVRow is the row of a finalized threshold, every number in full.
func verifyCSVRow(p Point, binary bool, k int) []string {
	full := report.Shortest
	fulls := func(row []string, xs []float64) []string { return report.Cells(row, full, xs) }
	l, c, o := p.Learned, p.Certified, p.Optimum
	row := []string{full(p.D), "true", full(l.Recon)}
	row = append(fulls(row, l.Adv), full(l.MinAdv))
	if binary {
		if l.ReconHard != nil && len(l.AdvHard) == k {
			row = fulls(append(row, full(*l.ReconHard)), l.AdvHard)
		} else {
			row = append(row, make([]string, 1+k)...)
		}
	}
	row = fulls(append(row, full(c.Recon)), c.Adv)
	row = fulls(append(row, full(c.MinAdv), full(o.D)), o.Adv)
	row = append(row, full(o.MinAdv), full(p.OptimumAtD.MinAdv), full(*p.Gap), full(*p.GapAtD), full(p.DistortionBand[0]), full(p.DistortionBand[1]),
		full(*p.AdvTol), fmt.Sprint(p.Pass), p.Verdict, full(p.Excess.Recon))
	row = fulls(row, p.Excess.Adv)
	switch {
	case binary && p.Binary != nil:
		return append(row, full(p.Binary.S0), full(p.Binary.S1), full(o.Binary().S0), full(o.Binary().S1), full(p.Binary.Change))
	case binary:
		return append(row, make([]string, 5)...) // a channel (the labels method): exact, no mechanism fit
	case p.Gauss == nil:
		return append(row, make([]string, 7)...) // a channel or cell kernel: no linear fit
	}
	f := p.Gauss.Fit
	return append(row, full(f.A), full(f.B), full(f.C), full(f.Nonlinearity), full(f.Recon), full(f.MinAdv), full(p.Gauss.Change))
}

// gapCell rounds a gap for reading: below 1e-12 in size it is rounding in
// the loss sums, shown as 0 (CSV and JSON keep the exact value).
func gapCell(g float64) string {
	if math.Abs(g) < 1e-12 {
		g = 0
	}
	return report.Float(g, 3)
}

// certifyPoint is one row of mmds certify's JSON output.
type certifyPoint struct {
	Point
	Privatizer string `json:"privatizer"`
	SHA256     string `json:"privatizer_sha256"`
}

type certifyJSON struct {
	Model         model.Kind     `json:"model"`
	ModelSHA256   string         `json:"model_sha256"`
	Tolerances    Tolerances     `json:"tolerances"`
	Points        []certifyPoint `json:"points"`
	Passed        int            `json:"passed"`
	Failed        int            `json:"failed"`
	CannotCertify int            `json:"cannot_certify"`
	Pass          bool           `json:"pass"`
}

// Render writes the report of the files' certification (Certify) in
// format: the table, CSV (one row per input), JSON (the report with each
// input's file and hash), or with summary the short form of mmds verify
// --summary, each point under its file's name.
func (f *Files) Render(w io.Writer, rep *Report, format report.Format, summary bool) error {
	doc := certifyJSON{Model: rep.Model, ModelSHA256: rep.ModelSHA256, Tolerances: rep.Tolerances,
		Passed: rep.Passed, Failed: rep.Failed, CannotCertify: rep.CannotCertify, Pass: rep.Pass}
	for i, p := range rep.Points {
		doc.Points = append(doc.Points, certifyPoint{Point: p, Privatizer: f.Inputs[i].Path, SHA256: f.Inputs[i].SHA256})
	}
	switch {
	case summary:
		return writeCertifySummary(w, f.Model, rep, doc)
	case format == report.JSON:
		return report.WriteJSON(w, doc)
	case format == report.CSV:
		return certifyGrid(f.Model, doc, false).RenderCSV(w)
	}
	return certifyGrid(f.Model, doc, true).RenderTable(w)
}

// certifyGrid lays out one row per point.
func certifyGrid(m model.Model, doc certifyJSON, human bool) *report.Grid {
	// Every number in full in CSV; in a table, rounded for reading.
	num, change, gap, tol := report.Shortest, report.Shortest, report.Shortest, report.Shortest
	if human {
		num, change, gap, tol = f4, func(x float64) string { return report.Float(x, 2) }, gapCell, f3
	}
	g := &report.Grid{Header: append([]string{"D", "privatizer", "certified recon"}, report.Numbered("certified adv %d", m.Adversaries())...)}
	g.Header = append(g.Header, "certified min adv", "error", "optimum at D̂", "optimum at D", "gap", "gap at D", "gap tol", "verdict")
	if !human {
		for i, h := range g.Header {
			g.Header[i] = strings.NewReplacer(" ", "_", "D̂", "D_hat").Replace(h)
		}
	}
	for _, p := range doc.Points {
		c := p.Certified
		if c == nil { // cannot certify: no sound number to show
			row := append([]string{num(p.D), p.Privatizer}, make([]string, len(g.Header)-3)...)
			g.Rows = append(g.Rows, append(row, p.Verdict))
			continue
		}
		row := report.Cells([]string{num(p.D), p.Privatizer, num(c.Recon)}, num, c.Adv)
		row = append(row, num(c.MinAdv), change(*p.Change), num(p.Optimum.MinAdv), num(p.OptimumAtD.MinAdv), gap(*p.Gap), gap(*p.GapAtD), tol(*p.AdvTol))
		g.Rows = append(g.Rows, append(row, p.Verdict))
	}
	if human {
		t := doc.Tolerances
		g.Title = fmt.Sprintf("Certificate of %s on a %s model (sha256 %s…)", report.Plural(len(doc.Points), "privatizer"), doc.Model, doc.ModelSHA256[:12])
		g.Notes = []string{
			fmt.Sprintf("%d pass, %d fail, %d cannot certify: %s", doc.Passed, doc.Failed, doc.CannotCertify, passWord(doc.Pass)),
			fmt.Sprintf("tolerances: D̂ in [max(0, D − %g·τ − %g·SE(D) − a), D + %g·SE(D) + a], τ = %.4g; gap ≤ %g·SE(optimum) + a, n = %d; stated error ≤ %g; a = %g × loss scale",
				t.BandTau, t.DistSE, t.DistSE, t.Tau, t.AdvSE, t.TestSize, t.Quad, t.Abs),
			"gap: against the optimum at the certified distortion D̂ (the verdict); gap at D: at the threshold asked for",
		}
		for _, p := range doc.Points {
			if p.Gauss != nil && p.Rounding != nil {
				g.Notes = append(g.Notes, "error: on the Gaussian model the runtime's rounding enters under a stated model: observers do not read the release below its rounding bound (docs/certify.md, \"Real-valued releases\")")
				break
			}
		}
		g.ReasonsBelow(len(g.Header)-1, func(r []string) string { return "D = " + r[0] + ", " + r[1] })
	}
	return g
}

// writeCertifySummary prints mmds verify --summary's short form: the
// counts, then summaryPoints, each line naming its privatizer file.
func writeCertifySummary(w io.Writer, m model.Model, rep *Report, doc certifyJSON) error {
	_ = report.SayWrapped(w, "%s model (sha256 %s…): %d of %d privatizers pass, %d fail, %d cannot certify: %s",
		doc.Model, doc.ModelSHA256[:12], doc.Passed, len(doc.Points), doc.Failed, doc.CannotCertify, passWord(doc.Pass))
	names := report.Cells(make([]string, 0, len(doc.Points)), func(p certifyPoint) string { return p.Privatizer }, doc.Points)
	return summaryPoints(w, m.Describe(), rep, names)
}
