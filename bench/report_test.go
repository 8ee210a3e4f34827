package bench

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
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
