package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// mmds-check (checker/, docs/check.md) is the independent checker of what
// mmds writes. runCLI hands it every certificate (certify --certificate,
// verify --certificate) and witness file (binary --witness, finite
// --witness) a test writes: each must be verified (exit 0), or refused as
// "not covered" (exit 2) for what the checker's version does not check.
// A claim it finds false fails the test.

var checkerBuild struct {
	once sync.Once
	path string
	err  error
}

// checkerPath builds mmds-check once per test process.
func checkerPath(t testing.TB) string {
	t.Helper()
	checkerBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "mmds-check-")
		if err != nil {
			checkerBuild.err = err
			return
		}
		checkerBuild.path = filepath.Join(dir, "mmds-check")
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		cmd := exec.Command(goBin, "build", "-o", checkerBuild.path, ".")
		cmd.Dir = filepath.Join("..", "..", "checker")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			checkerBuild.err = errors.New("go build checker/: " + err.Error() + ": " + string(out))
		}
	})
	if checkerBuild.err != nil {
		t.Fatal(checkerBuild.err)
	}
	return checkerBuild.path
}

// runChecker runs mmds-check on files and returns its exit status and its
// standard output and error together.
func runChecker(t testing.TB, files ...string) (int, string) {
	t.Helper()
	out, err := exec.Command(checkerPath(t), files...).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// checkWritten runs mmds-check on the certificate or witness file that a
// command with args wrote, if any.
func checkWritten(t testing.TB, args []string) {
	t.Helper()
	if len(args) == 0 || (args[0] != "certify" && args[0] != "verify" && args[0] != "binary" && args[0] != "finite") {
		return
	}
	for i, a := range args[:len(args)-1] {
		if a != "--certificate" && a != "--witness" {
			continue
		}
		path := args[i+1]
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		code, out := runChecker(t, gathered(t, path))
		if code != 0 && !(code == 2 && strings.Contains(out, ": not covered: ")) {
			t.Errorf("mmds %s: mmds-check %s: exit %d: %s", strings.Join(args, " "), path, code, out)
		}
	}
}

// gathered returns the certificate at path, or, when it names files
// outside its folder (certify's names for files it was given from
// elsewhere, which mmds certify --check and mmds-check refuse to follow), a
// copy of it in a folder of its own with copies of those files, renamed.
func gathered(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var c map[string]any
	if dec.Decode(&c) != nil || c["format"] != "mmds-certificate/1" {
		return path
	}
	dir, moved := t.TempDir(), false
	relocate := func(v any, i int) any {
		n, ok := v.(string)
		if !ok || !strings.HasPrefix(n, "../") {
			return v
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("in%d-%s", i, filepath.Base(n))
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		moved = true
		return name
	}
	c["model_file"] = relocate(c["model_file"], 0)
	points, _ := c["points"].([]any)
	for i, p := range points {
		if pm, ok := p.(map[string]any); ok {
			pm["privatizer"] = relocate(pm["privatizer"], i+1)
		}
	}
	if !moved {
		return path
	}
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	cert := filepath.Join(dir, "cert.json")
	if err := os.WriteFile(cert, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return cert
}
