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
	_, err := ReadInputs(context.Background(), []Entry{{D: -1, Privatizer: "p", Name: "p"}})
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

// A list naming one file many times holds every copy in memory before any
// work: past the budget it is refused, naming the entry that crossed it.
func TestReadInputsBudget(t *testing.T) {
	path := filepath.Join("..", "examples", "certify", "channel-pass.json")
	es := make([]Entry, 10)
	for i := range es {
		es[i] = Entry{D: 0.15, Privatizer: path, Name: fmt.Sprintf("entry %d", i+1)}
	}
	if _, err := readInputs(t.Context(), es, 40); err != nil {
		t.Fatalf("10 channels of 4 numbers within 40: %v", err)
	}
	_, err := readInputs(t.Context(), es, 39)
	if !errors.Is(err, ErrPoints) || !strings.Contains(err.Error(), "entry 10") {
		t.Errorf("past the budget: %v, want ErrPoints naming entry 10", err)
	}
}
