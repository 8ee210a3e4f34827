package learn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/model/kind"
	"github.com/mmds-project/mmds/rundir"
)

// shardConfig is sweepConfig over four thresholds, so that with two or three
// shards each owns several and waits on its neighbours' point records.
func shardConfig(t *testing.T, model kind.Kind) (*Dataset, Config) {
	ds, c := sweepConfig(t, model)
	if model == kind.Binary {
		c.D = []float64{0.15, 0.25, 0.35, 0.45}
	} else {
		c.D = []float64{1.5, 3, 4.5, 5.76}
	}
	return ds, c
}

// TestShardsMergeToOneMachineRun runs the shards of a sweep concurrently
// into one directory, then the unsharded sweep over it, and checks that the
// latter trains nothing and writes the same results as a one-process run:
// every field but the wall-clock seconds, for 2 and 3 shards and any worker
// count.
func TestShardsMergeToOneMachineRun(t *testing.T) {
	for _, model := range []kind.Kind{kind.Gauss, kind.Binary} {
		ds, c := shardConfig(t, model)
		c.Workers = 2
		want := oneProcessRun(t, model)
		for _, n := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/%d-shards", model, n), func(t *testing.T) {
				dir := t.TempDir()
				var wg sync.WaitGroup
				errs := make([]error, n)
				for i := 1; i <= n; i++ {
					cs := c
					cs.Dir, cs.Shard, cs.Workers = dir, cluster.Shard{Index: i, Count: n}, 1+i%2
					wg.Go(func() {
						r, err := Sweep(context.Background(), ds, cs)
						if err == nil && len(r.Points) != len(cs.Shard.Thresholds(len(c.D))) {
							err = fmt.Errorf("shard %v returned %d points", cs.Shard, len(r.Points))
						}
						errs[i-1] = err
					})
				}
				wg.Wait()
				for i, err := range errs {
					if err != nil {
						t.Fatalf("shard %d/%d: %v", i+1, n, err)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, rundir.ResultsFile)); err == nil {
					t.Errorf("a shard wrote %s; only the merge may", rundir.ResultsFile)
				}
				cm := c
				cm.Dir, cm.Workers = dir, 1
				got, err := Sweep(context.Background(), ds, cm)
				if err != nil {
					t.Fatal(err)
				}
				if got.Trained != 0 {
					t.Errorf("the merge trained %d trials; want 0 (the shards trained them all)", got.Trained)
				}
				if b := canonical(t, got); !bytes.Equal(want, b) {
					t.Errorf("merged results differ from the one-process run:\n%s\n%s", want, b)
				}
				// The point records agree with the merged results.
				for _, p := range got.Points {
					var rec PointRecord
					readJSON(t, filepath.Join(dir, rundir.PointFile(p.DIndex)), &rec)
					a, b := canonical(t, &Results{Model: c.Model, Config: c, Points: []DResult{rec.Result}}), canonical(t, &Results{Model: c.Model, Config: c, Points: []DResult{p}})
					if !bytes.Equal(a, b) {
						t.Errorf("point record d%02d differs from the merged result:\n%s\n%s", p.DIndex, a, b)
					}
				}
			})
		}
	}
}

func TestShardNeedsDir(t *testing.T) {
	ds, c := shardConfig(t, kind.Gauss)
	c.Shard = cluster.Shard{Index: 1, Count: 2}
	if _, err := Sweep(context.Background(), ds, c); err == nil {
		t.Fatal("a sharded sweep without a results directory ran")
	}
}

// TestShardTrainsAhead runs shard 2 of 2 alone, so that the point record it
// needs never appears and its owner is not running: it must return, without
// error and without finishing its threshold, having trained exactly the
// trials that are consumed whatever the record says — at each of its
// thresholds, in order, up to the Accept-th eligible one (its own threshold
// may speculate further) — and name what it left.
func TestShardTrainsAhead(t *testing.T) {
	ds, c := shardConfig(t, kind.Gauss)
	c.Dir, c.Workers, c.Shard = t.TempDir(), 2, cluster.Shard{Index: 2, Count: 2}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Sweep(ctx, ds, c)
	if err != nil {
		t.Fatal(err)
	}
	want := rundir.Wait{DIndex: 1, NumD: 4, Owner: cluster.Shard{Index: 1, Count: 2}, Left: []int{1, 3}}
	if res.Stalled == nil || !reflect.DeepEqual(*res.Stalled, want) || len(res.Points) != 0 {
		t.Fatalf("stalled %+v with %d points; want %+v", res.Stalled, len(res.Points), want)
	}
	if got := res.Stalled.String(); got != "D 2/4 waits for D 1/4's point, owned by shard 1/2 (not running); also left: D 4 of 4" {
		t.Errorf("message %q", got)
	}
	for _, d := range []int{1, 3} {
		var elig []bool
		for k := 0; ; k++ {
			var rec TrialRecord
			b, err := os.ReadFile(filepath.Join(c.Dir, rundir.TrialFile(d, k)))
			if err != nil {
				break
			}
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			_, ok := PickEpoch(rec.History.selected(c.Protocol), k, c.D[d], c.Protocol.Tau, c.Protocol.K)
			elig = append(elig, ok)
		}
		all, _ := filepath.Glob(filepath.Join(c.Dir, "trials", fmt.Sprintf("d%02d_t*.json", d)))
		if len(all) != len(elig) {
			t.Errorf("D[%d]: trials %d on disk, not a prefix of %d", d, len(all), len(elig))
		}
		n := 0
		for _, e := range elig {
			if e {
				n++
			}
		}
		capped := len(elig) >= c.Protocol.MaxAttempts
		if n < c.Protocol.Accept && !capped {
			t.Errorf("D[%d]: %d eligible in %d trials; want it to train until %d are eligible", d, n, len(elig), c.Protocol.Accept)
		}
		if d == 3 && len(elig) > 0 && !elig[len(elig)-1] && !capped {
			t.Errorf("D[%d]: trained past the Accept-th eligible trial: %v", d, elig)
		}
	}
	if _, err := os.Stat(filepath.Join(c.Dir, rundir.PointFile(1))); err == nil {
		t.Error("shard 2/2 finished its threshold without shard 1's point record")
	}
}

// schedule runs waves of shards of n over dir, the shards of a wave at once,
// and fails the test unless each returns in bounded time without error.
func schedule(t *testing.T, ds *Dataset, c Config, dir string, n int, waves [][]int) []*Results {
	t.Helper()
	var all []*Results
	for _, wave := range waves {
		res := make([]*Results, len(wave))
		errs := make([]error, len(wave))
		var wg sync.WaitGroup
		for k, i := range wave {
			cs := c
			cs.Dir, cs.Shard, cs.Workers = dir, cluster.Shard{Index: i, Count: n}, 1+i%2
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				res[k], errs[k] = Sweep(ctx, ds, cs)
			})
		}
		wg.Wait()
		for k, err := range errs {
			if err != nil {
				t.Fatalf("shard %d/%d of wave %v: %v", wave[k], n, wave, err)
			}
		}
		all = append(all, res...)
	}
	return all
}

// merge runs the unsharded sweep over dir and checks that it trains only
// trials missing from disk and writes the one-process results.
func merge(t *testing.T, ds *Dataset, c Config, dir string, want []byte) {
	t.Helper()
	before, _ := filepath.Glob(filepath.Join(dir, "trials", "*.json"))
	cm := c
	cm.Dir, cm.Workers = dir, 2
	got, err := Sweep(context.Background(), ds, cm)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(filepath.Join(dir, "trials", "*.json"))
	if got.Trained > len(after)-len(before) { // a trial on disk retrained is no new file (Trained counts consumed trials)
		t.Errorf("the merge trained %d trials for %d new files: it retrained trials on disk", got.Trained, len(after)-len(before))
	}
	if b := canonical(t, got); !bytes.Equal(want, b) {
		t.Errorf("merged results differ from the one-process run:\n%s\n%s", want, b)
	}
}

// oneProcess holds the one-process run of shardConfig (2 workers) by
// model, in canonical form: every shard test merges to the same seeded
// run, so it is trained once.
var oneProcess = struct {
	sync.Mutex
	runs map[kind.Kind][]byte
}{runs: map[kind.Kind][]byte{}}

// oneProcessRun returns the one-process run of shardConfig(t, model) with 2
// workers, canonical.
func oneProcessRun(t *testing.T, model kind.Kind) []byte {
	t.Helper()
	oneProcess.Lock()
	defer oneProcess.Unlock()
	if b, ok := oneProcess.runs[model]; ok {
		return b
	}
	ds, c := shardConfig(t, model)
	c.Workers, c.Dir = 2, t.TempDir()
	r, err := Sweep(context.Background(), ds, c)
	if err != nil {
		t.Fatal(err)
	}
	b := canonical(t, r)
	oneProcess.runs[model] = b
	return b
}

// TestShardSchedules runs shards in orders a person or a throttled
// scheduler may choose — one after the other, reversed, some at once and the
// rest later — and merges: every schedule ends, and merges to the
// one-process result.
func TestShardSchedules(t *testing.T) {
	ds, c := shardConfig(t, kind.Gauss)
	c.Workers, c.Dir = 2, t.TempDir()
	want := oneProcessRun(t, kind.Gauss)
	for _, sc := range []struct {
		name    string
		n       int
		waves   [][]int
		stalled int // shard runs that stop with work left for others
	}{
		{"sequential", 2, [][]int{{1}, {2}}, 2},
		{"reversed", 2, [][]int{{2}, {1}}, 2},
		{"one-alone", 2, [][]int{{1}}, 1},
		{"throttled", 3, [][]int{{1, 3}, {2}}, 2},
		{"reversed-then-all", 3, [][]int{{3}, {2}, {1}, {1, 2, 3}}, 3},
	} {
		t.Run(sc.name, func(t *testing.T) {
			dir := t.TempDir()
			res := schedule(t, ds, c, dir, sc.n, sc.waves)
			stalled := 0
			for _, r := range res {
				if r.Stalled != nil {
					stalled++
					if r.Stalled.Alive || len(r.Stalled.Left) == 0 {
						t.Errorf("stalled %+v", r.Stalled)
					}
				}
			}
			if stalled != sc.stalled {
				t.Errorf("%d shard runs stopped with work left; want %d", stalled, sc.stalled)
			}
			merge(t, ds, c, dir, want)
		})
	}
}

// TestShardKilledAndRestarted stops shard 2 of 2 in the middle of its
// first threshold while shard 1 runs beside it, then restarts it, then
// shard 1: both end, and the merge equals the one-process run.
func TestShardKilledAndRestarted(t *testing.T) {
	ds, c := shardConfig(t, kind.Gauss)
	c.Workers, c.Dir = 2, t.TempDir()
	want := oneProcessRun(t, kind.Gauss)
	dir := t.TempDir()
	c1, c2 := c, c
	c1.Dir, c1.Shard = dir, cluster.Shard{Index: 1, Count: 2}
	c2.Dir, c2.Shard, c2.Workers = dir, cluster.Shard{Index: 2, Count: 2}, 1
	ctx, kill := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := Sweep(ctx, ds, c2); done <- err }()
	r1 := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		_, err := Sweep(ctx, ds, c1)
		r1 <- err
	}()
	first := filepath.Join(dir, rundir.TrialFile(1, 0))
	for {
		if _, err := os.Stat(first); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	kill()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("killed shard 2/2: %v", err)
	}
	if err := <-r1; err != nil {
		t.Fatalf("shard 1/2 beside a killed shard 2/2: %v", err)
	}
	schedule(t, ds, c, dir, 2, [][]int{{2}, {1}})
	merge(t, ds, c, dir, want)
}
