package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/mmds-project/mmds/internal/report"
)

// snapshot maps every path under the roots to its type and, for a regular
// file, the SHA-256 of its content.
func snapshot(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			v := d.Type().String()
			if d.Type().IsRegular() {
				b, _ := os.ReadFile(p)
				sum := sha256.Sum256(b)
				v = hex.EncodeToString(sum[:])
			} else if d.Type()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				v = "link " + target
			}
			out[p] = v
			return nil
		})
	}
	return out
}

func copyFile(t *testing.T, from, to string) string {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}

func symlink(t *testing.T, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// Every command, every kind of (output, input) pairing: an output that
// resolves to an input (the same name, another spelling, a symbolic link),
// to another output, to a file a results directory or bench library
// reserves, or a folder of the wrong kind, is refused with exit 2 and one
// line naming it before any work, and nothing on disk changes.
func TestOutputsNeverDestroyInputs(t *testing.T) {
	root := t.TempDir()
	res := passingGauss(t) // a results directory of an older mmds: no marker
	os.Mkdir(filepath.Join(res, "trials"), 0o755)
	lib := filepath.Join(root, "lib")
	os.Mkdir(lib, 0o755)
	writeTestFile(t, lib, report.MarkerFile, "bench-library\n")
	writeTestFile(t, lib, "manifest.json", "{}")
	writeTestFile(t, lib, "manifest.csv", "name\n")
	mine := filepath.Join(root, "mine")
	os.Mkdir(mine, 0o755)
	writeTestFile(t, mine, "notes.txt", "my notes")
	writeTestFile(t, mine, "submit.sh", "#!/bin/sh\necho my own job\n")
	mineLink := symlink(t, mine, filepath.Join(root, "mine-link"))
	jobs := filepath.Join(root, "jobs")
	os.Mkdir(jobs, 0o755)
	writeTestFile(t, jobs, report.MarkerFile, "slurm-jobs\n")
	g := writeTestFile(t, root, "g.json", "{}")
	b := copyFile(t, "../../examples/binary-paper.json", filepath.Join(root, "b.json"))
	f := copyFile(t, "../../examples/finite-ternary.json", filepath.Join(root, "f.json"))
	p := copyFile(t, fixtures+"channel-pass.json", filepath.Join(root, "p.json"))
	pts := writeTestFile(t, root, "points.json", `[{"D": 0.1, "privatizer": "p.json"}]`)
	cert := writeTestFile(t, root, "cert.json", "{}")
	plotDir := filepath.Join(root, "plots")
	os.Mkdir(plotDir, 0o755)
	symlink(t, filepath.Join(res, "results.json"), filepath.Join(plotDir, "figure2.png"))
	gLink := symlink(t, g, filepath.Join(root, "g-link.png"))
	bLink := symlink(t, b, filepath.Join(root, "b-link.mps"))
	fLink := symlink(t, f, filepath.Join(root, "f-link.lp"))
	bmLink := symlink(t, b, filepath.Join(root, "bm-link.png"))
	resLink := symlink(t, filepath.Join(res, "results.json"), filepath.Join(root, "res-link.svg"))
	libLink := symlink(t, filepath.Join(lib, "manifest.csv"), filepath.Join(root, "lib-link.svg"))
	in := func(name string) string { return filepath.Join(root, name) }
	certifyArgs := []string{"certify", "--model", b, "--privatizer", p, "--d", "0.1"}

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"verify --certificate DIR/results.json", []string{"verify", res, "--certificate", filepath.Join(res, "results.json")}, `"results.json" of the results folder DIR`},
		{"verify -o DIR/model.json", []string{"verify", res, "-o", filepath.Join(res, "model.json")}, `"model.json" of the results folder DIR`},
		{"verify --certificate in DIR/trials", []string{"verify", res, "--certificate", filepath.Join(res, "trials", "x.json")}, `"trials" of the results folder DIR`},
		{"verify -o by another spelling", []string{"verify", res, "-o", filepath.Join(res, "trials", "..", ".", "results.json")}, `"results.json" of the results folder`},
		{"verify -o through a link", []string{"verify", res, "-o", resLink}, `"results.json" of the results folder DIR`},
		{"verify -o and --certificate one file", []string{"verify", res, "-o", in("same.txt"), "--certificate", in("same.txt")}, "same file as --certificate"},
		{"verify --certificate onto --check", []string{"verify", res, "--check", cert, "--certificate", cert}, "does not apply with --check"},
		{"verify -o the marker", []string{"verify", res, "-o", filepath.Join(res, report.MarkerFile)}, `".mmds-kind" of the results folder`},
		{"verify a bench library", []string{"verify", lib}, "bench-library folder"},
		{"certify --certificate onto --model", append(certifyArgs, "--certificate", b), "is --model"},
		{"certify -o onto --privatizer", append(certifyArgs, "-o", p), "is --privatizer"},
		{"certify --plot through a link to --model", append(certifyArgs, "--plot", bmLink), "is --model"},
		{"certify -o onto a --points entry", []string{"certify", "--model", b, "--points", pts, "-o", p}, "is --points entry 1"},
		{"certify --certificate onto --points", []string{"certify", "--model", b, "--points", pts, "--certificate", pts}, "is --points"},
		{"certify -o into a results directory", append(certifyArgs, "-o", filepath.Join(res, "results.json")), `"results.json" of the results folder`},
		{"gauss -o onto --config", []string{"gauss", "--config", g, "-o", g}, "is --config"},
		{"gauss --plot through a link to --config", []string{"gauss", "--config", g, "--plot", gLink}, "is --config"},
		{"gauss -o and --plot one file", []string{"gauss", "-o", in("x.png"), "--plot", in("x.png")}, "same file as --output"},
		{"gauss -o a marker", []string{"gauss", "-o", in(report.MarkerFile)}, "marker"},
		{"binary --write-model through a link to --config", []string{"binary", "--config", b, "--d", "0.1", "--write-model", bLink}, "is --config"},
		{"binary --write-model into a library", []string{"binary", "--d", "0.1", "--write-model", filepath.Join(lib, "x.mps")}, "bench-library folder"},
		{"finite --write-model through a link to --config", []string{"finite", "--config", f, "--d", "0.1", "--write-model", fLink}, "is --config"},
		{"plot onto a link into DIR", []string{"plot", res, "--out", plotDir}, `"results.json" of the results folder DIR`},
		{"plot a bench library", []string{"plot", lib}, "bench-library folder"},
		{"train --config DIR/model.json --out DIR", []string{"train", "gauss", "--config", filepath.Join(res, "model.json"), "--out", res}, `"model.json" of the results folder --out`},
		{"train --out a bench library", []string{"train", "gauss", "--preset", "quick", "--out", lib}, "bench-library folder"},
		{"train --out a folder of mine", []string{"train", "gauss", "--preset", "quick", "--out", mine}, "not empty"},
		{"train --out and --slurm one folder", []string{"train", "gauss", "--out", in("new"), "--slurm", in("new")}, "same folder as --out"},
		{"train --slurm a results directory", []string{"train", "gauss", "--out", in("new"), "--slurm", res}, "results folder"},
		{"train --slurm into DIR/points", []string{"train", "gauss", "--out", res, "--slurm", filepath.Join(res, "points")}, `"points" of the results folder`},
		{"train --k8s a folder of mine with its own submit.sh", []string{"train", "gauss", "--out", in("new"), "--k8s", mine, "--k8s-image", "x"}, "not empty"},
		{"train --k8s the working folder", []string{"train", "gauss", "--out", in("new"), "--k8s", ".", "--k8s-image", "x"}, "not empty"},
		{"train --k8s through a link to a folder of mine", []string{"train", "gauss", "--out", in("new"), "--k8s", mineLink, "--k8s-image", "x"}, "not empty"},
		{"train --k8s a Slurm folder", []string{"train", "gauss", "--out", in("new"), "--k8s", jobs, "--k8s-image", "x"}, "slurm-jobs folder"},
		{"train --slurm a folder of mine", []string{"train", "gauss", "--out", in("new"), "--slurm", mineLink}, "not empty"},
		{"bench --json-out a manifest", []string{"bench", "--json-out", filepath.Join(lib, "manifest.json")}, `"manifest.json" of the bench-library folder`},
		{"bench --write-mps a library", []string{"bench", "--write-mps", lib}, "bench-library folder"},
		{"bench --write-mps a results directory", []string{"bench", "--write-mps", res}, "results folder"},
		{"bench --profile and --plot one file", []string{"bench", "--profile", in("s.svg"), "--plot", in("s.svg")}, "same file as --profile"},
		{"bench run --json-out its manifest", []string{"bench", "run", lib, "--json-out", filepath.Join(lib, "manifest.json")}, `"manifest.json" of the bench-library folder DIR`},
		{"bench run --plot through a link into DIR", []string{"bench", "run", lib, "--plot", libLink}, `"manifest.csv" of the bench-library folder DIR`},
		{"bench run a results directory", []string{"bench", "run", res}, "results folder"},
		{"bench library into a results directory", []string{"bench", "library", res}, "results folder"},
		{"bench library into a folder of mine", []string{"bench", "library", mine}, "not empty"},
		{"bench library onto a file", []string{"bench", "library", g}, "not a folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, root, res)
			code, _, errs := runCLI(t, c.args...)
			if code != exitUsage || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 2, one line naming %q", code, errs, c.want)
			}
			if after := snapshot(t, root, res); !reflect.DeepEqual(before, after) {
				t.Errorf("files changed: before %v, after %v", before, after)
			}
		})
	}
}

// -o onto something that is not a regular file is refused before any
// work, and nothing is replaced; onto a link to a regular file it updates
// the file and keeps the link; - is standard output.
func TestOutputTargets(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	dangling := symlink(t, filepath.Join(dir, "nowhere", "x"), filepath.Join(dir, "dangling"))
	toFifo := symlink(t, fifo, filepath.Join(dir, "to-fifo"))
	res := passingGauss(t)
	for _, c := range []struct {
		name, path, want string
	}{
		{"FIFO", fifo, "a named pipe"},
		{"device", os.DevNull, "a character device"},
		{"folder", sub, "a folder"},
		{"dangling link", dangling, "a symbolic link (to nothing)"},
		{"link to a FIFO", toFifo, "a symbolic link (to a named pipe"},
	} {
		for _, args := range [][]string{
			{"gauss", "--d", "1", "-o", c.path},
			{"verify", res, "--certificate", c.path},
			{"bench", "--json-out", c.path},
		} {
			before := snapshot(t, dir)
			code, _, errs := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("%s: %v: exit %d, stderr %q; want exit 2 naming %q", c.name, args, code, errs, c.want)
			}
			if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
				t.Errorf("%s: %v: files changed", c.name, args)
			}
		}
	}
	// A link even to a regular file is refused: mmds never writes through
	// one (see TestPlantedLinkInDir).
	target := writeTestFile(t, dir, "target.txt", "old")
	link := symlink(t, target, filepath.Join(dir, "link.txt"))
	if code, _, errs := runCLI(t, "gauss", "--d", "1", "--format", "csv", "-o", link); code != exitUsage || !strings.Contains(errs, "symbolic link") {
		t.Errorf("-o a link to a regular file: exit %d, %s; want exit 2 naming the link", code, errs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Errorf("the link's target holds %q, want old", b)
	}
	code, out, errs := runCLI(t, "gauss", "--d", "1", "--format", "csv", "-o", "-")
	if code != 0 || !strings.HasPrefix(out, "D,") {
		t.Errorf("-o -: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// A killed run's temporary files are removed by the next run into the
// results directory; a live writer's are not; and the directory gets its
// marker.
func TestTrainRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := runCLI(t, tinyTrain("binary", dir)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if k, err := report.ReadKind(dir); k != report.Results || err != nil {
		t.Fatalf("kind %q, %v", k, err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	// Names as report writes them: .tmp-mmds-PID-HOST-RANDOM-BASE, with
	// this host's tag taken from a write that is stopped half-way.
	var tmp string
	report.WriteFileAtomic(filepath.Join(dir, "x.json"), func(p string) error { tmp = p; return fmt.Errorf("stop") })
	parts := strings.SplitN(filepath.Base(tmp), "-", 5)
	name := func(pid int, base string) string {
		return strings.Join([]string{parts[0], parts[1], fmt.Sprint(pid), parts[3], "42-" + base}, "-")
	}
	stale := []string{filepath.Join(dir, name(dead.Process.Pid, "results.json")), filepath.Join(dir, "trials", name(dead.Process.Pid, "d00_t000.json"))}
	live := []string{filepath.Join(dir, name(os.Getppid(), "results.json")), filepath.Join(dir, "trials", name(os.Getppid(), "d01_t000.json"))}
	for _, p := range append(append([]string{}, stale...), live...) {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errs := runCLI(t, tinyTrain("binary", dir)...); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("stale %s kept", filepath.Base(p))
		}
	}
	for _, p := range live {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("live writer's %s removed", filepath.Base(p))
		}
	}
}

// Attack: the author of a results directory plants figure3.png there as a
// link to a file of the reviewer's; mmds plot DIR writes its figures into
// DIR and wrote through the link, replacing that file. Now exit 2 before
// any work, the file untouched.
func TestPlantedLinkInDir(t *testing.T) {
	res := passingBinary(t)
	victim := writeTestFile(t, t.TempDir(), "notes.txt", "mine")
	symlink(t, victim, filepath.Join(res, "figure3.png"))
	code, _, errs := runCLI(t, "plot", res)
	if code != exitUsage || !strings.Contains(errs, "figure3.png") || !strings.Contains(errs, "symbolic link") {
		t.Errorf("plot into a folder with a planted link: exit %d, stderr %q; want exit 2 naming the link", code, errs)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("the link's target holds %q", b)
	}
}
