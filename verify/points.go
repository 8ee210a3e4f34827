package verify

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mmds-project/mmds/internal/decimal"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/privatizer"
)

// ErrPoints marks an error in a points list's contents.
var ErrPoints = errors.New("verify: bad points list")

// MaxListPoints bounds a points list.
const MaxListPoints = 10000

// Entry is one privatizer file to certify at threshold D.
type Entry struct {
	D          float64 `json:"D"`
	Privatizer string  `json:"privatizer"`
	// Name names the file in messages: its path escaped, or for an entry
	// of a list the entry's number and an excerpt of its path as written
	// (the list may be a link to a file that is not the author's: no
	// message quotes more of it).
	Name string `json:"-"`
	// Dir, for a file named inside another (a points list, a
	// certificate), is that file's folder and Rel the name as written:
	// the file is read inside Dir (safefile.ReadIn). Empty for a file
	// the user named on the command line, read as given.
	Dir string `json:"-"`
	Rel string `json:"-"`
}

// NamedIn is the entry for the file name, written in a file (a points
// list, a certificate) whose folder is dir, at threshold d, named shown in
// messages: a name that is absolute or leaves dir with ".." is an error
// wrapping safefile.ErrOutside, before anything is opened; one that leaves
// it through a symbolic link is refused when it is read.
func NamedIn(d float64, dir, name, shown string) (Entry, error) {
	clean, err := safefile.CheckName(name)
	if err != nil {
		return Entry{}, err
	}
	return Entry{D: d, Privatizer: filepath.Join(dir, clean), Name: shown, Dir: dir, Rel: clean}, nil
}

// ReadPoints reads a points list (safefile.Read): a JSON list
// [{"D": 0.1, "privatizer": "p1.onnx"}, …] or, for a .csv file, rows
// "D,file"; relative paths are taken from the list's folder.
func ReadPoints(ctx context.Context, path string) ([]Entry, error) {
	b, err := safefile.Read(ctx, path, jsonconf.MaxBytes)
	if err != nil {
		return nil, err
	}
	return ParsePoints(b, path)
}

// ParsePoints parses the bytes b of the points list path (see
// ReadPoints). Errors name the list escaped and wrap ErrPoints.
func ParsePoints(b []byte, path string) ([]Entry, error) {
	shown := safefile.Path(path)
	var ps []Entry
	var err error
	if msg := jsonconf.Encoding(b); msg != "" {
		err = errors.New(msg)
	} else if strings.EqualFold(filepath.Ext(path), ".csv") {
		ps, err = parsePointsCSV(b)
	} else if err = jsonconf.Unmarshal(b, &ps); err != nil {
		err = fmt.Errorf("not a JSON list of {\"D\", \"privatizer\"}: %v", err)
	}
	if err == nil && (len(ps) == 0 || len(ps) > MaxListPoints) {
		err = fmt.Errorf("%d entries: must be in [1, %d]", len(ps), MaxListPoints)
	}
	for i := range ps {
		if err != nil {
			break
		}
		err = ps[i].resolve(i, path)
	}
	if err != nil {
		return nil, markedError{ErrPoints, fmt.Errorf("%s: %w", shown, err)}
	}
	return ps, nil
}

// parsePointsCSV reads "D,file" rows.
func parsePointsCSV(b []byte) ([]Entry, error) {
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, err
	}
	var ps []Entry
	for i, r := range rows {
		if len(r) != 2 {
			return nil, fmt.Errorf("row %d has %d fields, want 2 (D,file)", i+1, len(r))
		}
		d, err := decimal.Float(strings.TrimSpace(r[0]))
		if err != nil {
			return nil, fmt.Errorf("row %d: D %s is not a number", i+1, safefile.Excerpt(r[0]))
		}
		ps = append(ps, Entry{D: d, Privatizer: strings.TrimSpace(r[1])})
	}
	return ps, nil
}

// resolve checks entry i of the list path and names it: its file is
// taken from the list's folder (NamedIn), and a name that leaves it is
// refused (pass such a file with --privatizer).
func (e *Entry) resolve(i int, path string) error {
	p := e.Privatizer
	if p == "" {
		return fmt.Errorf("entry %d has no privatizer file", i+1)
	}
	if strings.IndexFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 || !utf8.ValidString(p) {
		return fmt.Errorf("entry %d: privatizer %s: a path with control or non-printable characters (want a plain file name)", i+1, safefile.Excerpt(p))
	}
	ne, err := NamedIn(e.D, filepath.Dir(path), p, fmt.Sprintf("--points entry %d (%s)", i+1, safefile.Excerpt(p)))
	if err != nil {
		return fmt.Errorf("entry %d: privatizer %w: a list names files in its own folder (pass a file from elsewhere with --privatizer)", i+1, err)
	}
	*e = ne
	return nil
}

// ReadInputs reads every entry's file once (readEntry), before any work. D
// must be finite and ≥ 0, and the files, parsed, must fit the memory
// budget (0: DefaultMaxMemory) with a run's base: each file is
// measured before it is parsed (its dense size: a compact kernel table is
// counted as the table it becomes), and refused with an error wrapping
// ErrMemory when it would not fit. A file whose bytes are an earlier
// entry's is parsed once and shared: a list that names one large file many
// times holds it once.
func ReadInputs(ctx context.Context, es []Entry, budget int64) ([]Input, error) {
	limit := maxMemory(budget)
	var out []Input
	held := baseMemory
	seen := map[string]privatizer.File{}
	for _, e := range es {
		if math.IsNaN(e.D) || math.IsInf(e.D, 0) || e.D < 0 {
			return nil, markedError{ErrPoints, fmt.Errorf("D = %v (privatizer %s): must be a finite number ≥ 0", e.D, e.Name)}
		}
		b, err := readEntry(ctx, e)
		if err != nil {
			return nil, err
		}
		sum := safefile.SHA256(b)
		if f, ok := seen[sum]; ok {
			out = append(out, Input{D: e.D, Path: e.Privatizer, File: f.Renamed(e.Name), SHA256: sum})
			continue
		}
		cost, err := fileCost(e.Privatizer, b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		if need := held + int64(len(b)) + cost; need > limit {
			return nil, &MemoryError{Need: need, Limit: limit,
				What: fmt.Sprintf("the privatizers up to %s hold %s once read, %s of it that file's", e.Name, About(need-baseMemory), About(int64(len(b))+cost))}
		}
		in, err := parseInput(e.D, e.Privatizer, e.Name, b)
		if err != nil {
			return nil, err
		}
		held += heldCost(in.File)
		seen[sum] = in.File
		out = append(out, in)
	}
	return out, nil
}

// CheckMemory refuses, before any work, certifying inputs with workers at
// once within maxMemory bytes (0: DefaultMaxMemory): the run's base, the
// privatizers held (each file once) and the working memory of the workers
// largest certificates together; the error wraps ErrMemory.
func CheckMemory(inputs []Input, workers int, maxMemory int64) error {
	held := baseMemory
	seen := map[string]bool{}
	var works []int64
	for _, in := range inputs {
		if !seen[in.SHA256] {
			seen[in.SHA256] = true
			held += heldCost(in.File)
		}
		works = append(works, workCost(in.File))
	}
	return checkWork(maxMemory, held, works, workers)
}
