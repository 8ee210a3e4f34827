// Package cluster spreads a sweep of thresholds over independent processes:
// shards (one Slurm array task or Kubernetes Indexed Job pod each) and the
// batch scripts that start them.
//
// A run over thresholds D_0 < … < D_{N−1} is cut into n shards; shard i
// (1 ≤ i ≤ n) owns the thresholds d with d mod n = i − 1. Interleaving, not
// contiguous blocks, because the selection protocol of Section V accepts a
// trial at D_d only against the point finalized at D_{d−1}: with interleaved
// shards the point a shard waits for is being finished by its neighbour at
// the same time, so the shards form a pipeline instead of a chain.
package cluster

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxShards bounds the shard count: Slurm's default MaxArraySize is 1001
// (indices 0–1000), and no sweep has more thresholds than that.
const MaxShards = 1000

// Shard is shard Index of Count, 1 ≤ Index ≤ Count. The zero value means
// "not sharded": the whole sweep in one process.
type Shard struct {
	Index, Count int
}

// Sharded reports whether s is a real shard rather than the whole run.
func (s Shard) Sharded() bool { return s.Count > 0 }

// String returns "i/n", or "" for the whole run.
func (s Shard) String() string {
	if !s.Sharded() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Owns reports whether threshold index d (0-based) belongs to s. The whole
// run owns every threshold.
func (s Shard) Owns(d int) bool {
	return !s.Sharded() || d%s.Count == s.Index-1
}

// Thresholds returns the indices among 0…n−1 that s owns, in order.
func (s Shard) Thresholds(n int) []int {
	var ds []int
	for d := range n {
		if s.Owns(d) {
			ds = append(ds, d)
		}
	}
	return ds
}

// ErrNoShardEnv is returned by FromEnv when the variables it needs are unset.
var ErrNoShardEnv = errors.New("cluster: shard variables are not set")

// Parse reads a --shard value:
//
//	i/n      shard i of n (1 ≤ i ≤ n ≤ MaxShards)
//	slurm    from a Slurm job array: i = SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN + 1,
//	         n = SLURM_ARRAY_TASK_COUNT
//	slurm/n  from a Slurm job array numbered 1…n, or any part of it (sbatch
//	         --array=2,5 resubmits shards 2 and 5): i = SLURM_ARRAY_TASK_ID
//	k8s/n    from a Kubernetes Indexed Job of n completions: i = JOB_COMPLETION_INDEX + 1
//
// getenv looks the variables up (os.Getenv in a program).
func Parse(v string, getenv func(string) string) (Shard, error) {
	if v == "slurm" {
		return slurmShard(getenv)
	}
	is, ns, ok := strings.Cut(v, "/")
	if !ok {
		return Shard{}, fmt.Errorf("--shard %q: want i/n (1 ≤ i ≤ n ≤ %d), slurm, slurm/n or k8s/n", v, MaxShards)
	}
	n, err := count(ns)
	if err != nil {
		return Shard{}, fmt.Errorf("--shard %s: %w", v, err)
	}
	switch is {
	case "slurm":
		return slurmTask(getenv, n)
	case "k8s":
		return k8sShard(getenv, n)
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %s: shard index %q must be an integer in [1, %d]", v, is, n)
	}
	return Shard{Index: i, Count: n}, nil
}

func count(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxShards {
		return 0, fmt.Errorf("shard count %q must be an integer in [1, %d]", s, MaxShards)
	}
	return n, nil
}

// slurmShard maps a Slurm array task to a shard. Slurm numbers array tasks
// from SLURM_ARRAY_TASK_MIN (an array may start at any index, --array=0-3 or
// 1-4), so the shard index is counted from there; the array must be a dense
// range, which SLURM_ARRAY_TASK_MAX − MIN + 1 = COUNT checks.
func slurmShard(getenv func(string) string) (Shard, error) {
	vals := map[string]int{}
	for _, k := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT"} {
		s := getenv(k)
		if s == "" {
			return Shard{}, fmt.Errorf("--shard slurm: %s is not set (is this a Slurm array task?): %w", k, ErrNoShardEnv)
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return Shard{}, fmt.Errorf("--shard slurm: %s = %q; want an integer ≥ 0", k, s)
		}
		vals[k] = v
	}
	id, lo, hi, n := vals["SLURM_ARRAY_TASK_ID"], vals["SLURM_ARRAY_TASK_MIN"], vals["SLURM_ARRAY_TASK_MAX"], vals["SLURM_ARRAY_TASK_COUNT"]
	if n < 1 || n > MaxShards {
		return Shard{}, fmt.Errorf("--shard slurm: SLURM_ARRAY_TASK_COUNT = %d; want [1, %d]", n, MaxShards)
	}
	if hi-lo+1 != n {
		return Shard{}, fmt.Errorf("--shard slurm: the array %d-%d has %d tasks, not a dense range; submit it as --array=%d-%d", lo, hi, n, lo, lo+n-1)
	}
	if id < lo || id > hi {
		return Shard{}, fmt.Errorf("--shard slurm: SLURM_ARRAY_TASK_ID = %d lies outside [%d, %d]", id, lo, hi)
	}
	return Shard{Index: id - lo + 1, Count: n}, nil
}

// k8sShard maps a Kubernetes Indexed Job pod (JOB_COMPLETION_INDEX counts
// from 0) to a shard of n.
func k8sShard(getenv func(string) string, n int) (Shard, error) {
	s := getenv("JOB_COMPLETION_INDEX")
	if s == "" {
		return Shard{}, fmt.Errorf("--shard k8s/%d: JOB_COMPLETION_INDEX is not set (is this an Indexed Job?): %w", n, ErrNoShardEnv)
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard k8s/%d: JOB_COMPLETION_INDEX = %q; want an integer in [0, %d]", n, s, n-1)
	}
	return Shard{Index: i + 1, Count: n}, nil
}

// slurmTask maps task i of a Slurm array numbered 1…n to shard i of n. Unlike
// slurmShard it does not need the whole array, so a part of it can be
// resubmitted.
func slurmTask(getenv func(string) string, n int) (Shard, error) {
	s := getenv("SLURM_ARRAY_TASK_ID")
	if s == "" {
		return Shard{}, fmt.Errorf("--shard slurm/%d: SLURM_ARRAY_TASK_ID is not set (is this a Slurm array task?): %w", n, ErrNoShardEnv)
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard slurm/%d: SLURM_ARRAY_TASK_ID = %q; want an integer in [1, %d] (submit with --array=1-%d)", n, s, n, n)
	}
	return Shard{Index: i, Count: n}, nil
}
