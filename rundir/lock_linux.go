//go:build linux

package rundir

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// tryLock takes a record lock on the whole of f without blocking: shared
// (F_RDLCK) or exclusive (F_WRLCK), an open file description lock
// (F_OFD_SETLK, Linux ≥ 3.15). Record locks, unlike flock(2), are what
// cluster file systems keep coherent between nodes (NFS through its lock
// manager or NFSv4, Lustre mounted -o flock, GPFS, CephFS); flock is
// node-local on GPFS and fails on Lustre without -o flock. Open file
// description locks, unlike classic fcntl locks, belong to the open file,
// not the process: a second open of the file in the same process
// conflicts, and closing some other descriptor of the file releases
// nothing. The kernel releases them when the last descriptor of the open
// file closes, however the process ends. A lock held elsewhere is errHeld.
func tryLock(f *os.File, exclusive bool) error {
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: io.SeekStart} // Start 0, Len 0: the whole file
	if exclusive {
		lk.Type = unix.F_WRLCK
	}
	for {
		err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN, unix.EACCES:
			return errHeld
		}
		return err
	}
}

// fsMagic names the statfs(2) f_type of file systems a results directory
// may be on.
var fsMagic = map[int64]string{
	unix.EXT4_SUPER_MAGIC:      "ext2/3/4",
	0x58465342:                 "xfs",
	unix.BTRFS_SUPER_MAGIC:     "btrfs",
	0x2fc12fc1:                 "zfs",
	unix.TMPFS_MAGIC:           "tmpfs",
	unix.RAMFS_MAGIC:           "ramfs",
	unix.OVERLAYFS_SUPER_MAGIC: "overlayfs",
	unix.F2FS_SUPER_MAGIC:      "f2fs",
	unix.NFS_SUPER_MAGIC:       "nfs",
	0x0bd00bd0:                 "lustre",
	0x47504653:                 "gpfs",
	unix.CEPH_SUPER_MAGIC:      "ceph",
	0x19830326:                 "beegfs",
	0xaad7aaea:                 "panfs",
	0x20030528:                 "orangefs",
	0x01161970:                 "gfs2",
	unix.OCFS2_SUPER_MAGIC:     "ocfs2",
	unix.FUSE_SUPER_MAGIC:      "fuse",
	unix.CIFS_SUPER_MAGIC:      "cifs",
	unix.SMB2_SUPER_MAGIC:      "smb2",
	0x01021997:                 "9p",
	unix.AFS_FS_MAGIC:          "afs",
}

// mount is the mountinfo line of the file system holding a file.
type mount struct {
	fsType  string // as mount(8) names it: "nfs4", "lustre", "fuse.sshfs"
	options string // the mount's and the superblock's options, comma-separated
}

// fileSystemOf describes the file system holding f for a message: its name
// from statfs(2)'s f_type and, where /proc/self/mountinfo has it, its type
// and lock-related mount options.
func fileSystemOf(f *os.File) string {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return "a file system statfs cannot name (" + err.Error() + ")"
	}
	magic := int64(st.Type) & 0xffffffff
	name := fsMagic[magic]
	if name == "" {
		name = "an unknown file system"
	}
	desc := fmt.Sprintf("%s (statfs type %#x)", name, magic)
	if m, ok := mountOf(f); ok {
		desc = fmt.Sprintf("%s (statfs type %#x, mounted as %s", name, magic, m.fsType)
		if o := lockOptions(m.options); o != "" {
			desc += " with " + o
		}
		desc += ")"
	}
	return desc
}

// lockOptions are the mount options among opts that decide how locks
// behave, for a message.
func lockOptions(opts string) string {
	var out []string
	for o := range strings.SplitSeq(opts, ",") {
		switch {
		case strings.HasPrefix(o, "local_lock="), o == "nolock", o == "lock",
			o == "flock", o == "localflock", o == "noflock", strings.HasPrefix(o, "vers="):
			out = append(out, o)
		}
	}
	return strings.Join(out, ",")
}

// mountOf finds f's file system in /proc/self/mountinfo: by its device
// number, or (btrfs reports a device of its own per subvolume) by the
// longest mount point that holds f's path.
func mountOf(f *os.File) (mount, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return mount{}, false
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return mount{}, false
	}
	path, err := filepath.EvalSymlinks(filepath.Dir(f.Name()))
	if err == nil {
		path, err = filepath.Abs(path)
	}
	if err != nil {
		path = ""
	}
	return findMount(bytes.NewReader(mi), unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), path)
}

// findMount reads mountinfo lines (proc(5)): ID PARENT MAJ:MIN ROOT POINT
// OPTIONS [OPTIONAL…] - TYPE SOURCE SUPEROPTIONS, and returns the last line
// of device maj:min (a later mount of the same device shares its
// superblock's options); without one, the last line of the longest mount
// point holding path ("" for none).
func findMount(r io.Reader, major, minor uint32, path string) (mount, bool) {
	want := fmt.Sprintf("%d:%d", major, minor)
	var byDev, byPath mount
	devOK, best := false, -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		pre, post, cut := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !cut || len(f) < 6 || len(g) < 3 {
			continue
		}
		m := mount{fsType: g[0], options: f[5] + "," + g[2]}
		if f[2] == want {
			byDev, devOK = m, true
		}
		point := unescapeMount(f[4])
		if path != "" && len(point) >= best && (path == point || strings.HasPrefix(path, strings.TrimSuffix(point, "/")+"/")) {
			byPath, best = m, len(point)
		}
	}
	if devOK {
		return byDev, true
	}
	return byPath, best >= 0
}

// unescapeMount undoes mountinfo's octal escapes of a path (\040 for a
// space, \011, \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// noLocalOnlyLocks refuses (ErrNoLocking) a lock file on a file system
// mounted so that its record locks are kept on this node only, where a
// writer on another node would take the same lock: NFS mounted
// local_lock=posix, local_lock=all or nolock, Lustre mounted localflock.
func noLocalOnlyLocks(f *os.File) error {
	m, ok := mountOf(f)
	if !ok {
		return nil
	}
	if why := localOnly(m); why != "" {
		return fmt.Errorf("%w: %s is on %s: %s, so a writer on another node would take the same lock; remount it, or put --out on a file system whose record locks are coherent (docs/cluster.md)",
			ErrNoLocking, f.Name(), fileSystemOf(f), why)
	}
	return nil
}

// localOnly says why m's record locks are local to this node, "" when they
// are not known to be.
func localOnly(m mount) string {
	opts := strings.Split(m.options, ",")
	has := func(o string) bool { return slices.Contains(opts, o) }
	switch {
	case strings.HasPrefix(m.fsType, "nfs") && (has("local_lock=posix") || has("local_lock=all")):
		return "NFS mounted with local_lock=posix or all keeps POSIX locks on this client"
	case strings.HasPrefix(m.fsType, "nfs") && has("nolock"):
		return "NFS mounted nolock keeps locks on this client"
	case m.fsType == "lustre" && has("localflock"):
		return "Lustre mounted localflock keeps locks on this client"
	}
	return ""
}
