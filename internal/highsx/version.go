package highsx

// #cgo pkg-config: highs
// #include <interfaces/highs_c_api.h>
import "C"

// Version returns the version of the linked HiGHS library, "vX.Y.Z".
func Version() string { return C.GoString(C.Highs_version()) }
