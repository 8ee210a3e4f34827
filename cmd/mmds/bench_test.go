package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchJSONAndPlot(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "scaling.svg")
	code, out, errs := runCLI(t, "bench", "--n", "2:2", "--k", "1,2", "--format", "json", "--plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rows []struct {
			N         int      `json:"n"`
			Variant   string   `json:"variant"`
			Status    string   `json:"status"`
			Objective *float64 `json:"objective"`
			Gap       *float64 `json:"gap"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 2*6 {
		t.Fatalf("%d rows, want 12", len(doc.Rows))
	}
	for _, r := range doc.Rows {
		if r.Status != "Optimal" || r.Objective == nil || r.Gap == nil {
			t.Errorf("row %+v", r)
		}
	}
	if fi, err := os.Stat(plot); err != nil || fi.Size() < 1000 {
		t.Errorf("plot: %v", err)
	}
}

func TestBenchBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "1:3"}, "--n \"1:3\": want NMIN:NMAX with 2 ≤ NMIN ≤ NMAX ≤ 8"},
		{[]string{"--n", "4:3"}, "--n \"4:3\""},
		{[]string{"--k", "0"}, "--k 0: must be in [1, 8]"},
		{[]string{"--fractions", "1.5"}, "--fractions 1.5: each must be in [0, 1]"},
		{[]string{"--instances", "0"}, "--instances 0"},
		{[]string{"--time-limit", "-2s"}, "--time-limit -2s"},
		{[]string{"--cbc"}, "give --write-mps DIR too"},
		{[]string{"--write-mps", "/nonexistent/dir"}, "not an existing folder"},
		{[]string{"--plot", "x.pdf"}, "must end in .png or .svg"},
		{[]string{"--format", "yaml"}, "--format \"yaml\""},
	} {
		code, out, errs := runCLI(t, append([]string{"bench"}, tc.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}
