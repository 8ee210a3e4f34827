package privatizer

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/gauss"
)

// A kernel file reads strictly, is detected by its key, and writes back
// as the same numbers bit for bit.
func TestParseKernelJSON(t *testing.T) {
	in := `{"kernel": {"edges": [-0.1, 0.30000000000000004, 1e300], "prob": [[1, 0], [0.1, 0.9], [0.7, 0.3], [0, 1]], "reveal": 0.2}}`
	f, err := ParseNamed([]byte(in), "k.json", "k.json")
	if err != nil || f.Format != FormatKernelJSON || f.Kernel == nil || f.Channel != nil || f.Network != nil {
		t.Fatalf("Parse: %+v, %v", f, err)
	}
	k := f.Kernel
	if k.Name != "k.json" || k.Reveal != 0.2 || k.Edges[1] != 0.30000000000000004 || k.Prob[1][1] != 0.9 {
		t.Fatalf("kernel %+v", *k)
	}
	var buf bytes.Buffer
	if err := f.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ParseKernelJSON(&buf, "back.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Edges, k.Edges) || back.Reveal != k.Reveal || !slices.EqualFunc(back.Prob, k.Prob, slices.Equal) {
		t.Errorf("written and read back: %+v, want %+v", *back, *k)
	}
	// λ = 0 may be left out.
	if k, err := ParseKernelJSON(strings.NewReader(`{"kernel": {"edges": [], "prob": [[0.5, 0.5]]}}`), "z.json"); err != nil || k.Reveal != 0 {
		t.Errorf("no reveal: %v, %v", k, err)
	}
}

// The compact form of "prob" reads as the dense form of the same table,
// bit for bit; a kernel whose compact form is shorter is written compact and
// reads back as itself.
func TestParseKernelJSONCompact(t *testing.T) {
	dense, err := ParseKernelJSON(strings.NewReader(`{"kernel": {"edges": [0, 4, 8], "prob": [[1, 0, 0], [0.25, 0, 0.75], [0, 1e-7, 0.9999999], [0, 0, 1]], "reveal": 0.125}}`), "d.json")
	if err != nil {
		t.Fatal(err)
	}
	compact, err := ParseKernelJSON(strings.NewReader(`{"kernel": {"edges": [0, 4, 8], "prob": {"labels": 3, "rows": [[0, 1], [0, 0.25, 2, 0.75], [1, 1e-7, 2, 0.9999999], [2, 1]]}, "reveal": 0.125}}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(dense.Prob, compact.Prob, slices.Equal) || len(compact.Prob[3]) != 3 {
		t.Fatalf("compact %v, dense %v", compact.Prob, dense.Prob)
	}
	// docs/certify.md's example in both forms.
	var ex [2]*Kernel
	for i, name := range []string{"kernel.json", "kernel-compact.json"} {
		b, err := os.ReadFile(filepath.Join("..", "examples", "certify", name))
		if err != nil {
			t.Fatal(err)
		}
		if ex[i], err = ParseKernelJSON(bytes.NewReader(b), name); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.EqualFunc(ex[0].Prob, ex[1].Prob, slices.Equal) || !slices.Equal(ex[0].Edges, ex[1].Edges) || ex[0].Reveal != ex[1].Reveal {
		t.Errorf("examples/certify: kernel.json %+v, kernel-compact.json %+v", *ex[0], *ex[1])
	}
	// The fine grid's labelling j ↦ j mod 7 on 40 cells.
	k := &Kernel{Name: "periodic", Kernel: gauss.Kernel{Edges: make([]float64, 39), Prob: make([][]float64, 40)}}
	for j := range k.Prob {
		if j < len(k.Edges) {
			k.Edges[j] = float64(j) / 4
		}
		k.Prob[j] = make([]float64, 7)
		k.Prob[j][j%7] = 1
	}
	var buf bytes.Buffer
	if err := k.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"prob":{"labels":7,"rows":[[0,1],[1,1],`) {
		t.Errorf("written as %.200s…: want the compact form", buf.String())
	}
	back, err := ParseKernelJSON(&buf, "back.json")
	if err != nil || !slices.EqualFunc(back.Prob, k.Prob, slices.Equal) || !slices.Equal(back.Edges, k.Edges) {
		t.Errorf("read back %v, %v", back, err)
	}
}

// Every malformed kernel file is an error wrapping ErrInput that names
// the file and the problem.
func TestParseKernelJSONBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{}`, `"kernel" is missing`},
		{`{"kernel": null}`, `"kernel" is missing`},
		{`{"kernel": {"edges": [0]}}`, `"prob" is missing`},
		{`{"kernel": {"edges": [0], "prob": [[1], [1]], "extra": 1}}`, `"extra"`},
		{`{"KERNEL": {"edges": [0], "prob": [[1], [1]]}}`, `KERNEL`},
		{`{"kernel": {"edges": [0], "prob": [[1], [1]]}, "channel": [[1]]}`, `"channel"`},
		{`{"kernel": {"edges": [0], "edges": [1], "prob": [[1], [1]]}}`, `edges`},
		{`{"kernel": {"edges": [0], "prob": [[1], [1]], "reveal": 1}}`, `"reveal" = 1: must be in [0, 1)`},
		{`{"kernel": {"edges": [0], "prob": [[1], [1]], "reveal": -0.5}}`, `"reveal" = -0.5`},
		{`{"kernel": {"edges": [0], "prob": [[1], [1]], "reveal": NaN}}`, `NaN and Infinity are not JSON`},
		{`{"kernel": {"edges": [1, 0], "prob": [[1], [1], [1]]}}`, `edges[1] = 0 not above`},
		{`{"kernel": {"edges": [0, 1], "prob": [[1], [1]]}}`, `2 edges and 2 rows`},
		{`{"kernel": {"edges": [0], "prob": [[1], [0.5]]}}`, `row 1 sums to 0.5`},
		{`{"kernel": {"edges": [0], "prob": [[1], [1.5, -0.5]]}}`, `row 1 has a negative`},
		{`{"kernel": {"edges": [0], "prob": [[1, 0], [1]]}}`, `row 1 sums to 1 with 1 labels`},
		{`{"kernel": {"edges": [0], "prob": [[], []]}}`, `want rows = edges + 1`},
		{`{"kernel": {"edges": "0", "prob": [[1], [1]]}}`, `edges`},
		// The compact form (docs/certify.md, "Cell kernel"): its own
		// checks as it is read, then the same checks as the dense form.
		{`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[0, 1], [1, 0.5]]}}}`, `row 1 sums to 0.5`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[0, 1]]}}}`, `1 edges and 1 rows`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[0, 1], [2, 1]]}}}`, `"prob": row 1: label 2: want a whole number in [0, 2)`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[0, 1], [1, 0.5, 1, 0.5]]}}}`, `label 1 after label 1`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[0, 1], [0, 0, 1, 1]]}}}`, `probability 0: want a finite number > 0`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[0, 1], []]}}}`, `row 1 has 0 numbers`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 5000, "rows": [[0, 1], [0, 1]]}}}`, `"labels" = 5000: want 1 to 4096`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[0, 1], [1, 1]], "cols": 2}}}`, `unknown field "cols"`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[0, 1], [1, 1]], "rows": []}}}`, `key "rows" appears twice`},
		{`{"kernel": {"edges": [0], "prob": {"labels": 2}}}`, `"rows" is missing`},
	} {
		_, err := ParseKernelJSON(strings.NewReader(c.in), "bad.json")
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: %v; want ErrInput naming bad.json with %q", c.in, err, c.want)
		}
	}
	// Infinite edges cannot be spelled in JSON, but a Kernel built in Go
	// is checked too.
	k := &Kernel{Name: "go", Kernel: gauss.Kernel{Edges: []float64{math.Inf(-1)}, Prob: [][]float64{{1}, {1}}}}
	if err := k.Validate(); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "edges[0]") {
		t.Errorf("infinite edge: %v", err)
	}
}

// The kernel parser never panics; what it accepts is valid and writes back
// to a file that reads as the same kernel.
func FuzzParseKernelJSON(f *testing.F) {
	for _, s := range []string{
		`{"kernel": {"edges": [0, 4, 8], "prob": [[1, 0], [0.25, 0.75], [0.75, 0.25], [0, 1]], "reveal": 0.125}}`,
		`{"kernel": {"edges": [], "prob": [[1]]}}`,
		`{"kernel": {"edges": [1, 0], "prob": [[1], [1], [1]]}}`,
		`{"kernel": {"edges": [0], "prob": [[1], [1]], "reveal": 1}}`,
		`{"kernel": null}`, `{}`, `{"kernel": {"prob": [[1]]}, "kernel": 1}`, `[`,
		`{"kernel": {"edges": [0, 4], "prob": {"labels": 3, "rows": [[0, 1], [1, 0.25, 2, 0.75], [2, 1]]}}}`,
		`{"kernel": {"edges": [0], "prob": {"labels": 2, "rows": [[1, 1], [0, 1]]}, "reveal": 0.5}}`,
		`{"kernel": {"edges": [], "prob": {"labels": 1, "rows": [[0, 1]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseKernelJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error does not wrap ErrInput: %v", err)
			}
			return
		}
		if err := k.Validate(); err != nil {
			t.Fatalf("accepted an invalid kernel: %v", err)
		}
		var buf bytes.Buffer
		if err := k.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ParseKernelJSON(&buf, "back.json")
		if err != nil {
			t.Fatalf("written kernel does not read back: %v", err)
		}
		if !slices.Equal(back.Edges, k.Edges) || back.Reveal != k.Reveal || !slices.EqualFunc(back.Prob, k.Prob, slices.Equal) {
			t.Fatalf("read back %+v, want %+v", *back, *k)
		}
	})
}
