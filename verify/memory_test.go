package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/data"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// A data run's table is measured before it is parsed: a data file whose
// numbers would take the run past its budget is refused (ErrMemory, naming
// the file), and one that fits is read; so is results.json before it is
// decoded. Judging it then takes the estimators' working memory per
// threshold at once (a continuous X: every row's features fitted three
// ways, dataRowBytes): a run that fits once opened but not with its
// workers is refused before any fit, naming how many.
func TestDataRunMemoryBudget(t *testing.T) {
	raw := dataCSV()
	dir := writeDataRun(t, "d.csv", raw)
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	held := baseMemory + 2*int64(len(res)) // a bound on results.json read and measured
	for _, tc := range []struct {
		limit int64
		want  string // "" opens
	}{
		{DefaultMaxMemory, ""},
		{held + 2*int64(len(raw)), "the data file"},
		{baseMemory + 10, "results.json reads as"},
	} {
		_, err := OpenDir(t.Context(), DirRequest{Dir: dir, MaxMemory: tc.limit})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("limit %d: %v", tc.limit, err)
		case tc.want != "" && (!errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("limit %d: %v; want ErrMemory naming %q", tc.limit, err, tc.want)
		}
	}
	cont := writeContinuousDataRun(t, 3)
	drun := openData(t, cont, DefaultMaxMemory)
	work := drun.dataWork()
	if want := int64(60) * (2*(64+48*2) + 5*(8+4*2)); work != want {
		t.Errorf("a continuous run of 60 rows, one side column: work %d, want %d", work, want)
	}
	for _, tc := range []struct {
		limit   int64
		workers int
		want    string // "" judges
	}{
		{drun.held + work, 1, ""},
		{drun.held + 3*work, 3, ""},
		{drun.held + 3*work, 8, ""}, // three thresholds: three at once at most
		{drun.held + work - 1, 1, "of work for 1 of them at once"},
		{drun.held + 3*work - 1, 3, "of work for 3 of them at once"},
	} {
		_, err := CertifyData(t.Context(), openData(t, cont, tc.limit), Options{Workers: tc.workers, MaxMemory: tc.limit})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("limit %d, %d workers: %v", tc.limit, tc.workers, err)
		case tc.want != "" && (!errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("limit %d, %d workers: %v; want ErrMemory naming %q", tc.limit, tc.workers, err, tc.want)
		}
	}
}

// openData opens the data run in dir within limit.
func openData(t *testing.T, dir string, limit int64) *DataRun {
	t.Helper()
	d, err := OpenDir(t.Context(), DirRequest{Dir: dir, MaxMemory: limit})
	if err != nil || d.Data == nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	return d.Data
}

// writeContinuousDataRun writes a run of Algorithm 1 on 60 rows of a
// continuous X with its data copy, n thresholds, none trained.
func writeContinuousDataRun(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%g,%g,%g\n", float64(i)/7, float64(i%11)/3, float64(i%5)/2)
	}
	raw := []byte(b.String())
	dir := t.TempDir()
	sum := sha256.Sum256(raw)
	spec := &data.Spec{CSV: "d.csv", SHA256: hex.EncodeToString(sum[:]), Rows: 60,
		Private:       data.Column{Name: "x", Kind: data.Continuous},
		Reconstructor: []data.Column{{Name: "y", Kind: data.Continuous}},
		Adversaries:   [][]data.Column{{{Name: "z", Kind: data.Continuous}}},
		Split:         data.Split{Seed: 1, Train: 50, Test: 10}}
	mb, err := spec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	h, err := spec.Hash()
	if err != nil {
		t.Fatal(err)
	}
	res := &learn.Results{Model: model.Gauss}
	res.Config.Model, res.Config.ModelSHA256, res.Config.Method = model.Gauss, h, learn.MethodAlg1
	res.Config.TrainSize, res.Config.TestSize = 50, 10
	for i := range n {
		res.Config.D = append(res.Config.D, 0.1*float64(i+1))
	}
	for name, b := range map[string][]byte{ModelFile: mb, "d.csv": raw} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	verifytest.WriteResults(t, dir, res)
	return dir
}
