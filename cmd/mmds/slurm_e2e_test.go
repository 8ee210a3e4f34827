//go:build slurm

// The Slurm end-to-end test: make test-slurm (it needs root, or slurm-wlm and
// munge installed, to start a single-node cluster with scripts/slurm-local.sh).

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/rundir"
)

// run runs a command and fails the test with its output if it fails.
func runOrFail(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	c.Env = append(os.Environ(), env...)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// comparable strips what legitimately differs between runs: wall-clock
// seconds of each trial.
func comparable(t *testing.T, dir string) *learn.Results {
	t.Helper()
	res, err := learn.ReadResults(context.Background(), rundir.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Points {
		for j := range res.Points[i].Trials {
			res.Points[i].Trials[j].Seconds = 0
		}
	}
	return res
}

// arraySpan returns the wall time of the training array job named in
// submit.sh's output: first task start to last task end, from scontrol (1 s
// resolution).
func arraySpan(t *testing.T, env []string, submitOut string) string {
	t.Helper()
	m := regexp.MustCompile(`training array: job (\d+)`).FindStringSubmatch(submitOut)
	if m == nil {
		t.Fatalf("no array job id in %q", submitOut)
	}
	info := runOrFail(t, env, "scontrol", "show", "job", m[1])
	var first, last time.Time
	for _, s := range regexp.MustCompile(`StartTime=(\S+) EndTime=(\S+)`).FindAllStringSubmatch(info, -1) {
		a, err1 := time.ParseInLocation("2006-01-02T15:04:05", s[1], time.Local)
		b, err2 := time.ParseInLocation("2006-01-02T15:04:05", s[2], time.Local)
		if err1 != nil || err2 != nil {
			continue
		}
		if first.IsZero() || a.Before(first) {
			first = a
		}
		if b.After(last) {
			last = b
		}
	}
	if first.IsZero() {
		return "(times unknown)"
	}
	return fmt.Sprintf("%.0f s", last.Sub(first).Seconds())
}

// A quick-preset sweep trained as a Slurm array of 1 and of 2 shards on a
// real single-node Slurm, merged by the dependent job, equals the same sweep
// trained on one machine; the wall times of 1 and 2 shards are logged (the
// speed-up of docs/cluster.md).
func TestSlurmEndToEnd(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	sl := t.TempDir()
	runOrFail(t, nil, filepath.Join(root, "scripts/slurm-local.sh"), "start", sl)
	t.Cleanup(func() { exec.Command(filepath.Join(root, "scripts/slurm-local.sh"), "stop", sl).Run() })
	env := []string{"SLURM_CONF=" + filepath.Join(sl, "slurm.conf")}

	tmp := t.TempDir()
	exe := filepath.Join(tmp, "mmds")
	runOrFail(t, nil, "go", "build", "-o", exe, "github.com/mmds-project/mmds/cmd/mmds")
	args := []string{"train", "binary", "--preset", "quick", "--sweep", "0.0025:0.2:8", "--epochs", "250", "--quiet"}

	one := filepath.Join(tmp, "one")
	start := time.Now()
	runOrFail(t, nil, exe, append(args, "--out", one, "--workers", "1")...)
	t.Logf("one machine, 1 worker: %.1f s", time.Since(start).Seconds())
	want := comparable(t, one)

	// A throttled array (%1: the shards one after the other) and an array
	// whose task 2 is cancelled as soon as it runs, then resubmitted: both
	// end, and the merge equals the one-machine run.
	same := func(name, out string) {
		if got := comparable(t, out); !reflect.DeepEqual(got.Points, want.Points) || !reflect.DeepEqual(got.Config, want.Config) || got.Binding != want.Binding {
			t.Errorf("%s: the merged results differ from the one-machine run", name)
		}
	}
	{
		out, jobs := filepath.Join(tmp, "throttled"), filepath.Join(tmp, "jobs-throttled")
		runOrFail(t, nil, exe, append(args, "--out", out, "--slurm", jobs, "--slurm-shards", "2", "--slurm-cpus", "1", "--slurm-time", "00:20:00", "--slurm-max-parallel", "1")...)
		start := time.Now()
		sub := runOrFail(t, env, filepath.Join(jobs, "submit.sh"), "--wait")
		t.Logf("Slurm, 2 shards throttled to %%1: submit to merged %.1f s; training array %s", time.Since(start).Seconds(), arraySpan(t, env, sub))
		same("throttled", out)
	}
	{
		out, jobs := filepath.Join(tmp, "cancelled"), filepath.Join(tmp, "jobs-cancelled")
		runOrFail(t, nil, exe, append(args, "--out", out, "--slurm", jobs, "--slurm-shards", "2", "--slurm-cpus", "1", "--slurm-time", "00:20:00")...)
		start := time.Now()
		id := strings.TrimSpace(runOrFail(t, env, "sbatch", "--parsable", filepath.Join(jobs, "train.sbatch")))
		id, _, _ = strings.Cut(id, ";")
		for {
			st := runOrFail(t, env, "squeue", "-h", "-j", id+"_2", "-o", "%T")
			if strings.Contains(st, "RUNNING") {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(2 * time.Second)
		runOrFail(t, env, "scancel", id+"_2")
		for strings.TrimSpace(runOrFail(t, env, "squeue", "-h", "-j", id)) != "" {
			time.Sleep(time.Second)
		}
		runOrFail(t, env, "sbatch", "--wait", "--array=2", filepath.Join(jobs, "train.sbatch"))
		runOrFail(t, env, "sbatch", "--wait", filepath.Join(jobs, "merge.sbatch"))
		t.Logf("Slurm, 2 shards, task 2 cancelled and resubmitted: submit to merged %.1f s", time.Since(start).Seconds())
		same("cancelled and resubmitted", out)
	}

	// The 2-shard run lives in, and is written from, a folder whose name a
	// careless script would misread: quotes, spaces, '#', a command
	// substitution and '%' (Slurm's file-name patterns).
	hostile := filepath.Join(tmp, `it's "a b" #1 $(touch pwned) 50%`)
	if err := os.Mkdir(hostile, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, shards := range []string{"1", "2"} {
		base := tmp
		if shards == "2" {
			base = hostile
		}
		out, jobs := filepath.Join(base, "out"+shards), filepath.Join(base, "jobs"+shards)
		c := exec.Command(exe, append(args, "--out", out, "--slurm", jobs, "--slurm-shards", shards, "--slurm-cpus", "1", "--slurm-time", "00:20:00")...)
		c.Dir = base // the scripts' --chdir
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c.Args, err, b)
		}
		start := time.Now()
		sub := runOrFail(t, env, filepath.Join(jobs, "submit.sh"), "--wait")
		t.Logf("Slurm, %s shard(s) of 1 CPU: submit to merged, verified and plotted %.1f s; training array %s",
			shards, time.Since(start).Seconds(), arraySpan(t, env, sub))
		if got := comparable(t, out); !reflect.DeepEqual(got.Points, want.Points) || !reflect.DeepEqual(got.Config, want.Config) || got.Binding != want.Binding {
			t.Errorf("%s shard(s): the merged results differ from the one-machine run", shards)
		}
		for _, f := range []string{"figure3.png", "figure3.svg"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("%s shard(s): the merge job did not plot: %v", shards, err)
			}
		}
		if logs, _ := filepath.Glob(filepath.Join(jobs, "logs", "*.out")); len(logs) < 2 {
			t.Errorf("%s shard(s): logs %v; want one per task and one of the merge", shards, logs)
		}
	}
	for _, dir := range []string{tmp, hostile, filepath.Join(hostile, "jobs2"), "."} {
		if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
			t.Errorf("a folder's name ran as a command: %s/pwned exists", dir)
		}
	}
}
