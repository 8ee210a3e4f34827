package bench

// The in-process HiGHS solver. Package bench reaches HiGHS only through
// internal/highsx, and only in this file; its instances are highsx.Problems,
// as package mip builds them and ReadMPS reads them.

import (
	"context"
	"errors"
	"fmt"
	"math"
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
		res, err = t.Instance.Problem.Solve(ctx, h.options(t.Limit, t.Seed))
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
