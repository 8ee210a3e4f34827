package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestVersionFlag(t *testing.T) {
	code, out, _ := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "mmds ") || !strings.Contains(out, "HiGHS v") && !strings.Contains(out, "HiGHS 1") {
		t.Errorf("exit %d, %q", code, out)
	}
}

// Completion offers the values of enumerated flags.
func TestCompletionValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "verify", "x", "--format", ""}, []string{"table", "csv", "json"}},
		{[]string{"__complete", "train", "gauss", "--preset", ""}, []string{"paper", "quick"}},
	} {
		_, out, _ := runCLI(t, c.args...)
		for _, w := range c.want {
			if !strings.Contains("\n"+out, "\n"+w+"\t") && !strings.Contains("\n"+out, "\n"+w+"\n") {
				t.Errorf("%v: completion %q lacks %q", c.args, out, w)
			}
		}
	}
}

// An interrupted command (its context cancelled, as the first Ctrl-C does)
// exits 130 and leaves no results.json behind half-written.
func TestInterruptExits130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(ctx, tinyTrain("binary", dir), &stdout, &stderr)
	if code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted; finished trials are kept in") || strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("exit %d, stderr %q; want 130", code, stderr.String())
	}
}

// An output path that cannot be written is exit 2 naming the user's path,
// before any work.
func TestOutputPathsCheckedFirst(t *testing.T) {
	missing := t.TempDir() + "/no/such/folder/out.txt"
	for _, args := range [][]string{
		{"gauss", "-o", missing},
		{"verify", "x", "-o", missing},
		{"verify", "x", "--certificate", missing},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || strings.Contains(errs, ".tmp-") || !(strings.Contains(errs, "does not exist") || strings.Contains(errs, "not an existing folder")) {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestCtrlCStopsEveryLongCommand sends SIGINT (and SIGTERM) to mmds, run
// as a program, once a command that takes seconds or more has started:
// it stops with exit 130 (75 for SIGTERM) and one line in words,
// "mmds: interrupted; …", never "context canceled". How soon it stops is
// not measured beyond a generous limit, so no machine is too slow. Each
// command works a second before its signal: the test runs under -tags slow
// (TestInterruptStopsSweep and TestFiniteInterrupt interrupt sweeps in
// make test).
func TestCtrlCStopsEveryLongCommand(t *testing.T) {
	if !slow {
		t.Skip("runs ten long commands: go test -tags slow")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gaussRun := filepath.Join(dir, "gauss-run")
	if code, _, errs := runCLI(t, "train", "gauss", "--preset", "quick", "--samples", "1200",
		"--sweep", "0.5:5.76:12", "--out", gaussRun, "--quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	net := filepath.Join(dir, "net.json")
	if code, _, errs := runCLI(t, "export", gaussRun, "--d", "5.76", "-o", net); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	gaussModel := filepath.Join(gaussRun, "model.json")
	// Forty certificates of that network: seconds of work on any machine
	// (one is under a second, and the work cap keeps each under a few);
	// verify at the same tolerance: a run's twelve at the default take
	// well under a second, over before the signal. plot certifies
	// paper/gauss's thirty thresholds (seconds), its figures written aside.
	paperGauss, _ := filepath.Abs("../../paper/gauss")
	if err := os.Mkdir(filepath.Join(dir, "figures"), 0o755); err != nil {
		t.Fatal(err)
	}
	var pts []string
	for i := range 40 {
		pts = append(pts, fmt.Sprintf(`{"D": %g, "privatizer": "net.json"}`, 0.5+0.1*float64(i)))
	}
	points := filepath.Join(dir, "points.json")
	writeTestFile(t, dir, "points.json", "["+strings.Join(pts, ", ")+"]")
	for _, tt := range []struct {
		args []string
		sig  syscall.Signal
		code int
		want string // in the last line
	}{
		{[]string{"verify", gaussRun, "--tol-quad", "0.0001"}, syscall.SIGINT, exitInterrupted, "mmds: interrupted; nothing written"},
		{[]string{"plot", paperGauss, "--out", filepath.Join(dir, "figures")}, syscall.SIGINT, exitInterrupted, "mmds: interrupted; nothing written"},
		{[]string{"certify", "--model", gaussModel, "--points", points, "--tol-quad", "0.0001"}, syscall.SIGINT, exitInterrupted, "mmds: interrupted; nothing written"},
		{[]string{"gauss", "--sweep", "0:5.76:1000000"}, syscall.SIGINT, exitInterrupted, "mmds: interrupted; nothing written"},
		{[]string{"binary", "--sweep", "0:0.2:1000000"}, syscall.SIGINT, exitInterrupted, "mmds: interrupted; nothing written"},
		{[]string{"binary", "--global", "--sweep", "0:0.2:1000000"}, syscall.SIGINT, exitInterrupted, "mmds: interrupted; nothing written"},
		{[]string{"finite", "--sweep", "0:0.2:1000000", "--time-limit", "0"}, syscall.SIGINT, exitInterrupted, "mmds: interrupted; nothing written"},
		{[]string{"train", "gauss", "--preset", "paper", "--out", filepath.Join(dir, "paper")}, syscall.SIGINT, exitInterrupted,
			"mmds: interrupted; finished trials are kept in " + filepath.Join(dir, "paper")},
		{[]string{"train", "binary", "--preset", "paper", "--out", filepath.Join(dir, "paper-b")}, syscall.SIGTERM, exitRetry,
			"mmds: stopped by SIGTERM (exit 75: run it again to continue); finished trials are kept in " + filepath.Join(dir, "paper-b")},
		{[]string{"bench", "--n", "8:8", "--k", "3", "--seeds", "5", "--time-limit", "1m"}, syscall.SIGINT, exitInterrupted, "mmds: interrupted; "},
	} {
		cmd := exec.Command(exe, tt.args...)
		cmd.Env = append(os.Environ(), "MMDS_TEST_AS_MMDS=1")
		cmd.Dir = dir
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// Signal once the work has started: its first progress line
		// (shown after a second), or 3 s.
		deadline := time.Now().Add(3 * time.Second)
		for stderr.Len() == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		_ = cmd.Process.Signal(tt.sig)
		var err error
		select {
		case err = <-exited:
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("%v: still running a minute after %v", tt.args, tt.sig)
			continue
		}
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
		last := lines[len(lines)-1]
		if code != tt.code || !strings.HasPrefix(last, tt.want) || strings.Contains(stderr.String(), "context canceled") {
			t.Errorf("%v after %v: exit %d, last line %q; want %d and %q", tt.args, tt.sig, code, last, tt.code, tt.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestVersionAndHelpCommands: mmds version prints what --version prints;
// help names a command's help, and a command that does not exist is bad
// input.
func TestVersionAndHelpCommands(t *testing.T) {
	_, want, _ := runCLI(t, "--version")
	for _, tt := range []struct {
		args []string
		code int
		out  string // stdout starts with
		err  string // stderr holds
	}{
		{[]string{"version"}, 0, want, ""},
		{[]string{"version", "x"}, exitUsage, "", `version takes no arguments; got "x"`},
		{[]string{"help"}, 0, "mmds computes", ""},
		{[]string{"help", "train"}, 0, "train draws", ""},
		{[]string{"help", "train", "data"}, 0, "train data reads", ""},
		{[]string{"help", "nonexistent"}, exitUsage, "", `help: no command "nonexistent"`},
		{[]string{"help", "train", "nonexistent"}, exitUsage, "", `help: no command "train nonexistent"`},
		{[]string{"help", "--bogus"}, exitUsage, "", "unknown flag"},
	} {
		code, out, errs := runCLI(t, tt.args...)
		if code != tt.code || !strings.HasPrefix(out, tt.out) || !strings.Contains(errs, tt.err) || (tt.code != 0 && out != "") {
			t.Errorf("%v: exit %d, stdout %.60q, stderr %q; want %d, %.60q, %q", tt.args, code, out, errs, tt.code, tt.out, tt.err)
		}
	}
}
