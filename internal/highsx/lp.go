package highsx

// #include <interfaces/highs_c_api.h>
import "C"

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/lanl/highs"
)

// LP is a model kept inside HiGHS between solves, for sequences of solves
// that differ only in the column costs: HiGHS restarts the simplex from the
// previous optimal basis, so each re-solve takes a few iterations. It is not
// safe for concurrent use.
type LP struct {
	raw   *highs.RawModel
	isMIP bool
	// kept maps HiGHS's first rows to m's (nil when m had no empty row,
	// which build drops); rows is m's row count.
	kept []int
	rows int
	// where maps m's rows to HiGHS's (−1 for a dropped empty row; nil
	// when kept is nil).
	where []int
}

// NewLP loads m into HiGHS with the options o. A persistent LP is not
// scaled (its costs and rows change between solves); with tiny
// coefficients it keeps every entry down to 1e-12 (see minMatrixValue).
func NewLP(m *Problem, o Options) (*LP, error) {
	if m.needsScaling() {
		o = withSmallMatrixValue(o)
	}
	raw, kept, err := m.load(o)
	if err != nil {
		return nil, err
	}
	lp := &LP{raw: raw, kept: kept, rows: m.NumRows(), isMIP: m.IsMIP()}
	if kept != nil {
		lp.where = slices.Repeat([]int{-1}, m.NumRows())
		for i, r := range kept {
			lp.where[r] = i
		}
	}
	return lp, nil
}

// SetColBounds sets lo[k] ≤ x[cols[k]] ≤ hi[k] for every k: HiGHS keeps its
// basis, so the next Solve starts from the last optimum (a change of
// bounds leaves it dual feasible, and the dual simplex restores primal
// feasibility in a few iterations).
func (lp *LP) SetColBounds(cols []int, lo, hi []float64) error {
	defer runtime.KeepAlive(lp.raw)
	if len(cols) != len(lo) || len(cols) != len(hi) {
		panic(fmt.Sprintf("highsx: SetColBounds with %d columns and %d, %d bounds", len(cols), len(lo), len(hi)))
	}
	if len(cols) == 0 {
		return nil
	}
	set := make([]C.HighsInt, len(cols))
	for k, j := range cols {
		set[k] = C.HighsInt(j)
	}
	if C.Highs_changeColsBoundsBySet(handle(lp.raw), C.HighsInt(len(set)), &set[0],
		&cDoubles(lo)[0], &cDoubles(hi)[0]) == C.kHighsStatusError {
		return fmt.Errorf("highs: change the bounds of columns %v: failed", cols)
	}
	return nil
}

// SetRowBounds sets lo[k] ≤ row rows[k] ≤ hi[k] for every k, rows numbered
// as in the Problem given to NewLP (an empty row, which HiGHS never saw,
// cannot be changed).
// The basis is kept, as with SetColBounds.
func (lp *LP) SetRowBounds(rows []int, lo, hi []float64) error {
	defer runtime.KeepAlive(lp.raw)
	if len(rows) != len(lo) || len(rows) != len(hi) {
		panic(fmt.Sprintf("highsx: SetRowBounds with %d rows and %d, %d bounds", len(rows), len(lo), len(hi)))
	}
	if len(rows) == 0 {
		return nil
	}
	set := make([]C.HighsInt, len(rows))
	for k, r := range rows {
		if r < 0 || r >= lp.rows {
			panic(fmt.Sprintf("highsx: SetRowBounds: row %d out of range [0, %d)", r, lp.rows))
		}
		i := r
		if lp.where != nil {
			i = lp.where[r]
		}
		if i < 0 {
			return fmt.Errorf("highs: row %d has no coefficients: its bounds cannot change", r)
		}
		set[k] = C.HighsInt(i)
	}
	if C.Highs_changeRowsBoundsBySet(handle(lp.raw), C.HighsInt(len(set)), &set[0],
		&cDoubles(lo)[0], &cDoubles(hi)[0]) == C.kHighsStatusError {
		return fmt.Errorf("highs: change the bounds of rows %v: failed", rows)
	}
	return nil
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

// Solve solves the current model like Problem.Solve. When a warm-started
// run ends in StatusUnknown or StatusError (HiGHS gave up on the basis it
// inherited, which happens now and then after rows change), the solver
// state is cleared and the model solved once more from scratch.
func (lp *LP) Solve(ctx context.Context) (Result, error) {
	defer runtime.KeepAlive(lp.raw)
	res, err := runContext(ctx, lp.raw, lp.isMIP)
	if err != nil && (res.Status == StatusUnknown || res.Status == StatusError) && ctx.Err() == nil {
		if C.Highs_clearSolver(handle(lp.raw)) == C.kHighsStatusError {
			return res, err
		}
		res, err = runContext(ctx, lp.raw, lp.isMIP)
	}
	if lp.kept != nil && res.RowDual != nil {
		// m's rows in m's order, 0 for an empty one (as Problem.Solve).
		full := make([]float64, lp.rows)
		for i, r := range lp.kept {
			full[r] = res.RowDual[i]
		}
		res.RowDual = full
	}
	return res, err
}

// Col is the sparse column Lower ≤ x ≤ Upper with cost Cost and the
// entries Value[k] in rows Index[k] of the model given to NewLP.
type Col struct {
	Cost, Lower, Upper float64
	Index              []int
	Value              []float64
}

// NumCols is the number of columns HiGHS holds.
func (lp *LP) NumCols() int {
	defer runtime.KeepAlive(lp.raw)
	return int(C.Highs_getNumCol(handle(lp.raw)))
}

// AddCols appends columns to the model (column generation): the next Solve
// starts from the previous optimal basis, the new columns nonbasic. An
// entry in a row NewLP left out (a row without coefficients) is an error.
func (lp *LP) AddCols(cols []Col) error {
	defer runtime.KeepAlive(lp.raw)
	if len(cols) == 0 {
		return nil
	}
	row := func(i int) (int, error) {
		switch {
		case lp.kept == nil:
			return i, nil
		case i >= lp.rows: // past the model: HiGHS refuses it
			return len(lp.kept) + i - lp.rows, nil
		}
		k, ok := slices.BinarySearch(lp.kept, i)
		if !ok {
			return 0, fmt.Errorf("highs: add columns: row %d has no coefficients and was left out", i)
		}
		return k, nil
	}
	cost := make([]C.double, len(cols))
	lo := make([]C.double, len(cols))
	hi := make([]C.double, len(cols))
	starts := make([]C.HighsInt, len(cols))
	var index []C.HighsInt
	var value []C.double
	for c, col := range cols {
		if !isFinite(col.Cost) || math.IsNaN(col.Lower) || math.IsNaN(col.Upper) {
			return fmt.Errorf("%w: added column %d has cost %v and bounds [%v, %v]", ErrInvalidModel, c, col.Cost, col.Lower, col.Upper)
		}
		cost[c], lo[c], hi[c] = C.double(col.Cost), C.double(col.Lower), C.double(col.Upper)
		starts[c] = C.HighsInt(len(index))
		for k, i := range col.Index {
			if !isFinite(col.Value[k]) {
				return fmt.Errorf("%w: added column %d has a coefficient %v", ErrInvalidModel, c, col.Value[k])
			}
			r, err := row(i)
			if err != nil {
				return err
			}
			index = append(index, C.HighsInt(r))
			value = append(value, C.double(col.Value[k]))
		}
	}
	if C.Highs_addCols(handle(lp.raw), C.HighsInt(len(cols)), &cost[0], &lo[0], &hi[0], C.HighsInt(len(index)), &starts[0], ptr(index), ptr(value)) == C.kHighsStatusError {
		return fmt.Errorf("highs: add %d columns: failed", len(cols))
	}
	return nil
}
