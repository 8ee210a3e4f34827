package learn

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mmds-project/mmds/rundir"
)

// A sharded run (Config.Shard) trains only the thresholds its shard owns
// (cluster.Shard.Owns), into a results directory that every shard shares.
// The selection protocol of Section V accepts a trial at D_d only if it
// beats the point finalized at the last earlier threshold, so each shard
// publishes, per threshold it finishes, a point record that the shard owning
// the next threshold reads. Trials depend only on TrialSeed(Seed, d, t), so
// the trials on disk are those a one-process run would train, and running the
// same sweep unsharded afterwards loads them all, trains what the shards
// left, and writes results.json.
//
// Any subset of shards, in any order and with any concurrency, ends in
// bounded time. Until the record of D_{d−1} appears, the shard owning D_d
// trains only trials the protocol consumes whatever that record holds: at
// every threshold it still owns, in trial order, until Accept are eligible
// (acceptance needs eligibility, so no threshold finishes with fewer) or the
// cap is reached (runD). With nothing of that kind left it waits only while
// the record's owner is running (its shard lock is held, Dir.ShardAlive);
// otherwise it stops and reports the rest as left for others (Results.Stalled).
// The shards that wait on one another never form a cycle: the waiting shard
// at the lowest threshold waits on a shard that is training or gone.

// PointRecord is what a shard publishes when it finishes a threshold.
type PointRecord struct {
	Fingerprint string  `json:"fingerprint"`
	DIndex      int     `json:"d_index"`
	D           float64 `json:"D"`
	Result      DResult `json:"result"`
	// Carry is the point the next threshold's trials must beat: this
	// threshold's finalized point, or the one carried into it when none
	// was finalized (nil before the first finalized point).
	Carry *Point `json:"carry"`
}

// prevFunc returns the previous threshold's finalized point and whether it
// is known yet.
type prevFunc func() (*Point, bool, error)

func knownPrev(p *Point) prevFunc {
	return func() (*Point, bool, error) { return p, true, nil }
}

// sweepShard runs the thresholds that Config.Shard owns, in increasing order,
// publishing a point record after each. It writes no results.json: the
// unsharded run over the same directory does. It stops early, with
// Results.Stalled set and no error, at a threshold whose previous point
// nobody running will publish.
func (s *sweeper) sweepShard(ctx context.Context) (*Results, error) {
	c := s.cfg
	dir := rundir.Dir(c.Dir)
	if err := os.MkdirAll(dir.Path("points"), 0o755); err != nil {
		return nil, fmt.Errorf("learn: results directory: %w", err)
	}
	res := &Results{Model: c.Model, Config: *c}
	ds := c.Shard.Thresholds(len(c.D))
	for k, di := range ds {
		prev := s.recordedPrev(di)
		publish := func(p *DResult) error {
			carry, _, err := prev()
			if err != nil {
				return err
			}
			if p.Finalized {
				carry = s.finalized
			}
			rec := PointRecord{Fingerprint: s.fp, DIndex: di, D: c.D[di], Result: *p, Carry: carry}
			return dir.WriteRecord(rundir.PointFile(di), rec)
		}
		r := dRun{di: di, prev: prev, ahead: ds[k+1:], publish: publish}
		if di > 0 {
			r.owner = rundir.Owner(c.Shard, di-1)
		}
		p, err := s.runD(ctx, r)
		res.Trained, res.Loaded = s.trained, s.loaded
		var st *stallError
		if errors.As(err, &st) {
			st.w.Left = ds[k:]
			res.Stalled = &st.w
			return res, nil
		}
		if err != nil {
			return res, err
		}
		res.Points = append(res.Points, *p)
	}
	return res, nil
}

// stallError stops runD at a threshold whose previous point nobody running
// will publish.
type stallError struct{ w rundir.Wait }

func (e *stallError) Error() string { return "learn: " + e.w.String() }

// recordedPrev returns the prevFunc of threshold di in a sharded run: nil
// for the first threshold, else the Carry of threshold di−1's point record
// once it exists.
func (s *sweeper) recordedPrev(di int) prevFunc {
	if di == 0 {
		return knownPrev(nil)
	}
	dir, rel := rundir.Dir(s.cfg.Dir), rundir.PointFile(di-1)
	return func() (*Point, bool, error) {
		var rec PointRecord
		ok, err := dir.ReadRecord(context.Background(), rel, &rec)
		if errors.Is(err, rundir.ErrResume) {
			return nil, false, fmt.Errorf("%w (delete it to let its shard rewrite it)", err)
		}
		if err != nil || !ok {
			return nil, false, err
		}
		if rec.Fingerprint != s.fp || rec.DIndex != di-1 {
			return nil, false, fmt.Errorf("%w: %s was written by a run with a different training configuration, seed or data; use a fresh results directory", rundir.ErrResume, dir.Path(rel))
		}
		return rec.Carry, true, nil
	}
}
