package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrClash reports an output that would replace one of the command's
// inputs, another of its outputs, or a file an mmds folder reserves.
var ErrClash = errors.New("output clashes with an input or a reserved file")

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

// CheckPaths checks, before a command does any work, every path it will
// read or write, and returns the first problem as an error that names the
// path as the user gave it:
//
//   - an output file must be writable (CheckFile: a regular file, a link to
//     one, or a new name in an existing, writable folder);
//   - an output folder of a kind must pass CheckFolder, and a plain output
//     folder must exist and be of no kind;
//   - an input folder of a kind must not be of another kind (KindOf: its
//     marker, or what an older mmds wrote; one without either is read as
//     the kind asked for);
//   - no output may resolve to an input or to another output (os.SameFile
//     on existing files, the resolved folder and name on new ones), lie at a
//     name reserved by an input or output folder of a kind or by any marked
//     folder above it (results.json, trials/, manifest.json, …, and the
//     marker itself everywhere), and no input file may lie at a reserved
//     name of a folder the command creates.
//
// Inputs that do not exist are left for the command's own reading to
// report.
func CheckPaths(paths []Path) error {
	var ps []Path
	for _, p := range paths {
		if p.Path != "" {
			ps = append(ps, p)
		}
	}
	for _, p := range ps {
		if err := checkOne(p); err != nil {
			return err
		}
	}
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
			if same(ids[i], ids[j]) {
				if e.Output {
					if j < i {
						return clash(o, "is the same %s as %s %s; give two different ones", noun(o), e.Name, Quote(e.Path))
					}
					continue
				}
				return clash(o, "is %s %s, an input of this command; give another %s", e.Name, Quote(e.Path), noun(o))
			}
			if e.Folder && e.Kind != "" {
				if top, ok := within(ids[i], ids[j]); ok && Reserved(e.Kind, top) {
					return clash(o, "is %s of the %s folder %s %s; give another %s", Quote(top), e.Kind, e.Name, Quote(e.Path), noun(o))
				}
			}
			if o.Folder && o.Kind != "" && !e.Output {
				if top, ok := within(ids[j], ids[i]); ok && Reserved(o.Kind, top) {
					return clash(e, "is %s of the %s folder %s %s that this command writes; give another file", Quote(top), o.Kind, o.Name, Quote(o.Path))
				}
			}
		}
		if anc, k, top, ok := reservedAncestor(ids[i]); ok {
			if top == MarkerFile {
				return clash(o, "is the marker of an mmds folder's kind; give another %s", noun(o))
			}
			return clash(o, "is %s of the %s folder %s; give another %s", Quote(top), k, Quote(anc), noun(o))
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
		if err != nil || !fi.IsDir() {
			return nil // reading it reports what is wrong
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

// ident is where a path leads: the file's identity when it exists, and its
// absolute path with every symbolic link in the part that exists resolved.
type ident struct {
	fi  fs.FileInfo // nil when nothing is there
	abs string
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
	fi, err := os.Stat(full)
	if err != nil {
		fi = nil
	}
	return ident{fi, full}
}

func same(a, b ident) bool {
	if a.fi != nil && b.fi != nil {
		return os.SameFile(a.fi, b.fi)
	}
	return a.fi == nil && b.fi == nil && a.abs == b.abs
}

// within reports whether x lies (at any depth) inside folder f, and the
// name of the element of x's path directly inside f.
func within(x, f ident) (string, bool) {
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

// reservedAncestor finds a folder above x (marked, or holding what an
// older mmds wrote) whose kind reserves the element of x's path directly
// inside it.
func reservedAncestor(x ident) (string, Kind, string, bool) {
	child, cur := filepath.Base(x.abs), filepath.Dir(x.abs)
	for {
		if child == MarkerFile {
			return cur, "", child, true
		}
		for _, c := range kinds {
			if Reserved(c.kind, child) {
				if k, err := KindOf(cur); err == nil && k != "" && Reserved(k, child) {
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
