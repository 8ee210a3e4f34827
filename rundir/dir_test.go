package rundir

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/internal/report"
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
