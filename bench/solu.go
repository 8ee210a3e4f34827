package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mmds-project/mmds/internal/safefile"
)

// SoluKind is the kind of a line of a MIPLIB .solu file.
type SoluKind string

// The kinds of .solu lines (MIPLIB's, as SCIP's check scripts read them):
// a proven optimal value, the best known primal value, a proven
// infeasibility, the best known dual bound, and nothing known.
const (
	SoluOpt      SoluKind = "=opt="
	SoluBest     SoluKind = "=best="
	SoluInf      SoluKind = "=inf="
	SoluBestDual SoluKind = "=bestdual="
	SoluUnknown  SoluKind = "=unkn="
)

// ErrSolu reports a malformed .solu line.
var ErrSolu = errors.New("bench: malformed .solu line")

// SoluEntry is one line of a .solu file: "=opt=  name  value". Value is NaN
// for =inf= and =unkn=.
type SoluEntry struct {
	Kind  SoluKind
	Name  string
	Value float64
}

// hasValue reports whether lines of kind k carry a value.
func (k SoluKind) hasValue() bool { return k == SoluOpt || k == SoluBest || k == SoluBestDual }

// WriteSolu writes es in MIPLIB's .solu format, one line each; values in
// Go's shortest round-trip form.
func WriteSolu(w io.Writer, es []SoluEntry) error {
	bw := bufio.NewWriter(w)
	for _, e := range es {
		if strings.ContainsAny(e.Name, " \t\r\n") || e.Name == "" {
			return fmt.Errorf("solu: name %q: must be non-empty without blanks", e.Name)
		}
		switch {
		case e.Kind.hasValue():
			if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
				return fmt.Errorf("solu: %s %s: value %v", e.Kind, e.Name, e.Value)
			}
			fmt.Fprintf(bw, "%-10s %s %s\n", e.Kind, e.Name, shortest(e.Value))
		case e.Kind == SoluInf || e.Kind == SoluUnknown:
			fmt.Fprintf(bw, "%-10s %s\n", e.Kind, e.Name)
		default:
			return fmt.Errorf("solu: kind %q", e.Kind)
		}
	}
	return bw.Flush()
}

// ReadSolu reads a .solu file: blank lines and lines starting with # are
// skipped; every other line must be a kind, a name and (for =opt=, =best=
// and =bestdual=) a finite value.
func ReadSolu(r io.Reader) ([]SoluEntry, error) {
	var out []SoluEntry
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		f := strings.Fields(text)
		k := SoluKind(f[0])
		e := SoluEntry{Kind: k, Value: math.NaN()}
		switch {
		case k.hasValue() && len(f) == 3:
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w %d: value %s", ErrSolu, line, safefile.Excerpt(f[2]))
			}
			e.Name, e.Value = f[1], v
		case (k == SoluInf || k == SoluUnknown) && len(f) == 2:
			e.Name = f[1]
		default:
			return nil, fmt.Errorf("%w %d: %s: want =opt=|=best=|=bestdual= NAME VALUE or =inf=|=unkn= NAME", ErrSolu, line, safefile.Excerpt(text))
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("solu: %w", err)
	}
	return out, nil
}

// SoluEntries are the .solu lines of a manifest: =opt= with the certified
// optimal value, else =bestdual= with the best bound, else =unkn=. (mmds's
// instances are feasible by construction, so none is =inf=.)
func (m Manifest) SoluEntries() []SoluEntry {
	out := make([]SoluEntry, 0, len(m.Instances))
	for _, e := range m.Instances {
		s := SoluEntry{Kind: SoluUnknown, Name: e.Name, Value: math.NaN()}
		switch {
		case e.OptimalValue != nil:
			s.Kind, s.Value = SoluOpt, *e.OptimalValue
		case e.BestBound != nil:
			s.Kind, s.Value = SoluBestDual, *e.BestBound
		}
		out = append(out, s)
	}
	return out
}
