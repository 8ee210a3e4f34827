package rundir

import (
	"fmt"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/internal/report"
)

// PollInterval is how often a shard waiting for another shard's point
// record looks for it. Reading one small file a few times a second is
// negligible even on a cluster's shared file system.
const PollInterval = 250 * time.Millisecond

// WaitReport is the longest silence of a shard waiting on a live neighbour.
const WaitReport = 30 * time.Second

// Owner returns the shard that owns threshold index d in the shard layout
// of sh (the inverse of cluster.Shard.Owns).
func Owner(sh cluster.Shard, d int) cluster.Shard {
	return cluster.Shard{Index: d%sh.Count + 1, Count: sh.Count}
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
		ds := report.Cells(nil, func(d int) string { return fmt.Sprint(d + 1) }, w.Left[1:])
		s += fmt.Sprintf("; also left: D %s of %d", strings.Join(ds, ", "), w.NumD)
	}
	return s
}
