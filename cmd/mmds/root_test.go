package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
