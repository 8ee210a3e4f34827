package learn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
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

// PointFile returns the path, relative to a results directory, of the point
// record of threshold index d.
func PointFile(d int) string {
	return filepath.Join("points", fmt.Sprintf("d%02d.json", d))
}

// pollInterval is how often a shard waiting for another shard's point record
// looks for it. Reading one small file a few times a second is negligible
// even on a cluster's shared file system.
const pollInterval = 250 * time.Millisecond

// waitReport is the longest silence of a shard waiting on a live neighbour.
const waitReport = 30 * time.Second

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

// Wait describes a shard that cannot finish threshold DIndex before shard
// Owner publishes the point record of DIndex − 1.
type Wait struct {
	DIndex, NumD int
	Owner        cluster.Shard
	// Alive: Owner is running (its lock is held), so the shard waits; else
	// the shard stopped there.
	Alive bool
	For   time.Duration // how long the shard has waited
	Left  []int         // with a stop: the shard's thresholds not finished, DIndex first
}

// String describes the wait in the 1-based numbering of progress lines,
// "D 3/30 waits for D 2/30's point, owned by shard 2/15 (running)".
func (w *Wait) String() string {
	s := fmt.Sprintf("D %d/%d waits for D %d/%d's point, owned by shard %v", w.DIndex+1, w.NumD, w.DIndex, w.NumD, w.Owner)
	if w.Alive {
		return s + fmt.Sprintf(" (running: its lock is held; waited %s)", w.For.Round(time.Second))
	}
	s += " (not running)"
	if len(w.Left) > 1 {
		var ds []string
		for _, d := range w.Left[1:] {
			ds = append(ds, fmt.Sprint(d+1))
		}
		s += fmt.Sprintf("; also left: D %s of %d", strings.Join(ds, ", "), w.NumD)
	}
	return s
}

// prevFunc returns the previous threshold's finalized point and whether it
// is known yet.
type prevFunc func() (*Point, bool, error)

func knownPrev(p *Point) prevFunc {
	return func() (*Point, bool, error) { return p, true, nil }
}

// owner returns the shard that owns threshold index d in the shard layout
// of sh.
func owner(sh cluster.Shard, d int) cluster.Shard {
	return cluster.Shard{Index: d%sh.Count + 1, Count: sh.Count}
}

// sweepShard runs the thresholds that Config.Shard owns, in increasing order,
// publishing a point record after each. It writes no results.json: the
// unsharded run over the same directory does. It stops early, with
// Results.Stalled set and no error, at a threshold whose previous point
// nobody running will publish.
func (s *sweeper) sweepShard(ctx context.Context) (*Results, error) {
	c := s.cfg
	if err := os.MkdirAll(filepath.Join(c.Dir, "points"), 0o755); err != nil {
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
			path := filepath.Join(c.Dir, PointFile(di))
			if err := report.WriteAtomic(path, func(w io.Writer) error { return json.NewEncoder(w).Encode(rec) }); err != nil {
				return fmt.Errorf("learn: %w", err)
			}
			return nil
		}
		r := dRun{di: di, prev: prev, ahead: ds[k+1:], publish: publish}
		if di > 0 {
			r.owner = owner(c.Shard, di-1)
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
type stallError struct{ w Wait }

func (e *stallError) Error() string { return "learn: " + e.w.String() }

// recordedPrev returns the prevFunc of threshold di in a sharded run: nil
// for the first threshold, else the Carry of threshold di−1's point record
// once it exists.
func (s *sweeper) recordedPrev(di int) prevFunc {
	if di == 0 {
		return knownPrev(nil)
	}
	path := filepath.Join(s.cfg.Dir, PointFile(di-1))
	return func() (*Point, bool, error) {
		b, err := safefile.Read(context.Background(), path, maxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("learn: %w", err)
		}
		var rec PointRecord
		if err := jsonconf.Unmarshal(b, &rec); err != nil {
			return nil, false, fmt.Errorf("%w: %s: %w (delete it to let its shard rewrite it)", ErrResume, path, err)
		}
		if rec.Fingerprint != s.fp || rec.DIndex != di-1 {
			return nil, false, fmt.Errorf("%w: %s was written by a run with a different training configuration, seed or data; use a fresh results directory", ErrResume, path)
		}
		return rec.Carry, true, nil
	}
}
