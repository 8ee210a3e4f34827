package rundir

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/internal/cluster"
)

// A record is written whole and read back strictly; a missing one is not
// an error (a shard's neighbour has not published yet), a corrupt one is
// ErrResume.
func TestRecords(t *testing.T) {
	d := Dir(t.TempDir())
	if err := os.MkdirAll(d.Path("points"), 0o755); err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Fingerprint string `json:"fingerprint"`
		DIndex      int    `json:"d_index"`
	}
	var got rec
	if ok, err := d.ReadRecord(context.Background(), PointFile(3), &got); ok || err != nil {
		t.Fatalf("missing record: %v, %v; want false, nil", ok, err)
	}
	want := rec{"abc", 3}
	if err := d.WriteRecord(PointFile(3), want); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(d.Path(PointFile(3)))
	if string(b) != `{"fingerprint":"abc","d_index":3}`+"\n" {
		t.Errorf("record bytes %q: want one line of JSON", b)
	}
	if ok, err := d.ReadRecord(context.Background(), PointFile(3), &got); !ok || err != nil || got != want {
		t.Errorf("read back %+v, %v, %v; want %+v", got, ok, err, want)
	}
	for _, bad := range []string{`{"fingerprint":"abc"} {}`, `{"fingerprint":"abc","extra":1}`, `{"fing`} {
		os.WriteFile(d.Path(PointFile(4)), []byte(bad), 0o644)
		if _, err := d.ReadRecord(context.Background(), PointFile(4), &got); !errors.Is(err, ErrResume) {
			t.Errorf("record %q: %v, want ErrResume", bad, err)
		}
	}
	os.Mkdir(d.Path(PointFile(5)), 0o755)
	if _, err := d.ReadRecord(context.Background(), PointFile(5), &got); err == nil || errors.Is(err, ErrResume) {
		t.Errorf("a directory as a record: %v, want a read error", err)
	}
}

// WriteModel keeps one model per directory.
func TestWriteModelOnce(t *testing.T) {
	d := Dir(t.TempDir())
	if err := d.WriteModel([]byte(" {\"p\": 0.5}\n\n")); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteModel([]byte(`{"p": 0.5}`)); err != nil {
		t.Errorf("same model again: %v", err)
	}
	if err := d.WriteModel([]byte(`{"p": 0.25}`)); !errors.Is(err, ErrResume) {
		t.Errorf("another model: %v, want ErrResume", err)
	}
	b, err := d.ReadModel(context.Background())
	if err != nil || string(b) != `{"p": 0.5}`+"\n" {
		t.Errorf("ReadModel: %q, %v", b, err)
	}
}

// Binding.Check names what does not match, in the order a reader cares.
func TestBindingCheck(t *testing.T) {
	cfg := map[string]any{"d": []float64{0.1, 0.2}, "model_sha256": "m1"}
	var b Binding
	if err := b.Check(cfg, "m1", "m1"); !errors.Is(err, ErrBinding) || !strings.Contains(err.Error(), "no binding") {
		t.Errorf("unbound: %v", err)
	}
	if err := b.Bind(cfg); err != nil {
		t.Fatal(err)
	}
	if err := b.Check(cfg, "m1", "m1"); err != nil {
		t.Errorf("bound: %v", err)
	}
	if err := b.Check(cfg, "m1", "m2"); !errors.Is(err, ErrBinding) || !strings.Contains(err.Error(), ModelFile) {
		t.Errorf("other model: %v", err)
	}
	cfg["d"] = []float64{0.1, 0.3}
	if err := b.Check(cfg, "m1", "m1"); !errors.Is(err, ErrBinding) || !strings.Contains(err.Error(), `"config" was changed`) {
		t.Errorf("edited config: %v", err)
	}
	if _, err := HashJSON(func() {}); err == nil {
		t.Error("HashJSON of a func: no error")
	}
	for h, want := range map[string]string{"": "(none)", "abc": "abc", "0123456789abcdef": "0123456789ab"} {
		if got := ShortHash(h); got != want {
			t.Errorf("ShortHash(%q) = %q, want %q", h, got, want)
		}
	}
}

// Owner is the inverse of cluster.Shard.Owns.
func TestOwner(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for d := range 12 {
			o := Owner(cluster.Shard{Index: 1, Count: n}, d)
			if !o.Owns(d) {
				t.Errorf("Owner(of %d, %d) = %v, which does not own it", n, d, o)
			}
		}
	}
}

func TestWaitString(t *testing.T) {
	w := Wait{DIndex: 2, NumD: 30, Owner: cluster.Shard{Index: 2, Count: 15}, Alive: true, For: 61e9}
	if got, want := w.String(), "D 3/30 waits for D 2/30's point, owned by shard 2/15 (running: its lock is held; waited 1m1s)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	w = Wait{DIndex: 2, NumD: 30, Owner: cluster.Shard{Index: 2, Count: 15}, Left: []int{2, 17}}
	if got, want := w.String(), "D 3/30 waits for D 2/30's point, owned by shard 2/15 (not running); also left: D 18 of 30"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
