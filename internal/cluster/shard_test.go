package cluster

import (
	"errors"
	"fmt"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParse(t *testing.T) {
	slurm := func(id, lo, hi, n int) func(string) string {
		return env("SLURM_ARRAY_TASK_ID", fmt.Sprint(id), "SLURM_ARRAY_TASK_MIN", fmt.Sprint(lo),
			"SLURM_ARRAY_TASK_MAX", fmt.Sprint(hi), "SLURM_ARRAY_TASK_COUNT", fmt.Sprint(n))
	}
	for _, tc := range []struct {
		v    string
		env  func(string) string
		want Shard
	}{
		{"1/1", env(), Shard{1, 1}},
		{"2/3", env(), Shard{2, 3}},
		{"1000/1000", env(), Shard{1000, 1000}},
		{"slurm", slurm(1, 1, 4, 4), Shard{1, 4}},
		{"slurm", slurm(0, 0, 3, 4), Shard{1, 4}},
		{"slurm", slurm(7, 5, 8, 4), Shard{3, 4}},
		{"k8s/3", env("JOB_COMPLETION_INDEX", "0"), Shard{1, 3}},
		{"k8s/3", env("JOB_COMPLETION_INDEX", "2"), Shard{3, 3}},
		{"slurm/15", env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_MIN", "2", "SLURM_ARRAY_TASK_COUNT", "1"), Shard{2, 15}},
		{"slurm/15", env("SLURM_ARRAY_TASK_ID", "15"), Shard{15, 15}},
	} {
		got, err := Parse(tc.v, tc.env)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.v, got, err, tc.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		v     string
		env   func(string) string
		noEnv bool
	}{
		{"0/2", env(), false},
		{"3/2", env(), false},
		{"1/0", env(), false},
		{"1/1001", env(), false},
		{"a/2", env(), false},
		{"2", env(), false},
		{"", env(), false},
		{"1/2/3", env(), false},
		{"slurm", env(), true},
		{"slurm", env("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "5", "SLURM_ARRAY_TASK_COUNT", "3"), false},
		{"slurm", env("SLURM_ARRAY_TASK_ID", "9", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "3", "SLURM_ARRAY_TASK_COUNT", "3"), false},
		{"slurm", env("SLURM_ARRAY_TASK_ID", "x", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "3", "SLURM_ARRAY_TASK_COUNT", "3"), false},
		{"k8s/3", env(), true},
		{"k8s/3", env("JOB_COMPLETION_INDEX", "3"), false},
		{"k8s/3", env("JOB_COMPLETION_INDEX", "-1"), false},
		{"k8s/0", env("JOB_COMPLETION_INDEX", "0"), false},
		{"slurm/3", env(), true},
		{"slurm/3", env("SLURM_ARRAY_TASK_ID", "0"), false},
		{"slurm/3", env("SLURM_ARRAY_TASK_ID", "4"), false},
		{"slurm/0", env("SLURM_ARRAY_TASK_ID", "1"), false},
	} {
		_, err := Parse(tc.v, tc.env)
		if err == nil {
			t.Errorf("Parse(%q) succeeded; want an error", tc.v)
			continue
		}
		if got := errors.Is(err, ErrNoShardEnv); got != tc.noEnv {
			t.Errorf("Parse(%q): errors.Is(ErrNoShardEnv) = %v; want %v (%v)", tc.v, got, tc.noEnv, err)
		}
	}
}

// Every threshold is owned by exactly one shard, and neighbours by
// different shards when there are several.
func TestOwnsPartition(t *testing.T) {
	for n := 1; n <= 7; n++ {
		for nd := 0; nd <= 31; nd++ {
			owners := make([]int, nd)
			total := 0
			for i := 1; i <= n; i++ {
				s := Shard{i, n}
				ds := s.Thresholds(nd)
				total += len(ds)
				for _, d := range ds {
					owners[d]++
				}
				if nd >= n && len(ds) < nd/n {
					t.Errorf("shard %v of %d thresholds owns %d; want ≥ %d", s, nd, len(ds), nd/n)
				}
			}
			for d, c := range owners {
				if c != 1 {
					t.Fatalf("n=%d: threshold %d has %d owners", n, d, c)
				}
				if n > 1 && d > 0 && (Shard{Index: 1 + d%n, Count: n}).Owns(d-1) {
					t.Fatalf("n=%d: thresholds %d and %d share a shard", n, d-1, d)
				}
			}
			if total != nd {
				t.Fatalf("n=%d nd=%d: %d owned", n, nd, total)
			}
		}
	}
	if !(Shard{}).Owns(5) || (Shard{}).Sharded() || (Shard{}).String() != "" {
		t.Error("the zero Shard must be the whole run")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1/2", "slurm", "k8s/4", "0/0", "9/3", "x"} {
		f.Add(s, "3")
	}
	f.Fuzz(func(t *testing.T, v, e string) {
		get := env("SLURM_ARRAY_TASK_ID", e, "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", e,
			"SLURM_ARRAY_TASK_COUNT", e, "JOB_COMPLETION_INDEX", e)
		s, err := Parse(v, get)
		if err != nil {
			return
		}
		if s.Index < 1 || s.Index > s.Count || s.Count > MaxShards {
			t.Fatalf("Parse(%q) = %v: out of range", v, s)
		}
	})
}
