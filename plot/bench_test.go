package plot

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/mmds-project/mmds/bench"
)

func TestBenchScalingWritesPNGAndSVG(t *testing.T) {
	dir := t.TempDir()
	pts := []BenchPoint{{"a", 2, 0.001, false}, {"a", 3, 0.01, false}, {"a", 3, 0.03, false}, {"b", 2, 0.0001, false}, {"b", 3, 0, false}, {"b", 3, 10, true}}
	for name, magic := range map[string][]byte{"s.png": []byte("\x89PNG"), "s.svg": []byte("<svg")} {
		path := filepath.Join(dir, name)
		if err := Write(BenchScalingSpec("t", pts), path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data[:min(len(data), 200)], magic) {
			t.Errorf("%s: %v, starts %.40q", name, err, data)
		}
	}
	if err := Write(BenchScalingSpec("t", pts), filepath.Join(dir, "s.pdf")); err == nil {
		t.Error(".pdf: no error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files %v: want s.png and s.svg only", entries)
	}
	if m := bench.Median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median %g", m)
	}
}

func TestPerformanceProfileWritesPNGAndSVG(t *testing.T) {
	dir := t.TempDir()
	curves := []bench.ProfileCurve{{Label: "a", Tau: []float64{1, 3}, Rho: []float64{0.5, 1}}, {Label: "b", Tau: []float64{1.5}, Rho: []float64{0.5}}, {Label: "none"}}
	for name, magic := range map[string][]byte{"p.png": []byte("\x89PNG"), "p.svg": []byte("<svg")} {
		path := filepath.Join(dir, name)
		if err := Write(ProfileSpec("t", curves), path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data[:min(len(data), 200)], magic) {
			t.Errorf("%s: %v, starts %.40q", name, err, data)
		}
	}
	if err := Write(ProfileSpec("t", curves), filepath.Join(dir, "p.pdf")); err == nil {
		t.Error(".pdf: no error")
	}
	ticks := logTicks{}.Ticks(1, 10)
	if labelled(ticks) < minTicks {
		t.Errorf("ticks %v", ticks)
	}
}

// labelled counts the labelled ticks of ts.
func labelled(ts []gonumplot.Tick) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// The tick markers' edge cases: no ticks for an empty or infinite range,
// and labels that read back as their values.
func TestTickEdges(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   int
	}{
		{1, 1, 0}, {2, 1, 0}, {0, math.Inf(1), 0}, {math.NaN(), 1, 0}, {0, 1e-300, 5}, {-1e300, 1e300, 5},
	} {
		if n := labelled(niceTicks{}.Ticks(c.lo, c.hi)); n < c.want || (c.want == 0 && n != 0) {
			t.Errorf("niceTicks on [%g, %g]: %d labelled ticks", c.lo, c.hi, n)
		}
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{1e-6, "1e−6"}, {0.001, "0.001"}, {1e5, "100000"}, {2e5, "2e5"}, {3e-7, "3e−7"}} {
		if got := logLabel(c.v); got != c.want {
			t.Errorf("logLabel(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}

// Titles wrap after a comma where they can, else at a space, each line
// within the width.
func TestWrap(t *testing.T) {
	sty := gonumplot.New().Title.TextStyle
	one := sty.Width("n")
	for _, c := range []struct {
		txt   string
		width vg.Length
		want  string
	}{
		{"short", 100 * one, "short"},
		{"seed 1, n from 2 to 4, median of 1 seed", 25 * one, "seed 1, n from 2 to 4,\nmedian of 1 seed"},
		{"aaaa bbbb cccc dddd", 10 * one, "aaaa bbbb\ncccc dddd"},
		{"a, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, c", 10 * one, "a,\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\nc"},
		{"", 10 * one, ""},
	} {
		got := wrap(c.txt, sty, c.width)
		if got != c.want {
			t.Errorf("wrap(%q, %v) = %q, want %q", c.txt, c.width, got, c.want)
		}
		for _, l := range strings.Split(got, "\n") {
			if sty.Width(l) > c.width && !strings.Contains(c.txt, "bbbbbbbb") {
				t.Errorf("wrap(%q): line %q wider than %v", c.txt, l, c.width)
			}
		}
	}
}
