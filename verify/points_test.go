package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParsePoints(t *testing.T) {
	for _, tc := range []struct {
		name, path, in string
		want           []Entry // nil: an error wrapping ErrPoints
		msg            string  // in the error
	}{
		{"json", "dir/pts.json", `[{"D": 0.1, "privatizer": "p.onnx"}, {"D": 0, "privatizer": "sub/../q.csv"}]`,
			[]Entry{{0.1, "dir/p.onnx", `--points entry 1 ("p.onnx")`, "dir", "p.onnx"}, {0, "dir/q.csv", `--points entry 2 ("sub/../q.csv")`, "dir", "q.csv"}}, ""},
		{"csv", "dir/pts.CSV", "0.25, p.csv\n", []Entry{{0.25, "dir/p.csv", `--points entry 1 ("p.csv")`, "dir", "p.csv"}}, ""},
		{"absolute", "dir/pts.json", `[{"D": 0.1, "privatizer": "/etc/passwd"}]`, nil, `entry 1: privatizer "/etc/passwd" is absolute: a list names files in its own folder`},
		{"dot-dot", "dir/pts.json", `[{"D": 0.1, "privatizer": "sub/../../secret.json"}]`, nil, `entry 1: privatizer "sub/../../secret.json" leaves its folder`},
		{"empty list", "pts.json", `[]`, nil, "0 entries: must be in [1, 10000]"},
		{"unknown field", "pts.json", `[{"D": 0.1, "privatizer": "p", "x": 1}]`, nil, "not a JSON list"},
		{"csv fields", "pts.csv", "0.1,a,b\n", nil, "row 1 has 3 fields, want 2"},
		{"csv D", "pts.csv", "x,a\n", nil, "row 1: D \"x\" is not a number"},
		{"no file", "pts.json", `[{"D": 0.1}]`, nil, "entry 1 has no privatizer file"},
		{"control", "pts.json", `[{"D": 0.1, "privatizer": "a\u0007b"}]`, nil, "control or non-printable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePoints([]byte(tc.in), tc.path)
			if tc.want == nil {
				if !errors.Is(err, ErrPoints) || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), tc.path+": ") {
					t.Fatalf("error %v, want ErrPoints naming %s and %q", err, tc.path, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("entry %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestReadInputsRejectsBadD(t *testing.T) {
	_, err := ReadInputs(context.Background(), []Entry{{D: -1, Privatizer: "p", Name: "p"}}, 0)
	if !errors.Is(err, ErrPoints) || !strings.Contains(err.Error(), "D = -1 (privatizer p)") {
		t.Fatalf("error %v", err)
	}
}

// FuzzParsePoints feeds arbitrary points lists, as JSON and as CSV: an
// error wrapping ErrPoints or entries that each name a printable file,
// never a panic.
func FuzzParsePoints(f *testing.F) {
	f.Add([]byte(`[{"D": 0.1, "privatizer": "p.onnx"}]`))
	f.Add([]byte("0.1,p.csv\n"))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, name := range []string{"pts.json", "pts.csv"} {
			ps, err := ParsePoints(b, filepath.Join("lists", name))
			if err != nil {
				if !errors.Is(err, ErrPoints) {
					t.Fatalf("%s: error %v does not wrap ErrPoints", name, err)
				}
				continue
			}
			if len(ps) == 0 || len(ps) > MaxListPoints {
				t.Fatalf("%s: %d entries", name, len(ps))
			}
			for _, p := range ps {
				if p.Privatizer == "" || p.Name == "" {
					t.Fatalf("%s: entry %+v", name, p)
				}
			}
		}
	})
}

func TestReadPointsHonoursContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pts.json")
	if err := os.WriteFile(p, []byte(`[{"D": 0.1, "privatizer": "p"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadPoints(ctx, p); err == nil {
		t.Error("read under a cancelled context")
	}
}

func TestReferenceText(t *testing.T) {
	for _, r := range []Reference{ReferencePaper, ReferenceBest} {
		b, err := r.MarshalText()
		var back Reference
		if err != nil || back.UnmarshalText(b) != nil || back != r {
			t.Errorf("%v: %q, %v, back %v", r, b, err, back)
		}
	}
	var r Reference
	if err := r.UnmarshalText([]byte("worst")); !errors.Is(err, ErrReference) {
		t.Errorf("worst: %v, want ErrReference", err)
	}
	if _, err := Reference(0).MarshalText(); !errors.Is(err, ErrReference) {
		t.Errorf("Reference(0): %v, want ErrReference", err)
	}
	if err := (Tolerances{TestSize: 1}).Validate(); err == nil {
		t.Error("Validate accepted tolerances without a reference")
	}
}

// compactKernel writes a kernel file of n cells and m labels, one
// (label, 1) pair a row (a few bytes a row, 8m bytes a row once read);
// first is its first edge, so that files of different first edges differ.
func compactKernel(t *testing.T, dir, name string, n, m int, first float64) string {
	var b strings.Builder
	b.WriteString(`{"kernel": {"edges": [`)
	for i := range n - 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%g", first+float64(i)*0.01)
	}
	fmt.Fprintf(&b, `], "prob": {"labels": %d, "rows": [`, m)
	for j := range n {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d, 1]", j%m)
	}
	b.WriteString("]}}}")
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The memory budget counts bytes of what will be allocated, before the
// work: a compact kernel table counts as the dense table it becomes
// (1025 cells × 512 labels: 4 MiB read, from 13 kB of file), a list that
// names one file many times holds it once, a file that would cross the
// budget is refused before it is parsed, naming the entry, and the work of
// the largest certificates counts once per worker.
func TestMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	const n, m = 1025, 512
	k1 := compactKernel(t, dir, "k1.json", n, m, -5)
	k2 := compactKernel(t, dir, "k2.json", n, m, -6)
	k3 := compactKernel(t, dir, "k3.json", n, m, -7)
	entries := func(paths ...string) []Entry {
		var es []Entry
		for i, p := range paths {
			es = append(es, Entry{D: 2, Privatizer: p, Name: fmt.Sprintf("entry %d", i+1)})
		}
		return es
	}
	const mib = 1 << 20
	for _, tc := range []struct {
		name    string
		es      []Entry
		limit   int64 // over the base
		workers int
		want    string // "" fits; else the refusal names it
		atRead  bool   // refused while reading, before the file is parsed
	}{
		{"one kernel", entries(k1), 30 * mib, 1, "", false},
		{"named three times, held once", entries(k1, k1, k1), 30 * mib, 1, "", false},
		{"three files, two fit before the work", entries(k1, k2, k3), 10 * mib, 1, "the privatizers up to entry 3", true},
		{"three files and their work", entries(k1, k2, k3), 30 * mib, 1, "of work for 1 of them at once", false},
		{"one file three times, three workers", entries(k1, k1, k1), 30 * mib, 3, "of work for 3 of them at once", false},
		{"one file three times, three workers, room for it", entries(k1, k1, k1), 80 * mib, 3, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit := baseMemory + tc.limit
			in, err := ReadInputs(t.Context(), tc.es, limit)
			if err == nil {
				err = CheckMemory(in, tc.workers, limit)
			} else if !tc.atRead {
				t.Fatalf("refused while reading: %v", err)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%v; want it to fit", err)
			case tc.want != "" && (!errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%v; want ErrMemory naming %q", err, tc.want)
			}
			if tc.want == "" && len(in) == 3 && in[0].File.Kernel == in[2].File.Kernel {
				t.Errorf("entries share one Kernel value: their names would be one")
			}
		})
	}
	if got := kernelWork(n, m); got < 20*mib || got > 30*mib {
		t.Errorf("kernelWork(%d, %d) = %s", n, m, Bytes(got))
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64 // 0: an error
	}{
		{"1GiB", 1 << 30}, {"768MiB", 768 << 20}, {"2TiB", 2 << 40}, {"1GB", 1e9}, {"67108864B", 64 << 20},
		{"1", 0}, {"1 GiB", 0}, {"1.5GiB", 0}, {"-1GiB", 0}, {"GiB", 0}, {"1gib", 0}, {"1Gi", 0},
		{"63MiB", 0}, {"2048TiB", 0}, {"99999999999999999999GiB", 0}, {"", 0},
	} {
		got, err := ParseBytes(c.in)
		if c.want == 0 && err == nil || c.want != 0 && (err != nil || got != c.want) {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		n    int64
		want string
	}{{1 << 30, "1GiB"}, {3<<30 + 1, "4GiB"}, {1000, "1000B"}, {1536 << 20, "2GiB"}} {
		if got := Bytes(c.n); got != c.want {
			t.Errorf("Bytes(%d) = %s, want %s", c.n, got, c.want)
		}
	}
}
