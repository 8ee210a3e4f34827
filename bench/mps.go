package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/safefile"
)

// WriteMPS writes m in free MPS format: column j is named x<j>, row i r<i>,
// the objective row obj. Numbers are written in Go's shortest round-trip
// form, so a reader gets back every coefficient bit for bit and the bytes
// depend on m alone. Integer columns sit between INTORG/INTEND markers and
// always carry both bounds explicitly (readers differ on the default bounds
// of integer columns). The sense is always minimize: MPS has no standard
// way to say maximize, so m must be a minimization (see Minimize).
func WriteMPS(w io.Writer, name string, m *highsx.Problem) error {
	return writeMPS(w, name, m, nil, nil)
}

// WriteMPSPermuted writes m as WriteMPS does, with its rows and columns in
// the orders given (rows[k], cols[k]: the row and column at position k;
// nil: the identity). Names stay r<i> and x<j> of the model, so a solver
// that reports values by name needs no mapping back; one that reports
// them by position does (cols). For solvers without a random seed, a
// permuted file is the field's substitute for a seed.
func WriteMPSPermuted(w io.Writer, name string, m *highsx.Problem, rows, cols []int) error {
	if (rows != nil && !isPermutation(rows, m.NumRows())) || (cols != nil && !isPermutation(cols, m.NumCols())) {
		panic("bench: WriteMPSPermuted: not a permutation of the rows or columns")
	}
	return writeMPS(w, name, m, rows, cols)
}

func isPermutation(p []int, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, i := range p {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}

// identity returns p, or 0..n−1 when p is nil.
func identity(p []int, n int) []int {
	if p != nil {
		return p
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

type rowKind struct {
	kind     byte
	rhs, rng float64
	hasRange bool
}

// rowKinds returns the kinds of m's rows, or why m cannot be written under
// name: a maximization, a name MPS cannot hold, a row without a sense.
func rowKinds(name string, m *highsx.Problem) ([]rowKind, error) {
	if m.Maximize {
		return nil, errors.New("mps: the model maximizes; write its Minimize form")
	}
	if strings.ContainsAny(name, " \t\n") || name == "" {
		return nil, fmt.Errorf("mps: name %q: must be non-empty without blanks", name)
	}
	kinds := make([]rowKind, m.NumRows())
	for i := range kinds {
		lo, hi, _, _ := m.Row(i)
		switch {
		case lo == hi:
			kinds[i] = rowKind{kind: 'E', rhs: lo}
		case math.IsInf(lo, -1) && math.IsInf(hi, 1):
			return nil, fmt.Errorf("mps: row %d is free (no finite bound); drop it", i)
		case math.IsInf(lo, -1):
			kinds[i] = rowKind{kind: 'L', rhs: hi}
		case math.IsInf(hi, 1):
			kinds[i] = rowKind{kind: 'G', rhs: lo}
		default: // ranged: lo ≤ a·x ≤ lo + (hi − lo)
			kinds[i] = rowKind{kind: 'G', rhs: lo, rng: hi - lo, hasRange: true}
		}
	}
	return kinds, nil
}

func writeMPS(w io.Writer, name string, m *highsx.Problem, rowOrder, colOrder []int) error {
	kinds, err := rowKinds(name, m)
	if err != nil {
		return err
	}
	rowOrder, colOrder = identity(rowOrder, len(kinds)), identity(colOrder, m.NumCols())
	bw := bufio.NewWriter(w)
	// "FREE" after the name tells CBC's reader the format (GLPK and HiGHS
	// ignore it); without it CBC reads the BOUNDS lines in fixed columns.
	fmt.Fprintf(bw, "NAME %s FREE\nROWS\n N obj\n", name)
	for _, i := range rowOrder {
		fmt.Fprintf(bw, " %c r%d\n", kinds[i].kind, i)
	}
	writeColumns(bw, m, colOrder)
	writeRHS(bw, m, kinds, rowOrder)
	bw.WriteString("BOUNDS\n")
	for _, j := range colOrder {
		writeBound(bw, m, j)
	}
	bw.WriteString("ENDATA\n")
	return bw.Flush()
}

// shortest is x as the library's files hold it (MPS, .solu, the
// manifests): the shortest decimal that reads back to the same float64.
func shortest(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// isInteger reports whether column j of m is integer.
func isInteger(m *highsx.Problem, j int) bool { return m.Integer != nil && m.Integer[j] }

// writeColumns writes the COLUMNS section in colOrder: every column's cost
// and its nonzeros by row, integer columns between MARKER lines.
func writeColumns(bw *bufio.Writer, m *highsx.Problem, colOrder []int) {
	type entry struct {
		row int
		val float64
	}
	byCol := make([][]entry, m.NumCols())
	for i := range m.NumRows() {
		_, _, col, val := m.Row(i)
		for k, j := range col {
			byCol[j] = append(byCol[j], entry{i, val[k]})
		}
	}
	bw.WriteString("COLUMNS\n")
	inInt := false
	for pos, j := range colOrder {
		if isInt := isInteger(m, j); isInt != inInt {
			tag := "INTEND"
			if isInt {
				tag = "INTORG"
			}
			fmt.Fprintf(bw, " M%d 'MARKER' '%s'\n", pos, tag)
			inInt = isInt
		}
		// Every column appears, even one with no entries.
		fmt.Fprintf(bw, " x%d obj %s\n", j, shortest(m.Cost[j]))
		for _, e := range byCol[j] {
			fmt.Fprintf(bw, " x%d r%d %s\n", j, e.row, shortest(e.val))
		}
	}
	if inInt {
		fmt.Fprintf(bw, " M%d 'MARKER' 'INTEND'\n", m.NumCols())
	}
}

// writeRHS writes the RHS section (the objective's constant as minus the
// objective row's right-hand side) and the RANGES section, when a row has
// a range, in rowOrder.
func writeRHS(bw *bufio.Writer, m *highsx.Problem, kinds []rowKind, rowOrder []int) {
	bw.WriteString("RHS\n")
	if m.Offset != 0 {
		fmt.Fprintf(bw, " rhs obj %s\n", shortest(-m.Offset))
	}
	for _, i := range rowOrder {
		if kinds[i].rhs != 0 {
			fmt.Fprintf(bw, " rhs r%d %s\n", i, shortest(kinds[i].rhs))
		}
	}
	var ranges []string
	for _, i := range rowOrder {
		if kinds[i].hasRange {
			ranges = append(ranges, fmt.Sprintf(" rng r%d %s\n", i, shortest(kinds[i].rng)))
		}
	}
	if len(ranges) > 0 {
		bw.WriteString("RANGES\n" + strings.Join(ranges, ""))
	}
}

func writeBound(bw *bufio.Writer, m *highsx.Problem, j int) {
	lo, hi := m.Lower[j], m.Upper[j]
	isInt := isInteger(m, j)
	switch {
	case lo == hi:
		fmt.Fprintf(bw, " FX bnd x%d %s\n", j, shortest(lo))
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		fmt.Fprintf(bw, " FR bnd x%d\n", j)
	default:
		if math.IsInf(lo, -1) {
			fmt.Fprintf(bw, " MI bnd x%d\n", j)
		} else if lo != 0 || isInt {
			fmt.Fprintf(bw, " LO bnd x%d %s\n", j, shortest(lo))
		}
		if math.IsInf(hi, 1) {
			if isInt {
				fmt.Fprintf(bw, " PL bnd x%d\n", j)
			}
		} else {
			fmt.Fprintf(bw, " UP bnd x%d %s\n", j, shortest(hi))
		}
	}
}

// Minimize returns m as a minimization: a maximization's costs and offset
// are negated, so its optimal value is minus the original one. The result
// shares m's rows.
func Minimize(m *highsx.Problem) *highsx.Problem {
	out := *m
	if !m.Maximize {
		return &out
	}
	out.Maximize = false
	out.Cost = make([]float64, len(m.Cost))
	for j, c := range m.Cost {
		out.Cost[j] = 0 - c // 0 − c, not −c: no −0 in the files
	}
	out.Offset = 0 - m.Offset
	return &out
}

// maxMPSEntries bounds the rows, columns and nonzeros ReadMPS accepts, so a
// hostile file cannot make it allocate without limit.
const maxMPSEntries = 10_000_000

// ReadMPS reads a free-format MPS file: the sections NAME, OBJSENSE (MIN or
// MAX, on its line or the next), ROWS, COLUMNS (with INTORG/INTEND
// markers), RHS, RANGES, BOUNDS (UP, LO, FX, FR, MI, PL, BV, LI, UI) and
// ENDATA. Only the first N row is the objective. Columns and rows keep
// their order of first appearance; names are returned alongside. The model
// comes in float64 (MPS.Model) and in exact rational arithmetic
// (MPS.Exact): every number as its text says, so an infinite number, which
// has no rational value, is refused (a free bound is written FR, MI or PL).
func ReadMPS(r io.Reader) (*MPS, error) {
	p := mpsParser{rowIdx: map[string]int{}, colIdx: map[string]int{}, objRow: ""}
	p.x = &ExactModel{Offset: new(big.Rat)}
	p.m.Model, p.m.Exact = highsx.NewProblem(0), p.x
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if err := p.line(sc.Text()); err != nil {
			return nil, fmt.Errorf("mps line %d: %w", line, err)
		}
		if p.section == "ENDATA" {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mps: %w", err)
	}
	if p.section != "ENDATA" {
		return nil, errors.New("mps: no ENDATA line")
	}
	if p.objRow == "" {
		return nil, errors.New("mps: no objective (N) row")
	}
	for i := range p.rowLo {
		p.m.Model.AddRow(p.rowLo[i], p.rowHi[i], p.rowCol[i], p.rowVal[i])
	}
	p.x.Maximize = p.m.Model.Maximize
	return &p.m, nil
}

// MPS is a model read from an MPS file, with its names.
type MPS struct {
	Name     string
	Model    *highsx.Problem
	RowNames []string
	ColNames []string
	// Exact is the model in rational arithmetic.
	Exact *ExactModel
}

type mpsParser struct {
	m       MPS
	section string
	objRow  string
	rowIdx  map[string]int
	colIdx  map[string]int
	rowKind []byte
	// The rows' bounds and entries (column order), added to the model at
	// ENDATA.
	rowLo, rowHi []float64
	rowCol       [][]int
	rowVal       [][]float64
	nonzeros     int
	inInt        bool
	// Explicit lower bounds, so that UP < 0 on a column with no lower
	// bound can follow the MPS convention (lower becomes −∞).
	lowerSet []bool
	// The rows the current column has named: an entry given twice is
	// refused, as solvers disagree on it (HiGHS keeps one, a sum keeps both).
	colRows  map[string]bool
	senseArg bool // OBJSENSE given alone on its line: the sense follows
	x        *ExactModel
}

func (p *mpsParser) line(s string) error {
	if strings.TrimSpace(s) == "" || s[0] == '*' {
		return nil
	}
	fields := strings.Fields(s)
	if s[0] != ' ' && s[0] != '\t' {
		return p.header(fields)
	}
	switch p.section {
	case "OBJSENSE":
		return p.sense(fields[0])
	case "ROWS":
		return p.row(fields)
	case "COLUMNS":
		return p.column(fields)
	case "RHS":
		return p.pairs(fields, p.rhs)
	case "RANGES":
		return p.pairs(fields, p.rng)
	case "BOUNDS":
		return p.bound(fields)
	}
	return fmt.Errorf("data line %s outside a section", safefile.Excerpt(s))
}

func (p *mpsParser) header(f []string) error {
	switch f[0] {
	case "NAME":
		if len(f) > 1 {
			p.m.Name = f[1]
		}
	case "OBJSENSE":
		if len(f) > 1 {
			return p.sense(f[1])
		}
	case "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "ENDATA":
		if len(f) > 1 && f[0] != "RHS" && f[0] != "RANGES" && f[0] != "BOUNDS" {
			return fmt.Errorf("section %s: unexpected %s", f[0], safefile.Excerpt(f[1]))
		}
		if p.inInt && f[0] != "COLUMNS" {
			return errors.New("INTORG marker without INTEND")
		}
	default:
		return fmt.Errorf("unknown section %s", safefile.Excerpt(f[0]))
	}
	p.section = f[0]
	return nil
}

func (p *mpsParser) sense(s string) error {
	switch strings.ToUpper(s) {
	case "MAX", "MAXIMIZE":
		p.m.Model.Maximize = true
	case "MIN", "MINIMIZE":
		p.m.Model.Maximize = false
	default:
		return fmt.Errorf("OBJSENSE %s: want MIN or MAX", safefile.Excerpt(s))
	}
	return nil
}

func (p *mpsParser) row(f []string) error {
	if len(f) != 2 {
		return fmt.Errorf("ROWS line %s: want TYPE NAME", safefile.Excerpt(strings.Join(f, " ")))
	}
	kind, name := strings.ToUpper(f[0]), f[1]
	if _, dup := p.rowIdx[name]; dup || name == p.objRow {
		return fmt.Errorf("row %s defined twice", safefile.Excerpt(name))
	}
	switch kind {
	case "N":
		if p.objRow == "" {
			p.objRow = name
			return nil
		}
		p.rowIdx[name] = -1 // a further free row: ignored
		return nil
	case "E", "L", "G":
	default:
		return fmt.Errorf("row %s: type %s, want N, E, L or G", safefile.Excerpt(name), safefile.Excerpt(kind))
	}
	if len(p.m.RowNames) >= maxMPSEntries {
		return errors.New("too many rows")
	}
	p.rowIdx[name] = len(p.m.RowNames)
	p.m.RowNames = append(p.m.RowNames, name)
	p.rowKind = append(p.rowKind, kind[0])
	lo, hi := math.Inf(-1), math.Inf(1)
	switch kind {
	case "E":
		lo, hi = 0, 0
	case "L":
		hi = 0
	case "G":
		lo = 0
	}
	p.rowLo, p.rowHi = append(p.rowLo, lo), append(p.rowHi, hi)
	p.rowCol, p.rowVal = append(p.rowCol, nil), append(p.rowVal, nil)
	p.x.RowLower = append(p.x.RowLower, finiteRat(lo))
	p.x.RowUpper = append(p.x.RowUpper, finiteRat(hi))
	return nil
}

func (p *mpsParser) column(f []string) error {
	if len(f) == 3 && strings.Trim(f[1], "'\"") == "MARKER" {
		switch strings.Trim(f[2], "'\"") {
		case "INTORG":
			p.inInt = true
		case "INTEND":
			p.inInt = false
		default:
			return fmt.Errorf("marker %s: want INTORG or INTEND", safefile.Excerpt(f[2]))
		}
		return nil
	}
	if len(f) != 3 && len(f) != 5 {
		return fmt.Errorf("COLUMNS line %s: want COLUMN ROW VALUE [ROW VALUE]", safefile.Excerpt(strings.Join(f, " ")))
	}
	mod := p.m.Model
	j, ok := p.colIdx[f[0]]
	if !ok {
		if len(p.m.ColNames) >= maxMPSEntries {
			return errors.New("too many columns")
		}
		j = len(p.m.ColNames)
		p.colIdx[f[0]] = j
		p.m.ColNames = append(p.m.ColNames, f[0])
		mod.Cost = append(mod.Cost, 0)
		mod.Lower = append(mod.Lower, 0)
		mod.Upper = append(mod.Upper, math.Inf(1))
		mod.Integer = append(mod.Integer, p.inInt)
		p.lowerSet = append(p.lowerSet, false)
		p.colRows = map[string]bool{}
		p.x.Cost = append(p.x.Cost, new(big.Rat))
		p.x.ColLower = append(p.x.ColLower, new(big.Rat))
		p.x.ColUpper = append(p.x.ColUpper, nil)
		p.x.Integer = append(p.x.Integer, p.inInt)
	} else if j != len(p.m.ColNames)-1 {
		return fmt.Errorf("column %s: its entries are not contiguous", safefile.Excerpt(f[0]))
	}
	for k := 1; k+1 < len(f); k += 2 {
		v, xv, err := p.num(f[k+1])
		if err != nil {
			return fmt.Errorf("column %s, row %s: %w", safefile.Excerpt(f[0]), safefile.Excerpt(f[k]), err)
		}
		if p.colRows[f[k]] {
			return fmt.Errorf("column %s, row %s: entry given twice", safefile.Excerpt(f[0]), safefile.Excerpt(f[k]))
		}
		p.colRows[f[k]] = true
		if f[k] == p.objRow {
			mod.Cost[j] += v
			p.x.Cost[j].Add(p.x.Cost[j], xv)
			continue
		}
		i, ok := p.rowIdx[f[k]]
		if !ok {
			return fmt.Errorf("column %s: unknown row %s", safefile.Excerpt(f[0]), safefile.Excerpt(f[k]))
		}
		if i < 0 || v == 0 {
			continue
		}
		if p.nonzeros >= maxMPSEntries {
			return errors.New("too many nonzeros")
		}
		p.nonzeros++
		p.rowCol[i], p.rowVal[i] = append(p.rowCol[i], j), append(p.rowVal[i], v)
		p.x.Entries = append(p.x.Entries, ExactEntry{Row: i, Col: j, Val: xv})
	}
	return nil
}

// pairs reads "SETNAME ROW VALUE [ROW VALUE]" (the set name is optional
// when only one pair follows, as some writers omit it).
func (p *mpsParser) pairs(f []string, set func(row string, v float64, xv *big.Rat) error) error {
	if len(f) == 2 || len(f) == 4 {
		f = append([]string{""}, f...)
	}
	if len(f) != 3 && len(f) != 5 {
		return fmt.Errorf("line %s: want [SET] ROW VALUE [ROW VALUE]", safefile.Excerpt(strings.Join(f, " ")))
	}
	for k := 1; k+1 < len(f); k += 2 {
		v, xv, err := p.num(f[k+1])
		if err != nil {
			return fmt.Errorf("row %s: %w", safefile.Excerpt(f[k]), err)
		}
		if err := set(f[k], v, xv); err != nil {
			return err
		}
	}
	return nil
}

func (p *mpsParser) rhs(row string, v float64, xv *big.Rat) error {
	if row == p.objRow {
		p.m.Model.Offset = -v
		p.x.Offset.Neg(xv)
		return nil
	}
	i, ok := p.rowIdx[row]
	if !ok {
		return fmt.Errorf("RHS: unknown row %s", safefile.Excerpt(row))
	}
	if i < 0 {
		return nil
	}
	x := p.x
	switch p.rowKind[i] {
	case 'E':
		p.rowLo[i], p.rowHi[i] = v, v
		x.RowLower[i], x.RowUpper[i] = xv, xv
	case 'L':
		p.rowHi[i] = v
		x.RowUpper[i] = xv
	case 'G':
		p.rowLo[i] = v
		x.RowLower[i] = xv
	}
	return nil
}

// rng applies a RANGES entry after the RHS (the MPS convention: an E row
// with R ≥ 0 is [rhs, rhs + R], with R < 0 [rhs + R, rhs]).
func (p *mpsParser) rng(row string, v float64, xv *big.Rat) error {
	i, ok := p.rowIdx[row]
	if !ok || i < 0 {
		return fmt.Errorf("RANGES: unknown row %s", safefile.Excerpt(row))
	}
	x, a, xa := p.x, math.Abs(v), new(big.Rat).Abs(xv)
	switch p.rowKind[i] {
	case 'L':
		p.rowLo[i] = p.rowHi[i] - a
		x.RowLower[i] = new(big.Rat).Sub(x.RowUpper[i], xa)
	case 'G':
		p.rowHi[i] = p.rowLo[i] + a
		x.RowUpper[i] = new(big.Rat).Add(x.RowLower[i], xa)
	case 'E':
		if v >= 0 {
			p.rowHi[i] = p.rowLo[i] + v
		} else {
			p.rowLo[i] = p.rowHi[i] + v
		}
		if xv.Sign() >= 0 { // not v's sign: a tiny xv rounds to ±0
			x.RowUpper[i] = new(big.Rat).Add(x.RowLower[i], xv)
		} else {
			x.RowLower[i] = new(big.Rat).Add(x.RowUpper[i], xv)
		}
	}
	return nil
}

func (p *mpsParser) bound(f []string) error {
	kind := strings.ToUpper(f[0])
	needsValue := kind != "FR" && kind != "MI" && kind != "PL" && kind != "BV"
	switch {
	case len(f) == 2 && !needsValue, len(f) == 3 && needsValue:
		f = append([]string{f[0], ""}, f[1:]...) // no bound-set name
	case len(f) == 3 && !needsValue, len(f) == 4 && needsValue:
	case len(f) == 4 && kind == "BV": // BV with a value: ignored value
	default:
		return fmt.Errorf("BOUNDS line %s: want TYPE [SET] COLUMN [VALUE]", safefile.Excerpt(strings.Join(f, " ")))
	}
	j, ok := p.colIdx[f[2]]
	if !ok {
		return fmt.Errorf("BOUNDS: unknown column %s", safefile.Excerpt(f[2]))
	}
	var v float64
	var xv *big.Rat
	if needsValue {
		var err error
		if v, xv, err = p.num(f[3]); err != nil {
			return fmt.Errorf("bound %s on %s: %w", kind, safefile.Excerpt(f[2]), err)
		}
	}
	mod, x := p.m.Model, p.x
	switch kind {
	case "UP", "UI":
		mod.Upper[j] = v
		if v < 0 && !p.lowerSet[j] && mod.Lower[j] == 0 {
			mod.Lower[j] = math.Inf(-1)
		}
		x.ColUpper[j] = xv
		if math.IsInf(mod.Lower[j], -1) {
			x.ColLower[j] = nil
		}
	case "LO", "LI":
		mod.Lower[j], p.lowerSet[j] = v, true
		x.ColLower[j] = xv
	case "FX":
		mod.Lower[j], mod.Upper[j], p.lowerSet[j] = v, v, true
		x.ColLower[j], x.ColUpper[j] = xv, xv
	case "FR":
		mod.Lower[j], mod.Upper[j], p.lowerSet[j] = math.Inf(-1), math.Inf(1), true
	case "MI":
		mod.Lower[j], p.lowerSet[j] = math.Inf(-1), true
	case "PL":
		mod.Upper[j] = math.Inf(1)
	case "BV":
		mod.Lower[j], mod.Upper[j], p.lowerSet[j] = 0, 1, true
	default:
		return fmt.Errorf("bound type %s: want UP, LO, FX, FR, MI, PL, BV, LI or UI", safefile.Excerpt(f[0]))
	}
	if !needsValue { // FR, MI, PL, BV: bounds of −∞, 0, 1 or +∞
		x.ColLower[j], x.ColUpper[j] = finiteRat(mod.Lower[j]), finiteRat(mod.Upper[j])
	}
	if kind == "BV" || kind == "LI" || kind == "UI" {
		mod.Integer[j] = true
		x.Integer[j] = true
	}
	return nil
}

// num parses a number and its exact value: the decimal s itself, or the
// float64 s parses to when s is not a plain decimal (hexadecimal, or an
// exponent beyond ±400, whose exact value would be needlessly large). NaN
// and infinities are refused.
func (p *mpsParser) num(s string) (float64, *big.Rat, error) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		return 0, nil, fmt.Errorf("number %s: %w", safefile.Excerpt(s), errors.Unwrap(err))
	case math.IsNaN(v):
		return 0, nil, fmt.Errorf("number %s: NaN", safefile.Excerpt(s))
	case math.IsInf(v, 0):
		return 0, nil, fmt.Errorf("number %s is infinite: no exact value (write a free bound as FR, MI or PL)", safefile.Excerpt(s))
	}
	if plainDecimal(s) {
		if r, ok := new(big.Rat).SetString(s); ok {
			return v, r, nil
		}
	}
	return v, new(big.Rat).SetFloat64(v), nil
}

// plainDecimal reports whether s is [sign] digits [. digits] [e|E [sign]
// digits] with an exponent of at most three digits.
func plainDecimal(s string) bool {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	mant = strings.TrimLeft(mant, "+-")
	if hasExp {
		exp = strings.TrimLeft(exp, "+-")
		if exp == "" || len(exp) > 3 || strings.Trim(exp, "0123456789") != "" {
			return false
		}
	}
	ip, fp, _ := strings.Cut(mant, ".")
	return ip+fp != "" && strings.Trim(ip+fp, "0123456789") == ""
}

// finiteRat is x as a rational, nil when x is infinite.
func finiteRat(x float64) *big.Rat {
	if math.IsInf(x, 0) {
		return nil
	}
	return new(big.Rat).SetFloat64(x)
}
