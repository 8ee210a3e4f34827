package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainFiniteAlg1Verify: Algorithm 1 trains a finite model end to end,
// and mmds verify certifies its privatizer network's channel against the
// global optimum with a verdict (pass or fail), never an error.
func TestTrainFiniteAlg1Verify(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, _, errs := runCLI(t, "train", "finite", "--config", "../../examples/finite-random-n6-k2.json",
		"--preset", "quick", "--d", "0.15", "--epochs", "6", "--accept", "1", "--max-attempts", "2",
		"--workers", "2", "--labels", "4", "--out", out)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	code, stdout, errs := runCLI(t, "verify", out)
	if code != 0 && code != 1 {
		t.Fatalf("verify: exit %d, want a verdict (0 or 1): %s", code, errs)
	}
	if !strings.Contains(stdout, "1 pass, 0 fail") && !strings.Contains(stdout, "0 pass, 1 fail") {
		t.Errorf("verify certified no verdict for the finalized point:\n%s", stdout)
	}
	// The categorical network has m outputs: export refuses it in one line
	// rather than write a file certify would read as k(x, r).
	code, stdout, errs = runCLI(t, "export", out, "-o", filepath.Join(t.TempDir(), "net.json"))
	if code != 2 || stdout != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "categorical network") {
		t.Errorf("export: exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
}
