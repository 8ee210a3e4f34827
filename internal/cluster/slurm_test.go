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
		"#SBATCH --array=1-4%3", "#SBATCH --cpus-per-task=2", `#SBATCH --time="01:30:00"`,
		`#SBATCH --chdir="` + dir + `"`, "'/data/run one'", "--shard slurm/4 --workers \"${SLURM_CPUS_PER_TASK:-1}\"",
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

// A value that reaches a script with a control character (a newline ends
// an #SBATCH line even inside quotes, and bash runs the rest), a line or
// paragraph separator, a bidirectional control or bytes that are not
// UTF-8 is refused, in one line, before anything is written; so is a
// backslash in the log folder (it turns off Slurm's %-patterns).
func TestSlurmPlanValidate(t *testing.T) {
	dir := t.TempDir()
	for name, edit := range map[string]func(*SlurmPlan){
		"name":                      func(p *SlurmPlan) { p.Name = "a b" },
		"shards":                    func(p *SlurmPlan) { p.Shards = 0 },
		"many":                      func(p *SlurmPlan) { p.Shards = MaxShards + 1 },
		"train":                     func(p *SlurmPlan) { p.Train = nil },
		"workdir":                   func(p *SlurmPlan) { p.WorkDir = "rel" },
		"cpus":                      func(p *SlurmPlan) { p.CPUsPerTask = 0 },
		"time":                      func(p *SlurmPlan) { p.Time = "soon" },
		"throttle":                  func(p *SlurmPlan) { p.MaxParallel = -1 },
		"partition":                 func(p *SlurmPlan) { p.Partition = "a;b c" },
		"partition backslash":       func(p *SlurmPlan) { p.Partition = `a\b` },
		"workdir newline command":   func(p *SlurmPlan) { p.WorkDir = dir + "/x\ntouch /tmp/pwned" },
		"workdir carriage return":   func(p *SlurmPlan) { p.WorkDir = dir + "/x\r" },
		"logdir newline command":    func(p *SlurmPlan) { p.LogDir = dir + "/jobs\n#SBATCH --wrap=id/logs" },
		"logdir backslash":          func(p *SlurmPlan) { p.LogDir = dir + `/a\b/logs` },
		"train argument newline":    func(p *SlurmPlan) { p.Train = append(p.Train, "--out=/data/x\nid") },
		"merge argument tab":        func(p *SlurmPlan) { p.After[1] = append(p.After[1], "/data/a\tb") },
		"merge argument U+2028":     func(p *SlurmPlan) { p.After[1] = append(p.After[1], "/data/a\u2028b") },
		"merge argument NUL":        func(p *SlurmPlan) { p.After[1] = append(p.After[1], "/data/a\x00b") },
		"merge argument bidi":       func(p *SlurmPlan) { p.After[1] = append(p.After[1], "/data/\u202egpj.exe") },
		"merge argument not UTF-8":  func(p *SlurmPlan) { p.After[1] = append(p.After[1], "/data/\xc3") },
		"program path with newline": func(p *SlurmPlan) { p.Train[0] = "/opt/mm\nds" },
	} {
		p := testPlan(dir)
		p.After = [][]string{append([]string{}, p.After[0]...), append([]string{}, p.After[1]...)}
		edit(&p)
		out := filepath.Join(t.TempDir(), "jobs")
		if _, err := p.Write(out); err == nil {
			t.Errorf("%s: Write accepted %+v", name, p)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the message spans lines: %q", name, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the folder was created", name)
		}
	}
	if err := testPlan(dir).Validate(); err != nil {
		t.Errorf("valid plan: %v", err)
	}
}

// sbatchArgument reads one option of an #SBATCH line as sbatch 22.05 does
// (src/sbatch/opt.c): a backslash escapes the next character, single or
// double quotes group, an unquoted '#' starts a comment, and the argument
// ends at unquoted white space. Checked against sbatch itself in
// docs/cluster.md.
func sbatchArgument(line string) string {
	var b strings.Builder
	var quote rune
	escaped := false
	for _, r := range line {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
			continue
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
		case r == '"' || r == '\'':
			quote = r
			continue
		case r == '#':
			return b.String()
		case r == ' ' || r == '\t':
			return b.String()
		}
		b.WriteRune(r)
	}
	return b.String()
}

// The #SBATCH lines carry the working and log folders whatever they hold —
// spaces, quotes, '#', '$(…)', '%' (doubled in the log pattern) — and the
// command lines reach the program as the same argv: sbatch's reading of
// each line gives the folder back.
func TestSlurmHeaderQuoting(t *testing.T) {
	for _, name := range []string{"plain", "a b", `it's "quoted"`, "#hash", "$(touch pwned)", "`id`", "50%", "%j", "é中", `back\slash`} {
		root := t.TempDir()
		work := filepath.Join(root, name)
		logs := filepath.Join(root, strings.ReplaceAll(name, `\`, "_"), "logs")
		p := testPlan(work)
		p.LogDir = logs
		p.Train = append(p.Train, "--config="+work+"/model.json")
		jobs := filepath.Join(root, "jobs")
		if _, err := p.Write(jobs); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		text, _ := os.ReadFile(filepath.Join(jobs, TrainScript))
		got := map[string]string{}
		for _, l := range strings.Split(string(text), "\n") {
			if rest, ok := strings.CutPrefix(l, "#SBATCH --"); ok {
				opt, val, _ := strings.Cut(rest, "=")
				got[opt] = sbatchArgument(val)
			}
		}
		wantLog := strings.ReplaceAll(logs, "%", "%%") + "/mmds-gauss-%A_%a.out"
		if got["chdir"] != work || got["output"] != wantLog || got["job-name"] != "mmds-gauss" || got["time"] != "01:30:00" {
			t.Errorf("%q: sbatch reads chdir %q, output %q; want %q, %q", name, got["chdir"], got["output"], work, wantLog)
		}
		// bash reads the training line back as the same argv.
		var line string
		for _, l := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(l, "retry ") {
				line = strings.TrimPrefix(l, "retry ")
			}
		}
		out, err := exec.Command("bash", "-c", `printf '%s\n' `+strings.ReplaceAll(line, `"${SLURM_CPUS_PER_TASK:-1}"`, "1")).Output()
		want := append(append([]string{}, p.Train...), "--shard", "slurm/4", "--workers", "1")
		if err != nil || strings.Join(strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"), "|") != strings.Join(want, "|") {
			t.Errorf("%q: bash reads %q (%v); want %q", name, out, err, want)
		}
		if out, err := exec.Command("bash", "-n", filepath.Join(jobs, TrainScript)).CombinedOutput(); err != nil {
			t.Errorf("%q: bash -n: %v\n%s", name, err, out)
		}
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
