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
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/rundir"
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

// A run on a user's data binds its CSV by path and SHA-256 in model.json,
// both the author's to write. Naming a file of the reviewer's
// (a key) made mmds verify parse it as CSV before comparing its hash, and
// the parse error quoted its first line. The recorded path is no longer
// opened at all (only its base name is looked up inside the directory,
// TestDataRunReadsOnlyItsFolder), so nothing of the key is read.
func TestDataRunQuotesNoForeignFile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("ssh-rsa AAAASECRETKEYMATERIAL\nline2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A spec bound to a hash that is not the secret's (the author cannot
	// know it), naming the secret's path.
	spec := fmt.Sprintf(`{"data":{"csv":%q,"sha256":"%064d","rows":60,"private":{"name":"x","kind":"discrete"},`+
		`"reconstructor":[{"name":"y","kind":"discrete"}],"adversaries":[[{"name":"z","kind":"discrete"}]],"split":{"seed":1,"train":50,"test":10}}}`, secret, 0)
	s, err := data.DecodeFile([]byte(spec), "model.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Hash()
	if err != nil {
		t.Fatal(err)
	}
	res := &learn.Results{Model: model.Finite}
	res.Config.Model, res.Config.ModelSHA256, res.Config.D = model.Finite, h, []float64{0.1}
	res.Config.Method, res.Config.TrainSize, res.Config.TestSize = learn.MethodLabels, 50, 10
	if err := os.WriteFile(filepath.Join(dir, rundir.ModelFile), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	verifytest.WriteResults(t, dir, res)
	_, err = OpenDir(context.Background(), DirRequest{Dir: dir})
	if !errors.Is(err, ErrNoDataFile) || strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "ssh-rsa") {
		t.Errorf("a data run naming another file: %v; want ErrNoDataFile quoting nothing of the file", err)
	}
}

// A data run's results.json says which model its privatizer was
// trained on, and verify took its word. On a binary X, Algorithm 1's
// held-out losses are the hard errors results.json records; relabelling a
// run on an X of three values as "binary" made verify report whatever
// results.json records instead of the losses of the channel the
// categorical network releases. The run's model and method must be the
// ones mmds train data picks for its data (data.Prepared.ChoosePlan).
func TestDataRunModelMustFitX(t *testing.T) {
	raw := dataCSV() // x takes 3 values
	for _, c := range []struct {
		name   string
		model  model.Kind
		method learn.TrainMethod
		want   string
	}{
		{"binary on 3 values", model.Binary, learn.MethodAlg1, `"model" = binary with the alg1 method, but the data train finite`},
		{"labels as binary", model.Binary, learn.MethodLabels, `"model" = binary with the labels method, but the data train finite`},
	} {
		dir := writeDataRunAs(t, raw, c.model, c.method)
		_, err := OpenDir(context.Background(), DirRequest{Dir: dir})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInput with %q", c.name, err, c.want)
		}
	}
	// The run mmds train data writes still opens.
	dir := writeDataRunAs(t, raw, model.Finite, learn.MethodAlg1)
	if _, err := OpenDir(context.Background(), DirRequest{Dir: dir}); err != nil {
		t.Errorf("finite, alg1: %v", err)
	}
}

// writeDataRunAs writes a data run on raw (copied into the directory as
// d.csv) whose results.json says model k and method m, with one finalized
// point whose recorded losses claim a distortion of 0.
func writeDataRunAs(t *testing.T, raw []byte, k model.Kind, m learn.TrainMethod) string {
	t.Helper()
	dir := writeDataRun(t, "d.csv", raw)
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := learn.ReadResults(context.Background(), rundir.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	res.Model, res.Config.Model, res.Config.Method = k, k, m
	zero := 0.0
	p := learn.DResult{DIndex: 0, D: 0.1, Finalized: true, Losses: &loss.Losses{Recon: 0, Adv: []float64{0.5}, MinAdv: 0.5},
		ReconHard: &zero, AdvHard: learn.Floats{0.5}, Networks: make([]network.Network, 3), Channel: [][]float64{{1}, {1}, {1}}}
	if m == learn.MethodAlg1 {
		p.Channel = nil
	}
	res.Points = []learn.DResult{p}
	verifytest.WriteResults(t, dir, res)
	return dir
}
