package bench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestHiGHSInProcessAndFileAgree: HiGHS on the in-memory model and HiGHS
// reading the MPS file give the same optimum, point and check, also with
// an objective offset (the file's objective RHS), which the in-memory
// route must hand to HiGHS as the file does.
func TestHiGHSInProcessAndFileAgree(t *testing.T) {
	for _, offset := range []float64{0, 0.25} {
		in := TinyInstance()
		in.Problem.Offset = offset
		in.Optimal, in.Bound = -1.8+offset, -1.8+offset
		data, err := in.MPSBytes()
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "tiny.mps")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := SolverConfig{Threads: 1}
		var xs [][]float64
		for _, s := range []HiGHS{{Config: cfg}, {Config: cfg, File: true}} {
			o := s.Solve(context.Background(), Task{Instance: in, File: file})
			name := s.Info().Name
			if o.Status != StatusOptimal || o.SolverStatus != "Optimal" || !scalar.EqualWithinAbs(o.Objective, in.Optimal, 1e-9) {
				t.Errorf("offset %v, %s: %v (%s), objective %v, err %q; want optimal %v", offset, name, o.Status, o.SolverStatus, o.Objective, o.Err, in.Optimal)
			}
			if o.Nodes < 0 {
				t.Errorf("offset %v, %s: nodes %d, want a MIP's count", offset, name, o.Nodes)
			}
			if j := DefaultCheck().Judge(in, o); j.Status != StatusOptimal {
				t.Errorf("offset %v, %s: judged %v: %s", offset, name, j.Status, j.Why)
			}
			xs = append(xs, o.X)
		}
		if !slices.EqualFunc(xs[0], xs[1], func(a, b float64) bool { return scalar.EqualWithinAbs(a, b, 1e-9) }) {
			t.Errorf("offset %v: in-process x %v, from the file %v", offset, xs[0], xs[1])
		}
	}
}
