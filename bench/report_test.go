package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/report"
)

// Options.Validate names the flag, the value and the range of the first
// option out of range; every error is ErrInput.
func TestOptionsValidate(t *testing.T) {
	ok := Options{TimeLimit: time.Second, Shift: DefaultShift, Threads: 1, Seeds: 1, Workers: 1}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.TimeLimit = -1 }, "--time-limit -1ns: must be ≥ 0"},
		{func(o *Options) { o.Shift = 0 }, "--shift 0s: must be > 0"},
		{func(o *Options) { o.Threads = 65 }, "--threads 65: must be in [0, 64]"},
		{func(o *Options) { o.FirstSeed = -1 }, "--solver-seed -1: must be in [0, 2147483547]"},
		{func(o *Options) { o.Seeds = 0 }, "--seeds 0: must be in [1, 100]"},
		{func(o *Options) { o.Workers = 65 }, "--workers 65: must be in [1, 64]"},
	} {
		o := ok
		c.edit(&o)
		if err := o.Validate(); err == nil || err.Error() != c.want || !errors.Is(err, ErrInput) {
			t.Errorf("%+v: %v, want %q (ErrInput)", o, err, c.want)
		}
	}
}

// A benchmark's report holds every run, names no file of its temporary
// folder, and renders one row per solve, the per-instance and summary
// tables (no wins with one solver) and a JSON document of the same runs.
func TestBenchmarkReport(t *testing.T) {
	spec := defaultSpec()
	spec.NMax, spec.Ks = 2, []int{1}
	ins, err := spec.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o := Options{TimeLimit: 10 * time.Second, Shift: DefaultShift, Threads: 1, Seeds: 2, Workers: 1}
	calls := 0
	r, err := Benchmark(context.Background(), ins, "", o, func(infos []SolverInfo) func(Run) {
		if len(infos) != 1 || Available(infos) != 1 {
			t.Errorf("solvers %+v, want HiGHS alone", infos)
		}
		return func(Run) { calls++ }
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(ins) * o.Seeds; len(r.Runs) != want || calls != want || r.Interrupted {
		t.Fatalf("%d runs, %d progress calls, interrupted %v; want %d, %d, false", len(r.Runs), calls, r.Interrupted, want, want)
	}
	for _, run := range r.Runs {
		if run.File != "" {
			t.Errorf("%s names %q, a file of the temporary folder", run.Instance, run.File)
		}
	}
	if g := r.RunsGrid(true); len(g.Rows) != len(r.Runs) {
		t.Errorf("%d CSV rows, want %d", len(g.Rows), len(r.Runs))
	}
	doc := r.Doc()
	if len(doc.Runs) != len(r.Runs) || len(doc.Results) != len(r.Results) || doc.Seeds != 2 || doc.TimeLimitS != 10 {
		t.Errorf("document: %d runs, %d results, %d seeds, limit %v s", len(doc.Runs), len(doc.Results), doc.Seeds, doc.TimeLimitS)
	}
	var b bytes.Buffer
	if err := r.WriteTables(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"one row per instance and solver, over 2 seeds", "Summary per solver and formulation", "solver HiGHS"} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Wins:") {
		t.Errorf("one solver has no wins table:\n%s", out)
	}
}

// A report read back from its JSON document has the runs, options and
// aggregates of the one that wrote it, and the title its source describes.
func TestReadReportRoundTrip(t *testing.T) {
	spec := defaultSpec()
	spec.NMax, spec.Ks, spec.Fractions, spec.Seed = 2, []int{1, 2}, []float64{0.25, 0.5}, 1<<60+1
	ins, err := spec.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o := Options{TimeLimit: 10 * time.Second, Shift: DefaultShift, Threads: 1, Seeds: 2, Workers: 1}
	r, err := Benchmark(context.Background(), ins, "", o, nil)
	if err != nil {
		t.Fatal(err)
	}
	title, source := spec.Describe()
	r.Source = source
	var b bytes.Buffer
	if err := report.WriteJSON(&b, r.Doc()); err != nil {
		t.Fatal(err)
	}
	got, gotTitle, err := ReadReport(&b)
	if err != nil {
		t.Fatal(err)
	}
	if gotTitle != title {
		t.Errorf("title %q, want %q", gotTitle, title)
	}
	if got.TimeLimit != r.TimeLimit || got.Seeds != r.Seeds || got.Shift != r.Shift || len(got.Solvers) != len(r.Solvers) {
		t.Errorf("options %v %d %v %d solvers, want %v %d %v %d", got.TimeLimit, got.Seeds, got.Shift, len(got.Solvers), r.TimeLimit, r.Seeds, r.Shift, len(r.Solvers))
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{{"results", got.Results, r.Results}, {"summary", got.Summary, r.Summary}, {"wins", got.Wins, r.Wins}} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s read back: %+v, want %+v", c.name, c.got, c.want)
		}
	}
}

// The titles of a library run, read back from a source through JSON, are
// those Selection.Describe wrote.
func TestSourceTitle(t *testing.T) {
	man := Manifest{Version: "4", Seed: 7, Instances: make([]ManifestEntry, 80)}
	for _, s := range []Selection{
		{Manifest: man, Set: SetBenchmark},
		{Manifest: man, Set: SetBenchmark, Tiers: []string{"easy", "medium"}},
		{Manifest: man, Set: SetCollection, Missing: []string{"a", "b", "c", "d"}},
	} {
		title, _, source := s.Describe()
		b, err := json.Marshal(source)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var back map[string]any
		if err := dec.Decode(&back); err != nil {
			t.Fatal(err)
		}
		if got, _ := sourceTitle(back); got != title {
			t.Errorf("title %q, want %q", got, title)
		}
	}
}

// ReadReport refuses what is not a bench document, before drawing
// anything, with a message that names the field.
func TestReadReportRefuses(t *testing.T) {
	base := `{"source":{},"started_at":"2026-11-27T22:55:54Z","interrupted":false,"machine":{},"solvers":[{"name":"HiGHS","available":true}],"time_limit_s":10,"seeds":1,"workers":1,"first_seed":0,"shift_s":10,"timeout_policy":"","failure_penalty":2,"tolerances":{},"field_tolerances":{},"runs":[RUN],"results":[],"summary":[],"wins":[]}`
	run := `{"instance":"i","problem":"p","source":"s","variant":"v","tier":"easy","n":2,"k":1,"fraction":0.5,"solver":"HiGHS","seed":0,"status":"STATUS","solver_status":"","seconds":SECONDS,"objective":null,"optimal_value":null,"best_bound":null,"nodes":null,"max_violation":0}`
	doc := func(status, seconds string) string {
		return strings.Replace(base, "RUN", strings.NewReplacer("STATUS", status, "SECONDS", seconds).Replace(run), 1)
	}
	if _, _, err := ReadReport(strings.NewReader(doc("optimal", "0.5"))); err != nil {
		t.Fatalf("a valid document: %v", err)
	}
	for _, tt := range []struct{ in, want string }{
		{"", "empty"},
		{"{", "not a JSON document"},
		{"[]", "not a JSON document"},
		{doc("optimal", "0.5") + "{}", "more than one JSON value"},
		{doc("solved", "0.5"), "not a JSON document"},
		{doc("optimal", "-1"), "seconds -1"},
		{strings.Replace(doc("optimal", "1"), `"seeds":1`, `"seeds":0`, 1), "seeds 0"},
		{strings.Replace(doc("optimal", "1"), `"time_limit_s":10`, `"time_limit_s":-3`, 1), "time_limit_s -3"},
		{strings.Replace(doc("optimal", "1"), `"workers":1`, `"workers":1,"extra":1`, 1), `unknown field "extra"`},
		{strings.Replace(base, "RUN", "", 1), "no runs"},
	} {
		_, _, err := ReadReport(strings.NewReader(tt.in))
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.60q…: %v, want ErrInput and %q", tt.in, err, tt.want)
		}
	}
}

// ReadReport never panics: it reads a document or refuses it as ErrInput,
// and what it reads draws (the figures' specs are built from it).
func FuzzReadReport(f *testing.F) {
	doc, err := os.ReadFile("../docs/figures/bench-scaling-runs.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(doc)
	f.Add([]byte(`{"runs":[]}`))
	f.Add([]byte(`{"seeds":1,"time_limit_s":1e308,"shift_s":10,"started_at":"2026-11-27T00:00:00Z","solvers":[{}],"runs":[{"instance":"i","solver":"s","n":2,"status":"time limit","seconds":1e308}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, _, err := ReadReport(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("%v: not ErrInput", err)
			}
			return
		}
		_ = Profile(r.Results, func(res Result) string { return res.Solver }, func(res Result) string { return res.Instance })
	})
}
