package report

import (
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

// ErrTarget reports an output path that mmds will not write: a folder, a
// named pipe, a device, a socket, or a symbolic link to one of those or to
// nothing. Writing a file there would replace it (rename) or feed it
// (open), so mmds refuses instead.
var ErrTarget = errors.New("not a regular file")

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

// Target returns the path WriteFileAtomic writes for path: path itself when
// it is a regular file or does not exist, the regular file a symbolic link
// names (so the link is kept and its target updated), and an error wrapping
// ErrTarget for anything else. It does not check the folder.
func Target(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", unwrapPath(err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		res, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", errorf(ErrTarget, "is a symbolic link to nothing (%v)", unwrapPath(err))
		}
		rfi, err := os.Stat(res)
		if err != nil {
			return "", unwrapPath(err)
		}
		if !rfi.Mode().IsRegular() {
			return "", errorf(ErrTarget, "is a symbolic link to %s, not to a regular file", safefile.Describe(rfi.Mode()))
		}
		return res, nil
	}
	if !fi.Mode().IsRegular() {
		return "", errorf(ErrTarget, "is %s, not a regular file", safefile.Describe(fi.Mode()))
	}
	return path, nil
}

// unwrapPath drops the *fs.PathError around err: its path is usually one
// the user did not give (a temporary name, a resolved link).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// CheckFile checks, before any work, that WriteFileAtomic can write path:
// Target accepts it, and the folder of the file it resolves to exists and
// accepts a new file. It removes the stale temporary files that a killed
// writer of the same file left there (RemoveStaleTemps): the folder is the
// user's, so only those of the file's own name.
func CheckFile(path string) error {
	res, err := Target(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(res)
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
	return removeStale(dir, false, tempBase(filepath.Base(res)))
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
// file in the target's folder, which is synced and renamed onto the target
// only when write and every file operation succeeded. The target is path, or
// the regular file a symbolic link at path names (Target); anything else that
// is not a regular file is an error wrapping ErrTarget, and nothing is
// written. A target that exists keeps its permission bits; a new one gets
// 0644. The temporary file keeps path's extension, so writers that choose a
// format by extension see the right one.
func WriteFileAtomic(path string, write func(tmpPath string) error) (err error) {
	target, err := Target(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, base)
	if err != nil {
		return fmt.Errorf("write %s: folder %s: %w", path, dir, unwrapPath(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = syncFile(tmp, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The target may have changed kind since Target looked (a FIFO made in
	// the meantime): look again just before the rename replaces it.
	if again, err2 := Target(target); err2 != nil || again != target {
		if err2 == nil {
			err2 = errorf(ErrTarget, "became a symbolic link")
		}
		err = fmt.Errorf("write %s: %w", path, err2)
		return err
	}
	if err = os.Rename(tmp, target); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// WriteAtomic writes what fn writes to w into path atomically (see WriteFileAtomic).
func WriteAtomic(path string, fn func(w io.Writer) error) error {
	return WriteFileAtomic(path, func(tmp string) error {
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

func syncFile(path string, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a rename in dir durable where the file system allows it;
// failing to is not an error (some file systems refuse to sync a folder).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
