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
	"time"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
)

// A sharded run (Config.Shard) trains only the thresholds its shard owns
// (cluster.Shard.Owns), into a results directory that every shard shares.
// The selection protocol of Section V accepts a trial at D_d only if it
// beats the point finalized at the last earlier threshold, so each shard
// publishes, per threshold it finishes, a point record that the shard owning
// the next threshold reads; until it appears, that shard trains its trials
// speculatively (runD). Trials depend only on TrialSeed(Seed, d, t), so the
// trials on disk are those a one-process run would train, and running the
// same sweep unsharded afterwards loads them all and writes results.json
// without training anything.

// PointFile returns the path, relative to a results directory, of the point
// record of threshold index d.
func PointFile(d int) string {
	return filepath.Join("points", fmt.Sprintf("d%02d.json", d))
}

// pollInterval is how often a shard waiting for another shard's point record
// looks for it. Reading one small file a few times a second is negligible
// even on a cluster's shared file system.
const pollInterval = 250 * time.Millisecond

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
// unsharded run over the same directory does, once every shard is done.
func (s *sweeper) sweepShard(ctx context.Context) (*Results, error) {
	c := s.cfg
	if err := os.MkdirAll(filepath.Join(c.Dir, "points"), 0o755); err != nil {
		return nil, fmt.Errorf("learn: results directory: %w", err)
	}
	res := &Results{Model: c.Model, Config: *c}
	ds := c.Shard.Thresholds(len(c.D))
	for k, di := range ds {
		prev := s.recordedPrev(di)
		ahead := -1
		if k+1 < len(ds) {
			ahead = ds[k+1]
		}
		p, err := s.runD(ctx, di, prev, ahead)
		res.Trained, res.Loaded = s.trained, s.loaded
		if err != nil {
			return res, err
		}
		carry, _, err := prev()
		if err != nil {
			return res, err
		}
		if p.Finalized {
			carry = s.finalized
		}
		rec := PointRecord{Fingerprint: s.fp, DIndex: di, D: c.D[di], Result: *p, Carry: carry}
		path := filepath.Join(c.Dir, PointFile(di))
		if err := report.WriteAtomic(path, func(w io.Writer) error { return json.NewEncoder(w).Encode(rec) }); err != nil {
			return res, fmt.Errorf("learn: %w", err)
		}
		res.Points = append(res.Points, *p)
	}
	return res, nil
}

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
