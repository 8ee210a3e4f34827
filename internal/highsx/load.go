package highsx

// #include <interfaces/highs_c_api.h>
import "C"

import (
	"fmt"

	"github.com/lanl/highs"
)

// load checks m and passes it to a new HiGHS object set up with the options
// o. kept maps HiGHS's rows to m's (nil when it kept every row): HiGHS never
// sees an empty row, which is the constant constraint lo ≤ 0 ≤ hi, dropped
// when it holds and an infeasibility when it does not.
func (m *Problem) load(o Options) (raw *highs.RawModel, kept []int, err error) {
	if err := m.check(); err != nil {
		return nil, nil, err
	}
	raw = highs.NewRawModel()
	if err := applyOptions(raw, o); err != nil {
		return nil, nil, err
	}
	nc, nr := m.NumCols(), m.NumRows()
	cost, lower, upper := cDoubles(m.Cost), cDoubles(m.Lower), cDoubles(m.Upper)
	integrality := make([]C.HighsInt, nc)
	for j := range nc {
		if m.Integer != nil && m.Integer[j] {
			integrality[j] = C.kHighsVarTypeInteger
		}
	}
	var rowLower, rowUpper, value []C.double
	var start, index []C.HighsInt
	for i := range nr {
		lo, hi, col, val := m.Row(i)
		if len(col) == 0 {
			if lo > 0 || hi < 0 {
				return nil, nil, fmt.Errorf("%w: %w: row %d has no coefficients but needs %g ≤ 0 ≤ %g", ErrNotOptimal, ErrInfeasible, i, lo, hi)
			}
			continue
		}
		kept = append(kept, i)
		rowLower, rowUpper = append(rowLower, C.double(lo)), append(rowUpper, C.double(hi))
		start = append(start, C.HighsInt(len(value)))
		for k, j := range col {
			index = append(index, C.HighsInt(j))
			value = append(value, C.double(val[k]))
		}
	}
	switch {
	case len(kept) == nr:
		kept = nil
	case kept == nil:
		kept = []int{} // every row empty: none kept, which nil would not say
	}
	sense := C.HighsInt(C.kHighsObjSenseMinimize)
	if m.Maximize {
		sense = C.kHighsObjSenseMaximize
	}
	st := C.Highs_passModel(handle(raw), C.HighsInt(nc), C.HighsInt(len(rowLower)), C.HighsInt(len(value)), 0,
		C.kHighsMatrixFormatRowwise, C.kHighsHessianFormatTriangular, sense, C.double(m.Offset),
		ptr(cost), ptr(lower), ptr(upper), ptr(rowLower), ptr(rowUpper),
		ptr(start), ptr(index), ptr(value), nil, nil, nil, ptr(integrality))
	if st == C.kHighsStatusError {
		return nil, nil, fmt.Errorf("%w: HiGHS refused the model (status %d)", ErrInvalidModel, int(st))
	}
	return raw, kept, nil
}

func cDoubles(v []float64) []C.double {
	out := make([]C.double, len(v))
	for i, x := range v {
		out[i] = C.double(x)
	}
	return out
}

func ptr[T any](v []T) *T {
	if len(v) == 0 {
		return nil
	}
	return &v[0]
}
