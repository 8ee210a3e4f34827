package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// reportJSON is the report as mmds verify --format json writes it.
func reportJSON(t *testing.T, rep *Report) []byte {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cacheEntries are the entries in c's folder.
func cacheEntries(t *testing.T, c Cache) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(c.Dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A report drawn from the cache is the computed one, byte for byte, and
// takes every certificate from it; the certificates are reused under
// another verdict policy but not under another stated-error limit or
// build, nor for other points.
func TestCertifyCache(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []model.Kind{model.Gauss, model.Binary} {
		dir := t.TempDir()
		if kind == model.Gauss {
			verifytest.Gauss(t, dir)
		} else {
			verifytest.Binary(t, dir)
		}
		run, err := Load(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Certify(ctx, run, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := reportJSON(t, fresh)
		c := Cache{Dir: filepath.Join(t.TempDir(), "verify"), Build: "test 1"}
		certify := func(name string, c Cache, tol Tolerances, cached bool) {
			t.Helper()
			rep, err := Certify(ctx, run, Options{Tol: tol, Cache: c})
			if err != nil {
				t.Fatalf("%s, %s: %v", kind, name, err)
			}
			if want := rep.Passed + rep.Failed + rep.CannotCertify; cached && rep.Cached != want || !cached && rep.Cached != 0 {
				t.Errorf("%s, %s: %d points from the cache, want cached %v (%d finalized)", kind, name, rep.Cached, cached, want)
			}
			if tol == (Tolerances{}) && !bytes.Equal(reportJSON(t, rep), want) {
				t.Errorf("%s, %s: the report differs from the computed one", kind, name)
			}
		}
		certify("first", c, Tolerances{}, false)
		certify("second", c, Tolerances{}, true)
		tol := DefaultTolerances()
		tol.AdvSE = 1
		certify("another adv_se", c, tol, true)
		tol = DefaultTolerances()
		tol.Quad = 0.004
		certify("another quad", c, tol, false)
		certify("another build", Cache{Dir: c.Dir, Build: "test 2"}, Tolerances{}, false)
		certify("default again", c, Tolerances{}, true)
		if n := len(cacheEntries(t, c)); n != 3 {
			t.Errorf("%s: %d entries, want 3 (two quad limits, two builds)", kind, n)
		}
		// Another point's bytes: another key.
		o := Options{Tol: DefaultTolerances()}
		_, k1, _ := c.key(run, o)
		other := *run
		res := *run.Results
		res.Points = append(res.Points[:0:0], res.Points...)
		res.Points[0].SHA256 = "0" + res.Points[0].SHA256[1:]
		other.Results = &res
		if _, k2, _ := c.key(&other, o); k1 == k2 {
			t.Errorf("%s: a point of other bytes has the same key", kind)
		}
	}
}

// An entry that does not decode, is not the user's own single-named
// regular file, or does not hold exactly the directory's finalized points
// is ignored: the certificates are computed again and the entry replaced.
// Concurrent commands share the cache safely.
func TestCertifyCacheRefusesEntries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	verifytest.Gauss(t, dir)
	run, err := Load(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	c := Cache{Dir: filepath.Join(t.TempDir(), "verify"), Build: "test"}
	first, err := Certify(ctx, run, Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	want := reportJSON(t, first)
	entries := cacheEntries(t, c)
	if len(entries) != 1 {
		t.Fatalf("%d entries, want 1", len(entries))
	}
	path := entries[0]
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e cacheEntry
	if err := json.Unmarshal(good, &e); err != nil {
		t.Fatal(err)
	}
	dropped := e
	dropped.Points = e.Points[1:]
	extra := e
	extra.Points = append(append([]cachedPoint(nil), e.Points...), cachedPoint{DIndex: len(run.Results.Config.D) - 1, Refused: VerdictCannotCertify + ": made up"})
	twice := e
	twice.Points = append(append([]cachedPoint(nil), e.Points...), e.Points[0])
	marshal := func(e cacheEntry) []byte {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c2 := range []struct {
		name  string
		write func() error
	}{
		{"garbage", func() error { return os.WriteFile(path, []byte("{\"key\": [1, 2"), 0o600) }},
		{"a key twice", func() error {
			return os.WriteFile(path, append([]byte(`{"key": {}, `), good[1:]...), 0o600)
		}},
		{"a point dropped", func() error { return os.WriteFile(path, marshal(dropped), 0o600) }},
		{"a point not finalized", func() error { return os.WriteFile(path, marshal(extra), 0o600) }},
		{"a point twice", func() error { return os.WriteFile(path, marshal(twice), 0o600) }},
		{"a symbolic link", func() error {
			target := filepath.Join(t.TempDir(), "entry.json")
			if err := os.WriteFile(target, good, 0o600); err != nil {
				return err
			}
			return os.Symlink(target, path)
		}},
		{"a second name", func() error {
			if err := os.WriteFile(path, good, 0o600); err != nil {
				return err
			}
			return os.Link(path, filepath.Join(t.TempDir(), "other"))
		}},
		{"a folder", func() error { return os.Mkdir(path, 0o700) }},
	} {
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		if err := c2.write(); err != nil {
			t.Fatalf("%s: %v", c2.name, err)
		}
		rep, err := Certify(ctx, run, Options{Cache: c})
		if err != nil {
			t.Fatalf("%s: %v", c2.name, err)
		}
		if rep.Cached != 0 {
			t.Errorf("%s: %d points taken from the entry", c2.name, rep.Cached)
		}
		if !bytes.Equal(reportJSON(t, rep), want) {
			t.Errorf("%s: the report differs from the computed one", c2.name)
		}
	}
	// The last refusal (a folder) could not be replaced; a good entry is
	// written again once the path is free.
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	reps := make([]*Report, 4)
	errs := make([]error, 4)
	for i := range reps {
		wg.Go(func() { reps[i], errs[i] = Certify(ctx, run, Options{Cache: c}) })
	}
	wg.Wait()
	for i, rep := range reps {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(reportJSON(t, rep), want) {
			t.Errorf("concurrent certify %d: the report differs", i)
		}
	}
	if rep, err := Certify(ctx, run, Options{Cache: c}); err != nil || rep.Cached == 0 {
		t.Errorf("after concurrent writes: %v, %d points from the cache", err, rep.Cached)
	}
	if n := len(cacheEntries(t, c)); n != 1 {
		t.Errorf("%d entries after concurrent writes, want 1 (temporary files renamed or removed)", n)
	}
}
