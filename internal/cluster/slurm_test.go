package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func testPlan(dir string) SlurmPlan {
	return SlurmPlan{
		Name: "mmds-gauss", Shards: 4,
		Train:   []string{"/opt/mmds/bin/mmds", "train", "gauss", "--out", "/data/run one", "--seed", "7"},
		After:   [][]string{{"/opt/mmds/bin/mmds", "train", "gauss", "--out", "/data/run one", "--seed", "7"}, {"/opt/mmds/bin/mmds", "verify", "/data/run one"}},
		WorkDir: dir, LogDir: filepath.Join(dir, "logs"), CPUsPerTask: 2, Time: "01:30:00", MaxParallel: 3,
	}
}

func TestSlurmPlanWrite(t *testing.T) {
	dir := t.TempDir()
	paths, err := testPlan(dir).Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("Write returned %v", paths)
	}
	train, _ := os.ReadFile(filepath.Join(dir, TrainScript))
	for _, want := range []string{
		"#SBATCH --array=1-4%3", "#SBATCH --cpus-per-task=2", "#SBATCH --time=01:30:00",
		"#SBATCH --chdir=" + dir, "'/data/run one'", "--shard slurm/4 --workers \"${SLURM_CPUS_PER_TASK:-1}\"",
		"#SBATCH --requeue", "#SBATCH --signal=B:USR1@120", "scontrol requeue",
	} {
		if !strings.Contains(string(train), want) {
			t.Errorf("train.sbatch lacks %q:\n%s", want, train)
		}
	}
	merge, _ := os.ReadFile(filepath.Join(dir, MergeScript))
	if strings.Contains(string(merge), "--array") || strings.Count(string(merge), "/opt/mmds/bin/mmds") != 2 {
		t.Errorf("merge.sbatch:\n%s", merge)
	}
	submit, _ := os.ReadFile(filepath.Join(dir, SubmitScript))
	if !strings.Contains(string(submit), "--dependency=\"afterany:$array\"") {
		t.Errorf("submit.sh does not run the merge after any end of the array:\n%s", submit)
	}
	// Every script is valid bash.
	for _, p := range paths {
		if out, err := exec.Command("bash", "-n", p).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", p, err, out)
		}
	}
}

// The quoted command line, run by bash, reaches the program as the same
// argv.
func TestShellJoinRoundTrip(t *testing.T) {
	argv := []string{"a b", "it's", `"q"`, "$HOME", "x;y", "plain", "--d=0.5", "", "*"}
	out, err := exec.Command("bash", "-c", `printf '%s\n' `+shellJoin(argv)).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if strings.Join(got, "|") != strings.Join(argv, "|") {
		t.Errorf("round trip: got %q; want %q", got, argv)
	}
}

func TestSlurmPlanValidate(t *testing.T) {
	dir := t.TempDir()
	for name, edit := range map[string]func(*SlurmPlan){
		"name":      func(p *SlurmPlan) { p.Name = "a b" },
		"shards":    func(p *SlurmPlan) { p.Shards = 0 },
		"many":      func(p *SlurmPlan) { p.Shards = MaxShards + 1 },
		"train":     func(p *SlurmPlan) { p.Train = nil },
		"workdir":   func(p *SlurmPlan) { p.WorkDir = "rel" },
		"cpus":      func(p *SlurmPlan) { p.CPUsPerTask = 0 },
		"time":      func(p *SlurmPlan) { p.Time = "soon" },
		"throttle":  func(p *SlurmPlan) { p.MaxParallel = -1 },
		"partition": func(p *SlurmPlan) { p.Partition = "a;b c" },
	} {
		p := testPlan(dir)
		edit(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, p)
		}
	}
	if err := testPlan(dir).Validate(); err != nil {
		t.Errorf("valid plan: %v", err)
	}
}

// The scripts' wrapper forwards SIGTERM to mmds and returns its status, 75,
// without retrying; exit 75 without a signal (a held lock) is retried.
func TestScriptPreludeSignals(t *testing.T) {
	fake := `sh -c 'trap "exit 75" TERM; sleep 5 >/dev/null 2>&1 & wait'`
	cmd := exec.Command("bash", "-c", scriptPrelude+"\nretry "+fake+"\necho rc=$? stopped=$stopped")
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	start := time.Now()
	cmd.Wait()
	if got := strings.TrimSpace(out.String()); got != "rc=75 stopped=1" || time.Since(start) > 3*time.Second {
		t.Errorf("after SIGTERM: %q in %v; want rc=75 stopped=1 at once", got, time.Since(start))
	}
}

func TestSlurmSeconds(t *testing.T) {
	for v, want := range map[string]int{"30": 1800, "5:30": 330, "02:00:00": 7200, "1-0": 86400, "1-02:03": 93780, "0-00:00:10": 10} {
		if got, ok := slurmSeconds(v); !ok || got != want {
			t.Errorf("slurmSeconds(%q) = %d, %v; want %d", v, got, ok, want)
		}
	}
}
