package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify"
)

// runVerifyData reports a run on a user's data: held-out losses with
// standard errors and, for discrete data, the plug-in optimum beside them.
// Exit 1 when a threshold is not finalized or its held-out distortion is
// above D + 2 SE.
func runVerifyData(cmd *cobra.Command, run *verify.DataRun, o verifyOpts, format report.Format) error {
	rep, err := verify.CertifyData(cmd.Context(), run, model.Options{})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if format == report.JSON {
		err = report.WriteJSON(&buf, rep)
	} else {
		err = emit(&buf, format, dataGrid(run, rep, format == report.Table), nil)
	}
	if err != nil {
		return err
	}
	if err := writeOutput(cmd.OutOrStdout(), o.out, buf.Bytes()); err != nil {
		return err
	}
	if !rep.Pass && !o.reportOnly {
		return exitError{exitFailure, fmt.Errorf("%s: %d of %d thresholds have their held-out distortion within D + 2 SE", run.Dir, rep.Within, len(rep.Points))}
	}
	return nil
}

// refuseCertFlags refuses the flags of a certificate for the data run in
// dir, before its data file is read.
func refuseCertFlags(cmd *cobra.Command, dir string) error {
	for _, f := range []string{"certificate", "check", "summary"} {
		if cmd.Flags().Changed(f) {
			return badInput("--%s: %s is a run on a user's data (mmds train data): there is no exact optimum to certify against, so no certificate; drop --%s", f, dir, f)
		}
	}
	return nil
}

// dataGrid lays out a data report: per threshold the held-out losses ± SE
// and, for discrete data, the plug-in optimum's held-out losses.
func dataGrid(run *verify.DataRun, rep *verify.DataReport, human bool) *report.Grid {
	k := len(run.Spec.Adversaries)
	plug := run.Data.Symbolic()
	g := &report.Grid{Header: dataHeader(k, plug, human)}
	for _, p := range rep.Points {
		g.Rows = append(g.Rows, dataRow(p, k, plug, human))
	}
	if human {
		s := run.Spec
		g.Title = fmt.Sprintf("%s (%s losses, %s method) on %s: %d test rows of %d, seed %d",
			run.Dir, rep.Losses, rep.Method, safefile.Path(run.DataFile), s.Split.Test, s.Rows, s.Split.Seed)
		g.Notes = []string{rep.Note,
			"status: within D when the held-out distortion is at most D + 2 SE."}
		if plug {
			g.Notes = append(g.Notes, "plug-in: the global optimum over all privatizers of the training split's empirical law at D (mip's LP), its channel's losses on the test split's empirical law; (train law) its value on the training law.")
		}
		for _, p := range rep.Points {
			if p.PlugIn != nil && p.PlugIn.Error != "" {
				g.Notes = append(g.Notes, fmt.Sprintf("D = %s: no plug-in optimum: %s", num(p.D), p.PlugIn.Error))
			}
		}
	}
	return g
}

// dataHeader is the header of a data report with k adversaries, the
// plug-in optimum's columns when plug.
func dataHeader(k int, plug, human bool) []string {
	pm := "±"
	if !human {
		pm = "_se"
	}
	h := []string{"D", "held-out recon"}
	if !human {
		h = []string{"D", "recon", "recon_se"}
	}
	for i := range k {
		if human {
			h = append(h, fmt.Sprintf("held-out adv %d", i+1))
		} else {
			h = append(h, fmt.Sprintf("adv_%d", i+1), fmt.Sprintf("adv_%d%s", i+1, pm))
		}
	}
	h = append(h, "min adv")
	if plug {
		if human {
			h = append(h, "plug-in recon", "plug-in min adv", "(train law)")
		} else {
			h = append(h, "plugin_recon", "plugin_recon_se", "plugin_min_adv", "plugin_train_min_adv")
		}
	}
	return append(h, "status")
}

// dataRow is one threshold's row of a data report (dataHeader's columns):
// an estimate is "mean ± SE" in a table, two columns in CSV.
func dataRow(p verify.DataPoint, k int, plug, human bool) []string {
	est := func(e verify.Estimate) []string {
		if human {
			return []string{fmt.Sprintf("%s ± %s", f4(e.Mean), report.Float(e.SE, 2))}
		}
		return []string{num(e.Mean), num(e.SE)}
	}
	blank := func(n int) []string { return make([]string, n) }
	w := 2
	if human {
		w = 1
	}
	row := []string{num(p.D)}
	if h := p.HeldOut; h != nil {
		row = append(row, est(h.Recon)...)
		for _, a := range h.Adv {
			row = append(row, est(a)...)
		}
		row = append(row, f4(h.MinAdv))
	} else {
		row = append(row, blank(w*(1+k)+1)...)
	}
	if plug {
		switch pi := p.PlugIn; {
		case pi != nil && pi.HeldOut != nil:
			row = append(row, est(pi.HeldOut.Recon)...)
			row = append(row, f4(pi.HeldOut.MinAdv), f4(pi.Train.MinAdv))
		case human:
			row = append(row, "—", "—", "—")
		default:
			row = append(row, blank(4)...)
		}
	}
	return append(row, p.Status.String())
}
