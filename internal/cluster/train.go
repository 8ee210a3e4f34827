package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mmds-project/mmds/internal/report"
)

// ErrInput marks an error of a Train's or its options' values (the user's
// to fix, exit 2 on the command line); its message is the value's own.
var ErrInput = errors.New("cluster: invalid input")

// inputError is an error errors.Is reports as ErrInput, with its own text.
type inputError struct{ error }

func (e inputError) Is(target error) bool { return target == ErrInput }
func (e inputError) Unwrap() error        { return e.error }

func inputf(format string, args ...any) error { return inputError{fmt.Errorf(format, args...)} }

// Flag is a flag set on the command line and its value.
type Flag struct{ Name, Value string }

// Train is a run of mmds train to write batch jobs for: the model kind,
// its results directory, its number of thresholds and the flags given in
// the order given (the jobs repeat them).
type Train struct {
	Kind       string
	Out        string
	Thresholds int
	Flags      []Flag
	Model      []byte // the --config file's bytes, as validated (nil: none)
}

// SlurmOptions are the settings of mmds train --slurm DIR.
type SlurmOptions struct {
	Dir, Time, Partition string
	Shards, CPUs, Limit  int // Shards 0: one per 2 thresholds
}

// WriteSlurm writes the batch scripts that run t as a Slurm array and
// then merge, verify and plot it, and says so on w.
func (t Train) WriteSlurm(w io.Writer, o SlurmOptions) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--slurm: the path of this program: %w", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	out, err := filepath.Abs(t.Out)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	// Each path that reaches the scripts, named as the user knows it; the
	// plan checks every word again.
	for _, v := range []struct{ what, s string }{{"--slurm", dir}, {"the working folder", wd}, {"--out", out}, {"this program's path", exe}} {
		if err := CheckText(v.what, v.s); err != nil {
			return inputError{err}
		}
	}
	shards := o.Shards
	if shards == 0 {
		shards = max(1, t.Thresholds/2)
	}
	if shards > t.Thresholds {
		return inputf("--slurm-shards %d: this run has only %d thresholds; a shard needs at least one", shards, t.Thresholds)
	}
	train := t.argv(exe, out, func(v string) string {
		if p, err := filepath.Abs(v); err == nil {
			return p
		}
		return v
	})
	plan := SlurmPlan{
		Name: "mmds-" + t.Kind, Shards: shards, Train: train, After: after(exe, train, out, o.CPUs),
		WorkDir: wd, LogDir: filepath.Join(dir, "logs"), CPUsPerTask: o.CPUs, Time: o.Time,
		Partition: o.Partition, MaxParallel: o.Limit,
	}
	if err := plan.Validate(); err != nil {
		return inputError{err}
	}
	paths, err := plan.Write(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(plan.LogDir, 0o755); err != nil {
		return inputf("--slurm %s: %v", o.Dir, err)
	}
	_ = report.Sayf(w, "Slurm jobs for %s thresholds in %d array tasks (%d CPUs, %s each):", fmt.Sprint(t.Thresholds), shards, o.CPUs, o.Time)
	for _, p := range paths {
		_ = report.Sayf(w, "  %s", p)
	}
	_ = report.Sayf(w, "Submit with: %s", paths[2])
	_ = report.Sayf(w, "Results go to %s; logs to %s.", out, plan.LogDir)
	return nil
}

// K8sOptions are the settings of mmds train --k8s DIR.
type K8sOptions struct {
	Dir, Image, Claim                string
	Shards, Parallelism, CPUs, Retry int // Shards 0: one per 2 thresholds; Parallelism 0: every shard
}

// k8sMount is where the results claim is mounted in the pods.
const k8sMount = "/results"

// WriteK8s writes the Kubernetes manifests that run t as an Indexed Job
// and then merge, verify and plot it, and says so on w.
func (t Train) WriteK8s(w io.Writer, o K8sOptions) error {
	if o.Image == "" {
		return inputf("--k8s needs --k8s-image IMAGE (an image with mmds on its PATH)")
	}
	for _, v := range []struct{ what, s string }{{"--k8s-image", o.Image}, {"--k8s-claim", o.Claim}, {"--out", t.Out}} {
		if err := CheckText(v.what, v.s); err != nil {
			return inputError{err}
		}
	}
	shards := o.Shards
	if shards == 0 {
		shards = max(1, t.Thresholds/2)
	}
	if shards < 1 || shards > t.Thresholds {
		return inputf("--k8s-shards %d: must be in [1, %d] (the run's thresholds)", shards, t.Thresholds)
	}
	par := o.Parallelism
	if par == 0 {
		par = shards
	}
	abs, err := filepath.Abs(t.Out)
	if err != nil {
		return err
	}
	base := filepath.Base(abs)
	if base == string(filepath.Separator) || base == "." || base == ".." {
		return inputf("--out %s: the pods write to %s/<base name of --out>, and this one has none", report.Quote(t.Out), k8sMount)
	}
	out := path.Join(k8sMount, base)
	var config []byte
	train := t.argv("mmds", out, func(string) string {
		// A pod cannot read this machine's file: the model travels in the
		// manifests (a ConfigMap), as the bytes validated here.
		config = t.Model
		return K8sConfigFile
	})
	plan := K8sPlan{
		Name: JobName("mmds-"+t.Kind, train, config), Image: o.Image, Shards: shards, Parallelism: par, CPUs: o.CPUs,
		Claim: o.Claim, Mount: k8sMount, BackoffPerIndex: o.Retry, Train: train, Config: config,
		After: after("mmds", train, out, o.CPUs),
	}
	if err := plan.Validate(); err != nil {
		return inputError{err}
	}
	paths, err := plan.Write(o.Dir)
	if err != nil {
		return inputf("--k8s %s: %w", report.Quote(o.Dir), err)
	}
	fmt.Fprintf(w, "Kubernetes jobs for %d thresholds in %d indexed pods (%d at once, %d CPUs each):\n", t.Thresholds, shards, par, o.CPUs)
	for _, p := range paths {
		fmt.Fprintf(w, "  %s\n", p)
	}
	fmt.Fprintf(w, "Apply with: %s\nResults go to %s on the volume claim %s.\n", paths[len(paths)-1], out, o.Claim)
	return nil
}

// argv rebuilds t's mmds train command line for a batch job running
// prog, its results in out: every flag the user set except those the jobs
// set (scriptSets), with --config's value as config rewrites it (a path
// made absolute, the file's place in a pod).
func (t Train) argv(prog, out string, config func(string) string) []string {
	argv := []string{prog, "train", t.Kind, "--out", out}
	for _, f := range t.Flags {
		v := f.Value
		switch {
		case scriptSets(f.Name):
			continue
		case f.Name == "config":
			v = config(v)
		}
		// --name=value: a bool flag takes no separate value word.
		argv = append(argv, "--"+f.Name+"="+v)
	}
	return argv
}

// after are the commands run once the shards have ended: train (with
// every CPU, the thresholds the shards left), verify and plot.
func after(prog string, train []string, out string, cpus int) [][]string {
	return [][]string{append(slices.Clone(train), "--workers", fmt.Sprint(cpus)), {prog, "verify", "--report-only", out}, {prog, "plot", out}}
}

// scriptSets reports whether the batch scripts and manifests set the flag
// name themselves (the cluster's own flags, --shard, --workers, --out,
// --format), so that the user's value is not repeated.
func scriptSets(name string) bool {
	return strings.HasPrefix(name, "slurm") || strings.HasPrefix(name, "k8s") ||
		name == "shard" || name == "workers" || name == "out" || name == "format"
}
