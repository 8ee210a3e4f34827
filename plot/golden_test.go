package plot

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmds-project/mmds/bench"
)

var update = flag.Bool("update", false, "rewrite the golden SVG files under testdata/")

// The drawing kit's SVG bytes are pinned: a refactoring of the kit or of
// the benchmark plots that changes a figure shows here (regenerate with
// go test ./plot -run TestGoldenSVG -update, and look at the files).
func TestGoldenSVG(t *testing.T) {
	pts := []BenchPoint{{"a", 2, 0.001, false}, {"a", 3, 0.01, false}, {"a", 3, 0.03, false}, {"b", 2, 0.0001, false}, {"b", 3, 0, false}, {"b", 3, 10, true}}
	curves := []bench.ProfileCurve{{Label: "a", Tau: []float64{1, 3}, Rho: []float64{0.5, 1}}, {Label: "b", Tau: []float64{1.5}, Rho: []float64{0.5}}, {Label: "none"}}
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		write func(path string) error
	}{
		{"sample.svg", func(path string) error { return Write(sample(), path) }},
		{"scaling.svg", func(path string) error { return Write(BenchScalingSpec("t", pts), path) }},
		{"profile.svg", func(path string) error { return Write(ProfileSpec("t", curves), path) }},
	} {
		path := filepath.Join(dir, c.name)
		if err := c.write(path); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", c.name)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes differ from %s (%d bytes)", c.name, len(got), golden, len(want))
		}
	}
}
