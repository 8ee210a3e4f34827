package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/internal/safefile"
)

// copyLibrary copies the files of library dir into a new folder.
func copyLibrary(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return out
}

// dropLines removes the lines that mention name from the library file.
func dropLines(t *testing.T, dir, file, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.Contains(l, name) {
			keep = append(keep, l)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strings.Join(keep, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The optimum and bound a solver is judged against are mmds's own. An
// edited manifest.json that moves an instance's optimal value would judge
// every solver against a forged optimum: LoadInstance holds the manifest
// against mmds.solu and metadata.csv (ErrListed), and Regenerator.Recompute
// regenerates the instance from the library's generator, version and seed,
// certifies it again and refuses (ErrNotRecomputed) an optimum or bound it
// does not recompute, an instance it does not generate, and a file whose MPS
// text is not the one it generates — each in one line naming the instance.
// A disagreement within 1e-9 relative loads, and an optimum the manifest
// does not list is mmds's.
func TestLibraryOptimumIsRecomputed(t *testing.T) {
	lib := t.TempDir()
	man, err := WriteLibrary(context.Background(), lib, DefaultLibrary(1))
	if err != nil {
		t.Fatal(err)
	}
	pick := func(name string) ManifestEntry {
		for _, e := range man.Instances {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no instance %s", name)
		return ManifestEntry{}
	}
	bin, fin := pick("bin-k1-i0-d0.25"), pick("fin-n2-k1-i0-d0.50-hull_sym")
	opt := func(e ManifestEntry) float64 { return *e.OptimalValue }
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	moved := opt(bin) * 0.5
	for _, c := range []struct {
		name  string
		entry ManifestEntry
		// edit changes the library copy in dir, its manifest and the entry.
		edit func(dir string, m *Manifest, e *ManifestEntry)
		is   error  // nil: loads with the original optimum and bound
		want string // in the one-line error
	}{
		{"as written", bin, func(string, *Manifest, *ManifestEntry) {}, nil, ""},
		{"as written, finite", fin, func(string, *Manifest, *ManifestEntry) {}, nil, ""},
		{"within 1e-9 relative", bin, func(_ string, _ *Manifest, e *ManifestEntry) { v := opt(bin) * (1 + 1e-10); e.OptimalValue = &v }, nil, ""},
		{"optimum moved", bin, func(_ string, _ *Manifest, e *ManifestEntry) { e.OptimalValue = &moved }, ErrListed,
			`instance "bin-k1-i0-d0.25": optimal value ` + g(opt(bin)) + " in mmds.solu, " + g(moved) + " in manifest.json"},
		{"optimum dropped from manifest.json only", bin, func(_ string, _ *Manifest, e *ManifestEntry) { e.OptimalValue = nil }, ErrListed,
			"in mmds.solu, none (not certified) in manifest.json"},
		{"optimum moved, mmds.solu alike", bin, func(dir string, _ *Manifest, e *ManifestEntry) {
			e.OptimalValue = &moved
			b, err := os.ReadFile(filepath.Join(dir, SoluFile))
			if err != nil {
				t.Fatal(err)
			}
			line := e.Name + " " + g(opt(bin)) + "\n"
			if !strings.Contains(string(b), line) {
				t.Fatalf("mmds.solu has no line %q", line)
			}
			b = []byte(strings.Replace(string(b), line, e.Name+" "+g(moved)+"\n", 1))
			if err := os.WriteFile(filepath.Join(dir, SoluFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ErrListed, "in metadata.csv"},
		{"optimum moved, its lines deleted from mmds.solu and metadata.csv", bin, func(dir string, _ *Manifest, e *ManifestEntry) {
			e.OptimalValue = &moved
			dropLines(t, dir, SoluFile, e.Name)
			dropLines(t, dir, MetadataFile, e.Name)
		}, ErrNotRecomputed, `instance "bin-k1-i0-d0.25": optimal value ` + g(moved) + " in manifest.json, " + g(opt(bin)) + " recomputed by mmds from library version 4 seed 1"},
		{"optimum moved, mmds.solu and metadata.csv moved alike", fin, func(dir string, _ *Manifest, e *ManifestEntry) {
			v := opt(fin) * 0.9
			e.OptimalValue = &v
			dropLines(t, dir, SoluFile, e.Name)
			dropLines(t, dir, MetadataFile, e.Name)
		}, ErrNotRecomputed, "recomputed by mmds from library version 4 seed 1"},
		{"optimum and lines deleted: mmds's own is used", bin, func(dir string, _ *Manifest, e *ManifestEntry) {
			e.OptimalValue, e.BestBound = nil, nil
			dropLines(t, dir, SoluFile, e.Name)
			dropLines(t, dir, MetadataFile, e.Name)
		}, nil, ""},
		{"bound moved", fin, func(dir string, _ *Manifest, e *ManifestEntry) { v := *e.BestBound - 1; e.BestBound = &v }, ErrNotRecomputed,
			`instance "fin-n2-k1-i0-d0.50-hull_sym": best bound`},
		{"unknown version", bin, func(_ string, m *Manifest, _ *ManifestEntry) { m.Version = "9" }, ErrNotRecomputed,
			`manifest.json's generator "mmds bench library", version "9", is not one this mmds regenerates`},
		{"another generator", bin, func(_ string, m *Manifest, _ *ManifestEntry) { m.Generator = "my generator" }, ErrNotRecomputed,
			`generator "my generator"`},
		{"another seed", bin, func(_ string, m *Manifest, _ *ManifestEntry) { m.Seed = 2 }, ErrNotRecomputed,
			"its MPS text is not the one library version 4 seed 2 generates"},
		{"open size out of range", bin, func(_ string, m *Manifest, _ *ManifestEntry) { m.OpenN = []int{40} }, ErrNotRecomputed,
			"open size 40 is not one mmds bench library writes"},
		{"fraction moved", bin, func(_ string, _ *Manifest, e *ManifestEntry) { e.Fraction = 0.3 }, ErrNotRecomputed,
			"generates no binary instance with n = 2, K = 1, model 0 at fraction 0.3"},
		{"model index moved", fin, func(_ string, _ *Manifest, e *ManifestEntry) { e.ModelIndex = 7 }, ErrNotRecomputed, "model 7"},
		{"mmds.solu links out of the library: its target is not read", bin, func(dir string, _ *Manifest, _ *ManifestEntry) { linkOut(t, dir, SoluFile) },
			safefile.ErrOutside, "mmds.solu is a symbolic link out of its folder"},
		{"metadata.csv links out of the library", bin, func(dir string, _ *Manifest, _ *ManifestEntry) { linkOut(t, dir, MetadataFile) },
			safefile.ErrOutside, "metadata.csv is a symbolic link out of its folder"},
		{"the instance file links out of the library", bin, func(dir string, _ *Manifest, e *ManifestEntry) { linkOut(t, dir, e.File) },
			safefile.ErrOutside, "bin-k1-i0-d0.25.mps.gz is a symbolic link out of its folder"},
		{"tier moved", bin, func(_ string, _ *Manifest, e *ManifestEntry) { e.Tier = "hard" }, ErrNotRecomputed,
			`manifest.json puts it in tier "hard", benchmark set; library version 4 seed 1 puts it in tier easy, benchmark set`},
		{"moved out of the benchmark set", bin, func(_ string, _ *Manifest, e *ManifestEntry) { e.Set = SetCollection }, ErrNotRecomputed,
			"in tier \"easy\", collection set; library version 4 seed 1 puts it in tier easy, benchmark set"},
		{"moved into the benchmark set", pick("fin-n3-k1-i0-d0.25-M_1"), func(_ string, _ *Manifest, e *ManifestEntry) { e.Set = SetBenchmark }, ErrNotRecomputed,
			"tier hard, collection set"},
		{"another instance's file under this name", bin, func(dir string, _ *Manifest, e *ManifestEntry) {
			other := pick("bin-k1-i0-d0.50")
			e.File, e.SHA256 = other.File, other.SHA256
		}, ErrNotRecomputed, "its MPS text is not the one"},
	} {
		dir := copyLibrary(t, lib)
		m, e := man, c.entry
		m.Instances = nil
		c.edit(dir, &m, &e)
		in, err := LoadInstance(dir, e)
		if err == nil {
			in, err = NewRegenerator(m).Recompute(context.Background(), in, e)
		}
		if c.is == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if in.Optimal != opt(c.entry) || in.Bound != *c.entry.BestBound || in.Name != c.entry.Name {
				t.Errorf("%s: optimum %v, bound %v; want mmds's %v, %v", c.name, in.Optimal, in.Bound, opt(c.entry), *c.entry.BestBound)
			}
			continue
		}
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: %v; want one line wrapping %v saying %q", c.name, err, c.is, c.want)
		}
	}
}

// A manifest entry whose file leaves the library's folder, or that has no
// hash, is refused before reading (a file that links out of it is a row of
// TestLibraryOptimumIsRecomputed).
func TestLoadInstanceRefusesForeignFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "lib")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "outside.mps"), []byte("NAME x\nENDATA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.mps"), []byte("NAME x\nENDATA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, sha, want string }{
		{"../outside.mps", "00", "not a file name"},
		{"sub/../../outside.mps", "00", "not a file name"},
		{"/etc/hostname", "00", "not a file name"},
		{"", "00", "not a file name"},
		{"in.mps", "", "no sha256"},
	} {
		_, err := LoadInstance(dir, ManifestEntry{Name: "i", File: c.file, SHA256: c.sha})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("file %q, sha %q: err = %v, want %q", c.file, c.sha, err, c.want)
		}
	}
}

// linkOut replaces the library file name in dir by a symbolic link to a
// file outside it, whose text a parse error would quote.
func linkOut(t *testing.T, dir, name string) {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("AWS_SECRET=abcd1234\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

// A run judges a selection of a library: the instances of its set and
// tiers that mmds's library of that version and seed has there. Missing
// names those a manifest.json leaves out of the selection (a report says
// so), and nothing when it keeps every instance of the selection, whatever
// it leaves out elsewhere.
func TestLibrarySelectionMissing(t *testing.T) {
	lib := t.TempDir()
	man, err := WriteLibrary(context.Background(), lib, DefaultLibrary(1))
	if err != nil {
		t.Fatal(err)
	}
	without := func(names ...string) []ManifestEntry {
		return slices.DeleteFunc(slices.Clone(man.Instances), func(e ManifestEntry) bool { return slices.Contains(names, e.Name) })
	}
	for _, c := range []struct {
		name   string
		judged []ManifestEntry
		tiers  []string
		set    Set
		want   []string
	}{
		{"the benchmark set as written", man.Instances, nil, SetBenchmark, nil},
		{"every instance as written", man.Instances, nil, SetCollection, nil},
		{"the benchmark set less two easy instances", without("bin-k1-i0-d0.25", "fin-n2-k1-i0-d0.50-hull_sym"), nil, SetBenchmark, []string{"bin-k1-i0-d0.25", "fin-n2-k1-i0-d0.50-hull_sym"}},
		{"the hard tier less one", without("fin-n3-k1-i0-d0.25-M_1"), []string{"hard"}, SetCollection, []string{"fin-n3-k1-i0-d0.25-M_1"}},
		{"the benchmark set less a collection-only instance", without("fin-n3-k1-i0-d0.25-M_1"), nil, SetBenchmark, nil},
		{"the easy tier less a medium instance", without("fin-n2-k2-i0-d0.25-M_1"), []string{"easy"}, SetCollection, nil},
	} {
		got, err := NewRegenerator(man).Missing(context.Background(), c.judged, c.tiers, c.set)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: missing %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// A library without mmds.solu and metadata.csv (an older one) loads.
func TestLoadInstanceWithoutListings(t *testing.T) {
	dir := t.TempDir()
	man, err := WriteLibrary(context.Background(), dir, smallLibrary(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{SoluFile, MetadataFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LoadInstance(dir, man.Instances[0]); err != nil {
		t.Errorf("a library without mmds.solu and metadata.csv: %v", err)
	}
}
