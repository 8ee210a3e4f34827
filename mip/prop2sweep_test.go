package mip

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mmds-project/mmds/internal/sweep"
)

// sweepPoints runs SweepProp2Each on ds and returns what it emitted.
func sweepPoints(t *testing.T, m Binary, ds []float64) []Prop2Optimum {
	t.Helper()
	var out []Prop2Optimum
	n, stop, err := m.SweepProp2Each(context.Background(), ds, DefaultSolver(), SweepOptions{}, func(o Prop2Optimum) error {
		out = append(out, o)
		return nil
	})
	if err != nil || n != len(ds) || stop != StopNone || len(out) != len(ds) {
		t.Fatalf("%+v: %d of %d points, stop %q, %v", m, n, len(ds), stop, err)
	}
	return out
}

// TestProp2SweepAgainstBranchLPs: a sweep proven from the leaves' pieces
// agrees at every point with the independent optimum of the 2⁴ branch LPs
// (gonum's simplex) to 1e-7, on random models and ranges (D = 0 and
// D > D_max included); each privatizer is feasible and attains γ; and the
// pieces prove every point (no point falls back on a per-point MIP).
func TestProp2SweepAgainstBranchLPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	n := 25
	if !slow {
		n = 8
	}
	for i := range n {
		m := randomBinary(rng)
		lo, hi := 0.0, 1.2*m.DMax()
		if rng.IntN(3) == 0 {
			lo = rng.Float64() * hi
		}
		ds := sweep.Spec{D0: lo, D1: hi, N: 2 + rng.IntN(40)}.Values()
		ps, err := m.newProp2Sweep(context.Background(), ds[0], ds[len(ds)-1], DefaultSolver())
		if err != nil {
			t.Fatalf("instance %d %+v: %v", i, m, err)
		}
		for _, d := range ds {
			got, err := ps.at(d)
			if err != nil {
				t.Fatalf("instance %d %+v D=%g: %v", i, m, d, err)
			}
			want, _ := branchLPOptimum(t, m, d)
			if math.Abs(got.MinAdv-want) > 1e-7 || math.Abs(got.Gamma-want) > 1e-7 {
				t.Fatalf("instance %d %+v D=%g: γ = %.12g, min L_adv = %.12g; branch LPs %.12g", i, m, d, got.Gamma, got.MinAdv, want)
			}
			checkOptimum(t, m, got)
		}
		if ps.mips != 0 {
			t.Errorf("instance %d %+v: %d of %d points solved as MIPs", i, m, ps.mips, len(ds))
		}
	}
}

// TestProp2SweepMatchesMIP: on the paper model and the three-adversary
// model, 401 thresholds from 0 to 1.1·D_max give HiGHS's MIP optimum
// (SolveProp2) to 1e-9, in order.
func TestProp2SweepMatchesMIP(t *testing.T) {
	for _, m := range []Binary{PaperBinary(), {P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.35, 0.3}}} {
		ds := sweep.Spec{D0: 0, D1: 1.1 * m.DMax(), N: 401}.Values()
		for i, got := range sweepPoints(t, m, ds) {
			if got.D != ds[i] {
				t.Fatalf("%+v: point %d is D = %g, want %g", m, i, got.D, ds[i])
			}
			if i%8 != 0 {
				continue
			}
			want, err := m.SolveProp2(ds[i], DefaultSolver())
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.MinAdv-want.MinAdv) > 1e-9 || got.MIPGap > 1e-9 {
				t.Errorf("%+v D=%g: sweep %.15g (gap %g), MIP %.15g", m, ds[i], got.MinAdv, got.MIPGap, want.MinAdv)
			}
		}
	}
}

// TestProp2SweepTinyProbabilities: the sweep meets TestProp2TinyProbabilities'
// bounds against the exact vertex enumeration. Where the leaves prove
// nothing (HiGHS gives no duals on some of these models) points go to the
// per-point MIP, which on a few of them wrongly reports infeasibility: the
// sweep may then fail, but only where SolveProp2 fails too.
func TestProp2SweepTinyProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 9))
	const abs = 1e-9
	n := 20
	if !slow {
		n = 8
	}
	for i := range n {
		m := Binary{P: tinyProb(rng), QY: tinyProb(rng), QZ: []float64{tinyProb(rng)}}
		ds := sweep.Spec{D0: 0, D1: 1.2 * m.DMax(), N: 7}.Values()
		var pts []Prop2Optimum
		n, _, err := m.SweepProp2Each(context.Background(), ds, DefaultSolver(), SweepOptions{}, func(o Prop2Optimum) error {
			pts = append(pts, o)
			return nil
		})
		if err != nil {
			if _, merr := m.SolveProp2(ds[n], DefaultSolver()); merr == nil {
				t.Errorf("instance %d %+v: the sweep failed at D = %g (%v), where the MIP solves", i, m, ds[n], err)
			}
		}
		for _, got := range pts {
			d := got.D
			hi := exactProp2(m.P, m.QY, m.QZ[0], math.Max(d, got.Recon))
			lo := exactProp2(m.P, m.QY, m.QZ[0], math.Max(0, d-abs))
			if got.Recon > d+abs || got.MinAdv > hi*(1+1e-6)+1e-15 || got.MinAdv < lo-abs || math.Abs(got.Gamma-got.MinAdv) > abs {
				t.Errorf("instance %d %+v D=%g: L_recon %.12g, γ = %.12g, min L_adv = %.12g; exact optimum in [%.12g, %.12g]",
					i, m, d, got.Recon, got.Gamma, got.MinAdv, lo, hi)
			}
		}
	}
}

// TestProp2SweepUnprovenFallsBack: a point the pieces do not prove — here
// because a leaf's stored privatizers were spoiled, so the interpolated
// privatizer no longer attains the dual bound — is solved as a MIP, and
// the answer is still the optimum.
func TestProp2SweepUnprovenFallsBack(t *testing.T) {
	m := PaperBinary()
	ps, err := m.newProp2Sweep(context.Background(), 0, m.DMax(), DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	const d = 0.15
	want, err := ps.at(d)
	if err != nil || ps.mips != 0 {
		t.Fatalf("%v, %d MIPs", err, ps.mips)
	}
	for leaf := range ps.leaves {
		for k := range ps.leaves[leaf].nodes {
			nd := &ps.leaves[leaf].nodes[k]
			nd.x = append([]float64(nil), nd.x...)
			nd.x[ps.l.s0()], nd.x[ps.l.s1()] = 1, 1
		}
	}
	got, err := ps.at(d)
	if err != nil || ps.mips != 1 || math.Abs(got.MinAdv-want.MinAdv) > 1e-9 {
		t.Errorf("spoiled pieces: %v (%d MIPs), min L_adv %g; want %g by a MIP", err, ps.mips, got.MinAdv, want.MinAdv)
	}
}

// TestProp2SweepEach: points are emitted in order, one at a time; an
// emit error and a cancelled context stop the sweep with that error; a
// bad threshold is refused before any work.
func TestProp2SweepEach(t *testing.T) {
	m := PaperBinary()
	ds := sweep.Spec{D0: 0.2, D1: 0, N: 1}.Values()
	ds = append(ds, 0.1, 0.05, 0.15) // any order
	got := sweepPoints(t, m, ds)
	for i, o := range got {
		want, err := m.SolveProp2(ds[i], DefaultSolver())
		if err != nil || o.D != ds[i] || math.Abs(o.MinAdv-want.MinAdv) > 1e-9 {
			t.Errorf("point %d: D = %g, %g; want %g, %g (%v)", i, o.D, o.MinAdv, ds[i], want.MinAdv, err)
		}
	}
	stop := errors.New("stop")
	n, _, err := m.SweepProp2Each(context.Background(), ds, DefaultSolver(), SweepOptions{}, func(o Prop2Optimum) error {
		if o.D == 0.05 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("emit error: %d points, %v", n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n, _, err = m.SweepProp2Each(ctx, ds, DefaultSolver(), SweepOptions{}, func(Prop2Optimum) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancelled: %d points, %v", n, err)
	}
	for _, bad := range [][]float64{{0.1, math.NaN()}, {0.1, -1}, {math.Inf(1)}} {
		n, _, err := m.SweepProp2Each(context.Background(), bad, DefaultSolver(), SweepOptions{}, func(Prop2Optimum) error { return nil })
		if err == nil || n != 0 {
			t.Errorf("%v: %d points, %v", bad, n, err)
		}
	}
	if !slices.IsSorted([]float64{got[1].MinAdv, got[3].MinAdv, got[0].MinAdv}) {
		t.Errorf("not monotone in D: %v", got)
	}
}

// BenchmarkProp2Sweep is a sweep of n thresholds of the paper model from
// 0.0025 to D_max, proven from the leaves (n = 30: the paper's sweep, the
// pieces' solves dominate; n = 10⁵: the per-point work).
func BenchmarkProp2Sweep(b *testing.B) {
	m := PaperBinary()
	for _, n := range []int{1, 30, 100_000} {
		ds := sweep.Spec{D0: 0.0025, D1: m.DMax(), N: n}.Values()
		if n == 1 {
			ds = []float64{0.15}
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := m.SweepProp2Each(context.Background(), ds, DefaultSolver(), SweepOptions{}, func(Prop2Optimum) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ds)), "ns/point")
		})
	}
}
