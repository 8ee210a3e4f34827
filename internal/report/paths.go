package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrClash reports an output that would replace one of the command's
// inputs, another of its outputs, or a file an mmds folder reserves.
var ErrClash = errors.New("report: output clashes with an input or a reserved file")

// Path is a file or folder a command reads or writes, as the user gave it.
type Path struct {
	Name   string // how the user gave it, for messages: "--out", "DIR"
	Path   string // "" is skipped (an unset flag, or standard output)
	Output bool   // written by the command; else read
	Folder bool   // a folder; else a file
	Kind   Kind   // a folder's kind; "" for a file or a plain folder
}

// In is an input file.
func In(name, path string) Path { return Path{Name: name, Path: path} }

// Out is an output file.
func Out(name, path string) Path { return Path{Name: name, Path: path, Output: true} }

// InFolder is an input folder of kind k.
func InFolder(name, path string, k Kind) Path {
	return Path{Name: name, Path: path, Folder: true, Kind: k}
}

// OutFolder is an output folder: of kind k, created by the command as a
// whole, or with k = "" an existing folder the command writes loose files
// into.
func OutFolder(name, path string, k Kind) Path {
	return Path{Name: name, Path: path, Output: true, Folder: true, Kind: k}
}

// CheckPaths checks, before any work, every path a command will read or
// write, and returns the first problem as an error that names the path as
// the user gave it:
//
//   - an output file must be writable (CheckFile: a regular file, or a new
//     name in an existing, writable folder; never a symbolic link);
//   - an output folder of a kind must pass CheckFolder, and a plain output
//     folder must exist and be of no kind;
//   - an input folder of a kind must not be of another kind (KindOf: its
//     marker, or what an older mmds wrote; one without either is read as
//     the kind asked for);
//   - no output may resolve to an input or to another output (os.SameFile
//     on existing files; on new ones the same existing folder, by
//     os.SameFile, and the same names below it, compared case-insensitively
//     where that folder is on a case-insensitive file system), be a hard
//     link of a file under a reserved name of an input folder of a kind, or
//     lie at a name reserved by an input or output folder of a kind or by
//     any marked folder above it (results.json, trials/, manifest.json, …,
//     and the marker itself everywhere; in any letter case on a
//     case-insensitive file system); and no input file may lie at (or be a
//     hard link of a file under) a reserved name of a folder the command
//     creates.
//
// Inputs that do not exist are left for the command's own reading to
// report.
func CheckPaths(paths []Path) error {
	return checkPaths(paths, caseInsensitive)
}

// checkPaths is CheckPaths with the probe that tells a case-insensitive
// folder (tests simulate one).
func checkPaths(paths []Path, probe func(dir string) bool) error {
	var ps []Path
	for _, p := range paths {
		if p.Path != "" {
			ps = append(ps, p)
		}
	}
	c := &checker{probe: probe, folds: map[string]bool{}}
	ids := make([]ident, len(ps))
	for i, p := range ps {
		ids[i] = identify(p.Path)
	}
	for i, o := range ps {
		if !o.Output {
			continue
		}
		for j, e := range ps {
			if j == i {
				continue
			}
			if err := c.pair(o, e, ids[i], ids[j], j < i); err != nil {
				return err
			}
		}
		if anc, k, top, ok := c.reservedAncestor(ids[i]); ok {
			if top == MarkerFile {
				return clash(o, "is the marker of an mmds folder's kind; give another %s", noun(o))
			}
			return clash(o, "is %s of the %s folder %s; give another %s", Quote(top), k, Quote(anc), noun(o))
		}
	}
	// Each path on its own last: a link onto an input is named as such
	// (above), not only as a link.
	for _, p := range ps {
		if err := checkOne(p); err != nil {
			return err
		}
	}
	return nil
}

// pair checks the output o against the path e (an input, or another
// output, given before o when earlier).
func (c *checker) pair(o, e Path, io, ie ident, earlier bool) error {
	if c.same(io, ie) {
		if e.Output {
			if earlier {
				return clash(o, "is the same %s as %s %s; give two different ones", noun(o), e.Name, Quote(e.Path))
			}
			return nil
		}
		return clash(o, "is %s %s, an input of this command; give another %s", e.Name, Quote(e.Path), noun(o))
	}
	if e.Folder && e.Kind != "" {
		if top, ok := c.within(io, ie); ok && c.reserved(ie.abs, e.Kind, top) {
			return clash(o, "is %s of the %s folder %s %s; give another %s", Quote(top), e.Kind, e.Name, Quote(e.Path), noun(o))
		}
		if !e.Output && !o.Folder {
			if name, ok := c.linkedInto(io, ie, e.Kind); ok {
				return clash(o, "is a hard link of %s in the %s folder %s %s, an input of this command; give another file", Quote(name), e.Kind, e.Name, Quote(e.Path))
			}
		}
	}
	if o.Folder && o.Kind != "" && !e.Output {
		if top, ok := c.within(ie, io); ok && c.reserved(io.abs, o.Kind, top) {
			return clash(e, "is %s of the %s folder %s %s that this command writes; give another file", Quote(top), o.Kind, o.Name, Quote(o.Path))
		}
		if !e.Folder {
			if name, ok := c.linkedInto(ie, io, o.Kind); ok {
				return clash(e, "is a hard link of %s in the %s folder %s %s that this command writes; give another file", Quote(name), o.Kind, o.Name, Quote(o.Path))
			}
		}
	}
	return nil
}

func noun(p Path) string {
	if p.Folder {
		return "folder"
	}
	return "file"
}

func clash(p Path, format string, args ...any) error {
	return fmt.Errorf("%s %s: %w", p.Name, Quote(p.Path), errorf(ErrClash, format, args...))
}

// checkOne checks one path on its own.
func checkOne(p Path) error {
	wrap := func(err error) error { return fmt.Errorf("%s %s: %w", p.Name, Quote(p.Path), err) }
	switch {
	case !p.Output && p.Folder && p.Kind != "":
		fi, err := os.Stat(p.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return wrap(fmt.Errorf("does not exist: want %s", p.Kind.Want()))
		case err != nil:
			return wrap(safefile.UnwrapPath(err))
		case !fi.IsDir():
			return wrap(fmt.Errorf("is %s, not a folder: want %s", safefile.Describe(fi.Mode()), p.Kind.Want()))
		}
		k, err := KindOf(p.Path)
		if err != nil {
			return wrap(err)
		}
		if k != "" && k != p.Kind {
			return wrap(errorf(ErrKind, "is a %s folder, not a %s folder", k, p.Kind))
		}
	case !p.Output:
	case !p.Folder:
		if err := CheckFile(p.Path); err != nil {
			return wrap(err)
		}
	case p.Kind != "":
		if err := CheckFolder(p.Path, p.Kind); err != nil {
			return wrap(err)
		}
	default:
		fi, err := os.Stat(p.Path)
		if err != nil || !fi.IsDir() {
			return wrap(errors.New("not an existing folder"))
		}
		k, err := KindOf(p.Path)
		if err != nil {
			return wrap(err)
		}
		if k != "" {
			return wrap(errorf(ErrKind, "is a %s folder of mmds; give a folder of your own", k))
		}
	}
	return nil
}

// ident is where a path leads: the file's identity when it exists, its
// absolute path with every symbolic link in the part that exists resolved,
// and, for a path that does not exist, the identity of the deepest folder
// on it that does and the names below that folder.
type ident struct {
	fi     fs.FileInfo // nil when nothing is there
	abs    string
	anchor fs.FileInfo // the deepest existing folder, when fi is nil
	base   string      // its resolved path
	rest   []string    // the names below it
}

func identify(path string) ident {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	p, rest := abs, []string{}
	for {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	full := filepath.Join(append([]string{p}, rest...)...)
	id := ident{abs: full}
	if fi, err := os.Stat(full); err == nil {
		id.fi = fi
	} else if fi, err := os.Stat(p); err == nil && len(rest) > 0 {
		id.anchor, id.base, id.rest = fi, p, rest
	}
	return id
}

// checker compares the paths of one CheckPaths call, probing each folder
// for case-insensitivity at most once.
type checker struct {
	probe func(dir string) bool
	folds map[string]bool
}

// fold reports whether names in folder dir are looked up case-insensitively.
func (c *checker) fold(dir string) bool {
	f, ok := c.folds[dir]
	if !ok {
		f = c.probe(dir)
		c.folds[dir] = f
	}
	return f
}

// reserved is Reserved for a name directly inside folder dir, in any letter
// case where dir is case-insensitive (every reserved name is lower case, so
// that on such a folder RESULTS.JSON is results.json).
func (c *checker) reserved(dir string, k Kind, name string) bool {
	if Reserved(k, name) {
		return true
	}
	lower := strings.ToLower(name)
	return lower != name && Reserved(k, lower) && c.fold(dir)
}

func (c *checker) same(a, b ident) bool {
	if a.fi != nil || b.fi != nil {
		return a.fi != nil && b.fi != nil && os.SameFile(a.fi, b.fi)
	}
	if a.anchor == nil || b.anchor == nil {
		return a.abs == b.abs
	}
	// Two new names: the same existing folder (however reached: a link, a
	// bind mount) and the same names below it, in any letter case where
	// that folder ignores it.
	if !os.SameFile(a.anchor, b.anchor) || len(a.rest) != len(b.rest) {
		return false
	}
	for i := range a.rest {
		if a.rest[i] != b.rest[i] && !(strings.EqualFold(a.rest[i], b.rest[i]) && c.fold(a.base)) {
			return false
		}
	}
	return true
}

// within reports whether x lies (at any depth) inside folder f, and the
// name of the element of x's path directly inside f.
func (c *checker) within(x, f ident) (string, bool) {
	child, cur := filepath.Base(x.abs), filepath.Dir(x.abs)
	for {
		if f.fi != nil {
			if fi, err := os.Stat(cur); err == nil && os.SameFile(fi, f.fi) {
				return child, true
			}
		} else if cur == f.abs {
			return child, true
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", false
		}
		child, cur = filepath.Base(cur), parent
	}
}

// maxLinkScan bounds the entries linkedInto looks at in one folder.
const maxLinkScan = 100000

// linkedInto reports whether the existing file x, when it has more than
// one hard link, is one of the files under a reserved name of folder f of
// kind k (links not followed), and that file's name inside f. A file with
// one link has no other name, so the folder is only read for a file with
// several.
func (c *checker) linkedInto(x, f ident, k Kind) (string, bool) {
	if x.fi == nil || !x.fi.Mode().IsRegular() || f.fi == nil || !f.fi.IsDir() || safefile.Links(x.fi) < 2 {
		return "", false
	}
	entries, err := os.ReadDir(f.abs)
	if err != nil {
		return "", false
	}
	seen := 0
	for _, e := range entries {
		if !c.reserved(f.abs, k, e.Name()) {
			continue
		}
		var found string
		_ = filepath.WalkDir(filepath.Join(f.abs, e.Name()), func(p string, d fs.DirEntry, err error) error {
			if seen++; err != nil || seen > maxLinkScan {
				return fs.SkipAll
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if fi, err := os.Lstat(p); err == nil && os.SameFile(fi, x.fi) {
				found, _ = filepath.Rel(f.abs, p)
				return fs.SkipAll
			}
			return nil
		})
		if found != "" {
			return found, true
		}
	}
	return "", false
}

// reservedAncestor finds a folder above x (marked, or holding what an
// older mmds wrote) whose kind reserves the element of x's path directly
// inside it.
func (c *checker) reservedAncestor(x ident) (string, Kind, string, bool) {
	child, cur := filepath.Base(x.abs), filepath.Dir(x.abs)
	for {
		if c.reserved(cur, "", child) {
			return cur, "", MarkerFile, true
		}
		for _, kc := range kinds {
			if c.reserved(cur, kc.kind, child) {
				if k, err := KindOf(cur); err == nil && k != "" && c.reserved(cur, k, child) {
					return cur, k, child, true
				}
				break
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", "", "", false
		}
		child, cur = filepath.Base(cur), parent
	}
}

// caseInsensitive probes whether names in folder dir are looked up without
// regard to letter case (the default on macOS and Windows, a per-folder
// attribute with Linux's casefold): the first entry whose name has letters
// is looked up under the name with their case swapped; in a folder without
// one, a temporary file is created and looked up so. Where neither can be
// done (an empty folder that cannot be written), nothing can clash in it.
func caseInsensitive(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, _ := f.Readdirnames(256)
	f.Close()
	for _, n := range names {
		if same, decided := sameUnderSwap(dir, n); decided {
			return same
		}
	}
	t, err := createTemp(dir, "case")
	if err != nil {
		return false
	}
	name := t.Name()
	t.Close()
	defer os.Remove(name)
	same, _ := sameUnderSwap(dir, filepath.Base(name))
	return same
}

// sameUnderSwap looks the entry name of dir up with the case of its letters
// swapped; decided is false when name has no letter with two cases.
func sameUnderSwap(dir, name string) (same, decided bool) {
	swapped := strings.Map(func(r rune) rune {
		if u := unicode.ToUpper(r); u != r {
			return u
		}
		return unicode.ToLower(r)
	}, name)
	if swapped == name {
		return false, false
	}
	a, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return false, false
	}
	b, err := os.Lstat(filepath.Join(dir, swapped))
	return err == nil && os.SameFile(a, b), true
}
