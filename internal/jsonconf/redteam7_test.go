package jsonconf

import (
	"strings"
	"testing"
)

// Attack: encoding/json reads null into a float64 as "leave it as it is",
// so a table written with null where a number belongs read as 0 — a dense
// entry 0, a compact label 0 — while any other reader (Python's json
// gives None, NumPy NaN) reads something else or refuses it: one file, two
// meanings, and a null that no writer of mmds produces survived the
// strict reader and the seal (which hashes the table read). A null inside
// either form is refused, naming the row; the whole field null is still
// the absent table.
func TestMatrixRefusesNullInside(t *testing.T) {
	for _, c := range []struct{ name, prob, want string }{
		{"dense entry", `[[1, 0], [null, 1]]`, `"prob": row 1, entry 0 is null`},
		{"dense row", `[[1, 0], null]`, `"prob": row 1 is null`},
		{"compact label", `{"labels": 2, "rows": [[0, 1], [null, 1]]}`, `"prob": row 1, entry 0 is null`},
		{"compact probability", `{"labels": 2, "rows": [[0, 1], [1, null]]}`, `"prob": row 1, entry 1 is null`},
		{"compact row", `{"labels": 2, "rows": [[0, 1], null]}`, `"prob": row 1 is null`},
		{"compact labels", `{"labels": null, "rows": [[0, 1]]}`, `"prob": "labels" is null`},
		{"compact rows", `{"labels": 2, "rows": null}`, `"prob": "rows" is missing or null`},
	} {
		var f matrixFile
		err := Unmarshal([]byte(`{"prob": `+c.prob+`}`), &f)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v (read %v), want one line with %q", c.name, err, f.Prob, c.want)
		}
		if f.Prob != nil {
			t.Errorf("%s: refused, but the table was set", c.name)
		}
	}
	var f matrixFile
	if err := Unmarshal([]byte(`{"prob": null}`), &f); err != nil || f.Prob != nil {
		t.Errorf(`{"prob": null}: %v, %v: want the absent table`, f.Prob, err)
	}
}
