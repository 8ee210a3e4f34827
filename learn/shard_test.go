package learn

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/cluster"
)

// shardConfig is sweepConfig over four thresholds, so that with two or three
// shards each owns several and waits on its neighbours' point records.
func shardConfig(t *testing.T, model Model) (*Dataset, Config) {
	ds, c := sweepConfig(t, model)
	if model == Binary {
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
	for _, model := range []Model{Gauss, Binary} {
		ds, c := shardConfig(t, model)
		c.Workers, c.Dir = 2, t.TempDir()
		want, err := Sweep(context.Background(), ds, c)
		if err != nil {
			t.Fatal(err)
		}
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
				if _, err := os.Stat(filepath.Join(dir, ResultsFile)); err == nil {
					t.Errorf("a shard wrote %s; only the merge may", ResultsFile)
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
				if a, b := canonical(t, want), canonical(t, got); !bytes.Equal(a, b) {
					t.Errorf("merged results differ from the one-process run:\n%s\n%s", a, b)
				}
				// The point records agree with the merged results.
				for _, p := range got.Points {
					var rec PointRecord
					readJSON(t, filepath.Join(dir, PointFile(p.DIndex)), &rec)
					a, b := canonical(t, &Results{Points: []DResult{rec.Result}}), canonical(t, &Results{Points: []DResult{p}})
					if !bytes.Equal(a, b) {
						t.Errorf("point record d%02d differs from the merged result:\n%s\n%s", p.DIndex, a, b)
					}
				}
			})
		}
	}
}

func TestShardNeedsDir(t *testing.T) {
	ds, c := shardConfig(t, Gauss)
	c.Shard = cluster.Shard{Index: 1, Count: 2}
	if _, err := Sweep(context.Background(), ds, c); err == nil {
		t.Fatal("a sharded sweep without a results directory ran")
	}
}

// TestShardTrainsAhead runs shard 2 of 2 alone, so that the point record it
// waits for never appears: it must train its own threshold's trials until
// Accept are eligible and then exactly trials 0 … Accept−1 of its next
// threshold, which that threshold consumes whatever the record says.
func TestShardTrainsAhead(t *testing.T) {
	ds, c := shardConfig(t, Gauss)
	c.Dir, c.Workers, c.Shard = t.TempDir(), 1, cluster.Shard{Index: 2, Count: 2}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := Sweep(ctx, ds, c); done <- err }()
	ahead := filepath.Join(c.Dir, TrialFile(3, c.Protocol.Accept-1))
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(2 * time.Minute)
wait:
	for {
		select {
		case <-tick.C:
			if _, err := os.Stat(ahead); err == nil {
				break wait
			}
		case err := <-done:
			t.Fatalf("shard 2/2 returned before training ahead: %v", err)
		case <-deadline:
			t.Fatalf("%s never appeared", ahead)
		}
	}
	// Let the shard settle: with one worker and nothing left to train
	// ahead it has nothing in flight, so the files now are final.
	cancel()
	<-done
	trials, err := filepath.Glob(filepath.Join(c.Dir, "trials", "d03_t*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != c.Protocol.Accept {
		t.Errorf("trained %d trials of its next threshold ahead; want Accept = %d", len(trials), c.Protocol.Accept)
	}
	own, _ := filepath.Glob(filepath.Join(c.Dir, "trials", "d01_t*.json"))
	if len(own) < c.Protocol.Accept {
		t.Errorf("trained %d trials of its own threshold; want at least Accept = %d first", len(own), c.Protocol.Accept)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, PointFile(1))); err == nil {
		t.Error("shard 2/2 finished its threshold without shard 1's point record")
	}
}
