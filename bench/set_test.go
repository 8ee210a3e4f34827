package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSetAndCertMethodText(t *testing.T) {
	for _, s := range []Set{SetBenchmark, SetCollection} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Set
		if err := back.UnmarshalText(b); err != nil || back != s || string(b) != s.String() {
			t.Errorf("%v: %q read back as %v (%v)", s, b, back, err)
		}
	}
	if s, err := ParseSet("all"); err != nil || s != SetCollection {
		t.Errorf("all: %v, %v", s, err)
	}
	for _, bad := range []string{"", "Benchmark", "bench", "collection ", "none"} {
		if _, err := ParseSet(bad); !errors.Is(err, ErrSet) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := Set(0).MarshalText(); !errors.Is(err, ErrSet) {
		t.Errorf("Set(0) marshals: %v", err)
	}
	for _, c := range []CertMethod{CertEnumeration, CertGlobalLP, CertColGen} {
		b, err := c.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back CertMethod
		if err := back.UnmarshalText(b); err != nil || back != c {
			t.Errorf("%v: %q read back as %v (%v)", c, b, back, err)
		}
	}
	if _, err := certText.Parse("exact"); !errors.Is(err, ErrCertMethod) {
		t.Errorf("exact: %v", err)
	}
	// A manifest entry without a set (library version 3) omits the field.
	data, err := json.Marshal(ManifestEntry{Name: "a"})
	if err != nil || bytes.Contains(data, []byte(`"set"`)) || bytes.Contains(data, []byte(`"certified_by"`)) {
		t.Errorf("%s, %v", data, err)
	}
}

// The benchmark set is a rule on tier, size, model and formulation: every
// easy and medium instance, and of the hard and the open tier the smallest
// size's model 0 in hull+sym and as the global LP. It holds every tier,
// the same instances from any seed, and its files are benchmark.test's.
func TestBenchmarkSetIsDeterministicAndHasEveryTier(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	spec := DefaultLibrary(1)
	man, err := WriteLibrary(ctx, dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var names []string
	for _, e := range man.Instances {
		if e.Set != SetBenchmark {
			if e.Set != SetCollection {
				t.Errorf("%s: set %v", e.Name, e.Set)
			}
			continue
		}
		count[e.Tier]++
		names = append(names, e.Name)
	}
	want := map[string]int{"easy": 36, "medium": 36, "hard": 2, "open": 2}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("benchmark set per tier %v, want %v", count, want)
	}
	for _, name := range []string{"fin-n3-k1-i0-d0.25-hull_sym", "fin-n3-k1-i0-d0.25-global", "fin-n4-k1-i0-d0.25-hull_sym", "fin-n4-k1-i0-d0.25-global"} {
		if !strings.Contains(strings.Join(names, " "), name) {
			t.Errorf("%s not in the benchmark set", name)
		}
	}
	list, err := os.ReadFile(filepath.Join(dir, BenchmarkFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(list)); len(got) != len(names) || got[0] != names[0]+".mps.gz" || got[len(got)-1] != names[len(names)-1]+".mps.gz" {
		t.Errorf("%s: %d files, want %d", BenchmarkFile, len(got), len(names))
	}
	// A manifest without sets (library version 3) with a larger open size
	// added (as --open-n 5 adds it): the rule picks the same names, since
	// the smallest open size stays n = 4.
	var es []ManifestEntry
	for _, e := range man.Instances {
		e.Set = 0
		es = append(es, e)
		if e.Tier == "open" {
			e.N, e.Name = 5, strings.Replace(e.Name, "-n4-", "-n5-", 1)
			es = append(es, e)
		}
	}
	sel, err := SelectSet(es, SetBenchmark)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range sel {
		got = append(got, e.Name)
	}
	if !reflect.DeepEqual(got, names) {
		t.Errorf("with n = 5 added: benchmark set %v, want %v", got, names)
	}
	all, err := SelectSet(es, SetCollection)
	if err != nil || len(all) != len(es) {
		t.Errorf("collection: %d of %d, %v", len(all), len(es), err)
	}
}

// Column generation certifies the same optimal values as the global LP
// where both apply: a library whose ray budget admits no global LP (so
// column generation certifies every finite model) writes the .solu values
// of the library certified by the global LP, within ColGenTol, and says so
// in certified_by.
func TestColGenCertifiesTheGlobalLPValues(t *testing.T) {
	ctx := context.Background()
	spec := DefaultLibrary(3)
	spec.BinaryKs = nil
	spec.Finite = []Size{{N: 2, K: 1, Tier: "easy"}, {N: 3, K: 2, Tier: "medium", Fractions: []float64{0.25}},
		{N: 4, K: 1, Tier: "open", Fractions: []float64{0.25}, Variants: VariantsNamed("hull+sym")}}
	lp, cg := t.TempDir(), t.TempDir()
	if _, err := WriteLibrary(ctx, lp, spec); err != nil {
		t.Fatal(err)
	}
	spec.MaxSubsets = 1
	man, err := WriteLibrary(ctx, cg, spec)
	if err != nil {
		t.Fatal(err)
	}
	read := func(dir string) map[string]float64 {
		f, err := os.Open(filepath.Join(dir, SoluFile))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		es, err := ReadSolu(f)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, e := range es {
			if e.Kind != SoluOpt {
				t.Errorf("%s: %s", e.Name, e.Kind)
			}
			out[e.Name] = e.Value
		}
		return out
	}
	byLP, byCG := read(lp), read(cg)
	if len(byCG) != 3*5+5+1 || len(byLP) != len(byCG)+5 {
		t.Fatalf("%d values by column generation, %d by the global LP", len(byCG), len(byLP))
	}
	for name, v := range byCG {
		if w, ok := byLP[name]; !ok || math.Abs(v-w) > ColGenTol {
			t.Errorf("%s: column generation %.15g, global LP %.15g", name, v, w)
		}
	}
	for _, e := range man.Instances {
		if e.CertifiedBy != CertColGen || !strings.HasPrefix(e.Certificate, "column generation: ") {
			t.Errorf("%s: certified by %v (%s)", e.Name, e.CertifiedBy, e.Certificate)
		}
	}
	meta, err := os.ReadFile(filepath.Join(cg, MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(meta), ",colgen\n"); n != len(byCG) {
		t.Errorf("metadata.csv: %d rows certified by colgen, want %d", n, len(byCG))
	}
}

// An open size that neither the global LP (n = 6 exceeds its ray budget)
// nor column generation (stopped at once here) certifies is refused, and
// one that column generation certifies is written without a global LP.
func TestOpenSizeCertifiedByColGen(t *testing.T) {
	ctx := context.Background()
	spec := smallLibrary(1)
	spec.BinaryKs = nil
	spec.OpenN = []int{6}
	spec.ColGenLimit = time.Nanosecond
	if _, err := spec.Build(ctx); !errors.Is(err, ErrUncertified) || !strings.Contains(err.Error(), "fin-n6-k1-i0-d0.25-derivedM") {
		t.Errorf("column generation stopped at once: %v, want ErrUncertified", err)
	}
	spec.ColGenLimit = 0
	ins, err := spec.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, in := range ins {
		if in.N != 6 {
			continue
		}
		open = append(open, in.Name)
		if in.CertifiedBy != CertColGen || math.IsNaN(in.Optimal) || in.Bound < in.Optimal-ColGenTol || in.Bound > in.Optimal {
			t.Errorf("%s: %v, optimal %v, bound %v", in.Name, in.CertifiedBy, in.Optimal, in.Bound)
		}
	}
	if want := []string{"fin-n6-k1-i0-d0.25-derivedM", "fin-n6-k1-i0-d0.25-hull_sym", "fin-n6-k1-i1-d0.25-derivedM", "fin-n6-k1-i1-d0.25-hull_sym"}; !reflect.DeepEqual(open, want) {
		t.Errorf("open instances %v, want %v", open, want)
	}
}
