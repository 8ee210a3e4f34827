package cluster

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mmds-project/mmds/internal/report"
)

// SlurmPlan is a sharded run as Slurm batch jobs: an array of Shards tasks,
// each running Train with --shard slurm, and one job that starts only when
// every task succeeded (--dependency=afterok) and runs After in order —
// typically the same train command without --shard (which merges the
// shards' trials without training), then verify and plot.
type SlurmPlan struct {
	Name        string     // job name: letters, digits, '-', '_', '.'
	Shards      int        // array size, 1…MaxShards
	Train       []string   // argv of the training command, without --shard
	After       [][]string // argv of each command of the dependent job
	WorkDir     string     // absolute; every job runs there (--chdir)
	LogDir      string     // absolute; one log per task
	CPUsPerTask int        // ≥ 1; also the trainer's --workers
	Time        string     // per-task limit in Slurm's format, e.g. "02:00:00"
	Partition   string     // optional
	MaxParallel int        // optional throttle: at most this many tasks at once (%N)
}

var (
	jobName   = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	slurmTime = regexp.MustCompile(`^(\d+-)?\d+(:\d{2}){0,2}$`)
)

// Validate reports the first field that Slurm would reject or that would
// make the scripts wrong.
func (p SlurmPlan) Validate() error {
	switch {
	case !jobName.MatchString(p.Name):
		return fmt.Errorf("slurm job name %q: want 1–64 letters, digits, '.', '_' or '-'", p.Name)
	case p.Shards < 1 || p.Shards > MaxShards:
		return fmt.Errorf("slurm array size %d: want [1, %d]", p.Shards, MaxShards)
	case len(p.Train) == 0:
		return fmt.Errorf("slurm plan: no training command")
	case !filepath.IsAbs(p.WorkDir) || !filepath.IsAbs(p.LogDir):
		return fmt.Errorf("slurm plan: work and log directories must be absolute (got %q, %q)", p.WorkDir, p.LogDir)
	case p.CPUsPerTask < 1:
		return fmt.Errorf("slurm CPUs per task %d: want ≥ 1", p.CPUsPerTask)
	case !slurmTime.MatchString(p.Time):
		return fmt.Errorf("slurm time limit %q: want [days-]hours:minutes:seconds, e.g. 02:00:00", p.Time)
	case p.MaxParallel < 0:
		return fmt.Errorf("slurm throttle %d: want ≥ 0 (0: no throttle)", p.MaxParallel)
	case strings.ContainsAny(p.Partition, " \t\n#'\"$"):
		return fmt.Errorf("slurm partition %q: want a plain name", p.Partition)
	}
	return nil
}

// Files of a plan, written into one directory by Write.
const (
	TrainScript  = "train.sbatch"
	MergeScript  = "merge.sbatch"
	SubmitScript = "submit.sh"
)

// Write writes the plan's three scripts into dir, atomically, and returns
// their paths (dir is created and marked as report.SlurmJobs; a folder of
// another kind is refused): the array job, the dependent job and submit.sh, which submits
// both with the dependency between them.
func (p SlurmPlan) Write(dir string) ([]string, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := report.PrepareFolder(dir, report.SlurmJobs); err != nil {
		return nil, fmt.Errorf("slurm scripts: %w", err)
	}
	files := []struct {
		name string
		text string
	}{
		{TrainScript, p.trainScript()},
		{MergeScript, p.mergeScript()},
		{SubmitScript, submitScript},
	}
	var paths []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		err := report.WriteAtomic(path, func(w io.Writer) error {
			_, err := io.WriteString(w, f.text)
			return err
		})
		if err == nil {
			err = os.Chmod(path, 0o755)
		}
		if err != nil {
			return nil, fmt.Errorf("slurm scripts: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func (p SlurmPlan) header(name, output string) []string {
	h := []string{
		"#!/bin/bash",
		"# Written by mmds train --slurm; submit with submit.sh beside it.",
		"#SBATCH --job-name=" + name,
		"#SBATCH --chdir=" + p.WorkDir,
		"#SBATCH --output=" + filepath.Join(p.LogDir, output),
		"#SBATCH --ntasks=1",
		fmt.Sprintf("#SBATCH --cpus-per-task=%d", p.CPUsPerTask),
		"#SBATCH --time=" + p.Time,
	}
	if p.Partition != "" {
		h = append(h, "#SBATCH --partition="+p.Partition)
	}
	return h
}

func (p SlurmPlan) trainScript() string {
	lines := p.header(p.Name, p.Name+"-%A_%a.out")
	arr := fmt.Sprintf("#SBATCH --array=1-%d", p.Shards)
	if p.MaxParallel > 0 {
		arr += fmt.Sprintf("%%%d", p.MaxParallel)
	}
	lines = append(lines, arr, "set -euo pipefail",
		"# Shard i of n is the array task i; thresholds D_d with d mod n = i-1.",
		shellJoin(p.Train)+" --shard slurm --workers \"${SLURM_CPUS_PER_TASK:-1}\"")
	return strings.Join(lines, "\n") + "\n"
}

func (p SlurmPlan) mergeScript() string {
	lines := p.header(p.Name+"-merge", p.Name+"-merge-%j.out")
	lines = append(lines, "set -euo pipefail")
	for _, c := range p.After {
		lines = append(lines, shellJoin(c))
	}
	return strings.Join(lines, "\n") + "\n"
}

const submitScript = `#!/bin/sh
# Submits the training array, then the merge job, which runs only if every
# array task succeeded (afterok) and is cancelled if one failed. Prints both
# job ids. With --wait, returns when the merge job has left the queue: 0 if it
# completed, 1 otherwise.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable "$here/train.sbatch")
array=${array%%;*}
echo "training array: job $array"
merge=$(sbatch --parsable --kill-on-invalid-dep=yes --dependency="afterok:$array" "$here/merge.sbatch")
merge=${merge%%;*}
echo "merge, verify and plot: job $merge (after $array succeeds)"
if [ "${1:-}" = --wait ]; then
	# Poll once a second (sbatch --wait backs off to half a minute, and
	# returns 0 for a job cancelled because a training task failed).
	while squeue -h -j "$merge" 2>/dev/null | grep -q .; do sleep 1; done
	state=$(scontrol show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
	echo "merge job $merge: ${state:-state unknown}"
	[ "$state" = COMPLETED ] || { echo "the run did not complete; see the logs in $here/logs" >&2; exit 1; }
fi
`

// shellJoin quotes argv for bash: words of safe characters stay bare, the
// rest go in single quotes.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
