package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/cluster"
)

var whole = cluster.Shard{}

func shard(i, n int) cluster.Shard { return cluster.Shard{Index: i, Count: n} }

// TestLockExclusion: the whole run excludes every shard and vice versa,
// shards of one run exclude only their twin, shards of another count are
// refused, and a released lock can be taken again.
func TestLockExclusion(t *testing.T) {
	d := Dir(t.TempDir())
	l, err := d.Lock(whole)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Lock(whole); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second whole-run writer: %v, want ErrLocked naming the holder", err)
	}
	if _, err := d.Lock(shard(1, 2)); !errors.Is(err, ErrLocked) {
		t.Errorf("shard beside a whole-run writer: %v, want ErrLocked", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	s1, err := d.Lock(shard(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Lock(shard(1, 2)); !errors.Is(err, ErrLocked) {
		t.Errorf("two writers of shard 1/2: %v, want ErrLocked", err)
	}
	s2, err := d.Lock(shard(2, 2))
	if err != nil {
		t.Fatalf("shard 2/2 beside shard 1/2: %v", err)
	}
	if _, err := d.Lock(whole); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "shard 1/2, shard 2/2") {
		t.Errorf("whole-run writer beside shards: %v, want ErrLocked naming both shards", err)
	}
	if _, err := d.Lock(shard(1, 3)); !errors.Is(err, ErrLayout) {
		t.Errorf("shard 1/3 beside shards of 2: %v, want ErrLayout", err)
	}
	for sh, want := range map[cluster.Shard]bool{shard(1, 2): true, shard(2, 2): true, shard(1, 3): false} {
		if alive, err := d.ShardAlive(sh); err != nil || alive != want {
			t.Errorf("ShardAlive(%v) = %v, %v; want %v", sh, alive, err, want)
		}
	}
	s1.Unlock()
	s2.Unlock()
	if alive, _ := d.ShardAlive(shard(1, 2)); alive {
		t.Error("a released shard is alive")
	}
	// The layout binds the directory after its shards are gone too.
	if _, err := d.Lock(shard(3, 3)); !errors.Is(err, ErrLayout) {
		t.Errorf("shard 3/3 after shards of 2: %v, want ErrLayout", err)
	}
	l, err = d.Lock(whole)
	if err != nil || l.TookOver != "" {
		t.Fatalf("whole run after clean releases: %v, took over %q", err, l.TookOver)
	}
	l.Unlock()
	// Release keeps the lock files, emptied.
	for _, f := range []string{runLockFile, shardLockFile(shard(1, 2))} {
		if b, err := os.ReadFile(d.Path(f)); err != nil || len(b) != 0 {
			t.Errorf("%s after release: %q, %v; want an empty file", f, b, err)
		}
	}
}

// TestLockFileRefused: a lock path that is not mmds's lock file is neither
// followed, nor truncated, nor echoed.
func TestLockFileRefused(t *testing.T) {
	secret := []byte("password=hunter2\n")
	for _, c := range []struct {
		name string
		sh   cluster.Shard
		make func(d Dir, target string) error
	}{
		{"symlink", whole, func(d Dir, target string) error { return os.Symlink(target, d.Path(runLockFile)) }},
		{"dangling symlink", whole, func(d Dir, target string) error {
			return os.Symlink(target+".none", d.Path(runLockFile))
		}},
		{"shard symlink", shard(1, 2), func(d Dir, target string) error {
			return os.Symlink(target, d.Path(shardLockFile(shard(1, 2))))
		}},
		{"hard link", whole, func(d Dir, target string) error { return os.Link(target, d.Path(runLockFile)) }},
		{"foreign content", whole, func(d Dir, target string) error {
			return os.WriteFile(d.Path(runLockFile), secret, 0o644)
		}},
		{"directory", whole, func(d Dir, target string) error { return os.Mkdir(d.Path(runLockFile), 0o755) }},
		{"fifo", whole, func(d Dir, target string) error { return syscall.Mkfifo(d.Path(runLockFile), 0o644) }},
		{"layout symlink", shard(1, 2), func(d Dir, target string) error {
			os.MkdirAll(d.Path("points"), 0o755)
			return os.Symlink(target, d.Path(LayoutFile))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Dir(t.TempDir())
			target := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(target, secret, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := c.make(d, target); err != nil {
				t.Fatal(err)
			}
			l, err := d.Lock(c.sh)
			if err == nil {
				l.Unlock()
				t.Fatal("locked")
			}
			if !errors.Is(err, ErrLockFile) && !errors.Is(err, ErrLayout) {
				t.Errorf("%v: want ErrLockFile or ErrLayout", err)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the message echoes the file: %v", err)
			}
			if b, _ := os.ReadFile(target); !bytes.Equal(b, secret) {
				t.Errorf("the target now holds %q", b)
			}
			if _, err := os.Stat(target + ".none"); err == nil {
				t.Error("a dangling symlink's target was created")
			}
		})
	}
}

// TestLockNeverTwoHolders: writers of one lock racing to take and release it
// never hold it at once.
func TestLockNeverTwoHolders(t *testing.T) {
	d := Dir(t.TempDir())
	var held, max, got atomic.Int32
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			sh := whole
			if w%2 == 1 {
				sh = shard(1, 1) // excluded by the whole run, and by its twins
			}
			for range 30 {
				l, err := d.Lock(sh)
				if errors.Is(err, ErrLocked) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				got.Add(1)
				if n := held.Add(1); n > max.Load() {
					max.Store(n)
				}
				time.Sleep(time.Millisecond)
				held.Add(-1)
				if err := l.Unlock(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if max.Load() != 1 || got.Load() == 0 {
		t.Errorf("%d acquisitions, at most %d holders at once; want 1", got.Load(), max.Load())
	}
}

// lockFolders are folders on the file systems this machine offers for the
// lock tests: the test's temporary folder (ext4 on the build container),
// /dev/shm (tmpfs) where it exists, and the folders MMDS_LOCK_DIRS lists
// (separated by ':'; docs/cluster.md mounts xfs, btrfs and a FUSE file
// system there).
func lockFolders(t *testing.T) map[string]string {
	dirs := map[string]string{"TempDir": t.TempDir()}
	roots := []string{"/dev/shm"}
	if v := os.Getenv("MMDS_LOCK_DIRS"); v != "" {
		roots = append(roots, strings.Split(v, ":")...)
	}
	for _, root := range roots {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		dir, err := os.MkdirTemp(root, "mmds-lock-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		dirs[root] = dir
	}
	for name, dir := range dirs {
		if f, err := os.Open(dir); err == nil {
			t.Logf("%s: %s", name, fileSystemOf(f))
			f.Close()
		}
	}
	return dirs
}

// TestLockHolderKilled: on every file system at hand, a lock held by
// another live process (taken whole or by a shard) is refused, naming it;
// killed by SIGKILL, the holder leaves its lock free (the kernel releases
// a record lock with the holder's last descriptor) and its record, which
// the next holder reports.
func TestLockHolderKilled(t *testing.T) {
	if dir := os.Getenv("MMDS_LOCK_HELPER"); dir != "" {
		sh := whole
		if os.Getenv("MMDS_LOCK_SHARD") != "" {
			sh = shard(1, 2)
		}
		if _, err := Dir(dir).Lock(sh); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	for fsName, root := range lockFolders(t) {
		for _, sh := range []cluster.Shard{whole, shard(1, 2)} {
			d := Dir(filepath.Join(root, fmt.Sprintf("run-%d", sh.Count)))
			if err := os.Mkdir(string(d), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderKilled$")
			cmd.Env = append(os.Environ(), "MMDS_LOCK_HELPER="+string(d))
			if sh.Sharded() {
				cmd.Env = append(cmd.Env, "MMDS_LOCK_SHARD=1")
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 256)
			n, _ := out.Read(buf)
			if !strings.HasPrefix(string(buf[:n]), "locked") {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s: helper: %q", fsName, buf[:n])
			}
			if _, err := d.Lock(sh); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
				t.Errorf("%s: %v held by a live process: %v, want ErrLocked naming it", fsName, sh, err)
			}
			if _, err := d.Lock(whole); !errors.Is(err, ErrLocked) {
				t.Errorf("%s: the whole run beside %v held by a live process: %v, want ErrLocked", fsName, sh, err)
			}
			if alive, _ := d.ShardAlive(shard(1, 2)); alive != sh.Sharded() {
				t.Errorf("%s: ShardAlive with %v held by a live process: %v", fsName, sh, alive)
			}
			if sh.Sharded() {
				l, err := d.Lock(shard(2, 2))
				if err != nil {
					t.Errorf("%s: shard 2/2 beside a live shard 1/2: %v", fsName, err)
				} else {
					l.Unlock()
				}
			}
			cmd.Process.Kill()
			cmd.Wait()
			l, err := d.Lock(sh)
			if err != nil {
				t.Fatalf("%s: %v after its holder was killed: %v", fsName, sh, err)
			}
			if want := fmt.Sprintf("pid %d on ", cmd.Process.Pid); !strings.HasPrefix(l.TookOver, want) {
				t.Errorf("%s: took over %q; want %q…", fsName, l.TookOver, want)
			}
			l.Unlock()
		}
	}
}

// Attack: points/shards planted as a FIFO that some process holds open for
// writing. The shard count was read without checking what the file is, so
// a shard's Lock waited forever on a writer that never writes. It must be
// refused at once, as the lock files are.
func TestLayoutFIFOWithWriter(t *testing.T) {
	d := Dir(t.TempDir())
	path := d.Path(LayoutFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	w, err := os.OpenFile(path, os.O_RDWR, 0) // a writer that never writes
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	done := make(chan error, 1)
	go func() {
		l, err := d.Lock(shard(1, 2))
		if err == nil {
			l.Unlock()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Lock with points/shards a FIFO: %v, want ErrLayout naming it", err)
		}
	case <-time.After(time.Minute): // a hang lasts forever; a loaded machine needs room
		t.Fatal("Lock hangs on a FIFO at points/shards")
	}
}
