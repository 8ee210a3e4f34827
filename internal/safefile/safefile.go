// Package safefile reads the input files of mmds: regular files only, of a
// bounded size, read once, so that what a certificate hashes is what was
// parsed, and an input cannot hang the process.
//
// Read opens with O_NONBLOCK (opening a FIFO with no writer would otherwise
// block before any check could run), checks the open descriptor with fstat
// (not the path: a file swapped between a stat and the open is not missed),
// refuses anything but a regular file and anything above the size cap before
// reading a byte, and reads in chunks, checking the context between them.
// Symbolic links to regular files are followed, except by ReadOwn and
// ReadMine.
//
// A file named by another file (an entry of a points list, a file a
// certificate names, a results directory's own files) is read with ReadIn,
// inside the folder the name is taken from: one link policy for every such
// name. The user names the files on the command line; a file's author names
// only files in its folder, so that an input cannot make mmds read, hash and
// quote a file of the author's choosing (a key, another project's file) by
// knowing its path.
//
// Excerpt quotes a piece of a file's contents for an error message: at most
// MaxExcerpt characters, escaped, so that a message never discloses more of
// a file than the offending token's head.
package safefile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// ErrInput is wrapped by every error Read returns for a path that is not an
// acceptable input file — missing, not a regular file, too large,
// unreadable: the caller's input, not a failed computation.
var ErrInput = errors.New("safefile: invalid input file")

// chunk is the size of one read: small enough that a cancelled context is
// noticed within milliseconds, large enough not to matter for speed.
const chunk = 1 << 20

// Read returns the contents of the regular file at path, of at most maxBytes
// bytes. It stops with ctx's error when ctx is done. Errors wrap ErrInput
// (or ctx's error) and name the path; a missing file's also wraps
// fs.ErrNotExist.
func Read(ctx context.Context, path string, maxBytes int64) ([]byte, error) {
	return ReadNamed(ctx, path, Path(path), maxBytes)
}

// ReadNamed is Read with messages that name the file name instead of its
// path (a path read from another file is named by an excerpt of it, so that
// a message never discloses more of that file than MaxExcerpt characters).
func ReadNamed(ctx context.Context, path, name string, maxBytes int64) ([]byte, error) {
	return read(ctx, path, name, maxBytes, 0, anyFile)
}

// ErrHardLink is wrapped by ReadOwn's error for a file with more than one
// hard link.
var ErrHardLink = errors.New("safefile: more than one hard link")

// ReadOwn is ReadNamed for a file that must be its folder's own copy: it
// refuses a last path element that is a symbolic link (O_NOFOLLOW), never
// reading the target of a link the folder's author placed there, and a
// regular file with more than one hard link (st_nlink > 1 on the open
// descriptor), which is another file's bytes under a second name,
// perhaps outside the folder, so that whoever holds that name can change
// the copy under a reader that trusts the folder. The error wraps ErrInput
// and ErrHardLink.
func ReadOwn(ctx context.Context, path, name string, maxBytes int64) ([]byte, error) {
	return read(ctx, path, name, maxBytes, syscall.O_NOFOLLOW, ownFile)
}

// ErrNotMine is wrapped by ReadMine's error for a file of another user.
var ErrNotMine = errors.New("safefile: not the user's own file")

// ReadMine is ReadOwn for a file that must also belong to the user running
// mmds (st_uid on the open descriptor): a file of mmds's own, such as an
// entry of its cache, which no other user may have placed. The error for a
// file of another owner wraps ErrInput and ErrNotMine.
func ReadMine(ctx context.Context, path string, maxBytes int64) ([]byte, error) {
	return read(ctx, path, Path(path), maxBytes, syscall.O_NOFOLLOW, os.Getuid())
}

// The owner policies of read: any file, or one with a single hard link
// (ReadOwn); an owner ≥ 0 is a user id the single-linked file must have
// (ReadMine).
const (
	anyFile = -2
	ownFile = -1
)

// Links returns the hard-link count of fi (1 where the platform says none).
func Links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// owner returns the user id of fi's owner (-1 where the platform says none).
func owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// ErrOutside is wrapped by the error of CheckName and ReadIn for a name
// that leaves the folder it is taken from.
var ErrOutside = errors.New("safefile: leaves its folder")

// CheckName checks a file name written in another file before anything is
// opened: printable, relative, and not leaving its folder with "..". It
// returns the name cleaned (filepath.Clean). Errors wrap ErrInput and, for
// an absolute name or one that leaves the folder, ErrOutside; they quote
// the name with Excerpt.
func CheckName(name string) (string, error) {
	shown := Excerpt(name)
	if name == "" || !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return "", inputErr(nil, "%s: want a plain relative file name", shown)
	}
	if filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "" {
		return "", inputErr(ErrOutside, "%s is absolute", shown)
	}
	clean := filepath.Clean(filepath.FromSlash(name))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", inputErr(ErrOutside, "%s leaves its folder", shown)
	}
	return clean, nil
}

// CheckIn checks the file name (as written in another file, CheckName)
// inside the folder dir before anything is read: beside CheckName's
// checks, a name whose path reaches outside dir through a symbolic link is
// an error wrapping ErrInput and ErrOutside. It returns the path of the
// file. ReadIn makes the same check race-free when it opens the file.
func CheckIn(dir, name string) (string, error) {
	clean, err := CheckName(name)
	if err != nil {
		return "", err
	}
	if escapes(dir, clean) {
		return "", outsideErr(Excerpt(name))
	}
	return filepath.Join(dir, clean), nil
}

// ReadIn reads the file name (as written in another file, CheckIn) inside
// the folder dir, as Read does (a regular file of at most maxBytes bytes,
// read once, checked on the open descriptor); shown names it in messages.
// The name is resolved beneath dir (os.Root): a symbolic link, at any
// element of the name, that leads out of dir is refused, not followed, and
// no link can be swapped in between the check and the open; a link that
// stays inside dir is followed. The error for a name that leaves dir wraps
// ErrOutside, and nothing of the file it would have reached is read.
func ReadIn(ctx context.Context, dir, name, shown string, maxBytes int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	clean, err := CheckName(name)
	if err != nil {
		return nil, err
	}
	if escapes(dir, clean) {
		return nil, outsideErr(shown)
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, inputErr(fs.ErrNotExist, "%s does not exist", shown)
	}
	if err != nil {
		return nil, inputErr(UnwrapPath(err), "%s: its folder %s: %v", shown, Path(dir), UnwrapPath(err))
	}
	defer root.Close()
	var openErr error
	open := func() (*os.File, error) {
		f, err := root.OpenFile(clean, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		openErr = err
		return f, err
	}
	b, err := readOpen(ctx, open, shown, maxBytes, anyFile, false)
	if openErr != nil && !errors.Is(openErr, fs.ErrNotExist) && (escapes(dir, clean) || strings.Contains(openErr.Error(), "escapes")) {
		return nil, outsideErr(shown) // a link swapped in after the check
	}
	return b, err
}

func outsideErr(shown string) error {
	return inputErr(ErrOutside, "%s is a symbolic link out of its folder (or passes through one)", shown)
}

// escapes reports whether the relative name clean reaches outside dir
// through a symbolic link. It is the check of the message; os.Root's open
// is the one no race can pass.
func escapes(dir, clean string) bool {
	rdir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false // the open reports what is wrong with dir
	}
	path := filepath.Join(dir, clean)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		fi, lerr := os.Lstat(path)
		if lerr != nil {
			return false // nothing there, or its folder cannot be read: the open says so
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			// Not a link: it appeared after the first look (a writer
			// renaming it into place), and its folder alone decides.
			parent, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return false
			}
			real = filepath.Join(parent, filepath.Base(path))
		} else if real, err = evalPartial(path); err != nil {
			return true // a dangling link whose target cannot be read
		}
	}
	rel, err := filepath.Rel(rdir, real)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// evalPartial resolves the links of path's folder and its last element's
// link target, without requiring that target to exist.
func evalPartial(path string) (string, error) {
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	target, err := os.Readlink(path)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(parent, target)
	}
	return filepath.Clean(target), nil
}

// UnwrapPath drops an *fs.PathError's operation and path: the path is
// usually one the user did not give (a temporary name, a resolved link).
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func read(ctx context.Context, path, name string, maxBytes int64, flag, own int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	open := func() (*os.File, error) {
		return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|flag, 0)
	}
	return readOpen(ctx, open, name, maxBytes, own, flag&syscall.O_NOFOLLOW != 0)
}

// readOpen reads the file open opens, named name in messages (see read),
// under the owner policy own.
func readOpen(ctx context.Context, open func() (*os.File, error), name string, maxBytes int64, own int, noFollow bool) ([]byte, error) {
	f, err := open()
	if err != nil {
		err = UnwrapPath(err)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, inputErr(fs.ErrNotExist, "%s does not exist", name)
		}
		if noFollow && errors.Is(err, syscall.ELOOP) {
			return nil, inputErr(err, "%s is a symbolic link, not a regular file", name)
		}
		return nil, inputErr(err, "%s: %v", name, err)
	}
	defer f.Close()
	fi, err := f.Stat() // fstat of the open descriptor
	if err != nil {
		return nil, inputErr(err, "%s: %v", name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, inputErr(nil, "%s is %s, not a regular file", name, Describe(fi.Mode()))
	}
	if n := Links(fi); own != anyFile && n > 1 {
		return nil, inputErr(ErrHardLink, "%s has %d hard links: it must be its folder's own file, not another file's bytes under a second name that can change it", name, n)
	}
	if own >= 0 && owner(fi) != own {
		return nil, inputErr(ErrNotMine, "%s belongs to another user", name)
	}
	if fi.Size() > maxBytes {
		return nil, inputErr(nil, "%s has %d bytes, more than the %d allowed", name, fi.Size(), maxBytes)
	}
	buf := make([]byte, 0, fi.Size()+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if int64(len(buf)) > maxBytes {
			// The file grew after the fstat.
			return nil, inputErr(nil, "%s has more than the %d bytes allowed", name, maxBytes)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n := min(cap(buf)-len(buf), chunk, int(maxBytes+1-int64(len(buf))))
		m, err := f.Read(buf[len(buf) : len(buf)+n])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, inputErr(err, "%s: %v", name, err)
		}
	}
}

// inputError is an error of Read: its message names the path, and it wraps
// ErrInput and the cause, if any.
type inputError struct {
	msg   string
	cause error
}

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrInput}
	}
	return []error{ErrInput, e.cause}
}

func inputErr(cause error, format string, args ...any) error {
	return &inputError{fmt.Sprintf(format, args...), cause}
}

// Describe names a file type for messages: "a directory", "a named pipe
// (FIFO)", ….
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file (mode " + m.String() + ")"
}

// MaxExcerpt is the most characters of a file's contents a message quotes.
const MaxExcerpt = 40

// Excerpt quotes s for an error message as strconv.Quote does (non-printable
// and non-ASCII characters escaped), keeping at most MaxExcerpt characters
// of it and marking a cut with "…".
func Excerpt(s string) string {
	if head, cut := cutAt(s, MaxExcerpt); cut {
		return strconv.QuoteToASCII(head) + "…"
	}
	return strconv.QuoteToASCII(s)
}

// Cut keeps at most max characters of s, marking a cut with "…".
func Cut(s string, max int) string {
	if head, cut := cutAt(s, max); cut {
		return head + "…"
	}
	return s
}

// cutAt returns the first max characters of s, and whether s has more.
func cutAt(s string, max int) (string, bool) {
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// Path returns a path (or any name a person gave, on the command line or
// in a file) for a message or a table cell: unchanged when every character
// is printable, else quoted as strconv.QuoteToASCII does, so that no
// control character (a terminal escape, a newline that would forge a line)
// reaches the terminal.
func Path(s string) string {
	if printable(s) {
		return s
	}
	return strconv.QuoteToASCII(s)
}

// Printable returns s with every character that is not printable (control
// characters, newlines, invalid UTF-8, Unicode format characters such as
// bidirectional overrides) escaped as in a Go string literal, and the rest
// unchanged: the last defence of a message or a table before a terminal.
func Printable(s string) string {
	if printable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// ExcerptList quotes a list of strings from a file as fmt's %q does
// (["a" "b"]), each with Excerpt and at most four of them.
func ExcerptList(ss []string) string {
	var parts []string
	for i, s := range ss {
		if i == 4 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, Excerpt(s))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// SHA256 is the hex SHA-256 of b: the hash that binds a file's bytes in
// results, specs, records and certificates.
func SHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
