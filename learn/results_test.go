package learn

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model/kind"
	"github.com/mmds-project/mmds/rundir"
)

func TestBinding(t *testing.T) {
	l := loss.New(0.1, []float64{0.3})
	res := &Results{Model: kind.Binary, Config: Config{Model: kind.Binary, ModelSHA256: "m1", D: []float64{0.1, 0.2}},
		Points: []DResult{{DIndex: 0, D: 0.1, Finalized: true, Losses: &l}}}
	// edit changes a copy of point 0's losses: res shares them with every case.
	edit := func(r *Results, f func(*loss.Losses)) {
		l := *r.Points[0].Losses
		f(&l)
		r.Points[0].Losses = &l
	}
	if err := res.CheckBinding("m1"); !errors.Is(err, rundir.ErrBinding) {
		t.Errorf("unsealed: %v", err)
	}
	if err := res.Seal(); err != nil {
		t.Fatal(err)
	}
	if err := res.CheckBinding("m1"); err != nil {
		t.Fatalf("sealed: %v", err)
	}
	for _, c := range []struct {
		name  string
		edit  func(r *Results)
		model string
		want  string
	}{
		{"model", func(*Results) {}, "m2", "model.json"},
		{"tau", func(r *Results) { r.Config.Protocol.Tau = 1e6 }, "m1", "config"},
		{"test size", func(r *Results) { r.Config.TestSize = 1 }, "m1", "config"},
		{"recon", func(r *Results) { edit(r, func(l *loss.Losses) { l.Recon = 0.05 }) }, "m1", "points[0]"},
		{"adv", func(r *Results) { edit(r, func(l *loss.Losses) { l.Adv = []float64{0.31} }) }, "m1", "points[0]"},
		{"min adv", func(r *Results) { edit(r, func(l *loss.Losses) { l.MinAdv = 0.2 }) }, "m1", "points[0]"},
		{"losses dropped", func(r *Results) { r.Points[0].Losses = nil }, "m1", "points[0]"},
	} {
		r := *res
		r.Config.Protocol = res.Config.Protocol
		r.Points = append([]DResult(nil), res.Points...)
		c.edit(&r)
		if err := r.CheckBinding(c.model); !errors.Is(err, rundir.ErrBinding) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s edited: %v, want rundir.ErrBinding naming %q", c.name, err, c.want)
		}
	}
	// The bytes on disk round-trip to the same binding.
	dir := rundir.Dir(t.TempDir())
	if err := writeResults(dir, res); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResults(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.CheckBinding("m1"); err != nil {
		t.Errorf("results.json read back: %v", err)
	}
	if _, err := DecodeResults([]byte(`{"model":"binary"} {}`), filepath.Join("x", rundir.ResultsFile)); err == nil {
		t.Error("trailing data: no error")
	}
}
