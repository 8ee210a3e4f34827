package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/mip"
)

// Spec binds a run to a data file and to the roles of its columns. It is
// the "data" section of the model file of a results directory trained on
// a user's data (File), so the directory's model hash covers the data
// file's SHA-256, the columns and the split.
type Spec struct {
	// CSV names the data file: its base name (mmds train data records
	// nothing of the folder it read the file from). Runs of an older mmds
	// recorded the path as given; FileName takes its base name, so a run
	// never points its reader at a path of the author's choosing.
	CSV    string `json:"csv"`
	SHA256 string `json:"sha256"` // of the file's bytes
	Rows   int    `json:"rows"`
	// Private is X; Reconstructor holds Y's columns; Adversaries[i] holds
	// Z_i's.
	Private       Column     `json:"private"`
	Reconstructor []Column   `json:"reconstructor"`
	Adversaries   [][]Column `json:"adversaries"`
	Split         Split      `json:"split"`
}

// Column is a column of the data file in a role, with the kind it is read
// as.
type Column struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
}

// Split is Section V's train/test split of the rows: a seeded shuffle
// (Permutation), then the first Train rows train and the other Test rows
// test.
type Split struct {
	Seed  uint64 `json:"seed"`
	Train int    `json:"train"`
	Test  int    `json:"test"`
}

// File is the model file of a run on a user's data: {"data": Spec}.
type File struct {
	Data *Spec `json:"data"`
}

// MinRows is the fewest data rows a run accepts: the test split (a sixth)
// then has at least 10 rows.
const MinRows = 60

// Choice is what the user chose: the columns of each role and the kinds
// that override Detect.
type Choice struct {
	Private       string
	Reconstructor []string
	Adversaries   [][]string
	// Discrete and Continuous name columns whose kind overrides Detect.
	Discrete, Continuous []string
	Seed                 uint64
}

// NewChoice reads the columns' roles as the command line gives them
// (--private, --reconstructor, one comma-separated --adversary per
// adversary, --discrete, --continuous), each name trimmed.
func NewChoice(private string, recon, advs, discrete, continuous []string, seed uint64) (Choice, error) {
	c := Choice{Private: private, Reconstructor: trimAll(recon), Discrete: trimAll(discrete), Continuous: trimAll(continuous), Seed: seed}
	switch {
	case private == "":
		return c, errors.New("--private: give the column of the private X")
	case len(c.Reconstructor) == 0:
		return c, errors.New("--reconstructor: give the reconstructor's side columns (COL[,COL])")
	case len(advs) == 0:
		return c, errors.New("--adversary: give one adversary's side columns (COL[,COL]); repeat for each adversary")
	case len(advs) > mip.MaxAdversaries:
		return c, fmt.Errorf("--adversary: %d adversaries: at most %d", len(advs), mip.MaxAdversaries)
	}
	for _, a := range advs {
		c.Adversaries = append(c.Adversaries, trimAll(strings.Split(a, ",")))
	}
	return c, nil
}

func trimAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// NewSpec checks c against the table t of the file named path whose bytes
// have SHA-256 sha, and returns the Spec (recording path's base name): every named column exists, none
// is used twice by one observer, X is no observer's side column, no
// column in use is constant, and a column forced discrete has at most
// MaxSymbols values. Errors wrap ErrData and name the column.
func NewSpec(t *Table, path, sha string, c Choice) (*Spec, error) {
	if t.Rows < MinRows {
		return nil, &Error{File: path, Msg: fmt.Sprintf("%d data rows: want at least %d (a sixth of them is the test split)", t.Rows, MinRows)}
	}
	kinds, err := overrides(t, path, c)
	if err != nil {
		return nil, err
	}
	col := func(name string) (Column, error) {
		j := t.Column(name)
		if j < 0 {
			return Column{}, &Error{File: path, Column: name, Msg: fmt.Sprintf("no such column: the header names %s", safefile.ExcerptList(t.Names))}
		}
		if err := t.checkVaries(path, j); err != nil {
			return Column{}, err
		}
		k, ok := kinds[name]
		if !ok {
			k = Detect(t.Cols[j])
		}
		if k == Continuous {
			if err := t.checkScale(path, j); err != nil {
				return Column{}, err
			}
		}
		if k == Discrete {
			if n := len(distinct(t.Cols[j])); n > MaxSymbols {
				return Column{}, &Error{File: path, Column: name, Msg: fmt.Sprintf("declared discrete but holds %d distinct values: at most %d", n, MaxSymbols)}
			}
		}
		return Column{Name: name, Kind: k}, nil
	}
	side := func(role string, names []string) ([]Column, error) {
		if len(names) == 0 {
			return nil, choiceErr("the %s needs at least one side column", role)
		}
		var out []Column
		for k, n := range names {
			if n == c.Private {
				return nil, &Error{File: path, Column: n, Msg: fmt.Sprintf("is the private column X; the %s cannot see X itself", role)}
			}
			if slices.Contains(names[:k], n) {
				return nil, &Error{File: path, Column: n, Msg: fmt.Sprintf("named twice for the %s", role)}
			}
			cc, err := col(n)
			if err != nil {
				return nil, err
			}
			out = append(out, cc)
		}
		return out, nil
	}
	s := &Spec{CSV: baseName(path), SHA256: sha, Rows: t.Rows}
	if s.Private, err = col(c.Private); err != nil {
		return nil, err
	}
	if s.Reconstructor, err = side("reconstructor", c.Reconstructor); err != nil {
		return nil, err
	}
	if len(c.Adversaries) == 0 {
		return nil, choiceErr("at least one adversary is needed")
	}
	for i, a := range c.Adversaries {
		cols, err := side(fmt.Sprintf("adversary %d", i+1), a)
		if err != nil {
			return nil, err
		}
		s.Adversaries = append(s.Adversaries, cols)
	}
	train := t.Rows * 5 / 6
	s.Split = Split{Seed: c.Seed, Train: train, Test: t.Rows - train}
	return s, nil
}

// overrides returns the kinds c forces, checking that each named column
// exists and is named once.
func overrides(t *Table, path string, c Choice) (map[string]Kind, error) {
	kinds := map[string]Kind{}
	for _, o := range []struct {
		names []string
		kind  Kind
	}{{c.Discrete, Discrete}, {c.Continuous, Continuous}} {
		for _, n := range o.names {
			if t.Column(n) < 0 {
				return nil, &Error{File: path, Column: n, Msg: fmt.Sprintf("declared %v, but there is no such column: the header names %s", o.kind, safefile.ExcerptList(t.Names))}
			}
			if k, ok := kinds[n]; ok {
				return nil, &Error{File: path, Column: n, Msg: fmt.Sprintf("declared both %v and %v", k, o.kind)}
			}
			kinds[n] = o.kind
		}
	}
	return kinds, nil
}

// checkVaries reports a constant column: it carries no information, and
// as X there is nothing to hide.
func (t *Table) checkVaries(path string, j int) error {
	c := t.Cols[j]
	if slices.ContainsFunc(c[1:], func(v float64) bool { return v != c[0] }) {
		return nil
	}
	return &Error{File: path, Row: 1, Line: t.Lines[0], Column: t.Names[j], Value: fmt.Sprint(c[0]),
		Msg: "the column is constant (every row holds this value): it carries no information"}
}

// The scale a continuous column's values must keep: every loss on it is a
// squared error in the data's units, summed over the rows, and networks
// take its values as they are. A value beyond MaxMagnitude squares past
// 1e200 (sums of a file's rows overflow toward +Inf, a threshold sweep
// reads NaN), and a column whose values span less than MinSpread squares
// into subnormals (every variance 0: D̂_max = 0, thresholds of 1e-321).
const (
	MaxMagnitude = 1e100
	MinSpread    = 1e-100
)

// checkScale reports a continuous column whose values leave the scale
// squared errors can be computed in (MaxMagnitude, MinSpread).
func (t *Table) checkScale(path string, j int) error {
	c := t.Cols[j]
	lo, hi, big := c[0], c[0], 0
	for k, v := range c {
		lo, hi = min(lo, v), max(hi, v)
		if math.Abs(v) > math.Abs(c[big]) {
			big = k
		}
	}
	if math.Abs(c[big]) > MaxMagnitude {
		return &Error{File: path, Row: big + 1, Line: t.Lines[big], Column: t.Names[j], Value: fmt.Sprint(c[big]),
			Msg: fmt.Sprintf("beyond ±%g: squared errors in these units overflow; rescale the column (divide it by a power of ten)", MaxMagnitude)}
	}
	if hi-lo < MinSpread {
		return &Error{File: path, Column: t.Names[j],
			Msg: fmt.Sprintf("its values span %.3g, less than %g: squared errors in these units underflow to 0; rescale the column (multiply it by a power of ten)", hi-lo, MinSpread)}
	}
	return nil
}

// Encode returns the canonical encoding of the model file {"data": s}.
func (s *Spec) Encode() ([]byte, error) {
	return json.Marshal(File{Data: s})
}

// Hash is the hex SHA-256 of s's canonical encoding: the model hash of a
// run on the data.
func (s *Spec) Hash() (string, error) {
	b, err := s.Encode()
	if err != nil {
		return "", err
	}
	return safefile.SHA256(b), nil
}

// IsFile reports whether b is a JSON object whose only key is "data": the
// shape of a data run's model file, which no model kind's file has.
func IsFile(b []byte) bool {
	var v map[string]json.RawMessage
	if json.Unmarshal(b, &v) != nil || len(v) != 1 {
		return false
	}
	_, ok := v["data"]
	return ok
}

// DecodeFile decodes a data run's model file strictly (jsonconf) and checks
// its shape; name labels it in errors, which wrap ErrData.
func DecodeFile(b []byte, name string) (*Spec, error) {
	var f File
	if err := jsonconf.Unmarshal(bytes.TrimSpace(b), &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrData, name, err)
	}
	s := f.Data
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrData, name, fmt.Sprintf(format, args...))
	}
	switch {
	case s == nil:
		return nil, bad(`"data" is null`)
	case s.CSV == "":
		return nil, bad(`"data.csv" is empty`)
	case len(s.SHA256) != 64 || strings.Trim(s.SHA256, "0123456789abcdef") != "":
		return nil, bad(`"data.sha256" = %s: want 64 lowercase hex digits`, safefile.Excerpt(s.SHA256))
	case s.Rows < MinRows || s.Split.Train < 1 || s.Split.Test < 1 || s.Split.Train+s.Split.Test != s.Rows:
		return nil, bad(`"data.rows" = %d with split %d + %d: want at least %d rows, both parts ≥ 1, summing to rows`, s.Rows, s.Split.Train, s.Split.Test, MinRows)
	case len(s.Reconstructor) == 0 || len(s.Adversaries) == 0:
		return nil, bad("the reconstructor and at least one adversary need side columns")
	}
	for i, a := range s.Adversaries {
		if len(a) == 0 {
			return nil, bad("adversary %d has no side column", i+1)
		}
	}
	for _, c := range s.columns() {
		if c.Name == "" || c.Kind < Continuous || c.Kind > Discrete {
			return nil, bad("column %s of kind %v: want a name and a kind", safefile.Excerpt(c.Name), c.Kind)
		}
	}
	return s, nil
}

// FileName is the base name of the data file the spec records: the last
// element of CSV, whether '/' or '\\' separates it. A name that is empty,
// "." or "..", or hidden (a leading '.', the names mmds keeps for its own
// files in a results directory) names no file a reader may look up.
// Errors wrap ErrData.
func (s *Spec) FileName() (string, error) {
	name := baseName(s.CSV)
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("%w: \"data.csv\" = %s names no data file (want a file name, not a folder or a hidden name)", ErrData, safefile.Excerpt(s.CSV))
	}
	return name, nil
}

// baseName is the last element of path, '/' or '\\' separated.
func baseName(path string) string {
	return path[strings.LastIndexAny(path, `/\`)+1:]
}

// columns lists every column in use: X, Y's, then each Z_i's.
func (s *Spec) columns() []Column {
	out := append([]Column{s.Private}, s.Reconstructor...)
	for _, a := range s.Adversaries {
		out = append(out, a...)
	}
	return out
}

// Observers returns the side columns of the reconstructor (first) and of
// each adversary.
func (s *Spec) Observers() [][]Column {
	return append([][]Column{s.Reconstructor}, s.Adversaries...)
}
