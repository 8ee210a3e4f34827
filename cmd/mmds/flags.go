package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/sweep"
)

// sayf writes one line of human output, escaped (safefile.Printable): it
// may carry paths from the command line and names from files, which must
// not reach a terminal raw.
func sayf(w io.Writer, format string, args ...any) error {
	_, err := fmt.Fprintln(w, safefile.Printable(fmt.Sprintf(format, args...)))
	return err
}

// thresholds returns the distortion thresholds chosen by --d or --sweep
// (mutually exclusive), or def when neither is set.
func thresholds(cmd *cobra.Command, d float64, sweepStr string, def sweep.Spec) ([]float64, error) {
	dSet, sweepSet := cmd.Flags().Changed("d"), cmd.Flags().Changed("sweep")
	switch {
	case dSet && sweepSet:
		return nil, badInput("--d and --sweep are mutually exclusive: give one")
	case dSet:
		if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
			return nil, badInput("--d %v: must be a finite number ≥ 0", d)
		}
		return []float64{d}, nil
	case sweepSet:
		s, err := sweep.Parse("sweep", sweepStr)
		if err != nil {
			return nil, usageError{err}
		}
		return s.Values(), nil
	}
	return def.Values(), nil
}

// outputFormat validates --format.
func outputFormat(s string) (report.Format, error) {
	f, err := report.ParseFormat(s)
	if err != nil {
		return "", usageError{err}
	}
	return f, nil
}

// emit writes g as a table or CSV, or v as JSON, to w.
func emit(w io.Writer, f report.Format, g *report.Grid, v any) error {
	switch f {
	case report.CSV:
		return g.RenderCSV(w)
	case report.JSON:
		return report.WriteJSON(w, v)
	}
	return g.RenderTable(w)
}

// modelFileNames checks a --write-model path and returns one file name per
// threshold: the path itself for one threshold, else the path with "-NN"
// (1-based) inserted before the extension.
func modelFileNames(path string, n int) ([]string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".mps" && ext != ".lp" {
		return nil, badInput("--write-model %q: the file name must end in .mps or .lp", path)
	}
	if dir := filepath.Dir(path); dir != "." {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, badInput("--write-model %q: folder %q does not exist", path, dir)
		}
	}
	if n == 1 {
		return []string{path}, nil
	}
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	width := len(fmt.Sprint(n))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%0*d%s", stem, width, i+1, filepath.Ext(path))
	}
	return out, nil
}

// checkPaths refuses, before any work, an output that cannot be written
// (a folder, FIFO, device, dangling link, missing or read-only folder) or
// that would replace an input, another output, or a file an mmds folder
// reserves; and a folder of the wrong kind (report.CheckPaths): exit 2.
func checkPaths(paths ...report.Path) error {
	if err := report.CheckPaths(paths); err != nil {
		return usageError{err}
	}
	return nil
}

// stdoutPath maps an -o value of "-" (standard output) to "".
func stdoutPath(path string) string {
	if path == "-" {
		return ""
	}
	return path
}
