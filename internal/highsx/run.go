package highsx

// #cgo pkg-config: highs
// #include <stdlib.h>
// #include <interfaces/highs_c_api.h>
//
// // mmdsInterrupt asks HiGHS to stop at its next interrupt check once the
// // flag that user points to is nonzero (set from Go when a context ends).
// static void mmdsInterrupt(int type, const char* msg, const HighsCallbackDataOut* out,
//                           HighsCallbackDataIn* in, void* user) {
//   if (in != NULL && *(volatile int*)user != 0) in->user_interrupt = 1;
// }
//
// static HighsInt mmdsWatch(void* h, int* flag) {
//   HighsInt s = Highs_setCallback(h, mmdsInterrupt, flag);
//   if (s == kHighsStatusError) return s;
//   Highs_startCallback(h, kHighsCallbackSimplexInterrupt);
//   Highs_startCallback(h, kHighsCallbackIpmInterrupt);
//   Highs_startCallback(h, kHighsCallbackMipInterrupt);
//   return kHighsStatusOk;
// }
import "C"

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lanl/highs"
)

// lanl/highs v1.0.0 keeps the Highs object in the only (unexported) field of
// RawModel and offers neither callbacks nor infos after a warning; highsx
// needs both, so it reads that pointer. The constant expressions below stop
// the build if RawModel ever changes size.
const (
	_ = uintptr(unsafe.Sizeof(highs.RawModel{}) - unsafe.Sizeof(unsafe.Pointer(nil)))
	_ = uintptr(unsafe.Sizeof(unsafe.Pointer(nil)) - unsafe.Sizeof(highs.RawModel{}))
)

func handle(raw *highs.RawModel) unsafe.Pointer {
	return (*struct{ obj unsafe.Pointer })(unsafe.Pointer(raw)).obj
}

// runContext runs HiGHS on raw until it finishes or ctx ends: a cancelled
// context sets a flag that HiGHS's simplex, IPM and MIP interrupt callbacks
// poll, so the run returns within one poll interval (well below a second on
// mmds's models) with StatusInterrupted.
func runContext(ctx context.Context, raw *highs.RawModel, isMIP bool) (Result, error) {
	defer runtime.KeepAlive(raw)
	h := handle(raw)
	flag := (*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(flag))
	if ctx.Done() != nil {
		if err := ctx.Err(); err != nil {
			return Result{Status: StatusInterrupted, IsMIP: isMIP},
				fmt.Errorf("%w: %w", StatusInterrupted.err(), err)
		}
		if C.mmdsWatch(h, flag) == C.kHighsStatusError {
			return Result{}, fmt.Errorf("highs: cannot install the interrupt callback")
		}
		set := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			atomic.StoreInt32((*int32)(unsafe.Pointer(flag)), 1)
			close(set)
		})
		// The flag is freed by the earlier defer, after this one: if the
		// AfterFunc already started, wait until it has written the flag.
		defer func() {
			if !stop() {
				<-set
			}
		}()
	}
	start := time.Now()
	rs := C.Highs_run(h)
	elapsed := time.Since(start)
	if rs == C.kHighsStatusError {
		st := convertStatus(C.Highs_getModelStatus(h))
		if st == StatusOptimal || st == StatusUnknown {
			st = StatusError
		}
		return Result{Status: st, Time: elapsed, IsMIP: isMIP},
			fmt.Errorf("%w: Highs_run returned an error (model status %s)", ErrNotOptimal, st)
	}
	st := convertStatus(C.Highs_getModelStatus(h))
	if st == StatusInterrupted && ctx.Err() == nil {
		st = StatusUnknown // nobody asked: treat as an unexplained stop
	}
	res := Result{Status: st, Time: elapsed, IsMIP: isMIP}
	if err := readSolution(h, &res); err != nil {
		return res, err
	}
	if err := st.err(); err != nil {
		if st == StatusInterrupted {
			err = fmt.Errorf("%w: %w", err, ctx.Err())
		}
		return res, err
	}
	for i, x := range res.X {
		if math.IsNaN(x) {
			return res, fmt.Errorf("%w: column %d is NaN", ErrNotOptimal, i)
		}
	}
	return res, nil
}

// readSolution fills the primal values (when HiGHS has a feasible one: the
// optimum, or a MIP's incumbent at a limit), the row duals (when dual
// feasible), the objective and, for a MIP, gap, nodes and dual bound.
func readSolution(h unsafe.Pointer, res *Result) error {
	nc, nr := int(C.Highs_getNumCol(h)), int(C.Highs_getNumRow(h))
	var ps, ds C.HighsInt
	if !intInfo(h, "primal_solution_status", &ps) || !intInfo(h, "dual_solution_status", &ds) {
		return fmt.Errorf("highs: cannot read the solution status")
	}
	res.DualBound = math.NaN()
	if res.IsMIP {
		var gap, bound C.double
		var nodes C.int64_t
		if !floatInfo(h, "mip_gap", &gap) || !floatInfo(h, "mip_dual_bound", &bound) || !int64Info(h, "mip_node_count", &nodes) {
			return fmt.Errorf("highs: cannot read the MIP infos")
		}
		res.MIPGap, res.DualBound, res.Nodes = float64(gap), float64(bound), int64(nodes)
	}
	// An LP's point is only reported at the optimum; a MIP's incumbent is
	// feasible whatever stopped the search.
	if ps != C.kHighsSolutionStatusFeasible || nc == 0 || (!res.IsMIP && res.Status != StatusOptimal) {
		return nil
	}
	col := make([]float64, nc)
	colDual := make([]float64, nc)
	row := make([]float64, max(nr, 1))
	rowDual := make([]float64, max(nr, 1))
	if C.Highs_getSolution(h, (*C.double)(&col[0]), (*C.double)(&colDual[0]),
		(*C.double)(&row[0]), (*C.double)(&rowDual[0])) == C.kHighsStatusError {
		return fmt.Errorf("highs: cannot read the solution")
	}
	res.X = col
	res.HasSolution = true
	res.Objective = float64(C.Highs_getObjectiveValue(h))
	if ds == C.kHighsSolutionStatusFeasible && !res.IsMIP {
		res.RowDual = rowDual[:nr]
	}
	return nil
}

// hasIntegers reports whether the model in h has a column that is not
// continuous.
func hasIntegers(h unsafe.Pointer) bool {
	for j := range C.Highs_getNumCol(h) {
		var t C.HighsInt
		if C.Highs_getColIntegrality(h, j, &t) != C.kHighsStatusError && t != C.kHighsVarTypeContinuous {
			return true
		}
	}
	return false
}

func intInfo(h unsafe.Pointer, name string, v *C.HighsInt) bool {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	return C.Highs_getIntInfoValue(h, c, v) != C.kHighsStatusError
}

func int64Info(h unsafe.Pointer, name string, v *C.int64_t) bool {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	return C.Highs_getInt64InfoValue(h, c, v) != C.kHighsStatusError
}

func floatInfo(h unsafe.Pointer, name string, v *C.double) bool {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	return C.Highs_getDoubleInfoValue(h, c, v) != C.kHighsStatusError
}

func convertStatus(ms C.HighsInt) Status {
	switch ms {
	case C.kHighsModelStatusOptimal:
		return StatusOptimal
	case C.kHighsModelStatusInfeasible:
		return StatusInfeasible
	case C.kHighsModelStatusUnbounded, C.kHighsModelStatusUnboundedOrInfeasible:
		return StatusUnbounded
	case C.kHighsModelStatusTimeLimit:
		return StatusTimeLimit
	case C.kHighsModelStatusInterrupt:
		return StatusInterrupted
	case C.kHighsModelStatusIterationLimit, C.kHighsModelStatusSolutionLimit,
		C.kHighsModelStatusObjectiveBound, C.kHighsModelStatusObjectiveTarget:
		return StatusLimit
	case C.kHighsModelStatusLoadError, C.kHighsModelStatusModelError, C.kHighsModelStatusPresolveError,
		C.kHighsModelStatusSolveError, C.kHighsModelStatusPostsolveError:
		return StatusError
	}
	return StatusUnknown
}
