package bench

import (
	"fmt"
	"math"

	"github.com/lanl/highs"
)

// Tolerances of the independent check. Feasibility is measured per row and
// per bound as the violation divided by 1 + |the violated bound|.
type Tolerances struct {
	Feas float64 `json:"feasibility"` // rows and column bounds
	Int  float64 `json:"integrality"` // distance of an integer column from the nearest integer
	// Obj bounds |a − b| / (1 + |b|) when comparing objectives: the
	// reported one with c·x, and c·x with the certified optimum.
	Obj float64 `json:"objective"`
}

// DefaultTolerances are loose enough for every solver's default
// tolerances (GLPK's integrality tolerance is 1e-5) and far tighter than
// the differences between distinct optima of mmds's models.
func DefaultTolerances() Tolerances { return Tolerances{Feas: 1e-6, Int: 1e-5, Obj: 1e-6} }

// Verdict is the independent check of one solution.
type Verdict struct {
	Objective float64 // c·x + offset, recomputed
	MaxRow    float64 // largest scaled row violation
	MaxBound  float64 // largest scaled column-bound violation
	MaxInt    float64 // largest integrality violation
	// Reason says why the solution fails ("" when it passes).
	Reason string
}

// CheckSolution re-checks x against p without any solver: row activities
// recomputed from the matrix, column bounds, integrality and the
// objective.
func CheckSolution(p *highs.Model, x []float64, tol Tolerances) Verdict {
	nc, nr := len(p.ColCosts), max(len(p.RowLower), len(p.RowUpper))
	if len(x) != nc {
		return Verdict{Objective: math.NaN(), Reason: fmt.Sprintf("solution has %d values for %d columns", len(x), nc)}
	}
	v := Verdict{Objective: p.Offset}
	for j, xj := range x {
		if math.IsNaN(xj) || math.IsInf(xj, 0) {
			return Verdict{Objective: math.NaN(), Reason: fmt.Sprintf("column %d is %v", j, xj)}
		}
		v.Objective += p.ColCosts[j] * xj
	}
	worst := func(cur *float64, what *string, viol float64, desc func() string) {
		if viol > *cur {
			*cur = viol
			if viol > tol.Feas && *what == "" {
				*what = desc()
			}
		}
	}
	var reason string
	for j, xj := range x {
		lo, hi := bound(p.ColLower, j, 0), bound(p.ColUpper, j, math.Inf(1))
		worst(&v.MaxBound, &reason, scaledViolation(xj, lo, hi), func() string {
			return fmt.Sprintf("column %d = %.10g outside [%g, %g]", j, xj, lo, hi)
		})
		if j < len(p.VarTypes) && p.VarTypes[j] != highs.ContinuousType {
			d := math.Abs(xj - math.Round(xj))
			if d > v.MaxInt {
				v.MaxInt = d
				if d > tol.Int && reason == "" {
					reason = fmt.Sprintf("integer column %d = %.10g", j, xj)
				}
			}
		}
	}
	act := make([]float64, nr)
	for _, nz := range p.ConstMatrix {
		act[nz.Row] += nz.Val * x[nz.Col]
	}
	for i, a := range act {
		lo, hi := bound(p.RowLower, i, math.Inf(-1)), bound(p.RowUpper, i, math.Inf(1))
		worst(&v.MaxRow, &reason, scaledViolation(a, lo, hi), func() string {
			return fmt.Sprintf("row %d activity %.10g outside [%g, %g]", i, a, lo, hi)
		})
	}
	v.Reason = reason
	return v
}

func scaledViolation(a, lo, hi float64) float64 {
	switch {
	case a < lo:
		return (lo - a) / (1 + math.Abs(lo))
	case a > hi:
		return (a - hi) / (1 + math.Abs(hi))
	}
	return 0
}

// The statuses of a run. A solver's own words are kept in Run.SolverStatus.
const (
	StatusOptimal    = "optimal"    // claimed optimal and passed the check
	StatusTimeLimit  = "time limit" // stopped by the time limit
	StatusInfeasible = "infeasible" // claimed infeasible where that is not known false
	StatusError      = "error"      // the solver failed (crash, unreadable output)
	StatusWrong      = "wrong"      // an answer that fails the independent check
)

// Outcome is what a solver reports, before checking.
type Outcome struct {
	Status       string    // one of the statuses above except StatusWrong
	SolverStatus string    // the solver's own words
	Objective    float64   // reported objective; NaN when none
	X            []float64 // reported column values; nil when none
	Seconds      float64   // wall-clock time of the solver call
	Nodes        int64     // branch-and-bound nodes; −1 when unknown
	Err          string
}

// Judge checks o against in and returns the final status, the verdict on
// the solution (when there is one) and, for "wrong", why.
func Judge(in Instance, o Outcome, tol Tolerances) (status string, v Verdict, why string) {
	v = Verdict{Objective: math.NaN()}
	near := func(a, b float64) bool { return math.Abs(a-b) <= tol.Obj*(1+math.Abs(b)) }
	switch o.Status {
	case StatusOptimal, StatusTimeLimit:
		if o.X == nil {
			if o.Status == StatusOptimal {
				return StatusWrong, v, "claims optimal but returned no solution"
			}
			return o.Status, v, ""
		}
		v = CheckSolution(in.Problem, o.X, tol)
		switch {
		case v.Reason != "":
			return StatusWrong, v, "infeasible solution: " + v.Reason
		case !math.IsNaN(o.Objective) && !near(o.Objective, v.Objective):
			return StatusWrong, v, fmt.Sprintf("reported objective %.10g, but c·x = %.10g", o.Objective, v.Objective)
		case !math.IsNaN(in.Bound) && v.Objective < in.Bound-tol.Obj*(1+math.Abs(in.Bound)):
			return StatusWrong, v, fmt.Sprintf("objective %.10g below the proven bound %.10g", v.Objective, in.Bound)
		case o.Status == StatusOptimal && !math.IsNaN(in.Optimal) && !near(v.Objective, in.Optimal):
			return StatusWrong, v, fmt.Sprintf("claims optimal with %.10g, certified optimum %.10g", v.Objective, in.Optimal)
		}
		return o.Status, v, ""
	case StatusInfeasible:
		if !math.IsNaN(in.Optimal) {
			return StatusWrong, v, fmt.Sprintf("claims infeasible, but the certified optimum %.10g is attained", in.Optimal)
		}
	}
	return o.Status, v, ""
}
