package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLimitsEveryPath: --max-points and --time-limit stop every solve path
// the same way: the finished points are printed, the rest are rows "not
// reached", one line on stderr says which bound stopped it, exit 0;
// --time-limit 1ns is honoured.
func TestLimitsEveryPath(t *testing.T) {
	ternary := "../../examples/finite-ternary.json"
	paths := []struct {
		name string
		args []string
	}{
		{"binary", []string{"binary", "--sweep", "0:0.2:6"}},
		{"binary --global", []string{"binary", "--global", "--sweep", "0:0.2:6"}},
		{"ray LP", []string{"finite", "--config", ternary, "--method", "rays", "--sweep", "0:0.3:6"}},
		{"column generation", []string{"finite", "--config", ternary, "--method", "colgen", "--sweep", "0:0.3:6"}},
		{"MIP", []string{"finite", "--config", ternary, "--alphabet", "2", "--sweep", "0.1:0.3:6"}},
		{"gauss", []string{"gauss", "--sweep", "0:5.76:6"}},
	}
	for _, p := range paths {
		for _, b := range []struct {
			flags  []string
			solved int
			says   string
		}{
			{[]string{"--max-points", "2"}, 2, "stopped by --max-points 2: 2 of 6 thresholds solved, 4 not reached"},
			{[]string{"--time-limit", "1ns"}, 0, "stopped by --time-limit 1ns: 0 of 6 thresholds solved, 6 not reached"},
		} {
			args := append(append(append([]string{}, p.args...), b.flags...), "--format", "csv")
			code, out, errs := runCLI(t, args...)
			if code != 0 || !strings.Contains(errs, b.says) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s %v: exit %d, stderr %q; want 0 and one line %q", p.name, b.flags, code, errs, b.says)
				continue
			}
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || len(recs) != 7 {
				t.Fatalf("%s %v: %d CSV records, %v", p.name, b.flags, len(recs), err)
			}
			status := slices.Index(recs[0], "status")
			for i, r := range recs[1:] {
				if (r[status] == "not reached") != (i >= b.solved) {
					t.Errorf("%s %v: row %d status %q", p.name, b.flags, i+1, r[status])
				}
			}
		}
	}
	for _, bad := range [][]string{{"--max-points", "-1"}, {"--time-limit", "-1s"}} {
		if code, _, errs := runCLI(t, append([]string{"binary"}, bad...)...); code != exitUsage || !strings.Contains(errs, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the flag", bad, code, errs)
		}
	}
}

// TestMillionPointSweepStops: a sweep of a million thresholds with a tiny
// limit stops, prints what it solved and the rest as not reached.
func TestMillionPointSweepStops(t *testing.T) {
	for _, args := range [][]string{
		{"gauss", "--sweep", "0:5.76:1000000", "--time-limit", "200ms"},
		{"finite", "--sweep", "0:0.2:1000000", "--time-limit", "200ms"},
		{"binary", "--sweep", "0:0.2:1000000", "--time-limit", "200ms"},
	} {
		start := time.Now()
		code, out, errs := runCLI(t, args...)
		if code != 0 || !strings.Contains(errs, "stopped by --time-limit 200ms") || !strings.Contains(out, "not reached (") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
		if el := time.Since(start); el > 20*time.Second {
			t.Errorf("%v: took %v", args, el)
		}
	}
}

// TestInterruptStopsSweep: a cancelled context (Ctrl-C) stops a long
// sweep with exit 130, on every sweeping command (a sweep that ignored it
// would run to its million points and exit 0); one that streams into -o
// FILE leaves neither the file nor a temporary. The time to stop is not
// asserted, which would make the test depend on the machine's speed: the
// sweeps check the context between thresholds (milliseconds each), and a
// generous minute catches a hang.
func TestInterruptStopsSweep(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"gauss", "--sweep", "0:5.76:1000000"},
		{"finite", "--sweep", "0:0.2:1000000", "--time-limit", "0"},
		{"finite", "--sweep", "0:0.2:1000000", "--time-limit", "0", "--format", "json", "-o", filepath.Join(dir, "f.json")},
		{"binary", "--sweep", "0:0.2:1000000"},
		{"binary", "--sweep", "0:0.2:1000000", "--format", "csv", "-o", filepath.Join(dir, "b.csv")},
		{"binary", "--global", "--sweep", "0:0.2:1000000"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		if el := time.Since(start); el > time.Minute || code != exitInterrupted {
			t.Errorf("%v: exit %d after %v (stderr %q); want 130 once cancelled", args, code, el, errb.String())
		}
		cancel()
		if es, err := os.ReadDir(dir); err != nil || len(es) > 0 {
			t.Errorf("%v: the output folder holds %v (%v) after the interrupt", args, es, err)
		}
	}
}

// TestQuietSilencesProgress: --quiet on every command that reports
// progress leaves stderr to the stop line only.
func TestQuietSilencesProgress(t *testing.T) {
	for _, args := range [][]string{
		{"binary", "--quiet", "--d", "0.1"},
		{"finite", "--quiet", "--d", "0.1"},
		{"gauss", "--quiet", "--d", "1"},
	} {
		if code, _, errs := runCLI(t, args...); code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}
