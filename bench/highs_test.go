package bench

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/internal/highsx"
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

// TestHighsxConversions: a highsx.Model (as package mip builds it) goes to
// a Model and back unchanged; a Model's short slices take the defaults
// (cost 0, free bounds, continuous), a matrix entry given twice keeps its
// last value and an entry beyond the row bounds is left out.
func TestHighsxConversions(t *testing.T) {
	m := highsx.NewModel(3)
	m.Maximize, m.Offset = true, 0.5
	m.Cost[0], m.Cost[2] = 1, -2
	m.Lower[1], m.Upper[1], m.Integer[1] = -1, 4, true
	m.AddRow(math.Inf(-1), 3, []int{2, 0}, []float64{1, 2})
	m.AddRow(1, 1, nil, nil)
	m.AddRow(0, math.Inf(1), []int{1}, []float64{-3})
	p := fromHighsx(m)
	if p.Offset != 0.5 || !p.Maximize || len(p.ConstMatrix) != 3 || !isInteger(p, 1) || isInteger(p, 0) {
		t.Errorf("fromHighsx: %+v", p)
	}
	back := toHighsx(p)
	if back.Maximize != m.Maximize || back.Offset != m.Offset || !slices.Equal(back.Cost, m.Cost) ||
		!slices.Equal(back.Lower, m.Lower) || !slices.Equal(back.Upper, m.Upper) || !slices.Equal(back.Integer, m.Integer) ||
		back.NumRows() != m.NumRows() {
		t.Fatalf("round trip: %+v, want %+v", back, m)
	}
	for i := range m.NumRows() {
		lo, hi, col, val := m.Row(i)
		blo, bhi, bcol, bval := back.Row(i)
		if lo != blo || hi != bhi || !slices.Equal(col, bcol) || !slices.Equal(val, bval) {
			t.Errorf("row %d: [%v, %v] %v·x%v, want [%v, %v] %v·x%v", i, blo, bhi, bval, bcol, lo, hi, val, col)
		}
	}

	short := &Model{ColCosts: []float64{1}, ColUpper: []float64{2, 3}, RowUpper: []float64{5},
		ConstMatrix: []Nonzero{{Row: 0, Col: 1, Val: 1}, {Row: 0, Col: 1, Val: 7}, {Row: 1, Col: 0, Val: 9}}}
	h := toHighsx(short)
	if h.NumCols() != 2 || h.Cost[1] != 0 || h.Lower[1] != math.Inf(-1) || h.IsMIP() {
		t.Errorf("short slices: cost %v, lower %v, MIP %v", h.Cost, h.Lower, h.IsMIP())
	}
	if lo, hi, col, val := h.Row(0); h.NumRows() != 1 || lo != math.Inf(-1) || hi != 5 || !slices.Equal(col, []int{1}) || !slices.Equal(val, []float64{7}) {
		t.Errorf("rows %d; row 0: [%v, %v] %v·x%v, want (−∞, 5] 7·x[1]", h.NumRows(), lo, hi, val, col)
	}
}
