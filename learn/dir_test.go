package learn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
)

func TestBinding(t *testing.T) {
	l := loss.New(0.1, []float64{0.3})
	res := &Results{Model: Binary, Config: Config{Model: Binary, ModelSHA256: "m1", D: []float64{0.1, 0.2}},
		Points: []DResult{{DIndex: 0, D: 0.1, Finalized: true, Losses: &l}}}
	// edit changes a copy of point 0's losses: res shares them with every case.
	edit := func(r *Results, f func(*loss.Losses)) {
		l := *r.Points[0].Losses
		f(&l)
		r.Points[0].Losses = &l
	}
	if err := res.CheckBinding("m1"); !errors.Is(err, ErrBinding) {
		t.Errorf("unsealed: %v", err)
	}
	if err := res.Seal(); err != nil {
		t.Fatal(err)
	}
	if err := res.CheckBinding("m1"); err != nil {
		t.Fatalf("sealed: %v", err)
	}
	for _, c := range []struct {
		name  string
		edit  func(r *Results)
		model string
		want  string
	}{
		{"model", func(*Results) {}, "m2", "model.json"},
		{"tau", func(r *Results) { r.Config.Protocol.Tau = 1e6 }, "m1", "config"},
		{"test size", func(r *Results) { r.Config.TestSize = 1 }, "m1", "config"},
		{"recon", func(r *Results) { edit(r, func(l *loss.Losses) { l.Recon = 0.05 }) }, "m1", "points[0]"},
		{"adv", func(r *Results) { edit(r, func(l *loss.Losses) { l.Adv = []float64{0.31} }) }, "m1", "points[0]"},
		{"min adv", func(r *Results) { edit(r, func(l *loss.Losses) { l.MinAdv = 0.2 }) }, "m1", "points[0]"},
		{"losses dropped", func(r *Results) { r.Points[0].Losses = nil }, "m1", "points[0]"},
	} {
		r := *res
		r.Config.Protocol = res.Config.Protocol
		r.Points = append([]DResult(nil), res.Points...)
		c.edit(&r)
		if err := r.CheckBinding(c.model); !errors.Is(err, ErrBinding) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s edited: %v, want ErrBinding naming %q", c.name, err, c.want)
		}
	}
	// The bytes on disk round-trip to the same binding.
	dir := Dir(t.TempDir())
	if err := dir.writeResults(res); err != nil {
		t.Fatal(err)
	}
	back, err := dir.ReadResults(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := back.CheckBinding("m1"); err != nil {
		t.Errorf("results.json read back: %v", err)
	}
	if _, err := DecodeResults([]byte(`{"model":"binary"} {}`), filepath.Join("x", ResultsFile)); err == nil {
		t.Error("trailing data: no error")
	}
}

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
