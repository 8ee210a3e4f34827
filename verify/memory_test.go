package verify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A data run's table is measured before it is parsed: a data file whose
// numbers would take the run past its budget is refused (ErrMemory, naming
// the file), and one that fits is read; so is results.json before it is
// decoded.
func TestDataRunMemoryBudget(t *testing.T) {
	raw := dataCSV()
	dir := writeDataRun(t, "d.csv", raw)
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	held := baseMemory + 2*int64(len(res)) // a bound on results.json read and measured
	for _, tc := range []struct {
		limit int64
		want  string // "" opens
	}{
		{DefaultMaxMemory, ""},
		{held + 2*int64(len(raw)), "the data file"},
		{baseMemory + 10, "results.json reads as"},
	} {
		_, _, err := OpenWith(t.Context(), dir, OpenOptions{MaxMemory: tc.limit})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("limit %d: %v", tc.limit, err)
		case tc.want != "" && (!errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("limit %d: %v; want ErrMemory naming %q", tc.limit, err, tc.want)
		}
	}
}
