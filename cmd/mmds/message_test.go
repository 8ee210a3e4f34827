package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mmds-project/mmds/verify"
)

// TestUserLine: the one line a person reads for an error chain, and the
// exit status: package prefixes out, a path once, file-system errors in
// words with the path (permissions and disks exit 2), an interruption in
// words with what was kept.
func TestUserLine(t *testing.T) {
	live := context.Background()
	stopped, cancel := context.WithCancelCause(context.Background())
	cancel(stopSignal{os.Interrupt})
	termed, cancelTerm := context.WithCancelCause(context.Background())
	cancelTerm(stopSignal{syscall.SIGTERM})
	pe := func(op, path string, errno syscall.Errno) error { return &fs.PathError{Op: op, Path: path, Err: errno} }
	for _, tt := range []struct {
		name    string
		ctx     context.Context
		err     error
		want    string
		code    int
		command string // the running command's prefix
	}{
		{"package prefix", live, usageError{errors.New("invalid results directory: rundir: results directory does not match")},
			"invalid results directory: results directory does not match", exitUsage, ""},
		{"nested prefixes", live, errors.New("learn: verify: bayes: loss 1 lies outside"), "loss 1 lies outside", exitFailure, ""},
		{"library prefix", live, errors.New("ONNX network f.onnx: proto:\u00a0cannot parse"), "ONNX network f.onnx: cannot parse", exitFailure, ""},
		{"a word, not a package", live, errors.New("mmds train data: the data file"), "mmds train data: the data file", exitFailure, ""},
		{"path twice", live, usageError{errors.New("--config m.json: m.json: not valid")}, "--config m.json: not valid", exitUsage, ""},
		{"path twice after a name", live, usageError{errors.New("--privatizer net.onnx: ONNX network net.onnx: net.onnx: bad")},
			"--privatizer net.onnx: ONNX network net.onnx: bad", exitUsage, ""},
		{"permission", live, fmt.Errorf("--out lib: %w", pe("mkdir", "lib/x", syscall.EACCES)),
			"--out lib: lib/x: permission denied (choose a file or folder you can write to, or change its permissions)", exitUsage, ""},
		{"read-only", live, fmt.Errorf("writing: %w", pe("open", "r/results.json", syscall.EROFS)),
			"writing: r/results.json: the file system is read-only (choose a folder on a writable one)", exitUsage, ""},
		{"full disk", live, pe("write", "r/t.json", syscall.ENOSPC),
			"r/t.json: no space left on the disk (free some, or choose a folder on another disk)", exitUsage, ""},
		{"quota", live, &os.LinkError{Op: "rename", Old: "a.tmp", New: "a", Err: syscall.EDQUOT},
			"a: disk quota exceeded (free some space, or choose a folder on another disk)", exitUsage, ""},
		{"bare errno", live, fmt.Errorf("sync: %w", syscall.ENOSPC), "sync: no space left on the disk (free some, or choose a folder on another disk)", exitUsage, ""},
		{"missing file is not a disk problem", live, pe("open", "x", syscall.ENOENT), "open x: no such file or directory", exitFailure, ""},
		{"interrupted", stopped, fmt.Errorf("learn: D 0.1: %w", context.Canceled), "interrupted; nothing written", exitInterrupted, ""},
		{"interrupted, kept", stopped, keptError{"finished trials are kept in r; run the same command again to resume", context.Canceled},
			"interrupted; finished trials are kept in r; run the same command again to resume", exitInterrupted, ""},
		{"SIGTERM", termed, keptError{"finished trials are kept in r", context.Canceled},
			"stopped by SIGTERM (exit 75: run it again to continue); finished trials are kept in r", exitRetry, ""},
		{"a command named like a package", live, usageError{errors.New("verify: argument 1 is empty: give DIR")}, "verify: argument 1 is empty: give DIR", exitUsage, "verify: "},
		{"a package named like the command", live, usageError{fmt.Errorf("%w: r: no results.json", verify.ErrInput)}, "invalid results directory: r: no results.json", exitUsage, "verify: "},
		{"a package under a command", live, usageError{errors.New("plot: gauss: erasure mechanism: lambda must be in [0, 1]")}, "plot: erasure mechanism: lambda must be in [0, 1]", exitUsage, "plot: "},
		{"failure", live, exitError{exitCannotCertify, errors.New("cannot certify 1 point")}, "cannot certify 1 point", exitCannotCertify, ""},
	} {
		if got := userLine(tt.ctx, tt.err, tt.command); got != tt.want {
			t.Errorf("%s: line %q, want %q", tt.name, got, tt.want)
		}
		if got := exitStatus(tt.ctx, tt.err); got != tt.code {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.code)
		}
	}
}

// TestFileProblemsExit2 runs mmds on folders it may not write (as an
// unprivileged user when the tests run as root): exit 2, one line naming
// the path, no errno text alone, nothing half-written.
func TestFileProblemsExit2(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a quick run")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} { // the test's own folders
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for d := filepath.Dir(base); d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o005 != 0o005 {
			t.Skipf("%s is not readable by others", d)
		}
	}
	// The test binary stands in for mmds, from a folder others may read.
	prog, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	exe = filepath.Join(base, "mmds")
	if err := os.WriteFile(exe, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	// A finished run to resume, then made read-only.
	runDir := filepath.Join(base, "run")
	if code, _, errs := runCLI(t, tinyTrain("binary", runDir)...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	ro := filepath.Join(base, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	lockDown := func(root string) {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				mode := os.FileMode(0o444)
				if d.IsDir() {
					mode = 0o555
				}
				_ = os.Chmod(p, mode)
			}
			return nil
		})
	}
	lockDown(runDir)
	t.Cleanup(func() {
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error { _ = os.Chmod(p, 0o755); return nil })
	})
	moreTrials := tinyTrain("binary", runDir) // resumed: every trial loaded, results.json written again
	for _, tt := range []struct {
		args []string
		path string // the path the message names
	}{
		{[]string{"bench", "library", filepath.Join(ro, "lib")}, ro},
		{moreTrials, runDir},
		{[]string{"binary", "--d", "0.1", "-o", filepath.Join(ro, "out.txt")}, ro},
		{[]string{"verify", runDir, "--certificate", filepath.Join(ro, "cert.json")}, ro},
		{tinyTrain("binary", filepath.Join(ro, "new")), filepath.Join(ro, "new")},
	} {
		cmd := exec.Command(exe, tt.args...)
		cmd.Env = append(os.Environ(), "MMDS_TEST_AS_MMDS=1")
		if os.Getuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Skipf("cannot run mmds as another user: %v", err)
		}
		msg := stderr.String()
		if code != exitUsage || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, tt.path) || goInternals.MatchString(msg) ||
			strings.Contains(msg, "mkdir ") || strings.Contains(msg, "open ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming %s", tt.args, code, msg, tt.path)
		}
	}
}
