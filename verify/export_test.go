package verify_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/mmds-project/mmds/verify"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// Run.Export finds a finalized threshold as a table prints it (within
// ThresholdTol), refuses one the run does not have, one not finalized and
// one within the tolerance of two thresholds.
func TestRunExport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	verifytest.Gauss(t, dir)
	run, err := verify.Load(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ds := run.Finalized()
	if len(ds) == 0 {
		t.Fatal("the fixture finalized no threshold")
	}
	for _, d := range []float64{ds[0], ds[0] * (1 + 0.5*verify.ThresholdTol), ds[0] * (1 - 0.5*verify.ThresholdTol)} {
		f, got, err := run.Export(d)
		if err != nil || got != ds[0] || f.Network == nil {
			t.Errorf("Export(%v) = %v, %v, %v; want the network at the threshold %v", d, f.Network, got, err, ds[0])
		}
	}
	for _, d := range []float64{ds[0] * (1 + 2*verify.ThresholdTol), verifytest.GaussD[0], 1e6} {
		if _, _, err := run.Export(d); !errors.Is(err, verify.ErrInput) {
			t.Errorf("Export(%v): %v, want ErrInput", d, err)
		}
	}
	// Two finalized thresholds within the tolerance: ambiguous.
	var fin []int
	for i, p := range run.Results.Points {
		if p.Finalized {
			fin = append(fin, i)
		}
	}
	if len(fin) < 2 {
		t.Skip("the fixture finalized one threshold")
	}
	a := run.Results.Points[fin[0]].D
	run.Results.Points[fin[1]].D = a * (1 + 0.8*verify.ThresholdTol)
	if _, _, err := run.Export(a * (1 + 0.4*verify.ThresholdTol)); !errors.Is(err, verify.ErrInput) {
		t.Errorf("ambiguous threshold: %v, want ErrInput", err)
	}
}
