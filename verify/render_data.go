package verify

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
)

// Render writes the empirical report of a run on a user's data in format:
// the verdict table and the estimators' table, CSV (one row per
// threshold), or JSON.
func (run *DataRun) Render(w io.Writer, rep *DataReport, format report.Format) error {
	switch format {
	case report.JSON:
		return report.WriteJSON(w, rep)
	case report.CSV:
		return dataGrid(run, rep, false).RenderCSV(w)
	}
	return writeDataTables(w, run, rep)
}

// writeDataTables writes the verdict table and the estimators' table.
func writeDataTables(buf io.Writer, run *DataRun, rep *DataReport) error {
	if err := dataGrid(run, rep, true).RenderTable(buf); err != nil {
		return err
	}
	d := estimatorGrid(rep)
	if len(d.Rows) == 0 {
		return nil
	}
	fmt.Fprintln(buf)
	return d.RenderTable(buf)
}

// dataGrid lays out a data report: per threshold mmds's held-out losses ±
// SE, the run's stated minimum adversarial loss, for discrete data the
// plug-in optimum, and the status.
func dataGrid(run *DataRun, rep *DataReport, human bool) *report.Grid {
	k := len(run.Spec.Adversaries)
	plug := run.Data.Symbolic()
	g := &report.Grid{Header: dataHeader(k, plug, human)}
	g.Rows = report.Cells(nil, func(p DataPoint) []string { return dataRow(p, k, plug, human) }, rep.Points)
	if human {
		s := run.Spec
		g.Title = fmt.Sprintf("%s (%s losses, %s method) on %s: %d test rows of %d, seed %d — empirical verdict, not a certificate",
			run.Dir, rep.Losses, rep.Method, safefile.Path(run.DataFile), s.Split.Test, s.Rows, s.Split.Seed)
		g.Notes = []string{rep.Note,
			"held-out losses: " + rep.Estimators + "; distortion is the reconstructor's.",
			fmt.Sprintf("status: over D when the distortion exceeds D + %d SE; leak found when an adversary's loss is below the run's stated loss of it (the larger of results.json's and its own network's) by more than %d SE; else no leak found.", DataSE, DataSE)}
		if run.DrawsNoise() {
			g.Notes = append(g.Notes, seedNote(rep))
		}
		if plug {
			g.Notes = append(g.Notes, "plug-in: the global optimum over all privatizers of the training split's empirical law at D (mip's LP), its channel held out as above; (train law) its value on the training law.")
		}
		for _, p := range rep.Points {
			if p.PlugIn != nil && p.PlugIn.Error != "" {
				g.Notes = append(g.Notes, fmt.Sprintf("D = %s: no plug-in optimum: %s", report.Num(p.D), p.PlugIn.Error))
			}
		}
	}
	return g
}

// seedNote says which seed drew the privatizer's noise and the MLP's
// starts, and how to repeat the report.
func seedNote(rep *DataReport) string {
	s := fmt.Sprintf("noise r and the MLP's starts: seed %d, %s (--seed %d repeats this report)", rep.Seed, rep.SeedFrom, rep.Seed)
	if rep.Seed == rep.RunSeed {
		s += "; it is the run's own seed, whose noise the run's author knows: a network can leak everywhere but there"
	}
	return s + "."
}

// dataHeader is the header of a data report with k adversaries, the
// plug-in optimum's columns when plug.
func dataHeader(k int, plug, human bool) []string {
	if human {
		h := append([]string{"D", "distortion"}, report.Numbered("adv %d", k)...)
		h = append(h, "min adv", "stated min adv")
		if plug {
			h = append(h, "plug-in distortion", "plug-in min adv", "(train law)")
		}
		return append(h, "status")
	}
	h := []string{"D", "recon", "recon_se", "recon_by"}
	for _, a := range report.Numbered("adv_%d", k) {
		h = append(h, a, a+"_se", a+"_by")
	}
	h = append(append(h, "min_adv"), report.Numbered("stated_adv_%d", k)...)
	h = append(append(h, "learned_recon"), report.Numbered("learned_adv_%d", k)...)
	h = append(append(h, "networks_recon"), report.Numbered("networks_adv_%d", k)...)
	if plug {
		h = append(h, "plugin_recon", "plugin_recon_se", "plugin_min_adv", "plugin_train_min_adv")
	}
	return append(h, "within_D", "leaks", "status")
}

// dataRow is one threshold's row of a data report (dataHeader's columns):
// an estimate is "mean ± SE" in a table, separate columns in CSV.
func dataRow(p DataPoint, k int, plug, human bool) []string {
	if human {
		return humanDataRow(p, k, plug)
	}
	blank := func(n int) []string { return make([]string, n) }
	row := []string{report.Num(p.D)}
	if h := p.HeldOut; h != nil {
		row = append(row, report.Num(h.Recon.Mean), report.Num(h.Recon.SE), h.By[0])
		for i, a := range h.Adv {
			row = append(row, report.Num(a.Mean), report.Num(a.SE), h.By[1+i])
		}
		row = report.Cells(append(row, report.Num(h.MinAdv)), report.Num, p.StatedAdv)
	} else {
		row = append(row, blank(3+3*k+1+k)...)
	}
	if l := p.Learned; l != nil {
		row = report.Cells(append(row, report.Num(l.Recon)), report.Num, l.Adv)
	} else {
		row = append(row, blank(1+k)...)
	}
	if n := p.Networks; n != nil {
		row = report.Cells(append(row, report.Num(n.Recon.Mean)), func(a Estimate) string { return report.Num(a.Mean) }, n.Adv)
	} else {
		row = append(row, blank(1+k)...)
	}
	if plug {
		if pi := p.PlugIn; pi != nil && pi.HeldOut != nil {
			row = append(row, report.Num(pi.HeldOut.Recon.Mean), report.Num(pi.HeldOut.Recon.SE), report.Num(pi.HeldOut.MinAdv), report.Num(pi.Train.MinAdv))
		} else {
			row = append(row, blank(4)...)
		}
	}
	leaks := report.Cells(nil, strconv.Itoa, p.Leaks)
	within := ""
	if p.HeldOut != nil {
		within = fmt.Sprint(p.WithinD)
	}
	return append(row, within, strings.Join(leaks, " "), p.Status.String())
}

// est writes a held-out loss for tables: "mean ± SE".
func est(e Estimate) string { return fmt.Sprintf("%s ± %s", f4(e.Mean), report.Float(e.SE, 2)) }

// humanDataRow is dataRow for a table.
func humanDataRow(p DataPoint, k int, plug bool) []string {
	row := []string{report.Num(p.D)}
	if h := p.HeldOut; h != nil {
		row = report.Cells(append(row, est(h.Recon)), est, h.Adv)
		row = append(row, f4(h.MinAdv), f4(slices.Min(p.StatedAdv)))
	} else {
		row = append(row, slices.Repeat([]string{"—"}, k+3)...)
	}
	if plug {
		if pi := p.PlugIn; pi != nil && pi.HeldOut != nil {
			row = append(row, est(pi.HeldOut.Recon), f4(pi.HeldOut.MinAdv), f4(pi.Train.MinAdv))
		} else {
			row = append(row, "—", "—", "—")
		}
	}
	status := p.Status.String()
	if len(p.Leaks) > 0 {
		status += " (" + strings.Join(report.Cells(nil, func(a int) string { return fmt.Sprintf("adv %d", a) }, p.Leaks), ", ") + ")"
	}
	return append(row, status)
}

// estimatorGrid is the table behind the verdict: per threshold and
// observer every held-out loss mmds computed, and the run's own numbers
// beside them (its networks on the test rows, the losses results.json
// records), which the verdict does not use.
func estimatorGrid(rep *DataReport) *report.Grid {
	g := &report.Grid{Title: "Held-out losses behind the verdict (test split, ± SE); the run's own numbers beside, not judged"}
	fitted := slices.ContainsFunc(rep.Points, func(p DataPoint) bool { return p.HeldOut != nil && len(p.HeldOut.Fits) > 0 })
	if fitted {
		g.Header = []string{"D", "observer", "linear", "k-NN", "(k)", "MLP", "run's network", "recorded"}
	} else {
		g.Header = []string{"D", "observer", "plug-in Bayes", "recorded"}
	}
	for _, p := range rep.Points {
		h := p.HeldOut
		if h == nil {
			continue
		}
		for i := range 1 + len(h.Adv) {
			name, mine, recorded := "reconstructor", h.Recon, p.Learned.Recon
			if i > 0 {
				name, mine, recorded = fmt.Sprintf("adv %d", i), h.Adv[i-1], p.Learned.Adv[i-1]
			}
			row := []string{report.Num(p.D), name}
			if !fitted {
				g.Rows = append(g.Rows, append(row, est(mine), f4(recorded)))
				continue
			}
			for _, r := range h.Fits[i] {
				row = append(row, est(r.Test))
				if r.K > 0 {
					row = append(row, fmt.Sprint(r.K))
				}
			}
			net := "—"
			if n := p.Networks; n != nil {
				ne := n.Recon
				if i > 0 {
					ne = n.Adv[i-1]
				}
				net = est(ne)
			}
			g.Rows = append(g.Rows, append(row, net, f4(recorded)))
		}
	}
	return g
}
