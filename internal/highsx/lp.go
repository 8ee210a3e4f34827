package highsx

// #include <interfaces/highs_c_api.h>
import "C"

import (
	"context"
	"fmt"
	"runtime"

	"github.com/lanl/highs"
)

// LP is a model kept inside HiGHS between solves, for sequences of solves
// that differ only in the column costs: HiGHS restarts the simplex from the
// previous optimal basis, so each re-solve takes a few iterations. It is not
// safe for concurrent use.
type LP struct {
	raw   *highs.RawModel
	isMIP bool
}

// NewLP loads m into HiGHS with the options o.
func NewLP(m *highs.Model, o Options) (*LP, error) {
	raw, err := build(m, o)
	if err != nil {
		return nil, err
	}
	lp := &LP{raw: raw}
	for _, t := range m.VarTypes {
		if t != highs.ContinuousType {
			lp.isMIP = true
		}
	}
	return lp, nil
}

// SetCosts replaces the costs of columns 0 .. len(c)−1.
func (lp *LP) SetCosts(c []float64) error {
	defer runtime.KeepAlive(lp.raw)
	if len(c) == 0 {
		return nil
	}
	if C.Highs_changeColsCostByRange(handle(lp.raw), 0, C.HighsInt(len(c)-1), (*C.double)(&c[0])) == C.kHighsStatusError {
		return fmt.Errorf("highs: change costs of columns 0..%d: failed", len(c)-1)
	}
	return nil
}

// Solve solves the current model like SolveContext.
func (lp *LP) Solve(ctx context.Context) (Result, error) {
	return runContext(ctx, lp.raw, lp.isMIP)
}
