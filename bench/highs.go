package bench

// The in-process HiGHS solver. Package bench reaches HiGHS only through
// internal/highsx, and only in this file: a Model is handed over as a
// highsx.Model, and the library's models come from package mip as
// highsx.Models.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/mip"
)

// HiGHS solves in-process through internal/highsx with mmds's options
// (tight tolerances, feasibility jump off; see highsx.Defaults) and the
// solve's seed as random_seed.
type HiGHS struct {
	Config SolverConfig
	// File reads the instance's MPS file (HiGHS's own reader) instead of
	// the in-memory model.
	File bool
}

func (h HiGHS) options(limit time.Duration, seed int) highsx.Options {
	o := mip.DefaultSolver()
	o.TimeLimit, o.Threads, o.RandomSeed = limit, h.Config.Threads, seed
	return o
}

// Info implements Solver.
func (h HiGHS) Info() SolverInfo {
	o := h.options(0, h.Config.Seed)
	seed := h.Config.Seed
	name := "HiGHS"
	if h.File {
		name = "HiGHS-file"
	}
	return SolverInfo{Name: name, Version: mip.HiGHSVersion, Threads: h.Config.Threads, Seed: &seed, Available: true, ReadsFile: h.File,
		SeedOption: "random_seed",
		Options: fmt.Sprintf("primal_feasibility_tolerance=%g mip_feasibility_tolerance=%g mip_rel_gap=%g mip_abs_gap=%g mip_heuristic_run_feasibility_jump=%t mip_detect_symmetry=%t",
			o.PrimalFeasTol, o.MIPFeasTol, o.MIPRelGap, o.MIPAbsGap, o.FeasibilityJump, o.DetectSymmetries)}
}

// Solve implements Solver.
func (h HiGHS) Solve(ctx context.Context, t Task) Outcome {
	start := time.Now()
	var res highsx.Result
	var err error
	// Ctrl-C stops either solve. The file is read before the time limit
	// starts (highsx.SolveFile), so a tiny limit is a time-out, not a read
	// error; the time reported still includes reading.
	if h.File {
		res, err = highsx.SolveFile(ctx, t.File, h.options(t.Limit, t.Seed))
	} else {
		res, err = toHighsx(t.Instance.Problem).Solve(ctx, h.options(t.Limit, t.Seed))
	}
	o := Outcome{SolverStatus: res.Status.String(), Objective: math.NaN(), Seconds: time.Since(start).Seconds(), Nodes: -1}
	switch {
	case err == nil:
		o.Status, o.X, o.Objective = StatusOptimal, res.X, res.Objective
		if res.IsMIP {
			o.Nodes = res.Nodes
		}
		if h.File {
			o.X = unpermute(o.X, t.Columns)
		}
	case errors.Is(err, highsx.ErrTimeLimit):
		o.Status = StatusTimeLimit
	case errors.Is(err, highsx.ErrInfeasible):
		o.Status = StatusInfeasible
	default:
		o.Status, o.Err = StatusError, err.Error()
	}
	return o
}

// toHighsx is p as a highsx.Model. Columns are the longest of p's column
// slices, a missing cost is 0 and a missing bound infinite; a matrix
// entry given twice keeps its last value, and entries of rows beyond p's
// row bounds are left out.
func toHighsx(p *Model) *highsx.Model {
	nc := max(len(p.ColCosts), len(p.ColLower), len(p.ColUpper), len(p.VarTypes))
	m := highsx.NewModel(nc)
	m.Maximize, m.Offset = p.Maximize, p.Offset
	for j := range nc {
		m.Cost[j] = bound(p.ColCosts, j, 0)
		m.Lower[j] = bound(p.ColLower, j, math.Inf(-1))
		m.Upper[j] = bound(p.ColUpper, j, math.Inf(1))
		m.Integer[j] = isInteger(p, j)
	}
	nr := max(len(p.RowLower), len(p.RowUpper))
	type rc struct{ r, c int }
	last := make(map[rc]float64, len(p.ConstMatrix))
	for _, nz := range p.ConstMatrix {
		last[rc{nz.Row, nz.Col}] = nz.Val
	}
	cols := make([][]int, nr)
	vals := make([][]float64, nr)
	for _, nz := range p.ConstMatrix {
		k := rc{nz.Row, nz.Col}
		if v, ok := last[k]; ok && nz.Row < nr {
			cols[nz.Row] = append(cols[nz.Row], nz.Col)
			vals[nz.Row] = append(vals[nz.Row], v)
			delete(last, k)
		}
	}
	for i := range nr {
		m.AddRow(bound(p.RowLower, i, math.Inf(-1)), bound(p.RowUpper, i, math.Inf(1)), cols[i], vals[i])
	}
	return m
}

// fromHighsx is m (a model of package mip) as a Model, its matrix row by
// row. Every column is listed in VarTypes.
func fromHighsx(m *highsx.Model) *Model {
	nr := m.NumRows()
	p := &Model{
		Maximize: m.Maximize,
		ColCosts: slices.Clone(m.Cost),
		Offset:   m.Offset,
		ColLower: slices.Clone(m.Lower),
		ColUpper: slices.Clone(m.Upper),
		RowLower: make([]float64, nr),
		RowUpper: make([]float64, nr),
		VarTypes: make([]varType, m.NumCols()),
	}
	for j, in := range m.Integer {
		if in {
			p.VarTypes[j] = integer
		}
	}
	for i := range nr {
		lo, hi, col, val := m.Row(i)
		p.RowLower[i], p.RowUpper[i] = lo, hi
		for k, j := range col {
			p.ConstMatrix = append(p.ConstMatrix, Nonzero{Row: i, Col: j, Val: val[k]})
		}
	}
	return p
}

// solveInProcess solves p with HiGHS and mmds's options, no limit: the
// reference solution of the tests.
func solveInProcess(p *Model) (x []float64, objective float64, err error) {
	res, err := toHighsx(p).Solve(context.Background(), mip.DefaultSolver())
	return res.X, res.Objective, err
}
