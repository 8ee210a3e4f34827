package main

import (
	"errors"
	"io"

	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/cluster"
)

// slurmOpts are the flags of mmds train --slurm DIR.
type slurmOpts struct{ cluster.SlurmOptions }

func (o *slurmOpts) register(f *pflag.FlagSet) {
	f.StringVar(&o.Dir, "slurm", "", "write Slurm batch scripts for this run into the folder instead of training: an array of --slurm-shards tasks, then a job that merges, verifies and plots (submit with FOLDER/submit.sh)")
	f.IntVar(&o.Shards, "slurm-shards", 0, "array tasks (shards) for --slurm (default: one per 2 thresholds, so a task trains several)")
	f.IntVar(&o.CPUs, "slurm-cpus", 2, "CPUs per array task for --slurm; the task trains that many trials at once")
	f.StringVar(&o.Time, "slurm-time", "04:00:00", "wall-time limit of each task for --slurm, [days-]hours:minutes:seconds")
	f.StringVar(&o.Partition, "slurm-partition", "", "Slurm partition for --slurm (default: the cluster's default)")
	f.IntVar(&o.Limit, "slurm-max-parallel", 0, "at most this many array tasks at once for --slurm (0: no limit)")
}

// validate checks --slurm-shards' range; flagRules refuses the --slurm-*
// flags without --slurm, and --shard with it.
func (o *slurmOpts) validate(given func(flag string) bool) error {
	if o.Dir != "" && given("slurm-shards") && (o.Shards < 1 || o.Shards > cluster.MaxShards) {
		return badInput("--slurm-shards %d: must be in [1, %d]", o.Shards, cluster.MaxShards)
	}
	return nil
}

// k8sOpts are the flags of mmds train --k8s DIR.
type k8sOpts struct{ cluster.K8sOptions }

func (o *k8sOpts) register(f *pflag.FlagSet) {
	f.StringVar(&o.Dir, "k8s", "", "write Kubernetes manifests for this run into the folder (new, empty, or one mmds marked) instead of training: an Indexed Job of --k8s-shards pods, then a Job that merges, verifies and plots; a --config model goes along as a ConfigMap (apply with FOLDER/submit.sh)")
	f.StringVar(&o.Image, "k8s-image", "", "container image with mmds on its PATH, for --k8s (required)")
	f.StringVar(&o.Claim, "k8s-claim", "mmds-results", "ReadWriteMany PersistentVolumeClaim mounted at /results in every pod, for --k8s; --out is /results/<base name of --out>")
	f.IntVar(&o.Shards, "k8s-shards", 0, "completions (shards) for --k8s (default: one per 2 thresholds)")
	f.IntVar(&o.Parallelism, "k8s-parallelism", 0, "pods at once for --k8s (default: every shard)")
	f.IntVar(&o.CPUs, "k8s-cpus", 2, "CPUs per pod for --k8s; the pod trains that many trials at once")
	f.IntVar(&o.Retry, "k8s-retries", 3, "retries of a failed shard for --k8s (backoffLimitPerIndex)")
}

// writeClusterJobs writes job's Slurm scripts or Kubernetes manifests.
func writeClusterJobs(w io.Writer, args []cluster.Flag, job *trainJob, o trainOpts) error {
	t := cluster.Train{Kind: job.kind.String(), Out: job.Config.Dir, Thresholds: len(job.Config.D), Flags: args, Model: job.Model}
	var err error
	if o.slurm.Dir != "" {
		err = t.WriteSlurm(w, o.slurm.SlurmOptions)
	} else {
		err = t.WriteK8s(w, o.k8s.K8sOptions)
	}
	if errors.Is(err, cluster.ErrInput) {
		return usageError{err}
	}
	return err
}
