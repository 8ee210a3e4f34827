package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/rundir"
	"github.com/mmds-project/mmds/verify"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// writeCSV writes a small dataset: discrete (x ∈ {0, 1, 2}, y, z through
// noisy copies) or continuous (x Gaussian, y = x + noise, z = |x| + noise).
func writeCSV(t *testing.T, dir string, discrete bool, rows int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for range rows {
		if discrete {
			x := rng.IntN(3)
			noisy := func(keep float64) int {
				if rng.Float64() < keep {
					return x
				}
				return rng.IntN(3)
			}
			fmt.Fprintf(&b, "%d,%d,%d\n", x, noisy(0.8), noisy(0.6))
			continue
		}
		x := rng.NormFloat64()
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f\n", x, x+0.6*rng.NormFloat64(), max(x, -x)+0.3*rng.NormFloat64())
	}
	path := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func tinyData(csv, out string, extra ...string) []string {
	args := []string{"train", "data", "--csv", csv, "--private", "x", "--reconstructor", "y", "--adversary", "z",
		"--preset", "quick", "--epochs", "6", "--accept", "1", "--max-attempts", "2", "--out", out, "--quiet"}
	return append(args, extra...)
}

// TestTrainDataVerify trains on a discrete and a continuous dataset,
// verifies each with --data (held-out losses with standard errors; the
// plug-in optimum for discrete data), and checks that verify refuses the
// file once it changes, while plot refuses a data run plainly.
func TestTrainDataVerify(t *testing.T) {
	for _, discrete := range []bool{true, false} {
		t.Run(fmt.Sprint("discrete=", discrete), func(t *testing.T) {
			tmp := t.TempDir()
			csv := writeCSV(t, tmp, discrete, 240)
			out := filepath.Join(tmp, "r")
			extra := []string{"--sweep", "0.05:0.12:2"}
			if !discrete {
				extra = []string{"--sweep", "0.15:0.25:2"}
			}
			if code, _, errs := runCLI(t, tinyData(csv, out, extra...)...); code != 0 {
				t.Fatalf("train: exit %d: %s", code, errs)
			}
			code, stdout, errs := runCLI(t, "verify", out, "--data", csv, "--format", "json", "--quiet")
			if code != 0 && code != 1 {
				t.Fatalf("verify: exit %d: %s", code, errs)
			}
			var rep verify.DataReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("verify --format json: %v\n%s", err, stdout)
			}
			if rep.Note != verify.DataNote || rep.TestRows != 40 || len(rep.Points) != 2 {
				t.Fatalf("report: note %q, %d test rows, %d points", rep.Note, rep.TestRows, len(rep.Points))
			}
			for _, p := range rep.Points {
				if p.HeldOut == nil {
					continue
				}
				if !(p.HeldOut.Recon.SE > 0) || len(p.HeldOut.Adv) != 1 {
					t.Errorf("D = %g: held-out %+v: want a standard error and one adversary", p.D, p.HeldOut)
				}
				if l := p.Learned; l != nil && discrete == false && abs(l.Recon-p.HeldOut.Recon.Mean) > 1e-9 {
					t.Errorf("D = %g: recomputed held-out MSE %g, results.json has %g", p.D, p.HeldOut.Recon.Mean, l.Recon)
				}
				if discrete && (p.PlugIn == nil || p.PlugIn.HeldOut == nil) {
					t.Errorf("D = %g: no plug-in optimum for discrete data: %+v", p.D, p.PlugIn)
				}
				if !discrete && p.PlugIn != nil {
					t.Errorf("D = %g: a plug-in optimum for a continuous X", p.D)
				}
			}
			if code, _, errs := runCLI(t, "verify", out, "--certificate", filepath.Join(tmp, "c.json")); code != exitUsage || !strings.Contains(errs, "no certificate") {
				t.Errorf("verify --certificate on a data run: exit %d, %q", code, errs)
			}
			if code, _, errs := runCLI(t, "plot", out, "--out", filepath.Join(tmp, "fig")); code != exitUsage || !strings.Contains(errs, "run on a user's data") {
				t.Errorf("plot on a data run: exit %d, %q", code, errs)
			}
			b, _ := os.ReadFile(csv)
			if err := os.WriteFile(csv, append(b, []byte("1,1,1\n")...), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errs = runCLI(t, "verify", out, "--data", csv, "--quiet")
			if code != exitUsage || !strings.Contains(errs, "is not the one this run was trained on") {
				t.Errorf("verify after the data file changed: exit %d, %q; want exit 2", code, errs)
			}
		})
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestVerifyDataFile: a data run records its file's base name, not the
// path train read it from, so verify finds the data where the reviewer
// says (--data) or in the results directory (the copy --copy placed
// there), from any working folder; a wrong --data file is exit 2 before it
// is parsed, a missing one exit 2 naming what was looked for and --data.
func TestVerifyDataFile(t *testing.T) {
	tmp := t.TempDir()
	csv := writeCSV(t, tmp, true, 240)
	plain, copied := filepath.Join(tmp, "plain"), filepath.Join(tmp, "copied")
	for _, c := range []struct {
		out   string
		extra []string
	}{{plain, nil}, {copied, []string{"--copy"}}} {
		args := tinyData(csv, c.out, append([]string{"--sweep", "0.05:0.12:2"}, c.extra...)...)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("train %v: exit %d: %s", c.extra, code, errs)
		}
	}
	b, err := os.ReadFile(filepath.Join(plain, "model.json"))
	if err != nil || !strings.Contains(string(b), `"csv":"d.csv"`) || strings.Contains(string(b), tmp) {
		t.Fatalf("model.json records %s (%v); want the base name d.csv only", b, err)
	}
	wrong := filepath.Join(tmp, "wrong.csv")
	if err := os.WriteFile(wrong, []byte("x,y,z\nSECRET,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // the reviewer's working folder: not the trainer's
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no copy, no --data", []string{plain}, exitUsage, "looked for " + filepath.Join(plain, "d.csv") + " (a copy beside results.json); give the data file with --data FILE"},
		{"--data the bound file", []string{plain, "--data", csv}, 0, ""},
		{"--data another file", []string{plain, "--data", wrong}, exitUsage, "is not the one this run was trained on"},
		{"--data missing", []string{plain, "--data", filepath.Join(tmp, "nope.csv")}, exitUsage, "--data"},
		{"the copy", []string{copied}, 0, ""},
		{"--data over the copy", []string{copied, "--data", wrong}, exitUsage, "is not the one this run was trained on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"verify", "--quiet", "--report-only"}, c.args...)
			code, _, errs := runCLI(t, args...)
			if code != c.code || !strings.Contains(errs, c.want) || strings.Contains(errs, "SECRET") {
				t.Errorf("mmds %s: exit %d, %q; want exit %d naming %q", strings.Join(args, " "), code, errs, c.code, c.want)
			}
		})
	}
	// The copy is the file's own bytes.
	if got, err := os.ReadFile(filepath.Join(copied, "d.csv")); err != nil || !bytes.Equal(got, mustRead(t, csv)) {
		t.Errorf("the copy in the results directory: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyDataFlagRefused: --data names a data run's file; a run on a
// model, or a mode that has no data report, refuses it (exit 2, one line).
func TestVerifyDataFlagRefused(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "r")
	if code, _, errs := runCLI(t, tinyTrain("binary", dir, "--quiet")...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	csv := writeCSV(t, tmp, true, 60)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{dir, "--data", csv}, "is a run on a model, not on a user's data"},
		{[]string{dir, "--data", csv, "--certificate", filepath.Join(tmp, "c.json")}, "--data does not apply with --certificate"},
		{[]string{dir, "--data", csv, "--summary"}, "--data does not apply with --summary"},
		{[]string{"--check", filepath.Join(tmp, "c.json"), dir, "--data", csv}, "--data does not apply with --check"},
	} {
		args := append([]string{"verify", "--quiet"}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("mmds %s: exit %d, %q; want exit 2, one line naming %q", strings.Join(args, " "), code, errs, c.want)
		}
	}
}

// TestTrainDataBadInput: bad data and impossible combinations are exit 2
// with one line naming the file, row and column, before any training.
func TestTrainDataBadInput(t *testing.T) {
	tmp := t.TempDir()
	good := writeCSV(t, tmp, true, 120)
	file := func(name, content string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nan := file("nan.csv", "x,y,z\n1,2,3\n0,NaN,1\n")
	word := file("word.csv", "x,y,z\n1,2,3\n0,1,abc\n")
	cont := writeCSV(t, t.TempDir(), false, 120)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--csv", nan, "--private", "x", "--reconstructor", "y", "--adversary", "z"}, `row 2 (line 3), column "y" = "NaN": not a finite number`},
		{[]string{"--csv", word, "--private", "x", "--reconstructor", "y", "--adversary", "z"}, `row 2 (line 3), column "z" = "abc": not a decimal number`},
		{[]string{"--csv", good, "--private", "q", "--reconstructor", "y", "--adversary", "z"}, `column "q": no such column`},
		{[]string{"--csv", good, "--private", "x", "--reconstructor", "y"}, "--adversary: give one adversary"},
		{[]string{"--csv", cont, "--private", "x", "--reconstructor", "y", "--adversary", "z", "--method", "labels"}, "the labels method needs a discrete X"},
		{[]string{"--csv", cont, "--private", "x", "--reconstructor", "y", "--adversary", "z", "--labels", "8"}, "--labels applies to the labels method only"},
		{[]string{"--csv", good, "--private", "x", "--reconstructor", "y", "--adversary", "z", "--method", "sgd"}, `--method "sgd"`},
		{[]string{"--csv", filepath.Join(tmp, "none.csv"), "--private", "x", "--reconstructor", "y", "--adversary", "z"}, "none.csv"},
	}
	for _, c := range cases {
		args := append([]string{"train", "data", "--out", filepath.Join(tmp, "out"), "--preset", "quick"}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2, one line mentioning %q", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "out")); err == nil {
		t.Errorf("a refused run created its results directory")
	}
}

// TestTrainDataAlg1Finite: Algorithm 1 on a discrete X of three values
// trains a categorical release, and verify reports its channel's held-out
// losses under the test split's law.
func TestTrainDataAlg1Finite(t *testing.T) {
	tmp := t.TempDir()
	csv := writeCSV(t, tmp, true, 120)
	out := filepath.Join(tmp, "run")
	code, _, errs := runCLI(t, "train", "data", "--csv", csv, "--private", "x", "--reconstructor", "y", "--adversary", "z",
		"--method", "alg1", "--preset", "quick", "--epochs", "4", "--out", out)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	code, stdout, errs := runCLI(t, "verify", out, "--data", csv, "--format", "json")
	if code != 0 && code != 1 || !strings.Contains(stdout, `"held_out"`) {
		t.Fatalf("verify: exit %d: %s\n%s", code, errs, stdout)
	}
}

// Attack: on a binary X verify reported the hard errors results.json
// records, and an author can rewrite those and seal the file again. The
// held-out errors are recomputed from the networks and the data: rewriting
// the recorded ones changes nothing, and the recomputed ones agree with
// what training recorded within their standard error (training drew F
// once; verify takes the expectation).
func TestTrainDataBinaryHeldOutFromNetworks(t *testing.T) {
	tmp := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for range 600 {
		x := 0
		if rng.Float64() < 0.54 {
			x = 1
		}
		fmt.Fprintf(&b, "%d,%.4f,%.4f\n", x, float64(x)+0.6*rng.NormFloat64(), float64(x)+rng.NormFloat64())
	}
	csv := filepath.Join(tmp, "b.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "run")
	if code, _, errs := runCLI(t, "train", "data", "--csv", csv, "--private", "x", "--reconstructor", "y", "--adversary", "z",
		"--preset", "quick", "--epochs", "4", "--out", out); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	heldOut := func() []verify.DataPoint {
		code, stdout, errs := runCLI(t, "verify", out, "--data", csv, "--format", "json")
		var rep verify.DataReport
		if code != 0 && code != 1 || json.Unmarshal([]byte(stdout), &rep) != nil {
			t.Fatalf("verify: exit %d: %s\n%s", code, errs, stdout)
		}
		return rep.Points
	}
	before := heldOut()
	res, err := learn.ReadResults(t.Context(), rundir.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i, p := range res.Points {
		h := before[i].HeldOut
		if !p.Finalized || h == nil || p.ReconHard == nil {
			continue
		}
		if d := math.Abs(h.Recon.Mean - *p.ReconHard); d > 4*h.Recon.SE+0.01 {
			t.Errorf("D = %g: held-out distortion %g, recorded %g (SE %g)", p.D, h.Recon.Mean, *p.ReconHard, h.Recon.SE)
		}
		zero := 0.0
		res.Points[i].ReconHard, res.Points[i].AdvHard = &zero, learn.Floats{0.5}
		checked++
	}
	if checked == 0 {
		t.Fatal("no finalized point")
	}
	verifytest.WriteResults(t, out, res)
	after := heldOut()
	for i := range before {
		b, a := before[i].HeldOut, after[i].HeldOut
		if b != nil && (a == nil || fmt.Sprint(*a) != fmt.Sprint(*b)) {
			t.Errorf("D = %g: held-out losses followed the rewritten records: before %v, after %v", before[i].D, *b, a)
		}
	}
}
