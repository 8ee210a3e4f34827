package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// File names are completed as they are, never as patterns: a file named
// "[m].json" is offered as itself, not as the m.json its name matches as a
// glob, and "q?.json" once, not with every file it matches (plain bash,
// without the bash-completion package).
func TestRedTeam3BashCompletionGlobNames(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	code, script, errs := runCLI(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("completion bash: exit %d, %s", code, errs)
	}
	dir, work := t.TempDir(), t.TempDir()
	writeTestFile(t, dir, "comp.bash", script)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(dir, "mmds")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, f := range []string{"m.json", "[m].json", "q?.json", "qq.json", "a b.json", "*.json"} {
		writeTestFile(t, work, f, "{}")
	}
	prog := `compopt() { :; }
source ` + filepath.Join(dir, "comp.bash") + `
COMP_WORDS=(mmds certify --model ""); COMP_CWORD=3; COMP_LINE="mmds certify --model "; COMP_POINT=${#COMP_LINE}
COMPREPLY=()
__start_mmds
printf '%s\n' "${COMPREPLY[@]}" | sed 's/[[:space:]]*$//' | sort
`
	writeTestFile(t, dir, "prog.bash", prog)
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", "cd "+work+" && source "+filepath.Join(dir, "prog.bash"))
	cmd.Env = append(os.Environ(), "MMDS_TEST_AS_MMDS=1", "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "BASH_ENV=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	want := "*.json\n[m].json\na b.json\nm.json\nq?.json\nqq.json\n"
	if string(out) != want {
		t.Errorf("completing --model offered\n%s\nwant each file once, as named:\n%s", out, want)
	}
}
