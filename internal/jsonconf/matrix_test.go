package jsonconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// matrixFile is a kernel file's "prob" field, decoded as mmds decodes every input
// (jsonconf).
type matrixFile struct {
	Prob Matrix `json:"prob"`
}

// periodic returns the labelling j ↦ j mod p on n cells: one nonzero per
// row, the fine grid's kernel (docs/learn.md).
func periodic(n, p int) Matrix {
	t := make(Matrix, n)
	for j := range t {
		t[j] = make([]float64, p)
		t[j][j%p] = 1
	}
	return t
}

// sameBits reports whether a and b hold the same float64s bit for bit, in
// the same shape (nil and empty differ).
func sameBits(a, b Matrix) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for j := range a {
		if len(a[j]) != len(b[j]) {
			return false
		}
		for l := range a[j] {
			if math.Float64bits(a[j][l]) != math.Float64bits(b[j][l]) {
				return false
			}
		}
	}
	return true
}

// TestMatrixRoundTrip: every table reads back bit for bit from what
// MarshalJSON writes, in the form the rule picks (compact only when shorter
// and exact), and writes again as the same bytes; the dense form is
// encoding/json's of [][]float64, byte for byte.
func TestMatrixRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name    string
		t       Matrix
		compact bool
	}{
		{"periodic labelling 566 × 295", periodic(566, 295), true},
		{"one-hot rows of 4 labels", periodic(8, 4), true},
		{"one-hot rows of 2 labels are shorter dense", periodic(4, 2), false},
		{"docs/certify.md's example", Matrix{{1, 0}, {0.25, 0.75}, {0.75, 0.25}, {0, 1}}, false},
		{"a full row is shorter dense", Matrix{{0.1, 0.2, 0.7}}, false},
		{"one label", Matrix{{1}, {1}}, false},
		{"sparse, shortest decimals and exponents", Matrix{
			{0, 0, 0, 0, 0.1 + 0.2, 0, 0, 0, 0, 1 - (0.1 + 0.2)},
			{5e-324, 0, 0, 0, 0, 0, 0, 0, 0, 1 - 5e-324},
			{0, 0, 0, 1e-7, 0, 0, 0, 0, 0, 1 - 1e-7},
			{0, 0, 0, 0, 0, 0, 0, 0, 0, math.Nextafter(1, 0)},
		}, true},
		{"−0 stays dense", Matrix{{1, 0, 0, 0, 0, 0, 0, 0, 0, math.Copysign(0, -1)}}, false},
		{"a zero row stays dense", Matrix{{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0}}, false},
		{"ragged rows stay dense", Matrix{{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {1}}, false},
		{"a negative entry stays dense", Matrix{{2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0}}, false},
		{"rows of no labels", Matrix{{}, {}}, false},
		{"no rows", Matrix{}, false},
		{"nil: the whole field null, the absent table", nil, false},
	} {
		b, err := json.Marshal(matrixFile{c.t})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := bytes.Contains(b, []byte(`"labels"`)); got != c.compact {
			t.Errorf("%s: compact %v, want %v: %.80s", c.name, got, c.compact, b)
		}
		if !c.compact {
			want, _ := json.Marshal(struct {
				Prob [][]float64 `json:"prob"`
			}{c.t})
			if !bytes.Equal(b, want) {
				t.Errorf("%s: dense form %.80s, want encoding/json's %.80s", c.name, b, want)
			}
		}
		var back matrixFile
		if err := Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v reading %.80s", c.name, err, b)
		}
		if !sameBits(back.Prob, c.t) {
			t.Errorf("%s: read back %v, want %v", c.name, back.Prob, c.t)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(again, b) {
			t.Errorf("%s: written again as %.80s, first %.80s", c.name, again, b)
		}
	}
}

// TestMatrixSize: the fine grid's labelling at D = 0.005 (566 cells, period
// 295) is written about 37 times smaller than dense.
func TestMatrixSize(t *testing.T) {
	tab := periodic(566, 295)
	b, _ := json.Marshal(tab)
	dense, _ := json.Marshal([][]float64(tab))
	if len(b)*30 > len(dense) {
		t.Errorf("compact %d bytes, dense %d: want at least 30 times smaller", len(b), len(dense))
	}
	if want := `{"labels":295,"rows":[[0,1],[1,1],`; !strings.HasPrefix(string(b), want) {
		t.Errorf("compact form %.60s…, want it to begin %s", b, want)
	}
}

// TestMatrixBothForms: the two forms of one table read as the same table,
// and the dense form reads as encoding/json reads it.
func TestMatrixBothForms(t *testing.T) {
	var d, c matrixFile
	if err := Unmarshal([]byte(`{"prob": [[1, 0, 0], [0, 0.25, 0.75]]}`), &d); err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal([]byte(`{"prob": {"labels": 3, "rows": [[0, 1], [1, 0.25, 2, 0.75]]}}`), &c); err != nil {
		t.Fatal(err)
	}
	if !sameBits(d.Prob, c.Prob) || !sameBits(d.Prob, Matrix{{1, 0, 0}, {0, 0.25, 0.75}}) {
		t.Fatalf("dense %v, compact %v", d.Prob, c.Prob)
	}
	// Rows of a compact table share one array; each is capped at its
	// length, so that appending to one leaves the next alone.
	c.Prob[0] = append(c.Prob[0], 9)
	if c.Prob[1][0] != 0 {
		t.Fatalf("appending to row 0 wrote row 1: %v", c.Prob[1])
	}
}

// TestMatrixBad: hostile or malformed tables are refused with one line
// naming the problem, before the table is allocated.
func TestMatrixBad(t *testing.T) {
	rows := func(n int, row string) string { return strings.TrimSuffix(strings.Repeat(row+",", n), ",") }
	for _, c := range []struct {
		name, prob, want string
	}{
		{"labels missing", `{"rows": [[0, 1]]}`, `"labels" = 0: want 1 to 4096`},
		{"labels 0", `{"labels": 0, "rows": [[0, 1]]}`, `"labels" = 0`},
		{"labels negative", `{"labels": -3, "rows": [[0, 1]]}`, `"labels" = -3`},
		{"labels above the cap", `{"labels": 4097, "rows": [[0, 1]]}`, `"labels" = 4097: want 1 to 4096`},
		{"labels not whole", `{"labels": 2.5, "rows": [[0, 1]]}`, `"labels"`},
		{"labels a string", `{"labels": "2", "rows": [[0, 1]]}`, `"labels"`},
		{"rows missing", `{"labels": 2}`, `"rows" is missing`},
		{"rows above the cap", `{"labels": 1, "rows": [` + rows(MaxMatrixRows+1, "[0,1]") + `]}`, `16386 rows: at most 16385`},
		{"entries above the cap", `{"labels": 4096, "rows": [` + rows(MaxMatrixEntries/4096+1, "[0,1]") + `]}`, `8193 rows × 4096 labels = 33558528 entries: at most 33554432`},
		{"an empty row", `{"labels": 2, "rows": [[0, 1], []]}`, `row 1 has 0 numbers: want (label, probability) pairs, at least one`},
		{"an odd row", `{"labels": 2, "rows": [[0, 1, 1]]}`, `row 0 has 3 numbers`},
		{"label negative", `{"labels": 2, "rows": [[-1, 1]]}`, `row 0: label -1: want a whole number in [0, 2)`},
		{"label at m", `{"labels": 2, "rows": [[0, 1], [2, 1]]}`, `row 1: label 2: want a whole number in [0, 2)`},
		{"label huge", `{"labels": 2, "rows": [[1e300, 1]]}`, `label 1e+300: want a whole number in [0, 2)`},
		{"label not whole", `{"labels": 2, "rows": [[0.5, 1]]}`, `label 0.5: want a whole number`},
		{"label twice", `{"labels": 3, "rows": [[1, 0.5, 1, 0.5]]}`, `row 0: label 1 after label 1: want labels increasing, each once`},
		{"labels decreasing", `{"labels": 3, "rows": [[2, 0.5, 0, 0.5]]}`, `label 0 after label 2`},
		{"probability 0", `{"labels": 2, "rows": [[0, 0, 1, 1]]}`, `row 0: label 0 has probability 0: want a finite number > 0 (leave zeros out)`},
		{"probability −0", `{"labels": 2, "rows": [[0, -0, 1, 1]]}`, `label 0 has probability -0`},
		{"probability negative", `{"labels": 2, "rows": [[0, -0.5, 1, 1.5]]}`, `probability -0.5`},
		{"probability overflows", `{"labels": 2, "rows": [[0, 1e400]]}`, `1e400`},
		{"probability NaN", `{"labels": 2, "rows": [[0, NaN]]}`, `NaN and Infinity are not JSON`},
		{"probability a string", `{"labels": 2, "rows": [[0, "1"]]}`, `string`},
		{"unknown key", `{"labels": 2, "rows": [[0, 1]], "sparse": true}`, `unknown field "sparse" (allowed: labels, rows)`},
		{"case-folded key", `{"Labels": 2, "rows": [[0, 1]]}`, `differs from the field "labels" only in case`},
		{"repeated key", `{"labels": 2, "labels": 3, "rows": [[0, 1]]}`, `key "labels" appears twice`},
		{"dense, not a list", `"x"`, `field "prob": cannot use JSON string`},
		{"dense, a string entry", `[[1, "0"]]`, `field "prob"`},
		// encoding/json reads null into a float64 as "leave it as it is", so
		// a table with null where a number belongs would read as 0 — a dense
		// entry 0, a compact label 0 — while any other reader (Python's json
		// gives None, NumPy NaN) reads something else or refuses it: one file,
		// two meanings, and a null that no writer of mmds produces would pass
		// the strict reader and the seal (which hashes the table read). A null
		// inside either form is refused, naming the row; the whole field null
		// is the absent table (TestMatrixRoundTrip's "nil").
		{"dense entry null", `[[1, 0], [null, 1]]`, `"prob": row 1, entry 0 is null`},
		{"dense row null", `[[1, 0], null]`, `"prob": row 1 is null`},
		{"compact label null", `{"labels": 2, "rows": [[0, 1], [null, 1]]}`, `"prob": row 1, entry 0 is null`},
		{"compact probability null", `{"labels": 2, "rows": [[0, 1], [1, null]]}`, `"prob": row 1, entry 1 is null`},
		{"compact row null", `{"labels": 2, "rows": [[0, 1], null]}`, `"prob": row 1 is null`},
		{"labels null", `{"labels": null, "rows": [[0, 1]]}`, `"prob": "labels" is null`},
		{"rows null", `{"labels": 2, "rows": null}`, `"prob": "rows" is missing or null`},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var f matrixFile
		err := Unmarshal([]byte(`{"prob": `+c.prob+`}`), &f)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
		if f.Prob != nil {
			t.Errorf("%s: refused, but the table was set", c.name)
		}
		// The cap cases would allocate 2²⁵ float64s (256 MiB) after their
		// checks: refusing them costs the size of the input.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s: %d bytes allocated to refuse it", c.name, grew)
		}
	}
}

// TestMatrixCapsAtTheirEdge: a compact table at each cap is read.
func TestMatrixCapsAtTheirEdge(t *testing.T) {
	for _, c := range []struct{ rows, labels int }{{MaxMatrixRows, 2}, {MaxMatrixEntries / MaxMatrixLabels, MaxMatrixLabels}} {
		row := fmt.Sprintf("[%d,1]", c.labels-1)
		s := fmt.Sprintf(`{"prob": {"labels": %d, "rows": [%s]}}`, c.labels, strings.TrimSuffix(strings.Repeat(row+",", c.rows), ","))
		var f matrixFile
		if err := Unmarshal([]byte(s), &f); err != nil {
			t.Fatalf("%d rows × %d labels: %v", c.rows, c.labels, err)
		}
		if len(f.Prob) != c.rows || len(f.Prob[c.rows-1]) != c.labels || f.Prob[c.rows-1][c.labels-1] != 1 {
			t.Fatalf("%d rows × %d labels: read %d rows", c.rows, c.labels, len(f.Prob))
		}
	}
}

// FuzzMatrixJSON: no input panics; an accepted table writes back and reads
// back bit for bit, and an accepted compact form is one MarshalJSON could
// have written (its rows each list a nonzero).
func FuzzMatrixJSON(f *testing.F) {
	for _, s := range []string{
		`{"prob": {"labels": 3, "rows": [[0, 1], [1, 0.25, 2, 0.75]]}}`,
		`{"prob": [[1, 0], [0.25, 0.75]]}`,
		`{"prob": {"labels": 2, "rows": [[1, 1, 0, 1]]}}`,
		`{"prob": {"labels": 1e3, "rows": [[999, 5e-324]]}}`,
		`{"prob": {"labels": 2, "rows": [[0.5, 1]]}}`,
		`{"prob": {"labels": 2}}`, `{"prob": null}`, `{"prob": {}}`, `{"prob": [[-0]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v matrixFile
		if err := Unmarshal(data, &v); err != nil {
			return
		}
		if bytes.Contains(data, []byte(`"labels"`)) && v.Prob != nil {
			for j, row := range v.Prob {
				nz := 0
				for _, p := range row {
					if p != 0 {
						nz++
					}
				}
				if nz == 0 {
					t.Fatalf("row %d has no nonzero entry", j)
				}
			}
		}
		b, err := json.Marshal(v)
		if err != nil {
			return // a dense table of a value JSON cannot hold
		}
		var back matrixFile
		if err := Unmarshal(b, &back); err != nil {
			t.Fatalf("written %.80s does not read back: %v", b, err)
		}
		if !sameBits(back.Prob, v.Prob) && !(len(v.Prob) == 0 && len(back.Prob) == 0) {
			t.Fatalf("read back %v, want %v", back.Prob, v.Prob)
		}
	})
}

// Many small compact tables, each within its own caps, must not add up to
// more memory than any file mmds reads could hold densely: a 250 KB
// document of five 4096-label tables of 8192 one-entry rows (2^25 entries,
// 256 MiB, each) is refused before any of them is allocated.
func TestMatrixDocumentBudget(t *testing.T) {
	var b strings.Builder
	row := strings.Repeat("[0,1],", 8191) + "[0,1]"
	b.WriteString(`{"ks": [`)
	for i := range 5 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"labels": 4096, "rows": [` + row + `]}`)
	}
	b.WriteString(`]}`)
	var v struct {
		Ks []Matrix `json:"ks"`
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := Unmarshal([]byte(b.String()), &v)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "entries in all") {
		t.Fatalf("%v, want the document's budget refused", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("allocated %d MiB before refusing", grown>>20)
	}
	// Four of them fit the budget exactly.
	four := strings.Replace(b.String(), `,{"labels": 4096, "rows": [`+row+`]}]}`, `]}`, 1)
	if _, err := walk([]byte(four), reflect.TypeOf(&v).Elem()); err != nil {
		t.Errorf("four tables at the cap: %v", err)
	}
}
