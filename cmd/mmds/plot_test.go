package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/verify"
)

// checkFigure decodes a written figure: a PNG of the default size with
// non-white pixels, or an SVG with an svg root and drawn paths.
func checkFigure(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".png") {
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if sz := img.Bounds().Size(); sz.X != 900 || sz.Y != 675 {
			t.Errorf("%s: %v, want 900×675", path, sz)
		}
		dark := 0
		for y := 0; y < 675; y += 3 {
			for x := 0; x < 900; x += 3 {
				if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
					dark++
				}
			}
		}
		if dark < 200 {
			t.Errorf("%s: only %d dark sampled pixels", path, dark)
		}
		return
	}
	var root struct{ XMLName xml.Name }
	if err := xml.Unmarshal(b, &root); err != nil || root.XMLName.Local != "svg" || strings.Count(string(b), "<path") < 10 {
		t.Errorf("%s: not a drawn SVG (%v)", path, err)
	}
}

func TestPlotGaussAndBinary(t *testing.T) {
	for _, c := range []struct {
		dir  string
		stem string
	}{{passingGauss(t), "figure2"}, {passingBinary(t), "figure3"}} {
		out := t.TempDir()
		code, stdout, errs := runCLI(t, "plot", c.dir, "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", c.dir, code, errs)
		}
		for _, ext := range []string{".png", ".svg"} {
			path := filepath.Join(out, c.stem+ext)
			if !strings.Contains(stdout, path) {
				t.Errorf("stdout %q does not name %s", stdout, path)
			}
			checkFigure(t, path)
		}
	}
	// Default folder: DIR itself.
	dir := passingGauss(t)
	if code, _, errs := runCLI(t, "plot", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkFigure(t, filepath.Join(dir, "figure2.svg"))
}

func TestPlotBadInput(t *testing.T) {
	dir := passingGauss(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", filepath.Join(dir, "none")}, "does not exist"},
		{[]string{"plot", dir, "--out", filepath.Join(dir, "none")}, "--out"},
		{[]string{"binary", "--plot", "curve.pdf"}, ".png or .svg"},
		{[]string{"gauss", "--plot", filepath.Join(dir, "none", "c.png")}, "does not exist"},
	} {
		if code, _, errs := runCLI(t, c.args...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q (want 2 and %q)", c.args, code, errs, c.want)
		}
	}
}

// mmds binary --plot and mmds gauss --plot draw the exact curves alone, and
// still print their tables.
func TestCurvePlots(t *testing.T) {
	out := t.TempDir()
	for _, args := range [][]string{
		{"binary", "--sweep", "0:0.2:5", "--plot", filepath.Join(out, "prop2.png")},
		{"gauss", "--sweep", "0:6:7", "--plot", filepath.Join(out, "prop1.svg")},
	} {
		code, stdout, errs := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, "│") {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
		}
		checkFigure(t, args[len(args)-1])
	}
}

// From training to figure with the commands themselves: mmds train --preset
// quick (one threshold, to keep the test short), mmds verify, mmds plot, on
// both models. Under -tags slow: TestREADME runs the same commands on the
// quick runs the docs show.
func TestTrainVerifyPlotEndToEnd(t *testing.T) {
	if !slow {
		t.Skip("trains two runs: go test -tags slow")
	}
	for _, c := range []struct{ model, d, stem string }{{"gauss", "2", "figure2"}, {"binary", "0.1", "figure3"}} {
		dir := filepath.Join(t.TempDir(), "run")
		if code, _, errs := runCLI(t, "train", c.model, "--preset", "quick", "--d", c.d, "--out", dir); code != 0 {
			t.Fatalf("%s: train exit %d: %s", c.model, code, errs)
		}
		code, out, errs := runCLI(t, "verify", "--format", "json", dir)
		if code == 2 || !strings.Contains(out, `"points"`) {
			t.Fatalf("%s: verify exit %d: %s", c.model, code, errs)
		}
		if code, _, errs := runCLI(t, "verify", "--summary", "--report-only", dir); code != 0 {
			t.Fatalf("%s: verify --report-only exit %d: %s", c.model, code, errs)
		}
		if code, _, errs := runCLI(t, "plot", dir); code != 0 {
			t.Fatalf("%s: plot exit %d: %s", c.model, code, errs)
		}
		checkFigure(t, filepath.Join(dir, c.stem+".png"))
		checkFigure(t, filepath.Join(dir, c.stem+".svg"))
	}
}

// After mmds verify, mmds plot takes the certificates from the user's cache
// (MMDS_CACHE_DIR) and says so; with the cache off, or for a directory whose
// bytes changed, it computes them.
func TestPlotUsesVerifyCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(verify.CacheEnv, cache)
	dir := passingGauss(t)
	if code, _, errs := runCLI(t, "verify", "--quiet", dir); code != 0 {
		t.Fatalf("verify: exit %d, %s", code, errs)
	}
	entries, err := filepath.Glob(filepath.Join(cache, "verify", "*.json"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache entries %v (%v), want one", entries, err)
	}
	code, stdout, errs := runCLI(t, "plot", dir)
	if code != 0 || !strings.Contains(stdout, "2 certificates from mmds verify's cache") {
		t.Fatalf("plot: exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	checkFigure(t, filepath.Join(dir, "figure2.png"))
	t.Setenv(verify.CacheEnv, "off")
	if code, stdout, errs := runCLI(t, "plot", dir); code != 0 || strings.Contains(stdout, "cache") {
		t.Fatalf("plot without the cache: exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	t.Setenv(verify.CacheEnv, cache)
	other := passingBinary(t)
	if code, stdout, errs := runCLI(t, "plot", other); code != 0 || strings.Contains(stdout, "cache") {
		t.Fatalf("plot of another directory: exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
}
