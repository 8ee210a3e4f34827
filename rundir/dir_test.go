package rundir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
)

// The files of a results directory are the ones internal/report reserves
// for the kind, so no command writes an output over one of them.
func TestDirReservedNames(t *testing.T) {
	for _, name := range []string{ResultsFile, ModelFile, "trials", "points", runLockFile,
		shardLockFile(cluster.Shard{Index: 1, Count: 3}), report.MarkerFile} {
		if !report.Reserved(report.Results, name) {
			t.Errorf("%s is not reserved in a results directory", name)
		}
	}
	if dir := filepath.Dir(PointFile(0)); dir != "points" {
		t.Errorf("point records live in %s/, not points/", dir)
	}
}

// Prepare marks the directory, refuses a folder of another kind, and
// removes the temporary files of dead writers in it and in trials/ and
// points/, not those of live ones.
func TestDirPrepare(t *testing.T) {
	d := Dir(filepath.Join(t.TempDir(), "run"))
	if err := d.WriteModel([]byte(`{"p": 0.5}`)); err != nil {
		t.Fatal(err)
	}
	if k, err := report.ReadKind(string(d)); k != report.Results || err != nil {
		t.Fatalf("kind %q, %v", k, err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	os.MkdirAll(d.Path("trials"), 0o755)
	var stale, live []string
	for _, sub := range []string{"", "trials"} {
		// The host tag is report's; a temporary file report itself makes
		// carries it, so take one from a write that is interrupted.
		var tmp string
		report.WriteFileAtomic(d.Path(filepath.Join(sub, "x.json")), func(p string) error { tmp = p; return errors.New("stop") })
		name := filepath.Base(tmp)
		parts := strings.SplitN(name, "-", 5) // .tmp, mmds, PID, HOST, RANDOM-BASE
		deadName := strings.Join([]string{parts[0], parts[1], fmt.Sprint(cmd.Process.Pid), parts[3], parts[4]}, "-")
		for _, n := range []string{name, deadName} {
			if err := os.WriteFile(d.Path(filepath.Join(sub, n)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		live = append(live, d.Path(filepath.Join(sub, name)))
		stale = append(stale, d.Path(filepath.Join(sub, deadName)))
	}
	if err := d.Prepare(); err != nil {
		t.Fatal(err)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s kept", p)
		}
	}
	for _, p := range live {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("live %s removed", p)
		}
	}
	lib := t.TempDir()
	os.WriteFile(filepath.Join(lib, report.MarkerFile), []byte("bench-library\n"), 0o644)
	if err := Dir(lib).WriteModel([]byte("{}")); !errors.Is(err, report.ErrKind) {
		t.Errorf("a bench library as a results directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(lib, ModelFile)); err == nil {
		t.Error("model.json written into a bench library")
	}
}

// Attack: a results directory handed over with trials/ or points/ as a
// symbolic link to another folder. Training into it (resuming, or a shard)
// wrote its records through the link, replacing that folder's d00.json and
// creating its "shards", and Prepare removed mmds temporary files there.
// Both subfolders must be plain folders (or not exist yet).
func TestSubfolderLinkRefused(t *testing.T) {
	for _, sub := range []string{"trials", "points"} {
		t.Run(sub, func(t *testing.T) {
			d := Dir(filepath.Join(t.TempDir(), "run"))
			if err := d.WriteModel([]byte(`{"p": 0.5}`)); err != nil {
				t.Fatal(err)
			}
			victim := t.TempDir()
			stale := filepath.Join(victim, ".tmp-mmds-999999999-00000000-1-x.json") // a dead writer's, of another host
			for _, p := range []string{filepath.Join(victim, "d00.json"), stale} {
				if err := os.WriteFile(p, []byte("precious\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			old := time.Now().Add(-2 * time.Hour)
			os.Chtimes(stale, old, old)
			if err := os.Symlink(victim, d.Path(sub)); err != nil {
				t.Fatal(err)
			}
			if err := d.Prepare(); !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("Prepare with %s a link: %v, want ErrResume naming the link", sub, err)
			}
			if err := d.WriteModel([]byte(`{"p": 0.5}`)); !errors.Is(err, ErrResume) {
				t.Errorf("WriteModel with %s a link: %v, want ErrResume", sub, err)
			}
			if sub == "points" {
				if l, err := d.Lock(cluster.Shard{Index: 1, Count: 2}); !errors.Is(err, ErrResume) {
					l.Unlock()
					t.Errorf("a shard's Lock with points a link: %v, want ErrResume", err)
				}
			}
			if _, err := os.Stat(stale); err != nil {
				t.Errorf("the other folder's temporary file was removed: %v", err)
			}
			names, _ := os.ReadDir(victim)
			if len(names) != 2 {
				t.Errorf("the other folder now holds %d files, want its 2", len(names))
			}
		})
	}
	// A plain file or a FIFO where the folder belongs is refused the same way.
	d := Dir(filepath.Join(t.TempDir(), "run"))
	if err := d.WriteModel([]byte(`{"p": 0.5}`)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Path("trials"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.Prepare(); !errors.Is(err, ErrResume) {
		t.Errorf("Prepare with trials a file: %v, want ErrResume", err)
	}
}

// A data copy that is a hard link to a file outside the results directory
// (st_nlink > 1: the same bytes under a second name, which can change them
// under the verifier) is refused by ReadDataCopy and, when it already
// exists, by WriteDataCopy, in one line naming the file; a copy of its own
// reads.
func TestDataCopyHardLinkRefused(t *testing.T) {
	d := Dir(t.TempDir())
	outside := filepath.Join(t.TempDir(), "d.csv")
	b := []byte("x,y\n1,2\n")
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := d.DataCopy("d.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, path); err != nil {
		t.Skip(err) // another file system
	}
	_, err = d.ReadDataCopy(context.Background(), "d.csv", 1<<20)
	if !errors.Is(err, safefile.ErrHardLink) || !errors.Is(err, safefile.ErrInput) || !strings.Contains(err.Error(), "d.csv has 2 hard links") || strings.Contains(err.Error(), "\n") {
		t.Errorf("ReadDataCopy of a hard link: %v; want one line, ErrHardLink, naming d.csv and its 2 links", err)
	}
	if err := d.WriteDataCopy("d.csv", b); !errors.Is(err, safefile.ErrHardLink) || !errors.Is(err, ErrResume) {
		t.Errorf("WriteDataCopy over a hard link: %v; want ErrResume and ErrHardLink", err)
	}
	if err := os.Remove(outside); err != nil {
		t.Fatal(err)
	}
	if got, err := d.ReadDataCopy(context.Background(), "d.csv", 1<<20); err != nil || string(got) != string(b) {
		t.Errorf("the copy, its own file now: %q, %v", got, err)
	}
}
