package safefile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.json")
	if err := os.WriteFile(reg, []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string // want: the contents, or a piece of the error
		max        int64
		ok         bool
	}{
		{reg, `{"a": 1}`, 100, true},
		{link, `{"a": 1}`, 100, true}, // symlinks to regular files are followed
		{empty, ``, 100, true},
		{reg, `has 8 bytes, more than the 7 allowed`, 7, false},
		{fifo, `is a named pipe (FIFO), not a regular file`, 100, false},
		{dir, `is a folder, not a regular file`, 100, false},
		{"/dev/zero", `is a character device, not a regular file`, 100, false},
		{filepath.Join(dir, "none"), `does not exist`, 100, false},
	} {
		start := time.Now()
		b, err := Read(context.Background(), c.path, c.max)
		if time.Since(start) > time.Second {
			t.Errorf("%s: took %v", c.path, time.Since(start))
		}
		switch {
		case c.ok && (err != nil || string(b) != c.want):
			t.Errorf("%s: got %q, %v; want %q", c.path, b, err, c.want)
		case !c.ok && (err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path)):
			t.Errorf("%s: got %v; want an ErrInput naming the path and containing %q", c.path, err, c.want)
		}
	}
}

// TestReadFIFOWithWriter: a FIFO that a writer keeps open (and could serve
// twice, differently) is refused before a byte is read.
func TestReadFIFOWithWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // O_RDWR does not block on a FIFO
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	go w.Write([]byte(strings.Repeat("x", 100)))
	if _, err := Read(context.Background(), fifo, 1<<20); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("got %v; want a FIFO refused", err)
	}
}

func TestReadMissing(t *testing.T) {
	_, err := Read(context.Background(), filepath.Join(t.TempDir(), "none"), 10)
	if !errors.Is(err, ErrInput) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v; want ErrInput and fs.ErrNotExist", err)
	}
}

func TestReadCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, p, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want context.Canceled", err)
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("s3cr3t", 40)
	for _, c := range []struct{ in, want string }{
		{"abc", `"abc"`},
		{"a\x00b\n", `"a\x00b\n"`},
		{"é", `"\u00e9"`},
		{long, `"` + long[:MaxExcerpt] + `"…`},
		{strings.Repeat("é", 50), `"` + strings.Repeat(`\u00e9`, MaxExcerpt) + `"…`},
		{strings.Repeat("a", MaxExcerpt), `"` + strings.Repeat("a", MaxExcerpt) + `"`},
		{strings.Repeat("a", MaxExcerpt) + "…", `"` + strings.Repeat("a", MaxExcerpt) + `"…`},
	} {
		if got := Excerpt(c.in); got != c.want {
			t.Errorf("Excerpt(%.20q…) = %s; want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{{"abcdef", 3, "abc…"}, {"abc", 3, "abc"}, {"éé\xffé", 3, "éé\xff…"}, {"", 0, ""}, {"a", 0, "…"}} {
		if got := Cut(c.in, c.max); got != c.want {
			t.Errorf("Cut(%q, %d) = %q; want %q", c.in, c.max, got, c.want)
		}
	}
	if got, want := ExcerptList([]string{"x", "r", long, "a", "b"}), `["x" "r" "`+long[:MaxExcerpt]+`"… "a" …]`; got != want {
		t.Errorf("ExcerptList = %s; want %s", got, want)
	}
}

// Printable and Path escape what would act on a terminal (escape
// sequences, a newline that forges a line, bidirectional overrides,
// invalid UTF-8) and leave printable text, Unicode included, as it is.
func TestPrintableAndPath(t *testing.T) {
	for _, tc := range []struct{ in, printable, path string }{
		{"plain/p1.onnx", "plain/p1.onnx", "plain/p1.onnx"},
		{"D̂ ≥ 0 …", "D̂ ≥ 0 …", "D̂ ≥ 0 …"},
		{"f\x1b[1A\x1b[2Kok.json", `f\x1b[1A\x1b[2Kok.json`, `"f\x1b[1A\x1b[2Kok.json"`},
		{"a\nmmds: certification passed", `a\nmmds: certification passed`, `"a\nmmds: certification passed"`},
		{"x\u202eg.json", `x\u202eg.json`, `"x\u202eg.json"`},
		{"bad\xffutf8", `bad\xffutf8`, `"bad\xffutf8"`},
	} {
		if got := Printable(tc.in); got != tc.printable {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.printable)
		}
		if got := Path(tc.in); got != tc.path {
			t.Errorf("Path(%q) = %q, want %q", tc.in, got, tc.path)
		}
	}
}

// TestReadIn: a name written in another file is read inside that file's
// folder; every way out of it (absolute, "..", a symbolic link at any
// element, a dangling link) is refused with ErrOutside before a byte of
// the target is read, and a link that stays inside is followed.
func TestReadIn(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "d")
	secret := filepath.Join(top, "secret.json")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write(secret, "SECRET")
	write(filepath.Join(dir, "a.json"), "A")
	write(filepath.Join(dir, "sub", "b.json"), "B")
	link("a.json", filepath.Join(dir, "in.json"))
	link(secret, filepath.Join(dir, "out.json"))
	link("../secret.json", filepath.Join(dir, "rel-out.json"))
	link(top, filepath.Join(dir, "up"))
	link(filepath.Join(top, "none.json"), filepath.Join(dir, "dangling.json"))
	link("sub", filepath.Join(dir, "inner"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, c := range []struct {
		name, want  string // want: the contents, or a piece of the error
		outside, ok bool
	}{
		{"a.json", "A", false, true},
		{"sub/b.json", "B", false, true},
		{"sub/../a.json", "A", false, true},
		{"in.json", "A", false, true},      // a link inside the folder
		{"inner/b.json", "B", false, true}, // a folder link inside the folder
		{"out.json", "symbolic link out of its folder", true, false},
		{"rel-out.json", "symbolic link out of its folder", true, false},
		{"up/secret.json", "symbolic link out of its folder", true, false},
		{"dangling.json", "symbolic link out of its folder", true, false},
		{"../secret.json", "leaves its folder", true, false},
		{"sub/../../secret.json", "leaves its folder", true, false},
		{secret, "is absolute", true, false},
		{"", "plain relative file name", false, false},
		{"a\x1b[2J.json", "plain relative file name", false, false},
		{"fifo", "is a named pipe (FIFO), not a regular file", false, false},
		{"none.json", "does not exist", false, false},
		{"sub", "is a folder, not a regular file", false, false},
	} {
		b, err := ReadIn(context.Background(), dir, c.name, Excerpt(c.name), 100)
		switch {
		case c.ok && (err != nil || string(b) != c.want):
			t.Errorf("%q: got %q, %v; want %q", c.name, b, err, c.want)
		case !c.ok && (err == nil || !errors.Is(err, ErrInput) || errors.Is(err, ErrOutside) != c.outside ||
			!strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "SECRET") || strings.ContainsRune(err.Error(), 0x1b)):
			t.Errorf("%q: got %v; want an ErrInput (outside %v) containing %q", c.name, err, c.outside, c.want)
		}
	}
}

// A file that a writer renames into place while ReadIn looks at it is read,
// or not found: never taken for a link out of its folder (shards of one run
// read each other's records as they are written).
func TestReadInWhileRenamed(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(dir, fmt.Sprintf(".tmp%d", i))
			if err := os.WriteFile(tmp, []byte("{}"), 0o644); err != nil {
				t.Error(err)
				return
			}
			if i%2 == 0 {
				os.Remove(filepath.Join(dir, "d01.json"))
			}
			if err := os.Rename(tmp, filepath.Join(dir, "d01.json")); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 5000 {
		_, err := ReadIn(context.Background(), dir, "d01.json", "d01.json", 100)
		if errors.Is(err, ErrOutside) {
			t.Errorf("a file renamed into place: %v", err)
			break
		}
	}
	close(stop)
	<-done
}

// TestReadMine: ReadMine reads only a single-named regular file of the user
// running it, never through a symbolic link.
func TestReadMine(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.json")
	if err := os.WriteFile(mine, []byte("ok"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked.json")
	if err := os.WriteFile(linked, []byte("ok"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(linked, filepath.Join(dir, "second")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want error // nil: read
	}{
		{mine, nil},
		{link, syscall.ELOOP},
		{linked, ErrHardLink},
		{filepath.Join(dir, "none"), fs.ErrNotExist},
	}
	if os.Getuid() == 0 { // only root can give a file to another user
		other := filepath.Join(dir, "other.json")
		if err := os.WriteFile(other, []byte("ok"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			path string
			want error
		}{other, ErrNotMine})
	}
	for _, c := range cases {
		b, err := ReadMine(context.Background(), c.path, 100)
		switch {
		case c.want == nil && (err != nil || string(b) != "ok"):
			t.Errorf("%s: got %q, %v; want its contents", c.path, b, err)
		case c.want != nil && (!errors.Is(err, ErrInput) || !errors.Is(err, c.want)):
			t.Errorf("%s: got %v; want an ErrInput wrapping %v", c.path, err, c.want)
		}
	}
}

// TestSHA256: FIPS 180-2's test vectors.
func TestSHA256(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	} {
		if got := SHA256([]byte(c.in)); got != c.want {
			t.Errorf("SHA256(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
