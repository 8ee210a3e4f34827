package bench

// Model is a linear or mixed-integer program as an MPS file states it:
//
//	minimize (or maximize)  c·x + Offset
//	subject to              RowLower ≤ A x ≤ RowUpper,
//	                        ColLower ≤ x ≤ ColUpper,
//	                        x_j integer where VarTypes[j] is integer.
//
// A is held in coordinate form (ConstMatrix), the form ReadMPS produces
// and the writers, the checker and the external solvers' parsers take.
// Columns are counted by ColCosts; rows by the longer of RowLower and
// RowUpper. Infinite bounds are ±Inf. VarTypes is nil for an LP.
//
// It is a plain record of the file: the in-process solver hands it to
// HiGHS as an internal/highsx Model (see HiGHS), and the library builds it
// from the highsx Models of package mip (fromHighsx).
type Model struct {
	Maximize    bool
	ColCosts    []float64
	Offset      float64 // constant term of the objective
	ColLower    []float64
	ColUpper    []float64
	RowLower    []float64
	RowUpper    []float64
	ConstMatrix []Nonzero
	VarTypes    []varType
}

// Nonzero is one entry A[Row][Col] = Val of a Model's constraint matrix.
type Nonzero struct {
	Row, Col int
	Val      float64
}

// varType is a column's kind: continuous or integer (MPS's INTORG
// markers; a binary is an integer column with bounds [0, 1]).
type varType uint8

const (
	continuous varType = iota
	integer
)

// isInteger reports whether column j of m is integer.
func isInteger(m *Model, j int) bool { return j < len(m.VarTypes) && m.VarTypes[j] != continuous }
