package report

import (
	"bufio"

	"github.com/mmds-project/mmds/internal/safefile"

	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrTarget reports an output path that mmds will not write: a symbolic
// link, a folder, a named pipe, a device or a socket. Writing a file there
// would replace it (rename), feed it (open) or, through a link, write a
// file of the link author's choosing: a link planted in a folder mmds
// writes into (mmds plot DIR writes into the reviewed author's DIR) would
// otherwise redirect the write onto any file the user can write.
var ErrTarget = errors.New("report: not a regular file")

// kindError is an error whose message is its own sentence and which
// matches a sentinel (ErrTarget, ErrKind, ErrClash) with errors.Is.
type kindError struct {
	sentinel error
	msg      string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.sentinel }

func errorf(sentinel error, format string, args ...any) error {
	return &kindError{sentinel, fmt.Sprintf(format, args...)}
}

// Target checks the path WriteFileAtomic writes: a regular file or nothing
// (Lstat: a link is never followed). Anything else is an error wrapping
// ErrTarget. It does not check the folder.
func Target(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return safefile.UnwrapPath(err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		what := "nothing"
		if rfi, err := os.Stat(path); err == nil {
			what = safefile.Describe(rfi.Mode())
		}
		return errorf(ErrTarget, "is a symbolic link (to %s): mmds does not write through links; give the file itself, or remove the link", what)
	}
	if !fi.Mode().IsRegular() {
		return errorf(ErrTarget, "is %s, not a regular file", safefile.Describe(fi.Mode()))
	}
	return nil
}

// CheckFile checks, before any work, that WriteFileAtomic can write path:
// Target accepts it, and its folder exists and accepts a new file. It removes the stale temporary files that a killed
// writer of the same file left there (RemoveStaleTemps): the folder is the
// user's, so only those of the file's own name.
func CheckFile(path string) error {
	if err := Target(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("folder %s does not exist", dir)
	}
	f, err := createTemp(dir, "probe")
	if err != nil {
		return fmt.Errorf("folder %s is not writable", dir)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return removeStale(dir, false, tempBase(filepath.Base(path)))
}

// Temporary files are named
//
//	.tmp-mmds-PID-HOST-RANDOM-BASE
//
// where PID is the writer's process id, HOST an 8-digit hash of its host
// name and BASE the target's name (so the extension, which some writers read,
// is kept). A temporary file whose writer died is stale: RemoveStaleTemps
// removes it on the next run that owns the folder. Files written by older
// mmds, named .tmp-RANDOM-BASE, carry no writer; they are removed only in a
// folder mmds owns, and only once older than staleAge.
var (
	tempName   = regexp.MustCompile(`^\.tmp-mmds-([0-9]+)-([0-9a-f]{8})-[0-9]+-`)
	legacyTemp = regexp.MustCompile(`^\.tmp-[0-9]+-.`)
)

// staleAge is the age beyond which a temporary file whose writer cannot be
// asked (another host, or an older mmds) is taken to be abandoned: a writer
// holds its temporary file for as long as one write takes, seconds.
const staleAge = time.Hour

// maxTempBase bounds the part of the target's name a temporary name keeps,
// so that a long target name still leaves room for the prefix.
const maxTempBase = 64

func hostTag() string {
	h, _ := os.Hostname()
	f := fnv.New32a()
	io.WriteString(f, h)
	return fmt.Sprintf("%08x", f.Sum32())
}

// tempBase is the part of a target's name its temporary names end with.
func tempBase(base string) string {
	if len(base) > maxTempBase {
		ext := filepath.Ext(base)
		if len(ext) > maxTempBase/2 {
			ext = ""
		}
		base = base[:maxTempBase-len(ext)] + ext
	}
	return base
}

func createTemp(dir, base string) (*os.File, error) {
	return os.CreateTemp(dir, fmt.Sprintf(".tmp-mmds-%d-%s-*-%s", os.Getpid(), hostTag(), tempBase(base)))
}

// RemoveStaleTemps removes the stale temporary files of mmds writers from
// dir (not recursively): those of a process of this host that no longer
// runs, and those of other hosts older than staleAge. With owned (a folder
// whose kind marker mmds wrote), it also removes older mmds's temporary files
// older than staleAge. A temporary file of a live writer is never removed. A
// folder that does not exist holds nothing stale.
func RemoveStaleTemps(dir string, owned bool) error {
	return removeStale(dir, owned, "")
}

// removeStale is RemoveStaleTemps for the temporary files of targets named
// base only, or of every target when base is "".
func removeStale(dir string, owned bool, base string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	host := hostTag()
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		name := e.Name()
		stale := false
		if base != "" && !strings.HasSuffix(name, "-"+base) {
			continue
		}
		if m := tempName.FindStringSubmatch(name); m != nil {
			pid, err := strconv.Atoi(m[1])
			if err != nil {
				continue
			}
			if m[2] == host {
				stale = !alive(pid)
			} else {
				stale = olderThan(e, staleAge)
			}
		} else if owned && legacyTemp.MatchString(name) {
			stale = olderThan(e, staleAge)
		}
		if stale {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// alive reports whether process pid runs on this host. A process of another
// user answers EPERM, and counts as alive.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}

func olderThan(e fs.DirEntry, age time.Duration) bool {
	fi, err := e.Info()
	return err == nil && time.Since(fi.ModTime()) > age
}

// WriteFileAtomic writes a file through write: the bytes go to a temporary
// file in the target's folder, created there with O_EXCL (never an existing
// name, never through a link), which is synced and renamed onto the target
// only when write and every file operation succeeded. The target must be a
// regular file or not exist (Target); anything else is an error wrapping
// ErrTarget, and nothing is written. A target that exists keeps its
// permission bits; a new one gets 0644. The temporary file keeps path's
// extension, so writers that choose a format by extension see the right one.
//
// write gets the temporary file's path (for writers that open a path
// themselves, such as HiGHS's model writer). In a folder others can write
// to, the name could be swapped for a link while write runs; the file is
// checked to be still the one created (same inode, one link, regular) before
// it is synced through the descriptor created with it and renamed, and an
// error otherwise. WriteAtomic writes through that descriptor and never
// opens the name again.
func WriteFileAtomic(path string, write func(tmpPath string) error) error {
	return writeAtomic(path, func(_ *os.File, tmp string) error { return write(tmp) })
}

// WriteFile writes b as the file path atomically (see WriteFileAtomic).
func WriteFile(path string, b []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// WriteAtomic writes what fn writes to w into path atomically (see
// WriteFileAtomic), through the descriptor the temporary file was created
// with.
func WriteAtomic(path string, fn func(w io.Writer) error) error {
	return writeAtomic(path, func(f *os.File, _ string) error { return fn(f) })
}

func writeAtomic(path string, write func(f *os.File, tmpPath string) error) (err error) {
	a, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			a.Abort()
		}
	}()
	if err = write(a.f, a.f.Name()); err != nil {
		return a.wrap(err)
	}
	return a.Commit()
}

// AtomicFile is a file being written atomically (see WriteFileAtomic): its
// bytes go to a temporary file in the target's folder, which Commit renames
// onto the target and Abort removes.
type AtomicFile struct {
	path string
	f    *os.File
	perm fs.FileMode
	done bool
}

// CreateAtomic starts writing path atomically. The caller must Commit or
// Abort.
func CreateAtomic(path string) (*AtomicFile, error) {
	a := &AtomicFile{path: path, perm: 0o644}
	if err := Target(path); err != nil {
		return nil, a.wrap(err)
	}
	if fi, err := os.Lstat(path); err == nil {
		a.perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, base)
	if err != nil {
		return nil, fmt.Errorf("write %s: folder %s: %w", path, dir, safefile.UnwrapPath(err))
	}
	a.f = f
	return a, nil
}

func (a *AtomicFile) wrap(err error) error { return fmt.Errorf("write %s: %w", a.path, err) }

// Write writes to the temporary file.
func (a *AtomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// Abort removes the temporary file; the target is left as it was. It is a
// no-op after Commit or Abort.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	os.Remove(a.f.Name())
}

// Commit syncs the temporary file and renames it onto the target; on an
// error the temporary file is removed.
func (a *AtomicFile) Commit() (err error) {
	if a.done {
		return a.wrap(errors.New("already committed or aborted"))
	}
	defer func() {
		if err != nil {
			a.Abort()
		}
	}()
	tmp := a.f.Name()
	if err = sameTemp(a.f, tmp); err != nil {
		return a.wrap(err)
	}
	if err = a.f.Sync(); err != nil {
		return a.wrap(err)
	}
	if err = a.f.Chmod(a.perm); err != nil {
		return a.wrap(err)
	}
	// The target may have changed kind since Target looked (a FIFO or a
	// link made in the meantime): look again just before the rename
	// replaces it.
	if err = Target(a.path); err != nil {
		return a.wrap(err)
	}
	if err = a.f.Close(); err != nil {
		return a.wrap(err)
	}
	if err = os.Rename(tmp, a.path); err != nil {
		os.Remove(tmp)
		a.done = true
		return a.wrap(err)
	}
	a.done = true
	syncDir(filepath.Dir(a.path))
	return nil
}

// sameTemp checks that the name tmp still is the file f was created as: a
// regular file, the same inode, with one link.
func sameTemp(f *os.File, tmp string) error {
	ffi, err := f.Stat()
	if err != nil {
		return err
	}
	nfi, err := os.Lstat(tmp)
	if err != nil || !nfi.Mode().IsRegular() || !os.SameFile(ffi, nfi) {
		return errorf(ErrTarget, "the temporary file %s was replaced while it was written", filepath.Base(tmp))
	}
	if st, ok := ffi.Sys().(*syscall.Stat_t); ok && st.Nlink != 1 {
		return errorf(ErrTarget, "the temporary file %s gained a hard link while it was written", filepath.Base(tmp))
	}
	return nil
}

// syncDir makes a rename in dir durable where the file system allows it;
// failing to is not an error (some file systems refuse to sync a folder).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// WithOutput runs fn with the output going to stdout or, when path names
// a file (not ""), to that file, written atomically: what fn
// prints streams into a temporary file in the target's folder (created at
// the first byte, so input refused before any output creates nothing),
// which is renamed onto the target once fn has succeeded and removed when
// it fails or is interrupted.
func WithOutput(stdout io.Writer, path string, fn func(io.Writer) error) error {
	if path == "" {
		return fn(stdout)
	}
	out := &lazyAtomic{path: path}
	bw := bufio.NewWriter(out)
	err := fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		out.abort()
		return err
	}
	return out.commit()
}

// lazyAtomic is an atomic file (CreateAtomic) created at the first
// write.
type lazyAtomic struct {
	path string
	f    *AtomicFile
}

func (l *lazyAtomic) Write(p []byte) (int, error) {
	if l.f == nil {
		f, err := CreateAtomic(l.path)
		if err != nil {
			return 0, err
		}
		l.f = f
	}
	return l.f.Write(p)
}

func (l *lazyAtomic) abort() {
	if l.f != nil {
		l.f.Abort()
	}
}

// commit renames the file onto its target (an empty file when nothing was
// written).
func (l *lazyAtomic) commit() error {
	if l.f == nil {
		if _, err := l.Write(nil); err != nil {
			return err
		}
	}
	return l.f.Commit()
}
