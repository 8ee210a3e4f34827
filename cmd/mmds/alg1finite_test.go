package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/verify"
)

// TestTrainFiniteAlg1Verify: Algorithm 1 trains a finite model end to end;
// mmds verify certifies its categorical network's channel against the
// global optimum with a verdict (pass or fail), never an error; and the
// network, exported in the JSON layout and as ONNX, certifies by mmds
// certify to the very losses and stated error verify computed.
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
	_, stdout, _ = runCLI(t, "verify", out, "--format", "json", "--report-only")
	var rep verify.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var want *verify.Point
	for i := range rep.Points {
		if rep.Points[i].Certified != nil {
			want = &rep.Points[i]
		}
	}
	if want == nil {
		t.Fatalf("no certified point:\n%s", stdout)
	}
	for _, ext := range []string{".json", ".onnx"} {
		file := filepath.Join(t.TempDir(), "net"+ext)
		args := []string{"export", out, "-o", file}
		if ext == ".onnx" {
			args = append(args, "--onnx")
		}
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("export %v: exit %d: %s", args, code, errs)
		}
		code, stdout, errs := runCLI(t, "certify", "--model", filepath.Join(out, "model.json"), "--privatizer", file, "--d", fmt.Sprint(want.D), "--format", "json")
		if code != 0 && code != 1 {
			t.Fatalf("certify %s: exit %d: %s", file, code, errs)
		}
		var cert struct {
			Points []verify.Point `json:"points"`
		}
		if err := json.Unmarshal([]byte(stdout), &cert); err != nil || len(cert.Points) != 1 || cert.Points[0].Certified == nil {
			t.Fatalf("certify %s: %v\n%s", file, err, stdout)
		}
		got := cert.Points[0]
		if fmt.Sprint(*got.Certified) != fmt.Sprint(*want.Certified) || *got.Change != *want.Change || got.Verdict != want.Verdict {
			t.Errorf("%s: certify %+v (change %g, %s), verify %+v (change %g, %s)", ext, *got.Certified, *got.Change, got.Verdict, *want.Certified, *want.Change, want.Verdict)
		}
	}
	// The run's certificate: runCLI hands it to mmds-check, which must
	// verify its categorical network's laws.
	if code, _, errs := runCLI(t, "verify", out, "--quiet", "--report-only", "--certificate", filepath.Join(out, "cert.json")); code != 0 && code != 1 {
		t.Fatalf("verify --certificate: exit %d: %s", code, errs)
	}
}
