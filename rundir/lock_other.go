//go:build !linux

package rundir

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes f's lock without blocking with flock(2), shared or
// exclusive: outside Linux there are no open file description locks, and
// classic fcntl locks belong to the process (a second open in one process
// would not conflict). flock is node-local on some cluster file systems;
// docs/cluster.md lists the file systems tried. A lock held elsewhere is
// errHeld.
func tryLock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errHeld
		}
		return err
	}
}

// fileSystemOf describes f's file system for a message.
func fileSystemOf(*os.File) string { return "this file system" }

// noLocalOnlyLocks knows no mount options outside Linux.
func noLocalOnlyLocks(*os.File) error { return nil }
