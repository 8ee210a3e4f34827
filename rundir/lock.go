package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mmds-project/mmds/internal/cluster"
)

// ErrLocked reports a results directory another live process is writing.
var ErrLocked = errors.New("rundir: results directory in use")

// ErrLockFile reports a lock path that is not mmds's own lock file: a
// symbolic link, a directory or device, a file with other hard links, or one
// holding something other than a holder record.
var ErrLockFile = errors.New("rundir: not an mmds lock file")

// ErrNoLocking reports a results directory on a file system whose locks
// cannot keep two writers apart: record locks fail there (ENOSYS on Lustre
// mounted without flock, ENOLCK without a lock manager), are not enforced,
// or are kept on one node only (NFS mounted local_lock=posix or nolock,
// Lustre mounted localflock). The message names the file system.
var ErrNoLocking = errors.New("rundir: no working locks on this file system")

// ErrLayout reports a shard of a different shard count than the one the
// results directory is bound to (LayoutFile).
var ErrLayout = errors.New("rundir: shard layout")

// LayoutFile is the path, relative to a results directory, of the shard count
// its shards were started with.
const LayoutFile = "points" + string(filepath.Separator) + "shards"

const (
	runLockFile = ".lock"
	// maxRecord bounds a holder record; a longer file is not mmds's.
	maxRecord = 256
	// A lock is tried lockTries times, lockRetry apart, before it counts
	// as held: a neighbour's liveness probe (ShardAlive) holds it for
	// microseconds.
	lockTries = 10
	lockRetry = 20 * time.Millisecond
)

// shardLockFile is shard sh's own lock file.
func shardLockFile(sh cluster.Shard) string {
	return fmt.Sprintf(".lock-shard-%d-of-%d", sh.Index, sh.Count)
}

// Lock is a held lock on a results directory: the whole run's, or one
// shard's.
type Lock struct {
	run *os.File // DIR/.lock
	own *os.File // the file holding this writer's record: run, or the shard's lock
	// TookOver describes the holder of a lock that died without releasing
	// it ("" if there was none): pid, host and start time.
	TookOver string
}

// Lock takes the lock of the whole run (sh not sharded) or of shard sh on the
// directory, which must exist. A lock held by a live process is an error
// wrapping ErrLocked that names the holder; a lock path that is not mmds's
// lock file, ErrLockFile; a shard of another count than the directory's,
// ErrLayout.
func (d Dir) Lock(sh cluster.Shard) (*Lock, error) {
	runPath := d.Path(runLockFile)
	run, err := openLock(runPath, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	if err := noLocalOnlyLocks(run); err != nil {
		run.Close()
		return nil, err
	}
	if err := lockRetrying(run, !sh.Sharded()); err != nil {
		defer run.Close()
		if !errors.Is(err, errHeld) {
			return nil, lockError(run, err)
		}
		if holder := holderOf(run); holder != "" {
			return nil, fmt.Errorf("%w: %s is being trained as a whole or merged by another mmds train (%s; lock %s); wait for it, or stop it",
				ErrLocked, d, holder, runPath)
		}
		return nil, fmt.Errorf("%w: %s is being trained by shards (%s); wait for them to finish, or stop them", ErrLocked, d, d.liveShards())
	}
	if err := probeLock(run); err != nil {
		run.Close()
		return nil, err
	}
	l := &Lock{run: run, own: run}
	if sh.Sharded() {
		if err := d.lockShard(l, sh); err != nil {
			l.Unlock()
			return nil, err
		}
	}
	old, err := readRecord(l.own)
	if err != nil {
		l.own.Close()
		if l.own != l.run {
			l.run.Close()
		}
		return nil, err
	}
	l.TookOver = old
	host, _ := os.Hostname()
	rec := fmt.Sprintf("pid %d on %s since %s\n", os.Getpid(), hostOK.ReplaceAllString(host, "_"), time.Now().UTC().Format(time.RFC3339))
	if err := l.own.Truncate(0); err == nil { // advisory: a failed write leaves the lock held all the same
		_, _ = l.own.WriteAt([]byte(rec), 0)
	}
	return l, nil
}

// lockShard binds the directory to sh's shard count and takes shard sh's
// own lock, which becomes the file holding l's record.
func (d Dir) lockShard(l *Lock, sh cluster.Shard) error {
	if err := d.bindLayout(sh); err != nil {
		return err
	}
	path := d.Path(shardLockFile(sh))
	own, err := openLock(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return err
	}
	if err := lockRetrying(own, true); err != nil {
		defer own.Close()
		if errors.Is(err, errHeld) {
			holder := holderOf(own)
			if holder == "" {
				holder = "holder unknown"
			}
			return fmt.Errorf("%w: shard %v of %s is being trained by another mmds train (%s; lock %s); wait for it, or stop it",
				ErrLocked, sh, d, holder, path)
		}
		return lockError(own, err)
	}
	if err := sameFile(own); err != nil {
		own.Close()
		return err
	}
	l.own = own
	return nil
}

// Unlock clears the holder record and releases the lock. It keeps the lock
// files (see above).
func (l *Lock) Unlock() error {
	if l == nil || l.run == nil {
		return nil
	}
	var err error
	if l.own != l.run {
		_ = l.own.Truncate(0)
		err = l.own.Close()
	} else {
		_ = l.run.Truncate(0)
	}
	if e := l.run.Close(); err == nil {
		err = e
	}
	l.run, l.own = nil, nil
	return err
}

// ShardAlive reports whether a process holds shard sh's lock on the
// directory: whether that shard is being trained now. It takes the lock
// shared for an instant when it is free, which Lock's retries absorb.
func (d Dir) ShardAlive(sh cluster.Shard) (bool, error) {
	f, err := openLock(d.Path(shardLockFile(sh)), os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil // never started
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = tryLock(f, false)
	if errors.Is(err, errHeld) {
		return true, nil
	}
	if err != nil {
		return false, lockError(f, err)
	}
	return false, nil // closing f releases the probe
}

// liveShards names the shards whose locks are held, for a message.
func (d Dir) liveShards() string {
	paths, _ := filepath.Glob(d.Path(".lock-shard-*-of-*"))
	var live []string
	for _, p := range paths {
		var sh cluster.Shard
		if _, err := fmt.Sscanf(filepath.Base(p), ".lock-shard-%d-of-%d", &sh.Index, &sh.Count); err != nil {
			continue
		}
		if ok, _ := d.ShardAlive(sh); ok {
			live = append(live, "shard "+sh.String())
		}
	}
	switch {
	case len(live) == 0:
		return "shards unknown"
	case len(live) > 4:
		return strings.Join(live[:4], ", ") + fmt.Sprintf(" and %d more", len(live)-4)
	}
	return strings.Join(live, ", ")
}

// openLock opens a lock file without following a symbolic link and checks
// that it is a regular file with one link.
func openLock(path string, flag int) (*os.File, error) {
	// O_NONBLOCK: opening a planted FIFO must not hang.
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%w: %s is a symbolic link; remove it (mmds creates its own lock files)", ErrLockFile, path)
	case errors.Is(err, syscall.EISDIR):
		return nil, fmt.Errorf("%w: %s is a directory; remove it", ErrLockFile, path)
	case err != nil:
		return nil, fmt.Errorf("rundir: lock %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("rundir: lock %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file (%v); remove it", ErrLockFile, path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		f.Close()
		return nil, fmt.Errorf("%w: %s has %d hard links, so it may be another file; remove it", ErrLockFile, path, st.Nlink)
	}
	return f, nil
}

// errHeld is tryLock's answer when another open file holds a conflicting
// lock.
var errHeld = errors.New("rundir: held by another open file")

// lockRetrying takes f's lock without blocking (tryLock), retrying briefly
// while it is held.
func lockRetrying(f *os.File, exclusive bool) error {
	for try := 1; ; try++ {
		err := tryLock(f, exclusive)
		if !errors.Is(err, errHeld) || try == lockTries {
			return err
		}
		time.Sleep(lockRetry)
	}
}

// lockError is the error of a lock call on f that failed for another reason
// than a holder: on a file system without record locks (ENOSYS, ENOLCK,
// EOPNOTSUPP, EINVAL) an error wrapping ErrNoLocking that names the file
// system.
func lockError(f *os.File, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.EINVAL):
		return fmt.Errorf("%w: locking %s failed (%v) on %s: mmds cannot keep two writers of the directory apart there; put --out on a file system with POSIX record locks (docs/cluster.md)",
			ErrNoLocking, f.Name(), err, fileSystemOf(f))
	}
	return fmt.Errorf("rundir: lock %s: %w", f.Name(), err)
}

// probeLock checks, with f's lock held, that the lock is enforced: a second
// open file description of the same file is refused an exclusive lock. A
// file system that grants it keeps no one apart, and is refused
// (ErrNoLocking) before any work. It also checks that the path still names
// the file f holds (sameFile).
func probeLock(f *os.File) error { return probeWith(f, tryLock) }

// probeWith is probeLock with the lock call try.
func probeWith(f *os.File, try func(*os.File, bool) error) error {
	if err := sameFile(f); err != nil {
		return err
	}
	g, err := openLock(f.Name(), os.O_RDWR)
	if err != nil {
		return err
	}
	err = try(g, true)
	g.Close() // releases the probe's lock if it got one
	switch {
	case err == nil:
		return fmt.Errorf("%w: %s grants a second exclusive lock on %s while this process holds one: its locks are not enforced, so mmds cannot keep two writers of the directory apart; put --out on a file system with POSIX record locks (docs/cluster.md)",
			ErrNoLocking, fileSystemOf(f), f.Name())
	case !errors.Is(err, errHeld):
		return lockError(f, err)
	}
	return nil
}

// sameFile checks that f's path names the file f has open: a lock file
// renamed or replaced between the open and the lock would let a second
// writer lock a fresh file of the same name.
func sameFile(f *os.File) error {
	held, err := f.Stat()
	if err != nil {
		return fmt.Errorf("rundir: lock %s: %w", f.Name(), err)
	}
	now, err := os.Lstat(f.Name())
	if err != nil || !os.SameFile(held, now) {
		return fmt.Errorf("%w: %s was replaced while it was being locked; run again (and remove what replaced it if it is not mmds's)", ErrLockFile, f.Name())
	}
	return nil
}

var (
	// record matches a holder record; legacy lock files held a bare pid.
	record    = regexp.MustCompile(`^(?:pid ([0-9]{1,10}) on ([A-Za-z0-9._-]{1,253}) since ([0-9TZ:+-]{1,40})|([0-9]{1,10}))\n?$`)
	hostOK    = regexp.MustCompile(`[^A-Za-z0-9._-]`)
	errRecord = errors.New("rundir: not a holder record")
)

// parseRecord returns the holder a lock file's bytes describe, rebuilt from
// the fields of a valid record ("" for an empty file).
func parseRecord(b []byte) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	m := record.FindSubmatch(b)
	switch {
	case m == nil:
		return "", errRecord
	case m[4] != nil:
		return "pid " + string(m[4]), nil
	}
	return fmt.Sprintf("pid %s on %s since %s", m[1], m[2], m[3]), nil
}

// readRecord reads the holder record of a lock file this process holds.
func readRecord(f *os.File) (string, error) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxRecord+1))
	if err != nil {
		return "", fmt.Errorf("rundir: lock %s: %w", f.Name(), err)
	}
	s, err := parseRecord(b)
	if err != nil || len(b) > maxRecord {
		return "", fmt.Errorf("%w: %s holds something other than mmds's holder record (%d bytes or more); remove it if no mmds train is using the directory",
			ErrLockFile, f.Name(), len(b))
	}
	return s, nil
}

// holderOf describes the holder of a lock held by another process, "" when
// its record is empty or not a record.
func holderOf(f *os.File) string {
	b, _ := io.ReadAll(io.NewSectionReader(f, 0, maxRecord+1))
	s, err := parseRecord(b)
	if err != nil {
		return ""
	}
	return s
}

// bindLayout binds the directory to sh's shard count on first use (LayoutFile,
// created with link(2) so that concurrent first shards agree) and refuses a
// shard of another count.
func (d Dir) bindLayout(sh cluster.Shard) error {
	path := d.Path(LayoutFile)
	if err := d.checkSubfolder(filepath.Dir(LayoutFile)); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("rundir: results directory: %w", err)
	}
	for range 3 {
		n, err := readLayout(path)
		if err == nil {
			if n != sh.Count {
				return fmt.Errorf("%w: %s was sharded %d ways (%s); shard %v cannot join: use --shard i/%d, or finish the run without --shard",
					ErrLayout, d, n, path, sh, n)
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		f, err := os.CreateTemp(filepath.Dir(path), ".shards-*.tmp")
		if err != nil {
			return fmt.Errorf("rundir: %w", err)
		}
		_, err = f.WriteString(strconv.Itoa(sh.Count) + "\n")
		if e := f.Close(); err == nil {
			err = e
		}
		if err == nil {
			err = os.Link(f.Name(), path)
		}
		os.Remove(f.Name())
		if err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("rundir: %w", err)
		}
	}
	return fmt.Errorf("%w: %s keeps changing", ErrLayout, path)
}

// readLayout reads the shard count of LayoutFile.
func readLayout(path string) (int, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return 0, fmt.Errorf("%w: %s is a symbolic link; remove it", ErrLayout, path)
		}
		return 0, err
	}
	defer f.Close()
	// A FIFO with a writer that never writes would block the read forever.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		what := "unreadable"
		if err == nil {
			what = fi.Mode().Type().String()
		}
		return 0, fmt.Errorf("%w: %s is not a regular file (%s); remove it if no shard is running", ErrLayout, path, what)
	}
	b, err := io.ReadAll(io.LimitReader(f, 16))
	if err != nil {
		return 0, fmt.Errorf("rundir: %s: %w", path, err)
	}
	n, err := strconv.Atoi(strings.TrimSuffix(string(b), "\n"))
	if err != nil || n < 1 || n > cluster.MaxShards {
		return 0, fmt.Errorf("%w: %s does not hold a shard count in [1, %d]; remove it if no shard is running", ErrLayout, path, cluster.MaxShards)
	}
	return n, nil
}
