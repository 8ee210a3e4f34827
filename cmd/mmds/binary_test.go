package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/mip"
)

// runCLI runs mmds in-process and returns its exit status, stdout and stderr.
func runCLI(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	checkWritten(t, args, code)
	return code, out.String(), errb.String()
}

// writeTestFile writes body to dir/name and returns the path.
func writeTestFile(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBinaryDefaultTable(t *testing.T) {
	code, out, errs := runCLI(t, "binary")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if n := strings.Count(out, "Optimal"); n != 30 {
		t.Errorf("default table has %d Optimal rows, want the paper's 30", n)
	}
	for _, want := range []string{"0.0025", "0.2000", "0.4400", "p = 0.54"} {
		if !strings.Contains(out, want) {
			t.Errorf("default table lacks %q", want)
		}
	}
}

func TestBinaryJSONContract(t *testing.T) {
	for _, qz := range [][]string{{"0.44"}, {"0.44", "0.3"}, {"0.44", "0.3", "0.35"}} {
		args := []string{"binary", "--format", "json", "--sweep", "0:0.25:7"}
		for _, q := range qz {
			args = append(args, "--qz", q)
		}
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
		}
		var doc struct {
			Model  map[string]any `json:"model"`
			Points []struct {
				D          *float64  `json:"D"`
				S0         *float64  `json:"s0"`
				S1         *float64  `json:"s1"`
				ReconLoss  *float64  `json:"recon_loss"`
				AdvLoss    []float64 `json:"adv_loss"`
				MinAdvLoss *float64  `json:"min_adv_loss"`
				Status     string    `json:"status"`
			} `json:"points"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: output is not JSON: %v", args, err)
		}
		if len(doc.Points) != 7 {
			t.Fatalf("%v: %d points, want 7", args, len(doc.Points))
		}
		// Independent check of each point: the exact losses of the reported
		// privatizer, recomputed here, and the branch-free bound L_adv ≤ side-only error.
		m := mip.Binary{P: 0.54, QY: 0.2}
		for _, q := range qz {
			m.QZ = append(m.QZ, mustFloat(t, q))
		}
		for _, p := range doc.Points {
			if p.D == nil || p.S0 == nil || p.S1 == nil || p.ReconLoss == nil || p.MinAdvLoss == nil || p.Status != "Optimal" {
				t.Fatalf("%v: point lacks a contract field: %+v", args, p)
			}
			if len(p.AdvLoss) != len(qz) {
				t.Fatalf("%v: adv_loss has %d entries, want %d", args, len(p.AdvLoss), len(qz))
			}
			s := mip.Privatizer{S0: *p.S0, S1: *p.S1}
			if !scalar.EqualWithinAbs(m.ReconLoss(s), *p.ReconLoss, 1e-12) || m.ReconLoss(s) > *p.D+1e-8 {
				t.Errorf("%v D=%g: recon_loss %g, recomputed %g", args, *p.D, *p.ReconLoss, m.ReconLoss(s))
			}
			minAdv := math.Inf(1)
			for i, a := range m.AdvLosses(s) {
				minAdv = math.Min(minAdv, a)
				if !scalar.EqualWithinAbs(a, p.AdvLoss[i], 1e-12) {
					t.Errorf("%v D=%g: adv_loss[%d] %g, recomputed %g", args, *p.D, i, p.AdvLoss[i], a)
				}
			}
			if !scalar.EqualWithinAbs(minAdv, *p.MinAdvLoss, 1e-12) {
				t.Errorf("%v D=%g: min_adv_loss %g, recomputed %g", args, *p.D, *p.MinAdvLoss, minAdv)
			}
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBinaryCSV(t *testing.T) {
	code, out, _ := runCLI(t, "binary", "--format", "csv", "--d", "0.1", "--qz", "0.44,0.3")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "D,s0,s1,recon_loss,adv_loss_1,adv_loss_2,min_adv_loss,gamma,status") {
		t.Errorf("CSV = %q", out)
	}
}

func TestBinaryBadInput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.mps")
	for _, tc := range []struct {
		args []string
		want string // in the message
	}{
		{[]string{"--p", "1.5"}, "--p = 1.5: must be a probability in [0, 1]"},
		{[]string{"--p", "NaN"}, `--p "NaN": not a number`},
		{[]string{"--p", "0x1p-1"}, `--p "0x1p-1": not a number`},
		{[]string{"--p", "5_0"}, `--p "5_0": not a number`},
		{[]string{"--qy", "-0.1"}, "--qy = -0.1"},
		{[]string{"--qz", "0.3", "--qz", "2"}, "--qz (adversary 2) = 2"},
		{[]string{"--qz", "abc"}, "--qz"},
		{[]string{"--d", "-1"}, "--d -1: must be a finite number ≥ 0"},
		{[]string{"--d", "Inf"}, `--d "Inf": not a number`},
		{[]string{"--d", "0.1", "--sweep", "0:1:3"}, "mutually exclusive"},
		{[]string{"--sweep", "0:1"}, "want D0:D1:N"},
		{[]string{"--sweep", "0.3:0.1:5"}, "must not exceed"},
		{[]string{"--sweep", "0:0.2:0"}, "N = \"0\""},
		{[]string{"--format", "xml"}, "--format \"xml\""},
		{[]string{"--write-model", filepath.Join(dir, "m.txt"), "--d", "0.1"}, "must end in .mps or .lp"},
		{[]string{"--write-model", filepath.Join(dir, "nope", "m.mps"), "--d", "0.1"}, "does not exist"},
		{[]string{"--write-model", model, "--p", "7"}, "--p = 7"},
		{[]string{"--bogus"}, "unknown flag"},
		{[]string{"extra-arg"}, `takes no arguments; got "extra-arg"`},
	} {
		code, out, errs := runCLI(t, append([]string{"binary"}, tc.args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, exitUsage, errs)
		}
		if !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: stderr %q, want one line containing %q", tc.args, errs, tc.want)
		}
		if out != "" {
			t.Errorf("%v: wrote %q to stdout on bad input", tc.args, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input left files behind: %v", entries)
	}
}

func TestBinaryWriteModel(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runCLI(t, "binary", "--sweep", "0.05:0.15:3", "--write-model", filepath.Join(dir, "p2.lp"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "p2-1.lp p2-2.lp p2-3.lp" {
		t.Errorf("files %v, want p2-1.lp p2-2.lp p2-3.lp and no temporaries", names)
	}
	data, err := os.ReadFile(filepath.Join(dir, "p2-2.lp"))
	if err != nil || !bytes.Contains(data, []byte("max")) {
		t.Errorf("p2-2.lp does not look like an LP file: %v %.80q", err, data)
	}
}

// FuzzBinaryFlags throws arbitrary flag values at the command: it must never
// panic, and must answer bad input with status 2.
func FuzzBinaryFlags(f *testing.F) {
	f.Add("0.54", "0.2", "0.44", "0:0.2:3", "json")
	f.Add("NaN", "1e400", "-0", "::", "table")
	f.Add("1", "0", "0.5,0.5", "0.1:0.1:1", "csv")
	f.Fuzz(func(t *testing.T, p, qy, qz, sw, format string) {
		code, _, _ := runCLI(t, "binary", "--p", p, "--qy", qy, "--qz", qz, "--sweep", sw, "--format", format)
		if code != exitOK && code != exitUsage {
			t.Fatalf("p=%q qy=%q qz=%q sweep=%q format=%q: exit %d", p, qy, qz, sw, format, code)
		}
	})
}

// TestBinaryConfigFile checks that --config gives the same numbers as the
// equivalent flags, and that mixing the two ways, or a bad file, is bad input.
func TestBinaryConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "m.json")
	if err := os.WriteFile(cfg, []byte(`{"p": 0.3, "q_y": 0.15, "q_z": [0.4, 0.25]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, viaFile, errs := runCLI(t, "binary", "--config", cfg, "--sweep", "0.02:0.1:3", "--format", "csv")
	_, viaFlags, _ := runCLI(t, "binary", "--p", "0.3", "--qy", "0.15", "--qz", "0.4,0.25", "--sweep", "0.02:0.1:3", "--format", "csv")
	// The solve-time column differs between runs; compare everything else.
	strip := func(csv string) string {
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(csv), "\n") {
			out = append(out, line[:strings.LastIndex(line, ",")])
		}
		return strings.Join(out, "\n")
	}
	if viaFile == "" || strip(viaFile) != strip(viaFlags) {
		t.Fatalf("--config and flags differ (stderr %q):\n%s\n---\n%s", errs, viaFile, viaFlags)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"p": 0.3, "q_y": 1.15, "q_z": [0.4]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"binary", "--config", cfg, "--qz", "0.1"}, "--config and --qz are mutually exclusive"},
		{[]string{"binary", "--config", bad}, `field "q_y" = 1.15: must be a probability in [0, 1]`},
		{[]string{"binary", "--config", filepath.Join(dir, "none.json")}, "none.json"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, errs, c.want)
		}
	}
}
