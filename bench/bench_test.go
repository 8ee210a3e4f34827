package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mmds-project/mmds/mip"
)

// DefaultSpec is the family of the default `mmds bench` run (the CLI's
// flag defaults): n = 2..3, K = 1, 2, 3, D = D_max/2.
func defaultSpec() Spec {
	return Spec{NMin: 2, NMax: 3, Ks: []int{1, 2, 3}, Fractions: []float64{0.5}, Models: 1, Seed: 1, MaxSubsets: mip.DefaultMaxSubsets}
}

// BenchmarkDefaultRun is the default `mmds bench` run without the CLI:
// building and certifying the 36 instances, then solving each with HiGHS
// (1 thread, 10 s limit) and checking every answer. Target: < 10 s.
func BenchmarkDefaultRun(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		ins, err := defaultSpec().Build(ctx)
		if err != nil {
			b.Fatal(err)
		}
		runs, err := Solve(ctx, ins, RunSpec{Solvers: []Solver{HiGHS{Config: SolverConfig{Threads: 1}}},
			Options: Options{TimeLimit: 10 * time.Second}, Check: DefaultCheck()}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range runs {
			if r.Status != StatusOptimal {
				b.Fatalf("%s: %s", r.Instance, r.Status)
			}
		}
	}
}

func TestSpecValidate(t *testing.T) {
	for _, s := range []Spec{
		{NMin: 1, NMax: 2, Ks: []int{1}, Fractions: []float64{0.5}, Models: 1},
		{NMin: 2, NMax: 2, Fractions: []float64{0.5}, Models: 1},
		{NMin: 2, NMax: 2, Ks: []int{9}, Fractions: []float64{0.5}, Models: 1},
		{NMin: 2, NMax: 2, Ks: []int{1}, Fractions: []float64{1.5}, Models: 1},
		{NMin: 2, NMax: 2, Ks: []int{1}, Fractions: []float64{0.5}},
	} {
		if _, err := s.Build(context.Background()); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if err := defaultSpec().Validate(); err != nil {
		t.Error(err)
	}
}

// Several workers solve at once, and the runs still come back in the fixed
// order (instance, seed, solver) with the same verdicts as one worker's;
// progress is called once per run.
func TestSolveWorkersKeepTheOrder(t *testing.T) {
	ctx := context.Background()
	spec := defaultSpec()
	spec.NMax, spec.Ks = 2, []int{1, 2}
	ins, err := spec.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	key := func(r Run) string { return fmt.Sprintf("%s %s %d %s", r.Instance, r.Solver, r.Seed, r.Status) }
	var want []string
	for _, workers := range []int{1, 3} {
		calls := 0
		rs := RunSpec{Solvers: []Solver{HiGHS{Config: SolverConfig{Threads: 1}}, HiGHS{Config: SolverConfig{Threads: 1}, File: true}},
			Options: Options{TimeLimit: 10 * time.Second, Seeds: 2, Workers: workers}, Dir: t.TempDir(), Check: DefaultCheck()}
		runs, err := Solve(ctx, ins, rs, func(Run) { calls++ })
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range runs {
			got = append(got, key(r))
		}
		if len(runs) != len(ins)*2*2 || calls != len(runs) {
			t.Fatalf("%d workers: %d runs, %d progress calls, want %d", workers, len(runs), calls, len(ins)*4)
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			t.Errorf("%d workers: runs %v, want %v", workers, got, want)
		}
	}
}
