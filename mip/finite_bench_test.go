package mip

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/sweep"
)

// BenchmarkGlobalPaperSweep1000 times the global optimum of
// the paper's binary model at 1,000 thresholds (enumeration included).
func BenchmarkGlobalPaperSweep1000(b *testing.B) {
	m := PaperBinary().Finite()
	ds := sweep.Spec{D0: 0, D1: m.DMax(), N: 1000}.Values()
	for b.Loop() {
		g, err := m.PrepareGlobal(GlobalOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Sweep(context.Background(), ds, DefaultSolver()); err != nil {
			b.Fatal(err)
		}
	}
}

// benchModel is instance 0 of the bench family with n = 4, K = 2 (seed 1).
func benchModel(b *testing.B) Finite {
	m, err := RandomFinite(rand.New(rand.NewPCG(1, 0)), 4, 2)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkGlobalN4K2: enumeration and one LP, n = 4, K = 2, D = D_max/2.
func BenchmarkGlobalN4K2(b *testing.B) {
	m := benchModel(b)
	for b.Loop() {
		g, err := m.PrepareGlobal(GlobalOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Solve(0.5*m.DMax(), DefaultSolver()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFixedMIPN4K2 solves the fixed-alphabet MIP with m = 4 on the same
// model at D = D_max/4 with each formulation, under a 10 s limit
// per solve; the "optimal" metric is 1 when HiGHS proved optimality (on
// this instance it does not: see docs/finite.md).
func BenchmarkFixedMIPN4K2(b *testing.B) {
	m := benchModel(b)
	g, err := m.PrepareGlobal(GlobalOptions{})
	if err != nil {
		b.Fatal(err)
	}
	so := DefaultSolver()
	so.TimeLimit = 10 * time.Second
	for _, v := range []struct {
		name string
		fo   FixedOptions
	}{
		{"derivedM", FixedOptions{Outputs: 4}},
		{"hull", FixedOptions{Outputs: 4, Hull: true}},
		{"hull+cuts", FixedOptions{Outputs: 4, Hull: true, Global: g}},
	} {
		b.Run(v.name, func(b *testing.B) { benchFixed(b, m, v.fo, so) })
	}
}

// benchFixed times one formulation. It loops over b.N rather than b.Loop:
// this loop body under b.Loop crashes the Go 1.26.8 compiler (an internal
// compiler error in escape analysis, reported at iter.go:223).
func benchFixed(b *testing.B, m Finite, fo FixedOptions, so SolverOptions) {
	for range b.N {
		o, err := m.SolveFixed(0.25*m.DMax(), fo, so)
		switch {
		case errors.Is(err, highsx.ErrNotOptimal):
			b.ReportMetric(0, "optimal")
		case err != nil:
			b.Fatal(err)
		default:
			b.ReportMetric(1, "optimal")
			b.ReportMetric(float64(o.Nodes), "nodes")
		}
	}
}
