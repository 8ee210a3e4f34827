package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func writeString(path, s string) error {
	return WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// Every kind of target: a regular file is replaced (keeping its mode), and
// anything else — a link even to a regular file — is refused with ErrTarget
// and left as it was. Attack: a link planted where mmds writes (mmds plot
// DIR writes figures into the author's DIR) was written through, onto any
// file the user can write.
func TestWriteAtomicTargets(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular.txt")
	if err := os.WriteFile(regular, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked.txt")
	if err := os.WriteFile(linked, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	os.Symlink(linked, link)
	dangling := filepath.Join(dir, "dangling.txt")
	os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling)
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	toFifo := filepath.Join(dir, "to-fifo")
	os.Symlink(fifo, toFifo)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	toDir := filepath.Join(dir, "to-dir")
	os.Symlink(sub, toDir)

	for _, c := range []struct {
		name, path string
		want       string // "" refused
		check      string // the file whose content must be "new"
		perm       os.FileMode
	}{
		{"new file", filepath.Join(dir, "new.txt"), "ok", filepath.Join(dir, "new.txt"), 0o644},
		{"regular file keeps its mode", regular, "ok", regular, 0o600},
		{"link to a regular file", link, "a symbolic link (to a regular file)", "", 0},
		{"dangling link", dangling, "a symbolic link (to nothing)", "", 0},
		{"link to a FIFO", toFifo, "a symbolic link (to a named pipe", "", 0},
		{"FIFO", fifo, "a named pipe", "", 0},
		{"device", os.DevNull, "a character device", "", 0},
		{"folder", sub, "a folder", "", 0},
		{"link to a folder", toDir, "a symbolic link (to a folder)", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := writeString(c.path, "new")
			if c.want != "ok" {
				if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want ErrTarget %q", err, c.want)
				}
				if err := CheckFile(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("CheckFile: %v, want %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(c.check)
			if err != nil || string(b) != "new" {
				t.Fatalf("%s holds %q (%v), want new", c.check, b, err)
			}
			fi, _ := os.Stat(c.check)
			if fi.Mode().Perm() != c.perm {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), c.perm)
			}
		})
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, err := os.ReadFile(linked); err != nil || string(b) != "old" {
		t.Errorf("the link's target holds %q (%v), want old", b, err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("a dangling link's target folder was created")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// Attack: in a folder others can write to, the temporary file's name is
// swapped for a link to a victim file while the output is written. The
// bytes go through the descriptor created with O_EXCL, the swap is noticed
// before the rename, and the victim keeps its bytes and mode.
func TestWriteAtomicTempSwapped(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "out.json")
	err := WriteAtomic(target, func(w io.Writer) error {
		tmps, _ := filepath.Glob(filepath.Join(dir, ".tmp-mmds-*"))
		if len(tmps) != 1 {
			return fmt.Errorf("temporary files %v", tmps)
		}
		os.Remove(tmps[0])
		if err := os.Symlink(victim, tmps[0]); err != nil {
			return err
		}
		_, err := io.WriteString(w, "new")
		return err
	})
	if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("err = %v, want ErrTarget: replaced", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "old" {
		t.Errorf("the victim holds %q", b)
	}
	if fi, _ := os.Stat(victim); fi.Mode().Perm() != 0o600 {
		t.Errorf("the victim's mode is %v", fi.Mode().Perm())
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the target was created")
	}
}

// A long target name still gets a temporary name the file system accepts,
// with the target's extension.
func TestWriteAtomicLongName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, strings.Repeat("n", 200)+".json")
	var tmpName string
	err := WriteFileAtomic(path, func(tmp string) error {
		tmpName = tmp
		return os.WriteFile(tmp, []byte("{}"), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(tmpName) != ".json" {
		t.Errorf("temporary name %s lost the extension", tmpName)
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	pid := cmd.Process.Pid
	if alive(pid) {
		t.Skipf("pid %d was reused", pid)
	}
	return pid
}

// Stale temporary files are removed: a dead writer's of this host, another
// host's and an older mmds's once old; a live writer's never.
func TestRemoveStaleTemps(t *testing.T) {
	dead := deadPID(t)
	old := time.Now().Add(-2 * staleAge)
	for _, c := range []struct {
		name  string
		age   time.Time
		owned bool
		kept  bool
	}{
		{fmt.Sprintf(".tmp-mmds-%d-%s-123-results.json", dead, hostTag()), time.Now(), false, false},
		{fmt.Sprintf(".tmp-mmds-%d-%s-123-results.json", os.Getpid(), hostTag()), old, true, true},
		{fmt.Sprintf(".tmp-mmds-%d-%s-123-results.json", os.Getppid(), hostTag()), old, true, true},
		{fmt.Sprintf(".tmp-mmds-%d-0badc0de-1-x.json", dead), time.Now(), true, true},
		{fmt.Sprintf(".tmp-mmds-%d-0badc0de-1-x.json", dead), old, false, false},
		{".tmp-123456-results.json", old, true, false},
		{".tmp-123456-results.json", time.Now(), true, true},
		{".tmp-123456-results.json", old, false, true},
		{".tmp-notmmds", old, true, true},
		{"results.json", old, true, true},
	} {
		if c.name == fmt.Sprintf(".tmp-mmds-%d-0badc0de-1-x.json", dead) && hostTag() == "0badc0de" {
			continue
		}
		dir := t.TempDir()
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, c.age, c.age)
		if err := RemoveStaleTemps(dir, c.owned); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(path)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s (age %v, owned %v): kept %v, want %v", c.name, time.Since(c.age).Round(time.Minute), c.owned, kept, c.kept)
		}
	}
	// CheckFile removes a dead writer's temporary files of its own target
	// only, in a folder that is the user's.
	dir := t.TempDir()
	mine := filepath.Join(dir, fmt.Sprintf(".tmp-mmds-%d-%s-7-out.json", dead, hostTag()))
	other := filepath.Join(dir, fmt.Sprintf(".tmp-mmds-%d-%s-7-other.json", dead, hostTag()))
	for _, p := range []string{mine, other} {
		os.WriteFile(p, nil, 0o644)
	}
	if err := CheckFile(filepath.Join(dir, "out.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err == nil {
		t.Error("CheckFile kept its target's stale temporary file")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("CheckFile removed another target's temporary file")
	}
	if err := RemoveStaleTemps(filepath.Join(t.TempDir(), "none"), true); err != nil {
		t.Errorf("a missing folder: %v", err)
	}
}

func TestCheckFolder(t *testing.T) {
	mk := func(t *testing.T, files ...string) string {
		dir := t.TempDir()
		for _, f := range files {
			p := filepath.Join(dir, f)
			if strings.HasSuffix(f, "/") {
				os.MkdirAll(p, 0o755)
				continue
			}
			os.MkdirAll(filepath.Dir(p), 0o755)
			body := ""
			if f == MarkerFile {
				body = "results\n"
			}
			os.WriteFile(p, []byte(body), 0o644)
		}
		return dir
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		name string
		dir  string
		k    Kind
		want error
	}{
		{"missing", filepath.Join(t.TempDir(), "new", "dir"), Results, nil},
		{"empty", mk(t), Results, nil},
		{"marked", mk(t, MarkerFile, "results.json"), Results, nil},
		{"marked as another kind", mk(t, MarkerFile), BenchLibrary, ErrKind},
		{"older results directory", mk(t, "model.json", "results.json", "figure2.png"), Results, nil},
		{"older results directory, trials only", mk(t, "model.json", "trials/"), Results, nil},
		{"older results directory as a library", mk(t, "model.json", "results.json"), BenchLibrary, ErrKind},
		{"older library as results", mk(t, "manifest.json", "manifest.csv", "a.mps"), Results, ErrKind},
		{"foreign content", mk(t, "notes.txt"), Results, ErrKind},
		{"model.json alone", mk(t, "model.json"), Results, ErrKind},
		{"a file", file, Results, ErrTarget},
		{"only a concurrent writer's temporary file", mk(t, fmt.Sprintf(".tmp-mmds-%d-%s-1-.mmds-kind", os.Getpid(), hostTag())), Results, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckFolder(c.dir, c.k)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("CheckFolder = %v, want %v", err, c.want)
			}
		})
	}
	bad := mk(t)
	os.WriteFile(filepath.Join(bad, MarkerFile), []byte("something-else\n"), 0o644)
	if _, err := ReadKind(bad); !errors.Is(err, ErrKind) {
		t.Errorf("unknown marker: %v", err)
	}
}

func TestPrepareFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "lib")
	if err := PrepareFolder(dir, BenchLibrary); err != nil {
		t.Fatal(err)
	}
	if k, err := ReadKind(dir); k != BenchLibrary || err != nil {
		t.Fatalf("kind %q, %v", k, err)
	}
	if err := PrepareFolder(dir, BenchLibrary); err != nil {
		t.Errorf("again: %v", err)
	}
	if err := PrepareFolder(dir, Results); !errors.Is(err, ErrKind) {
		t.Errorf("as results: %v, want ErrKind", err)
	}
	// An older results directory is adopted: it gets its marker.
	old := t.TempDir()
	os.WriteFile(filepath.Join(old, "model.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(old, "results.json"), []byte("{}"), 0o644)
	if err := PrepareFolder(old, Results); err != nil {
		t.Fatal(err)
	}
	if k, _ := ReadKind(old); k != Results {
		t.Errorf("adopted folder's kind %q", k)
	}
}

func TestQuote(t *testing.T) {
	if q := Quote("a\nb"); q != `"a\nb"` {
		t.Errorf("Quote = %s", q)
	}
	if q := Quote(strings.Repeat("x", 500)); len(q) > 90 {
		t.Errorf("Quote of 500 bytes is %d long", len(q))
	}
}

// A marker holds a known kind or is refused with ErrKind, whatever its
// bytes.
func FuzzReadKind(f *testing.F) {
	for _, s := range []string{"results\n", "bench-library", " slurm-jobs \n", "", "results\nmore", "\x00", strings.Repeat("r", 100)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, MarkerFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		k, err := ReadKind(dir)
		switch {
		case err == nil && !known(k):
			t.Errorf("ReadKind(%q) = %q, not a known kind", b, k)
		case err != nil && !errors.Is(err, ErrKind):
			t.Errorf("ReadKind(%q): %v, want ErrKind", b, err)
		case err != nil && len(err.Error()) > 400:
			t.Errorf("ReadKind(%q): a %d-byte message", b, len(err.Error()))
		}
	})
}

// A bench library reserves its instance files (plain and gzipped), its
// manifests, its .solu file, its benchmark set list and its metadata;
// nothing else.
func TestBenchLibraryReservedNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"manifest.json", true}, {"manifest.csv", true}, {"mmds.solu", true}, {"benchmark.test", true}, {"metadata.csv", true},
		{"fin-n2-k1-i0-d0.25-global.mps", true}, {"fin-n2-k1-i0-d0.25-global.mps.gz", true}, {MarkerFile, true},
		{"runs.json", false}, {"profile.svg", false}, {"notes.txt", false},
	} {
		if got := Reserved(BenchLibrary, tc.name); got != tc.want {
			t.Errorf("Reserved(bench-library, %q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Shards that start at once prepare one results folder concurrently: each
// marks it (or finds it marked) and then writes its own files. None may
// find the folder "not empty and unmarked" between another's marker and
// its first file.
func TestPrepareFolderConcurrent(t *testing.T) {
	for trial := range 200 {
		dir := filepath.Join(t.TempDir(), "run")
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				if errs[i] = PrepareFolder(dir, Results); errs[i] == nil {
					errs[i] = os.WriteFile(filepath.Join(dir, fmt.Sprintf(".lock-shard-%d", i)), nil, 0o644)
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("trial %d, writer %d: %v", trial, i, err)
			}
		}
	}
}
