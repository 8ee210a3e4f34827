package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type benchOut struct {
	Runs []struct {
		Solver       string   `json:"solver"`
		Variant      string   `json:"variant"`
		Status       string   `json:"status"`
		Seconds      float64  `json:"seconds"`
		Objective    *float64 `json:"objective"`
		OptimalValue *float64 `json:"optimal_value"`
	} `json:"runs"`
	Summary []struct {
		Solver  string   `json:"solver"`
		Variant string   `json:"variant"`
		Solved  int      `json:"solved"`
		SGM     *float64 `json:"shifted_geomean_s"`
		Shift   float64  `json:"shift_s"`
	} `json:"summary"`
	Solvers []struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		Available bool   `json:"available"`
		Threads   int    `json:"threads"`
	} `json:"solvers"`
	Machine struct {
		OS  string `json:"os"`
		CPU string `json:"cpu"`
	} `json:"machine"`
}

// TestBenchJSONContractAndFigures: every run of a small benchmark is
// optimal, in every solver that runs here. The limit per solve is generous
// (the default 10 s stopped CBC on a loaded machine): the test checks the
// document, not the solvers' speed.
func TestBenchJSONContractAndFigures(t *testing.T) {
	dir := t.TempDir()
	plot, profile := filepath.Join(dir, "scaling.svg"), filepath.Join(dir, "profile.png")
	code, out, errs := runCLI(t, "bench", "--n", "2:2", "--k", "1,2", "--format", "json", "--plot", plot, "--profile", profile, "--cbc", "--glpk",
		"--time-limit", "10m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc benchOut
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	avail := 0
	for _, s := range doc.Solvers {
		if s.Available {
			avail++
			if s.Version == "" || s.Threads != 1 {
				t.Errorf("solver %+v", s)
			}
		}
	}
	if doc.Solvers[0].Name != "HiGHS" || len(doc.Solvers) != 3 || doc.Machine.OS == "" {
		t.Fatalf("solvers %+v machine %+v", doc.Solvers, doc.Machine)
	}
	// 2 models × (5 formulations + the global LP) per available solver.
	if len(doc.Runs) != 12*avail {
		t.Fatalf("%d runs, want %d", len(doc.Runs), 12*avail)
	}
	for _, r := range doc.Runs {
		if r.Status != "optimal" || r.Objective == nil || r.Seconds <= 0 {
			t.Errorf("run %+v", r)
		}
		// Every global LP is certified, and its objective is −γ* (< 0).
		if r.Variant == "global LP" && (r.OptimalValue == nil || *r.Objective >= 0) {
			t.Errorf("global LP run %+v", r)
		}
	}
	for _, s := range doc.Summary {
		if s.Shift != 10 || s.SGM == nil || *s.SGM <= 0 {
			t.Errorf("summary %+v", s)
		}
	}
	for _, p := range []string{plot, profile} {
		if fi, err := os.Stat(p); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", p, err)
		}
	}
	// bench plot draws the same figures again from the JSON document.
	docFile, plot2, profile2 := filepath.Join(dir, "runs.json"), filepath.Join(dir, "scaling2.svg"), filepath.Join(dir, "profile2.png")
	if err := os.WriteFile(docFile, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "bench", "plot", docFile, "--plot", plot2, "--profile", profile2); code != 0 {
		t.Fatalf("bench plot: exit %d: %s", code, errs)
	}
	for _, p := range [][2]string{{plot, plot2}, {profile, profile2}} {
		a, errA := os.ReadFile(p[0])
		b, errB := os.ReadFile(p[1])
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s drawn again from the JSON document differs from the run's %s (%v, %v)", p[1], p[0], errA, errB)
		}
	}
}

func TestBenchLibraryAndRun(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	code, out, errs := runCLI(t, "bench", "library", lib)
	if code != 0 || !strings.Contains(out, "wrote 84 instances (84 with a certified optimal value)") || !strings.Contains(out, "library version 4, seed 1") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	// Keep three easy instances (one per source and kind), a hard global LP
	// (all four in the benchmark set) and a hard MIP of the collection only,
	// so the run is quick.
	data, err := os.ReadFile(filepath.Join(lib, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	var keep []any
	for _, e := range man["instances"].([]any) {
		name := e.(map[string]any)["name"].(string)
		if name == "bin-k1-i0-d0.25" || name == "fin-n2-k1-i0-d0.50-hull_sym" || name == "fin-n2-k1-i0-d0.50-global" || name == "fin-n3-k1-i0-d0.25-global" || name == "fin-n3-k1-i0-d0.25-M_1" {
			keep = append(keep, e)
		}
	}
	if len(keep) != 5 {
		t.Fatalf("kept %d instances", len(keep))
	}
	man["instances"] = keep
	data, _ = json.Marshal(man)
	if err := os.WriteFile(filepath.Join(lib, "manifest.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "bench", "run", lib, "--highs-file", "--format", "json", "--tier", "easy")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc benchOut
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// 3 instances × 2 solvers × 3 seeds (the default of bench run).
	if len(doc.Runs) != 18 {
		t.Fatalf("%d runs, want 18", len(doc.Runs))
	}
	for _, r := range doc.Runs {
		if r.Status != "optimal" || r.OptimalValue == nil {
			t.Errorf("run %+v", r)
		}
	}
	// --tier selects, within the benchmark set by default (the hard M = 1
	// MIP is not in it); the set is recorded. A tier the library lacks is
	// bad input, naming the tiers it has.
	code, out, errs = runCLI(t, "bench", "run", lib, "--tier", "hard", "--format", "json", "--seeds", "1", "--workers", "2")
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Runs) != 1 || doc.Runs[0].Variant != "global LP" || doc.Runs[0].Status != "optimal" {
		t.Errorf("--tier hard: exit %d, %v, runs %+v, %s", code, err, doc.Runs, errs)
	}
	var src struct {
		Source struct {
			Library struct {
				Set       string   `json:"set"`
				Instances int      `json:"instances"`
				LeftOut   []string `json:"left_out"`
			} `json:"library"`
		} `json:"source"`
		Workers int `json:"workers"`
	}
	// The manifest kept one of the hard tier's two instances in the
	// benchmark set: the report is of a part, and names what was left out.
	if err := json.Unmarshal([]byte(out), &src); err != nil || src.Source.Library.Set != "benchmark" || src.Source.Library.Instances != 1 || src.Workers != 2 ||
		!slices.Equal(src.Source.Library.LeftOut, []string{"fin-n3-k1-i0-d0.25-hull_sym"}) {
		t.Errorf("source %+v, %v", src, err)
	}
	if _, out, _ := runCLI(t, "bench", "run", lib, "--tier", "hard", "--seeds", "1"); !strings.Contains(out, "library: a part: manifest.json leaves out 1 of its 2 instances (fin-n3-k1-i0-d0.25-hull_sym)") {
		t.Errorf("--tier hard of a trimmed manifest: the title does not say what was left out:\n%s", out)
	}
	if code, out, errs := runCLI(t, "bench", "run", lib, "--tier", "easy,open"); code != exitUsage || out != "" ||
		!strings.Contains(errs, `--tier "open": the library has no instance of that tier (its tiers: easy, hard)`) {
		t.Errorf("--tier open on a library without it: exit %d, %s", code, errs)
	}
	// An optimum moved in manifest.json, its lines deleted from mmds.solu
	// and metadata.csv: mmds recomputes it from the library's version and
	// seed and refuses the instance before any solve, in one line.
	forged := filepath.Join(dir, "forged")
	if err := os.CopyFS(forged, os.DirFS(lib)); err != nil {
		t.Fatal(err)
	}
	first := keep[0].(map[string]any)
	first["optimal_value"] = first["optimal_value"].(float64) / 2
	data, _ = json.Marshal(man)
	if err := os.WriteFile(filepath.Join(forged, "manifest.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mmds.solu", "metadata.csv"} {
		b, _ := os.ReadFile(filepath.Join(forged, name))
		var lines []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if !strings.Contains(l, "bin-k1-i0-d0.25") {
				lines = append(lines, l)
			}
		}
		os.WriteFile(filepath.Join(forged, name), []byte(strings.Join(lines, "")), 0o644)
	}
	if code, out, errs := runCLI(t, "bench", "run", forged, "--tier", "easy"); code != exitUsage || out != "" ||
		!strings.Contains(errs, `instance "bin-k1-i0-d0.25": optimal value -0.050791842186724986 in manifest.json, -0.10158368437344997 recomputed by mmds from library version 4 seed 1`) ||
		strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("forged optimum without its cross-checks: exit %d, %s", code, errs)
	}
	// A changed file is refused before any solve (the SHA-256 is of the
	// MPS text inside the gzip).
	f := filepath.Join(lib, "bin-k1-i0-d0.25.mps.gz")
	zf, _ := os.Open(f)
	zr, err := gzip.NewReader(zf)
	if err != nil {
		t.Fatal(err)
	}
	mps, _ := io.ReadAll(zr)
	zf.Close()
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(append(mps, '\n'))
	zw.Close()
	os.WriteFile(f, zb.Bytes(), 0o644)
	if code, _, errs := runCLI(t, "bench", "run", lib); code != exitUsage || !strings.Contains(errs, "SHA-256") {
		t.Errorf("changed file: exit %d, %s", code, errs)
	}
}

// An open size beyond the global LP's ray budget (n = 6) is certified by
// column generation: every instance gets an optimal value, and metadata.csv
// says colgen.
func TestBenchLibraryOpenSizeByColGen(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "lib")
	code, out, errs := runCLI(t, "bench", "library", lib, "--open-n", "6")
	if code != 0 || !strings.Contains(out, "wrote 88 instances (88 with a certified optimal value)") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	meta, err := os.ReadFile(filepath.Join(lib, "metadata.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(string(meta), "\n") {
		if !strings.HasPrefix(line, "fin-n6-k1-") {
			continue
		}
		rows++
		if !strings.Contains(line, ",open,collection,finite n=6 K=1 #") || !strings.HasSuffix(line, ",colgen") {
			t.Errorf("metadata.csv row %q", line)
		}
	}
	if rows != 4 {
		t.Errorf("%d n = 6 rows in metadata.csv, want 4 (two models, derivedM and hull+sym; no global LP)", rows)
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
		{[]string{"--shift", "0s"}, "--shift 0s: must be > 0"},
		{[]string{"--threads", "-1"}, "--threads -1"},
		{[]string{"--seeds", "0"}, "--seeds 0: must be in [1, 100]"},
		{[]string{"run", "lib", "--seeds", "101"}, "--seeds 101"},
		{[]string{"--write-mps", "/nonexistent/dir"}, "not an existing folder"},
		{[]string{"--plot", "x.pdf"}, "must end in .png or .svg"},
		{[]string{"--profile", "x"}, "--profile \"x\""},
		{[]string{"--format", "yaml"}, "--format \"yaml\""},
		{[]string{"run", "/nonexistent/lib"}, `"/nonexistent/lib": does not exist: want an instance library`},
		{[]string{"library"}, "accepts 1 arg"},
		{[]string{"library", "x", "--open-n", "4"}, "--open-n 4: each must be in [5, 8]"},
		{[]string{"run", "lib", "--set", "hard"}, `--set "hard": must be benchmark, collection or all`},
		{[]string{"run", "lib", "--set", ""}, `--set "": empty: give benchmark, collection or all`},
		{[]string{"--workers", "0"}, "--workers 0: must be in [1, 64]"},
		{[]string{"run", "lib", "--workers", "65"}, "--workers 65"},
		{[]string{"plot", "runs.json"}, "give --profile FILE, --plot FILE or both"},
		{[]string{"plot", "runs.json", "--plot", "x.pdf"}, `--plot "x.pdf": the file name must end in .png or .svg`},
		{[]string{"plot", "/nonexistent/runs.json", "--plot", "x.svg"}, "FILE /nonexistent/runs.json does not exist"},
		{[]string{"plot", "../../README.md", "--plot", filepath.Join(t.TempDir(), "x.svg")}, "FILE ../../README.md: not a JSON document of mmds bench"},
	} {
		code, out, errs := runCLI(t, append([]string{"bench"}, tc.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

// cancelOnProgress cancels a run after its third progress line, as Ctrl-C
// would mid-run.
type cancelOnProgress struct {
	bytes.Buffer
	cancel context.CancelFunc
	lines  int
}

func (w *cancelOnProgress) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("[")) {
		if w.lines++; w.lines == 3 {
			w.cancel()
		}
	}
	return w.Buffer.Write(p)
}

// Ctrl-C during a bench writes what finished, marked interrupted, says
// where, and exits 130.
func TestBenchInterruptedWritesWhatFinished(t *testing.T) {
	dir := t.TempDir()
	jsonOut := filepath.Join(dir, "runs.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &cancelOnProgress{cancel: cancel}
	var out bytes.Buffer
	code := run(ctx, []string{"bench", "--n", "2:2", "--k", "1,2", "--seeds", "2", "--json-out", jsonOut}, &out, errw)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errw.String())
	}
	if !strings.Contains(errw.String(), "interrupted; 3 of 24 solves finished") || !strings.Contains(errw.String(), jsonOut) {
		t.Errorf("stderr %s", errw.String())
	}
	if !strings.Contains(out.String(), "INTERRUPTED") {
		t.Errorf("stdout %s", out.String())
	}
	data, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Interrupted bool              `json:"interrupted"`
		Runs        []json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || !doc.Interrupted || len(doc.Runs) != 3 {
		t.Errorf("JSON: %v, interrupted %v, %d runs", err, doc.Interrupted, len(doc.Runs))
	}
}
