//go:build linux

package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLockProbe: with its lock held, Lock checks that the lock is enforced
// and still names its file, and refuses, naming the file system, one whose
// locks fail or are not enforced.
func TestLockProbe(t *testing.T) {
	folders := lockFolders(t)
	for _, c := range []struct {
		name string
		try  func(*os.File, bool) error // nil: the real lock
		edit func(path string)          // after the open, before the probe
		is   error                      // nil: passes
		want string
	}{
		{"enforced here", nil, nil, nil, ""},
		{"granted twice: not enforced", func(*os.File, bool) error { return nil }, nil, ErrNoLocking,
			"grants a second exclusive lock"},
		{"no record locks (Lustre without -o flock)", func(*os.File, bool) error { return syscall.ENOSYS }, nil, ErrNoLocking,
			"failed (function not implemented)"},
		{"no lock manager (NFS without lockd)", func(*os.File, bool) error { return syscall.ENOLCK }, nil, ErrNoLocking,
			"failed (no locks available)"},
		{"replaced between open and lock", nil, func(path string) {
			if err := os.WriteFile(path+".new", nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
		}, ErrLockFile, "was replaced while it was being locked"},
	} {
		for fsName, root := range folders {
			path := filepath.Join(root, strings.ReplaceAll(c.name, " ", "-")+".lock")
			f, err := openLock(path, os.O_RDWR|os.O_CREATE)
			if err != nil {
				t.Fatal(err)
			}
			if err := tryLock(f, true); err != nil {
				t.Fatalf("%s: %v", fsName, err)
			}
			if c.edit != nil {
				c.edit(path)
			}
			try := c.try
			if try == nil {
				try = tryLock
			}
			err = probeWith(f, try)
			f.Close()
			switch {
			case c.is == nil && err != nil:
				t.Errorf("%s on %s: %v", c.name, fsName, err)
			case c.is != nil && (!errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s on %s: %v; want %v saying %q", c.name, fsName, err, c.is, c.want)
			case errors.Is(err, ErrNoLocking) && !strings.Contains(err.Error(), "statfs type 0x"):
				t.Errorf("%s on %s: %v does not name the file system", c.name, fsName, err)
			}
		}
	}
}

// TestLocalOnlyMounts: mountinfo lines (proc(5)) of file systems whose
// record locks are kept on one node are found by device number and
// refused; those whose locks the servers keep are not.
func TestLocalOnlyMounts(t *testing.T) {
	for _, c := range []struct {
		line  string
		local bool
	}{
		{"41 27 0:52 / /home rw,relatime shared:1 - nfs4 srv:/home rw,vers=4.2,hard,proto=tcp,local_lock=none,addr=10.0.0.1", false},
		{"41 27 0:52 / /home rw,relatime - nfs srv:/home rw,vers=3,nolock,local_lock=all,addr=10.0.0.1", true},
		{"41 27 0:52 / /home rw,relatime - nfs srv:/home rw,vers=3,local_lock=posix,addr=10.0.0.1", true},
		{"41 27 0:52 / /home rw,relatime - nfs srv:/home rw,vers=3,local_lock=flock,addr=10.0.0.1", false},
		{"41 27 0:52 / /scratch rw - lustre 10.0.0.2@o2ib:/fs rw,flock,lazystatfs", false},
		{"41 27 0:52 / /scratch rw - lustre 10.0.0.2@o2ib:/fs rw,localflock,lazystatfs", true},
		{"41 27 0:52 / /gpfs rw,relatime - gpfs gpfs0 rw", false},
		{"41 27 0:52 / / rw,relatime - ext4 /dev/vda rw,discard", false},
	} {
		text := "22 27 0:21 / /proc rw,relatime - proc proc rw\n" + c.line + "\n"
		m, ok := findMount(strings.NewReader(text), 0, 52, "")
		if !ok || !strings.Contains(c.line, " - "+m.fsType+" ") {
			t.Errorf("%q: found %+v, %v", c.line, m, ok)
			continue
		}
		if got := localOnly(m) != ""; got != c.local {
			t.Errorf("%q: local-only %v (%q), want %v", c.line, got, localOnly(m), c.local)
		}
		if _, ok := findMount(strings.NewReader(text), 0, 53, ""); ok {
			t.Errorf("%q: found for another device", c.line)
		}
	}
	// A btrfs subvolume's files carry a device of their own: the longest
	// mount point holding the path (octal escapes undone) is the mount.
	text := "27 1 254:0 / / rw - ext4 /dev/vda rw\n" +
		"41 27 0:52 / /my\\040scratch rw - lustre 10.0.0.2@o2ib:/fs rw,localflock\n" +
		"42 27 0:53 / /my rw - ext4 /dev/vdb rw\n"
	for path, want := range map[string]string{"/my scratch/run": "lustre", "/my/run": "ext4", "/my scratchy": "ext4", "/home/run": "ext4"} {
		if m, ok := findMount(strings.NewReader(text), 0, 99, path); !ok || m.fsType != want {
			t.Errorf("path %q: %+v, %v; want %s", path, m, ok, want)
		}
	}
}
