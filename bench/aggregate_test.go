package bench

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestMedianAndResults(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if m := Median(tc.xs); m != tc.want {
			t.Errorf("Median(%v) = %g, want %g", tc.xs, m, tc.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median of nothing is not NaN")
	}
	// Limit 10 s: A solves i1 on every seed; A times out on one seed of i2,
	// so i2 is not solved; B is wrong on seed 7 of i1; B is imprecise but
	// solved on i2.
	runs := []Run{
		{Instance: "i1", Solver: "A", Seed: 0, Status: StatusOptimal, Seconds: 1},
		{Instance: "i1", Solver: "A", Seed: 1, Status: StatusOptimal, Seconds: 3},
		{Instance: "i1", Solver: "A", Seed: 2, Status: StatusOptimal, Seconds: 2},
		{Instance: "i1", Solver: "B", Seed: 6, Status: StatusOptimal, Seconds: 0.5},
		{Instance: "i1", Solver: "B", Seed: 7, Status: StatusWrong, Seconds: 0.4},
		{Instance: "i1", Solver: "B", Seed: 8, Status: StatusOptimal, Seconds: 0.6},
		{Instance: "i2", Solver: "A", Seed: 0, Status: StatusOptimal, Seconds: 4},
		{Instance: "i2", Solver: "A", Seed: 1, Status: StatusTimeLimit, Seconds: 10.2},
		{Instance: "i2", Solver: "A", Seed: 2, Status: StatusOptimal, Seconds: 6},
		{Instance: "i2", Solver: "B", Seed: 6, Status: StatusImprecise, Seconds: 2},
		{Instance: "i2", Solver: "B", Seed: 7, Status: StatusOptimal, Seconds: 1},
		{Instance: "i2", Solver: "B", Seed: 8, Status: StatusOptimal, Seconds: 3},
	}
	rs := Results(runs, 10*time.Second)
	want := []Result{
		{Instance: "i1", Solver: "A", Seeds: 3, Status: StatusOptimal, Median: 2, Min: 1, Max: 3},
		{Instance: "i1", Solver: "B", Seeds: 3, Status: StatusWrong, Median: 0.6, Min: 0.5, Max: 20, WrongSeeds: []int{7}},
		{Instance: "i2", Solver: "A", Seeds: 3, Status: StatusTimeLimit, Median: 6, Min: 4, Max: 10},
		{Instance: "i2", Solver: "B", Seeds: 3, Status: StatusImprecise, Median: 2, Min: 1, Max: 3, Imprecise: 1},
	}
	if len(rs) != len(want) {
		t.Fatalf("%d results: %+v", len(rs), rs)
	}
	for i, r := range rs {
		w := want[i]
		if r.Instance != w.Instance || r.Solver != w.Solver || r.Seeds != w.Seeds || r.Status != w.Status || r.Median != w.Median ||
			r.Min != w.Min || r.Max != w.Max || r.Imprecise != w.Imprecise || len(r.WrongSeeds) != len(w.WrongSeeds) ||
			(len(w.WrongSeeds) > 0 && r.WrongSeeds[0] != w.WrongSeeds[0]) {
			t.Errorf("result %d: %+v, want %+v", i, r, w)
		}
	}
	// Solved only when every seed solved it.
	if rs[0].Solved() != true || rs[1].Solved() || rs[2].Solved() || !rs[3].Solved() {
		t.Errorf("solved flags: %v %v %v %v", rs[0].Solved(), rs[1].Solved(), rs[2].Solved(), rs[3].Solved())
	}
	// The virtual best: A on i1 (2 s; B failed), B on i2 (A did not solve).
	vbs := VirtualBestResults(rs, 10)
	if len(vbs) != 2 || vbs[0].Median != 2 || vbs[1].Median != 2 || !vbs[0].Solved() || !vbs[1].Solved() {
		t.Errorf("virtual best %+v", vbs)
	}
	// Wins: A wins i1, B wins i2; each solved one instance.
	wins := CountWins(rs)
	if len(wins) != 2 || wins[0] != (Wins{"A", 1, 1}) || wins[1] != (Wins{"B", 1, 1}) {
		t.Errorf("wins %+v", wins)
	}
}

func TestShiftedGeomeanAndSummary(t *testing.T) {
	// exp(mean(ln 2, ln 8)) − 1 = 4 − 1.
	if g := ShiftedGeomean([]float64{1, 7}, 1); math.Abs(g-3) > 1e-12 {
		t.Errorf("SGM %g, want 3", g)
	}
	// Shift 10 s: exp(mean(ln 10, ln 1000)) − 10 = 100 − 10.
	if g := ShiftedGeomean([]float64{0, 990}, DefaultShift.Seconds()); math.Abs(g-90) > 1e-9 {
		t.Errorf("SGM with shift 10: %g, want 90", g)
	}
	res := []Result{
		{Instance: "a", Solver: "A", Variant: "v", Status: StatusOptimal, Median: 0},
		{Instance: "b", Solver: "A", Variant: "v", Status: StatusTimeLimit, Median: 990},
		{Instance: "c", Solver: "A", Variant: "w", Status: StatusWrong, Median: 1980},
		{Instance: "a", Solver: "B", Variant: "v", Status: StatusOptimal, Median: 90},
		{Instance: "b", Solver: "B", Variant: "v", Status: StatusImprecise, Median: 990},
		{Instance: "c", Solver: "B", Variant: "w", Status: StatusOptimal, Median: 0},
	}
	sums := Summarize(res, 990, 10)
	// A/v: 0, 990 → 90; A/w: 1980 → 1980; B/v: 90, 990 → exp(mean(ln 100, ln 1000)) − 10;
	// B/w: 0; A/all: (10·1000·1990)^(1/3) − 10; B/all: (100·1000·10)^(1/3) − 10 = 90;
	// virtual best: a 0, b 990 (B), c 0 (B) → (10·1000·10)^(1/3) − 10.
	want := map[string]float64{"A/v": 90, "A/w": 1980, "B/v": math.Sqrt(100*1000) - 10, "B/w": 0,
		"A/all": math.Cbrt(10*1000*1990) - 10, "B/all": 90, VirtualBest + "/all": math.Cbrt(10*1000*10) - 10}
	if len(sums) != len(want) {
		t.Fatalf("%d summaries: %+v", len(sums), sums)
	}
	for _, s := range sums {
		if w, ok := want[s.Solver+"/"+s.Variant]; !ok || math.Abs(s.SGM-w) > 1e-9 {
			t.Errorf("%s/%s: SGM %g, want %g", s.Solver, s.Variant, s.SGM, w)
		}
		if s.Shift != 10 {
			t.Errorf("%s/%s: shift %g", s.Solver, s.Variant, s.Shift)
		}
	}
	byKey := map[string]Summary{}
	for _, s := range sums {
		byKey[s.Solver+"/"+s.Variant] = s
	}
	if s := byKey["A/all"]; s.Solved != 1 || s.TimeLimited != 1 || s.Failed != 1 || s.Wrong != 1 || s.Instances != 3 {
		t.Errorf("A/all counts %+v", s)
	}
	if s := byKey["B/all"]; s.Solved != 3 || s.Imprecise != 1 {
		t.Errorf("B/all counts %+v", s)
	}
	if s := byKey[VirtualBest+"/all"]; s.Solved != 3 {
		t.Errorf("virtual best counts %+v", s)
	}
}

func TestProfile(t *testing.T) {
	// p1: A 1 s, B 2 s; p2: A 4 s, B 1 s; p3: A solves (1 s), B wrong; p4: only A ran.
	res := []Result{
		{Instance: "p1", Solver: "A", Status: StatusOptimal, Median: 1}, {Instance: "p1", Solver: "B", Status: StatusOptimal, Median: 2},
		{Instance: "p2", Solver: "A", Status: StatusOptimal, Median: 4}, {Instance: "p2", Solver: "B", Status: StatusImprecise, Median: 1},
		{Instance: "p3", Solver: "A", Status: StatusOptimal, Median: 1}, {Instance: "p3", Solver: "B", Status: StatusWrong, Median: 0.5},
		{Instance: "p4", Solver: "A", Status: StatusOptimal, Median: 1},
	}
	cs := Profile(res, func(r Result) string { return r.Solver }, func(r Result) string { return r.Instance })
	// A: ratios 1, 4, 1 over 3 problems → steps (1, 2/3), (4, 1). B: 2, 1 → (1, 1/3), (2, 2/3).
	want := []ProfileCurve{{"A", []float64{1, 4}, []float64{2. / 3, 1}}, {"B", []float64{1, 2}, []float64{1. / 3, 2. / 3}}}
	for i, c := range cs {
		if c.Label != want[i].Label || !slices.Equal(c.Tau, want[i].Tau) || !slices.Equal(c.Rho, want[i].Rho) {
			t.Errorf("curve %+v, want %+v", c, want[i])
		}
	}
}
