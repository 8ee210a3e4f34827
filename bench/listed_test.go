package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// An edited manifest.json that lowers (or raises) an instance's optimal
// value would judge every solver against a forged optimum; mmds.solu and
// metadata.csv list the same value, so LoadInstance refuses the instance,
// in one line naming it and both values, when manifest.json disagrees
// with either beyond 1e-9 relative, or certifies an optimum they do not.
// A disagreement within 1e-9 relative, and a library without those files,
// load.
func TestLoadInstanceCrossChecksOptimum(t *testing.T) {
	dir := t.TempDir()
	man, err := WriteLibrary(context.Background(), dir, smallLibrary(3))
	if err != nil {
		t.Fatal(err)
	}
	e := man.Instances[0]
	if e.OptimalValue == nil {
		t.Fatalf("%s: not certified", e.Name)
	}
	opt := *e.OptimalValue
	if _, err := LoadInstance(dir, e); err != nil {
		t.Fatalf("the library as written: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(e *ManifestEntry)
		want string // "" loads
	}{
		{"within 1e-9 relative", func(e *ManifestEntry) { v := opt * (1 + 1e-10); e.OptimalValue = &v }, ""},
		{"forged optimum", func(e *ManifestEntry) { v := opt*0.5 - 1; e.OptimalValue = &v },
			"instance " + strconv.Quote(e.Name) + ": optimal value " + strconv.FormatFloat(opt, 'g', -1, 64) + " in mmds.solu, " + strconv.FormatFloat(opt*0.5-1, 'g', -1, 64) + " in manifest.json"},
		{"optimum dropped", func(e *ManifestEntry) { e.OptimalValue = nil }, "in mmds.solu, none (not certified) in manifest.json"},
	} {
		f := e
		c.edit(&f)
		_, err := LoadInstance(dir, f)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrListed) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line with ErrListed saying %q", c.name, err, c.want)
		}
	}
	// mmds.solu agreeing with the forged value leaves metadata.csv.
	forged := opt*0.5 - 1
	solu, err := os.ReadFile(filepath.Join(dir, SoluFile))
	if err != nil {
		t.Fatal(err)
	}
	old := e.Name + " " + strconv.FormatFloat(opt, 'g', -1, 64) + "\n"
	if !bytes.Contains(solu, []byte(old)) {
		t.Fatalf("mmds.solu has no line %q:\n%s", old, solu)
	}
	edited := bytes.Replace(solu, []byte(old), []byte(e.Name+" "+strconv.FormatFloat(forged, 'g', -1, 64)+"\n"), 1)
	if err := os.WriteFile(filepath.Join(dir, SoluFile), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	f := e
	f.OptimalValue = &forged
	if _, err := LoadInstance(dir, f); !errors.Is(err, ErrListed) || !strings.Contains(err.Error(), "in metadata.csv") {
		t.Errorf("manifest and mmds.solu forged alike: %v; want metadata.csv's disagreement", err)
	}
	for _, name := range []string{SoluFile, MetadataFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LoadInstance(dir, e); err != nil {
		t.Errorf("a library without mmds.solu and metadata.csv: %v", err)
	}
}
