package bench

import (
	"fmt"
	"math"
)

// Outcome is what a solver reports, before checking.
type Outcome struct {
	Status       Status    // any but StatusWrong and StatusImprecise
	SolverStatus string    // the solver's own words
	Objective    float64   // reported objective; NaN when none
	X            []float64 // reported column values, in the model's order; nil when none
	Seconds      float64   // wall-clock time of the solver call
	Nodes        int64     // branch-and-bound nodes; −1 when unknown
	Err          string
}

// Check is how answers are judged: within Precise an answer is optimal;
// beyond Precise but within Field (MIPLIB's tolerances) imprecise; beyond
// Field wrong.
type Check struct {
	Precise, Field Tolerances
}

// DefaultCheck is mmds's tight tolerances and MIPLIB's.
func DefaultCheck() Check { return Check{Precise: DefaultTolerances(), Field: MIPLIBTolerances()} }

// claim is one value a solution's exact objective is held against.
type claim struct {
	gap   float64 // relative, as Verdict.objGap
	ok    bool    // the value is there to check
	what  string
	value float64
}

// Judgement is the check of one outcome.
type Judgement struct {
	Status  Status
	Verdict Verdict // the exact check of the solution, when there is one
	// Why says why the status is wrong, or why a claimed optimum is
	// imprecise.
	Why string
}

// Judge checks o against in's exact model (in.Exact; read from in's MPS
// bytes when nil) and returns the final status. A claimed optimum must come
// with a solution that meets MIPLIB's tolerances, whose exact objective
// meets the reported one, the proven bound and the certified optimum; a
// time-limited incumbent must meet the same except the optimum; a claim of
// infeasibility is wrong when the certified optimum is attained.
//
// in.Bound bounds the optimal value in the model's own sense (the MPS
// file's, ExactModel.Maximize): from below for a minimization, from above
// for a maximization, so a feasible solution beyond it on the optimizing
// side refutes the bound or the solution.
func (c Check) Judge(in Instance, o Outcome) Judgement {
	j := Judgement{Status: o.Status, Verdict: Verdict{Objective: math.NaN()}}
	switch o.Status {
	case StatusInfeasible:
		if !math.IsNaN(in.Optimal) {
			j.Status, j.Why = StatusWrong, fmt.Sprintf("claims infeasible, but the certified optimum %.10g is attained", in.Optimal)
		}
		return j
	case StatusOptimal, StatusTimeLimit:
	default:
		return j
	}
	if o.X == nil {
		if o.Status == StatusOptimal {
			j.Status, j.Why = StatusWrong, "claims optimal but returned no solution"
		}
		return j
	}
	ex, err := in.ExactModel()
	if err != nil {
		j.Status, j.Why = StatusError, "cannot check: "+err.Error()
		return j
	}
	v := CheckExact(ex, o.X)
	j.Verdict = v
	if v.Reason != "" {
		j.Status, j.Why = StatusWrong, "unusable solution: "+v.Reason
		return j
	}
	if why := v.Exceeds(c.Field); why != "" {
		j.Status, j.Why = StatusWrong, "infeasible solution: "+why
		return j
	}
	imprecise := v.Exceeds(c.Precise)
	bound := claim{v.objPast(in.Bound, -1), !math.IsNaN(in.Bound), "below the proven bound", in.Bound}
	if ex.Maximize {
		bound.gap, bound.what = v.objPast(in.Bound, 1), "above the proven bound"
	}
	claims := []claim{
		{v.objGap(o.Objective), !math.IsNaN(o.Objective), "reported objective", o.Objective},
		bound,
		{v.objGap(in.Optimal), o.Status == StatusOptimal && !math.IsNaN(in.Optimal), "claims optimal, certified optimum", in.Optimal},
	}
	for _, cl := range claims {
		if !cl.ok {
			continue
		}
		msg := fmt.Sprintf("c·x = %.10g: %s %.10g (relative gap %.2g)", v.Objective, cl.what, cl.value, cl.gap)
		if cl.gap > c.Field.Obj {
			j.Status, j.Why = StatusWrong, msg
			return j
		}
		if cl.gap > c.Precise.Obj && imprecise == "" {
			imprecise = msg
		}
	}
	if imprecise != "" && o.Status == StatusOptimal {
		j.Status, j.Why = StatusImprecise, imprecise
	}
	return j
}
