package cluster

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mmds-project/mmds/internal/report"
)

// SlurmPlan is a sharded run as Slurm batch jobs: an array of Shards tasks,
// each running Train with --shard slurm/Shards, and one job that starts when
// the array has ended, whether or not every task succeeded
// (--dependency=afterany), and runs After in order — typically the same train
// command without --shard (which loads the shards' trials and trains what
// they left), then verify and plot.
//
// The scripts act on mmds's exit status 75, "run me again later": a task
// stopped ahead of its time limit (Slurm's --signal) requeues itself with
// scontrol; a command refused because a live process holds its lock tries
// again a minute later, five times; a task stopped by scancel or preemption
// is not retried by the script (--requeue lets Slurm requeue a preempted
// task itself), and the merge job trains what it left.
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
	case strings.ContainsAny(p.Partition, " \t\n#'\"$\\"):
		return fmt.Errorf("slurm partition %q: want a plain name", p.Partition)
	}
	// Every value that reaches a script: a newline would end an #SBATCH
	// line even inside quotes, and run the rest as a command.
	for _, v := range []struct{ what, s string }{
		{"slurm working folder", p.WorkDir}, {"slurm log folder", p.LogDir}, {"slurm partition", p.Partition},
	} {
		if err := CheckText(v.what, v.s); err != nil {
			return err
		}
	}
	if strings.Contains(p.LogDir, `\`) {
		// sbatch turns off its %A/%a/%j substitution in an --output
		// pattern that holds a backslash: every task would write one file.
		return fmt.Errorf("slurm log folder %s: %w: a backslash turns off Slurm's %%-patterns in the log file names", report.Quote(p.LogDir), ErrText)
	}
	if err := checkArgv("slurm training command: argument", p.Train); err != nil {
		return err
	}
	for _, c := range p.After {
		if err := checkArgv("slurm merge command: argument", c); err != nil {
			return err
		}
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
	return writePlan(dir, report.SlurmJobs, "slurm scripts", []planFile{
		{TrainScript, []byte(p.trainScript()), true},
		{MergeScript, []byte(p.mergeScript()), true},
		{SubmitScript, []byte(submitScript), true},
	})
}

// header is a script's #SBATCH lines; output is the log file's name
// pattern (%A, %a, %j are Slurm's).
func (p SlurmPlan) header(name, output string) []string {
	h := []string{
		"#!/bin/bash",
		"# Written by mmds train --slurm; submit with submit.sh beside it.",
		"#SBATCH --job-name=" + sbatchQuote(name),
		"#SBATCH --chdir=" + sbatchQuote(p.WorkDir),
		"#SBATCH --output=" + sbatchQuote(strings.ReplaceAll(p.LogDir, "%", "%%")+"/"+output),
		"#SBATCH --ntasks=1",
		fmt.Sprintf("#SBATCH --cpus-per-task=%d", p.CPUsPerTask),
		"#SBATCH --time=" + sbatchQuote(p.Time),
	}
	if p.Partition != "" {
		h = append(h, "#SBATCH --partition="+sbatchQuote(p.Partition))
	}
	return h
}

// sbatchQuote quotes a value of an #SBATCH line as sbatch reads it: in
// double quotes, with '"' and '\' escaped by a backslash (inside the
// quotes spaces and '#' are literal; sbatch expands no variables there).
// A newline cannot be quoted — it ends the line — so Validate refuses it.
func sbatchQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// signalLead is how long before its time limit a task is asked to stop and
// requeue itself; limits shorter than minSignalLimit get no such warning.
const (
	signalLead     = 120
	minSignalLimit = 600
)

func (p SlurmPlan) trainScript() string {
	lines := p.header(p.Name, p.Name+"-%A_%a.out")
	arr := fmt.Sprintf("#SBATCH --array=1-%d", p.Shards)
	if p.MaxParallel > 0 {
		arr += fmt.Sprintf("%%%d", p.MaxParallel)
	}
	lines = append(lines, arr, "#SBATCH --requeue", "#SBATCH --open-mode=append")
	if secs, ok := slurmSeconds(p.Time); ok && secs >= minSignalLimit {
		lines = append(lines, fmt.Sprintf("#SBATCH --signal=B:USR1@%d", signalLead))
	}
	lines = append(lines, scriptPrelude,
		"# Shard i of n is the array task i; thresholds D_d with d mod n = i-1. A part of",
		"# the array can be resubmitted: sbatch --array=2,5 "+TrainScript,
		"retry "+shellJoin(p.Train)+fmt.Sprintf(` --shard slurm/%d --workers "${SLURM_CPUS_PER_TASK:-1}"`, p.Shards),
		"rc=$?",
		`if [ "$rc" = 75 ] && [ "$requeue" = 1 ] && [ "${SLURM_RESTART_COUNT:-0}" -lt 20 ]; then`,
		`	echo "mmds: stopped ahead of the time limit; requeueing ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}" >&2`,
		`	scontrol requeue "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"`,
		"fi",
		`exit "$rc"`)
	return strings.Join(lines, "\n") + "\n"
}

func (p SlurmPlan) mergeScript() string {
	lines := p.header(p.Name+"-merge", p.Name+"-merge-%j.out")
	lines = append(lines, scriptPrelude,
		"# Runs once the array has ended, whatever its tasks' states: the first command trains what they left.")
	for _, c := range p.After {
		lines = append(lines, "retry "+shellJoin(c)+" || exit $?")
	}
	return strings.Join(lines, "\n") + "\n"
}

// scriptPrelude runs mmds in the background, so that the shell's traps can
// forward Slurm's signals to it, and retries exit 75 when no signal came (a
// live process holds the lock).
const scriptPrelude = `set -uo pipefail
# mmds exits 0 when done (a shard may leave thresholds to the merge job), 2 on
# bad input, 75 when it should run again later (stopped by a signal, or its
# lock is held by a live process).
pid= stopped=0 waiting=0 requeue=0
trap 'stopped=1 waiting=0 requeue=1; [ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null' USR1
trap 'stopped=1 waiting=0; [ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null' TERM INT
run() {
	"$@" &
	pid=$!
	waiting=1
	wait "$pid"
	local rc=$?
	# A trap interrupts wait: wait again for mmds's own status.
	while [ "$rc" -gt 128 ] && [ "$waiting" = 0 ]; do waiting=1; wait "$pid"; rc=$?; done
	pid=
	return "$rc"
}
retry() {
	local n rc
	for n in 1 2 3 4 5; do
		run "$@"
		rc=$?
		{ [ "$rc" = 75 ] && [ "$stopped" = 0 ]; } || return "$rc"
		echo "mmds: its lock is held by a live process; trying again in 60 s ($n/5)" >&2
		sleep 60
	done
	return "$rc"
}`

// slurmSeconds converts a Slurm time limit (minutes, minutes:seconds,
// hours:minutes:seconds, days-hours[:minutes[:seconds]]) to seconds.
func slurmSeconds(v string) (int, bool) {
	days, rest, hasDays := strings.Cut(v, "-")
	if !hasDays {
		days, rest = "0", v
	}
	d, err := strconv.Atoi(days)
	if err != nil {
		return 0, false
	}
	var f []int
	for part := range strings.SplitSeq(rest, ":") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return 0, false
		}
		f = append(f, n)
	}
	if !hasDays && len(f) < 3 {
		f = append([]int{0}, f...) // minutes[:seconds]: no hours
	}
	f = append(f, 0, 0) // hours[:minutes[:seconds]]
	return d*86400 + f[0]*3600 + f[1]*60 + f[2], true
}

const submitScript = `#!/bin/sh
# Submits the training array, then the merge job, which runs when every array
# task has ended, whatever its state (afterany), and trains what the tasks
# left. Prints both job ids. With --wait, returns when the merge job has left the queue: 0 if it
# completed, 1 otherwise.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable "$here/train.sbatch")
array=${array%%;*}
echo "training array: job $array"
merge=$(sbatch --parsable --dependency="afterany:$array" "$here/merge.sbatch")
merge=${merge%%;*}
echo "merge, verify and plot: job $merge (after $array ends)"
if [ "${1:-}" = --wait ]; then
	# Poll once a second (sbatch --wait backs off to half a minute).
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
