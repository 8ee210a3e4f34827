package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmds-project/mmds/data"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// dataCSV is a 60-row discrete data file.
func dataCSV() []byte {
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%3, (i/2)%3, (i/3)%2)
	}
	return []byte(b.String())
}

// writeDataRun writes a results directory of a data run bound to the
// bytes raw, whose spec records csv as the data file's name.
func writeDataRun(t *testing.T, csv string, raw []byte) string {
	t.Helper()
	dir := t.TempDir()
	sum := sha256.Sum256(raw)
	spec := &data.Spec{CSV: csv, SHA256: hex.EncodeToString(sum[:]), Rows: 60,
		Private:       data.Column{Name: "x", Kind: data.Discrete},
		Reconstructor: []data.Column{{Name: "y", Kind: data.Discrete}},
		Adversaries:   [][]data.Column{{{Name: "z", Kind: data.Discrete}}},
		Split:         data.Split{Seed: 1, Train: 50, Test: 10}}
	b, err := spec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	h, err := spec.Hash()
	if err != nil {
		t.Fatal(err)
	}
	res := &learn.Results{Model: model.Finite}
	res.Config.Model, res.Config.ModelSHA256, res.Config.D = model.Finite, h, []float64{0.1}
	res.Config.Method, res.Config.TrainSize, res.Config.TestSize = learn.MethodLabels, 50, 10
	if err := os.WriteFile(filepath.Join(dir, ModelFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	verifytest.WriteResults(t, dir, res)
	return dir
}

// Attack: model.json is the author's to write, and it named the data file
// by a path that verify opened from the reviewer's working folder. Only
// the recorded name's last element is looked up, inside the results
// directory, without following a link: an absolute path or a "../" path
// is never opened even when the file there is the bound data (so its hash
// would match), a link placed in the directory is refused, and a FIFO
// there is refused without blocking, and so is a hard link to a file
// outside (the same bytes under a second name, which can change them under
// the verifier). The reviewer's --data file, or the
// directory's own copy, is read.
func TestDataRunReadsOnlyItsFolder(t *testing.T) {
	raw := dataCSV()
	outside := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(outside, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	wrong := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(wrong, append(raw, "1,1,1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, csv string
		setup     func(t *testing.T, dir string)
		dataFile  string
		want      error  // nil: Open succeeds
		wantMsg   string // in the error
	}{
		{name: "absolute path to the bound data", csv: outside, want: ErrNoDataFile, wantMsg: "d.csv"},
		{name: "../ path to the bound data", csv: "../" + filepath.Base(filepath.Dir(outside)) + "/d.csv", want: ErrNoDataFile},
		{name: "dot-dot", csv: "..", want: ErrNoDataFile, wantMsg: `".."`},
		{name: "hidden name", csv: ".lock", want: ErrNoDataFile},
		{name: "results.json", csv: "results.json", want: ErrNoDataFile},
		{name: "a link in the directory", csv: "d.csv", want: ErrInput, wantMsg: "symbolic link",
			setup: func(t *testing.T, dir string) {
				if err := os.Symlink(outside, filepath.Join(dir, "d.csv")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a hard link in the directory", csv: "d.csv", want: safefile.ErrHardLink, wantMsg: "has 2 hard links",
			setup: func(t *testing.T, dir string) {
				if err := os.Link(outside, filepath.Join(dir, "d.csv")); err != nil {
					t.Skip(err) // another file system
				}
			}},
		{name: "a FIFO in the directory", csv: "d.csv", want: ErrInput, wantMsg: "FIFO",
			setup: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "d.csv"), 0o644); err != nil {
					t.Skip(err)
				}
			}},
		{name: "the copy in the directory", csv: "/elsewhere/d.csv",
			setup: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, "d.csv"), raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "--data the bound file", csv: "/elsewhere/d.csv", dataFile: outside},
		{name: "--data another file", csv: "d.csv", dataFile: wrong, want: ErrInput, wantMsg: "is not the one this run was trained on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeDataRun(t, c.csv, raw)
			if c.setup != nil {
				c.setup(t, dir)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			d, err := OpenDir(ctx, DirRequest{Dir: dir, DataFile: c.dataFile})
			var drun *DataRun
			if d != nil {
				drun = d.Data
			}
			if c.want == nil {
				if err != nil || drun == nil {
					t.Fatalf("Open: %v", err)
				}
				if drun.Data.Spec.Rows != 60 {
					t.Errorf("read %d rows, want 60", drun.Data.Spec.Rows)
				}
				return
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.wantMsg) {
				t.Errorf("Open: %v; want %v naming %q", err, c.want, c.wantMsg)
			}
		})
	}
}
