package main

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/internal/report"
)

// slurmOpts are the flags of mmds train --slurm DIR.
type slurmOpts struct {
	dir, time, partition string
	shards, cpus, limit  int
}

func (o *slurmOpts) register(f *pflag.FlagSet) {
	f.StringVar(&o.dir, "slurm", "", "write Slurm batch scripts for this run into the folder instead of training: an array of --slurm-shards tasks, then a job that merges, verifies and plots (submit with FOLDER/submit.sh)")
	f.IntVar(&o.shards, "slurm-shards", 0, "array tasks (shards) for --slurm (default: one per 2 thresholds, so a task trains several)")
	f.IntVar(&o.cpus, "slurm-cpus", 2, "CPUs per array task for --slurm; the task trains that many trials at once")
	f.StringVar(&o.time, "slurm-time", "04:00:00", "wall-time limit of each task for --slurm, [days-]hours:minutes:seconds")
	f.StringVar(&o.partition, "slurm-partition", "", "Slurm partition for --slurm (default: the cluster's default)")
	f.IntVar(&o.limit, "slurm-max-parallel", 0, "at most this many array tasks at once for --slurm (0: no limit)")
}

// validate checks that the --slurm-* flags come with --slurm, and not with
// --shard (the scripts choose the shard of each task).
func (o *slurmOpts) validate(given func(flag string) bool, shard string) error {
	if o.dir == "" {
		for _, name := range []string{"slurm-shards", "slurm-cpus", "slurm-time", "slurm-partition", "slurm-max-parallel"} {
			if given(name) {
				return badInput("--%s needs --slurm FOLDER", name)
			}
		}
		return nil
	}
	if shard != "" {
		return badInput("--slurm and --shard %s: give one (the Slurm scripts pass --shard slurm to each task)", shard)
	}
	if given("slurm-shards") && (o.shards < 1 || o.shards > cluster.MaxShards) {
		return badInput("--slurm-shards %d: must be in [1, %d]", o.shards, cluster.MaxShards)
	}
	return nil
}

// writeSlurmJobs writes the batch scripts that run job as a Slurm array and
// then merge, verify and plot it.
func writeSlurmJobs(w io.Writer, args []givenFlag, job *trainJob, o slurmOpts) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--slurm: the path of this program: %w", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	out, err := filepath.Abs(job.cfg.Dir)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return err
	}
	// Each path that reaches the scripts, named as the user knows it; the
	// plan checks every word again.
	for _, v := range []struct{ what, s string }{{"--slurm", dir}, {"the working folder", wd}, {"--out", out}, {"this program's path", exe}} {
		if err := cluster.CheckText(v.what, v.s); err != nil {
			return usageError{err}
		}
	}
	shards := o.shards
	if shards == 0 {
		shards = max(1, len(job.cfg.D)/2)
	}
	if shards > len(job.cfg.D) {
		return badInput("--slurm-shards %d: this run has only %d thresholds; a shard needs at least one", shards, len(job.cfg.D))
	}
	train := trainArgv(args, exe, job.kind.String(), out)
	merge := append(append([]string{}, train...), "--workers", fmt.Sprint(o.cpus))
	plan := cluster.SlurmPlan{
		Name: "mmds-" + job.kind.String(), Shards: shards, Train: train,
		After: [][]string{
			merge,
			{exe, "verify", "--report-only", out},
			{exe, "plot", out},
		},
		WorkDir: wd, LogDir: filepath.Join(dir, "logs"), CPUsPerTask: o.cpus, Time: o.time,
		Partition: o.partition, MaxParallel: o.limit,
	}
	if err := plan.Validate(); err != nil {
		return usageError{err}
	}
	paths, err := plan.Write(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(plan.LogDir, 0o755); err != nil {
		return badInput("--slurm %s: %v", o.dir, err)
	}
	_ = report.Sayf(w, "Slurm jobs for %s thresholds in %d array tasks (%d CPUs, %s each):", fmt.Sprint(len(job.cfg.D)), shards, o.cpus, o.time)
	for _, p := range paths {
		_ = report.Sayf(w, "  %s", p)
	}
	_ = report.Sayf(w, "Submit with: %s", paths[2])
	_ = report.Sayf(w, "Results go to %s; logs to %s.", out, plan.LogDir)
	return nil
}

// k8sOpts are the flags of mmds train --k8s DIR.
type k8sOpts struct {
	dir, image, claim, shard         string
	shards, parallelism, cpus, retry int
}

func (o *k8sOpts) register(f *pflag.FlagSet) {
	f.StringVar(&o.dir, "k8s", "", "write Kubernetes manifests for this run into the folder (new, empty, or one mmds marked) instead of training: an Indexed Job of --k8s-shards pods, then a Job that merges, verifies and plots; a --config model goes along as a ConfigMap (apply with FOLDER/submit.sh)")
	f.StringVar(&o.image, "k8s-image", "", "container image with mmds on its PATH, for --k8s (required)")
	f.StringVar(&o.claim, "k8s-claim", "mmds-results", "ReadWriteMany PersistentVolumeClaim mounted at /results in every pod, for --k8s; --out is /results/<base name of --out>")
	f.IntVar(&o.shards, "k8s-shards", 0, "completions (shards) for --k8s (default: one per 2 thresholds)")
	f.IntVar(&o.parallelism, "k8s-parallelism", 0, "pods at once for --k8s (default: every shard)")
	f.IntVar(&o.cpus, "k8s-cpus", 2, "CPUs per pod for --k8s; the pod trains that many trials at once")
	f.IntVar(&o.retry, "k8s-retries", 3, "retries of a failed shard for --k8s (backoffLimitPerIndex)")
}

// k8sMount is where the results claim is mounted in the pods.
const k8sMount = "/results"

// writeK8sJobs writes the Kubernetes manifests that run job as an Indexed Job
// and then merge, verify and plot it.
func writeK8sJobs(w io.Writer, args []givenFlag, job *trainJob, o k8sOpts) error {
	if o.image == "" {
		return badInput("--k8s needs --k8s-image IMAGE (an image with mmds on its PATH)")
	}
	if o.shard != "" {
		return badInput("--k8s and --shard %s: give one (the manifests pass --shard k8s/N to each pod)", o.shard)
	}
	for _, v := range []struct{ what, s string }{{"--k8s-image", o.image}, {"--k8s-claim", o.claim}, {"--out", job.cfg.Dir}} {
		if err := cluster.CheckText(v.what, v.s); err != nil {
			return usageError{err}
		}
	}
	shards := o.shards
	if shards == 0 {
		shards = max(1, len(job.cfg.D)/2)
	}
	if shards < 1 || shards > len(job.cfg.D) {
		return badInput("--k8s-shards %d: must be in [1, %d] (the run's thresholds)", shards, len(job.cfg.D))
	}
	par := o.parallelism
	if par == 0 {
		par = shards
	}
	abs, err := filepath.Abs(job.cfg.Dir)
	if err != nil {
		return err
	}
	base := filepath.Base(abs)
	if base == string(filepath.Separator) || base == "." || base == ".." {
		return badInput("--out %s: the pods write to %s/<base name of --out>, and this one has none", report.Quote(job.cfg.Dir), k8sMount)
	}
	out := path.Join(k8sMount, base)
	train := []string{"mmds", "train", job.kind.String(), "--out", out}
	var config []byte
	for _, f := range args {
		switch {
		case scriptSets(f.name):
			continue
		case f.name == "config":
			// A pod cannot read this machine's file: the model travels in
			// the manifests (a ConfigMap), as the bytes validated here.
			config = job.model
			train = append(train, "--config="+cluster.K8sConfigFile)
			continue
		}
		train = append(train, "--"+f.name+"="+f.value)
	}
	plan := cluster.K8sPlan{
		Name: cluster.JobName("mmds-"+job.kind.String(), train, config), Image: o.image, Shards: shards, Parallelism: par, CPUs: o.cpus,
		Claim: o.claim, Mount: k8sMount, BackoffPerIndex: o.retry, Train: train, Config: config,
		After: [][]string{
			append(append([]string{}, train...), "--workers", fmt.Sprint(o.cpus)),
			{"mmds", "verify", "--report-only", out},
			{"mmds", "plot", out},
		},
	}
	if err := plan.Validate(); err != nil {
		return usageError{err}
	}
	paths, err := plan.Write(o.dir)
	if err != nil {
		return badInput("--k8s %s: %v", report.Quote(o.dir), err)
	}
	fmt.Fprintf(w, "Kubernetes jobs for %d thresholds in %d indexed pods (%d at once, %d CPUs each):\n", len(job.cfg.D), shards, par, o.cpus)
	for _, p := range paths {
		fmt.Fprintf(w, "  %s\n", p)
	}
	fmt.Fprintf(w, "Apply with: %s\nResults go to %s on the volume claim %s.\n", paths[len(paths)-1], out, o.claim)
	return nil
}

// trainArgv rebuilds this mmds train command line for a batch script: every
// flag the user set, with paths made absolute, except the Slurm ones,
// --shard, --workers and --format (the scripts set those).
func trainArgv(args []givenFlag, exe, kind, out string) []string {
	argv := []string{exe, "train", kind, "--out", out}
	for _, f := range args {
		if scriptSets(f.name) {
			continue
		}
		if f.name == "config" {
			if p, err := filepath.Abs(f.value); err == nil {
				argv = append(argv, "--config="+p)
				continue
			}
		}
		// --name=value: a bool flag takes no separate value word.
		argv = append(argv, "--"+f.name+"="+f.value)
	}
	return argv
}

// scriptSets reports whether the batch scripts and manifests set the flag
// name themselves (the cluster's own flags, --shard, --workers, --out,
// --format), so that the user's value is not repeated.
func scriptSets(name string) bool {
	return strings.HasPrefix(name, "slurm") || strings.HasPrefix(name, "k8s") ||
		name == "shard" || name == "workers" || name == "out" || name == "format"
}
