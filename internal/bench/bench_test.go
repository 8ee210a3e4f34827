package bench

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseCBCRecorded(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cbc-optimal.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseCBC(string(data))
	if err != nil {
		t.Fatal(err)
	}
	// The recorded run: examples/finite-ternary.json, m = 3, D = 0.1, where
	// HiGHS finds γ* = 0.2.
	if r.Status != "Optimal" || r.Objective != 0.2 || r.Nodes != 56 || r.Time != 620*time.Millisecond {
		t.Errorf("got %+v", r)
	}
	limit := "Result - Stopped on time limit\n\nObjective value:                0.15000000\nLower bound:                    0.160\nEnumerated nodes:               900\nTime (Wallclock seconds):       1.01\n"
	if r, err := ParseCBC(limit); err != nil || r.Status != "time limit" || r.Objective != 0.15 || r.Nodes != 900 {
		t.Errorf("time limit: %+v %v", r, err)
	}
	lp, err := os.ReadFile(filepath.Join("testdata", "cbc-lp.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The recorded LP run: the global LP of the paper's model at D = 0.1.
	if r, err := ParseCBC(string(lp)); err != nil || r.Status != "Optimal" || r.Objective != 0.22 || r.Nodes != 0 {
		t.Errorf("LP: %+v %v", r, err)
	}
	if _, err := ParseCBC("Coin0008I no_name read with 0 errors\n"); err == nil {
		t.Error("output without a result line: no error")
	}
	if _, err := ParseCBC("Result - Optimal solution found\nObjective value: x\n"); err == nil {
		t.Error("bad objective: no error")
	}
}

func TestRunFamilyAgreesAcrossFormulations(t *testing.T) {
	dir := t.TempDir()
	s := Spec{NMin: 2, NMax: 3, Ks: []int{1, 2}, Fractions: []float64{0.3}, Instances: 1, Seed: 3, MPSDir: dir}
	if path, err := exec.LookPath("cbc"); err == nil {
		s.CBC = path
	}
	var calls int
	rows, err := Run(context.Background(), s, func(Row) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	perCase := len(Variants()) + 1
	want := 2 * 2 * perCase
	highs := 0
	for _, r := range rows {
		if r.Solver == "HiGHS" {
			highs++
		}
	}
	if highs != want || calls != len(rows) {
		t.Fatalf("%d HiGHS rows, %d callbacks, %d rows; want %d HiGHS rows", highs, calls, len(rows), want)
	}
	// Every formulation at m = n, and the global LP, solve the same
	// instance: the MIPs agree with each other and never beat the LP.
	for i := 0; i < want; i += perCase {
		ref := rows[i].Objective
		for _, r := range rows[i : i+perCase] {
			if r.Status != "Optimal" || r.File == "" {
				t.Fatalf("%+v", r)
			}
			if r.Variant == GlobalName {
				if r.Objective < ref-1e-7 || r.Rays == 0 {
					t.Fatalf("global LP %g below the MIP %g: %+v", r.Objective, ref, r)
				}
			} else if math.Abs(r.Objective-ref) > 1e-7 {
				t.Fatalf("%s gives %g, %s %g", r.Variant, r.Objective, rows[i].Variant, ref)
			}
		}
	}
	files, _ := os.ReadDir(dir)
	if len(files) != want {
		t.Errorf("%d MPS files, want %d", len(files), want)
	}
	data, err := os.ReadFile(rows[0].File)
	if err != nil || !strings.Contains(string(data), "OBJSENSE") {
		t.Errorf("%s: %v", rows[0].File, err)
	}
	// With cbc present, each of its optima matches HiGHS's.
	for _, r := range rows[want:] {
		if r.Solver != "CBC" || r.Status != "Optimal" {
			t.Fatalf("cbc row %+v", r)
		}
	}
	for j, r := range rows[want:] {
		if h := rows[j]; math.Abs(r.Objective-h.Objective) > 1e-6 {
			t.Errorf("%s: cbc %g, HiGHS %g", r.File, r.Objective, h.Objective)
		}
	}
}

func TestInstanceIsReproducibleAndSpecValidated(t *testing.T) {
	a, _ := Instance(1, 3, 2, 0)
	b, _ := Instance(1, 3, 2, 0)
	c, _ := Instance(1, 3, 2, 1)
	if a.Prior[0] != b.Prior[0] || a.Prior[0] == c.Prior[0] {
		t.Errorf("instances: %v %v %v", a.Prior, b.Prior, c.Prior)
	}
	for _, s := range []Spec{
		{NMin: 1, NMax: 2, Ks: []int{1}, Fractions: []float64{0.5}, Instances: 1},
		{NMin: 2, NMax: 2, Fractions: []float64{0.5}, Instances: 1},
		{NMin: 2, NMax: 2, Ks: []int{9}, Fractions: []float64{0.5}, Instances: 1},
		{NMin: 2, NMax: 2, Ks: []int{1}, Fractions: []float64{1.5}, Instances: 1},
		{NMin: 2, NMax: 2, Ks: []int{1}, Fractions: []float64{0.5}},
	} {
		if _, err := Run(context.Background(), s, nil); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}
