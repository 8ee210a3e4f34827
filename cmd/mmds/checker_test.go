package main

import (
	"bytes"
	"context"
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
// "not covered" (exit 2) for what the checker's version does not check
// (never for a certificate of verify on a binary or finite model, nor for
// a categorical network).
// A claim it finds false fails the test.

// checkerDir is checker/, found before any test changes folder.
var checkerDir, _ = filepath.Abs(filepath.Join("..", "..", "checker"))

var checkerBuild struct {
	once sync.Once
	path string
	err  error
}

// runCLIVerified runs mmds like runCLI and requires mmds-check to verify
// (exit 0) the certificate written to cert: mmds-check runs once, where
// runCLI would run it too and also accept "not covered".
func runCLIVerified(t testing.TB, cert string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	if code == exitUsage {
		t.Errorf("mmds %s: exit 2: %s", strings.Join(args, " "), errb.String())
	} else if cc, cout := runChecker(t, gathered(t, cert)); cc != 0 {
		t.Errorf("mmds %s: mmds-check %s: exit %d: %s", strings.Join(args, " "), cert, cc, cout)
	}
	return code, out.String(), errb.String()
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
		cmd.Dir = checkerDir
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
// command with args wrote, if any: a command that exits 2 (bad input)
// writes none.
func checkWritten(t testing.TB, args []string, code int) {
	t.Helper()
	if code == exitUsage || len(args) == 0 || (args[0] != "certify" && args[0] != "verify" && args[0] != "binary" && args[0] != "finite") {
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
		// A certificate of verify on a binary or finite model carries its
		// witnesses: it must verify.
		covered := args[0] == "verify" && !strings.Contains(out, "Gaussian") || strings.Contains(out, "categorical")
		if code != 0 && (covered || !(code == 2 && strings.Contains(out, ": not covered: "))) {
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
	// relocate copies the file a name leads to into dir: under a name of
	// its own when it lies outside the certificate's folder, else under
	// its name.
	relocate := func(v any, i int) any {
		n, ok := v.(string)
		if !ok || n == "" {
			return v
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(n)))
		if err != nil {
			return v // mmds-check says what is wrong with it
		}
		name := n
		if strings.HasPrefix(n, "../") {
			name, moved = fmt.Sprintf("in%d-%s", i, filepath.Base(n)), true
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	c["model_file"] = relocate(c["model_file"], 0)
	if n, ok := c["results_file"]; ok {
		c["results_file"] = relocate(n, 0)
	}
	points, _ := c["points"].([]any)
	for i, p := range points {
		if pm, ok := p.(map[string]any); ok && pm["privatizer"] != nil {
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

// TestWitnessFiles: mmds binary --witness and mmds finite --witness write
// what proves every optimum the command reports — the same privatizer and
// losses as its JSON output — and mmds-check verifies each file (runCLI
// hands it over): Proposition 2 with the global optimum beside it, the ray
// LP, and column generation with a pricing tree. A fixed alphabet has no
// witness (exit 2).
func TestWitnessFiles(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "binary.json")
	code, out, errs := runCLI(t, "binary", "--quiet", "--global", "--sweep", "0.01:0.2:5", "--format", "json", "--witness", w)
	if code != 0 {
		t.Fatalf("binary --witness: exit %d: %s", code, errs)
	}
	var doc struct {
		Points []struct {
			D, S0, S1, MinAdv, Global float64
		} `json:"points"`
	}
	json.Unmarshal([]byte(strings.NewReplacer(`"s0"`, `"S0"`, `"s1"`, `"S1"`, `"min_adv_loss"`, `"MinAdv"`, `"global_min_adv_loss"`, `"Global"`).Replace(out)), &doc)
	var wf struct {
		Optima []struct {
			D      float64    `json:"D"`
			S      [2]float64 `json:"s"`
			MinAdv float64    `json:"min_adv_loss"`
			Global float64    `json:"global_min_adv_loss"`
		} `json:"optima"`
	}
	b, _ := os.ReadFile(w)
	if err := json.Unmarshal(b, &wf); err != nil || len(wf.Optima) != 5 || len(doc.Points) != 5 {
		t.Fatalf("witness file: %v, %d optima, %d points", err, len(wf.Optima), len(doc.Points))
	}
	for i, p := range doc.Points {
		o := wf.Optima[i]
		if o.D != p.D || o.S != [2]float64{p.S0, p.S1} || o.MinAdv != p.MinAdv || o.Global != p.Global {
			t.Errorf("D = %g: the witness file restates %+v, the command printed %+v", p.D, o, p)
		}
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"ray LP", []string{"--config", "../../examples/finite-ternary.json", "--sweep", "0:0.2:3"}},
		{"column generation", []string{"--config", "../../examples/finite-random-n6-k2.json", "--d", "0.095"}},
	} {
		w := filepath.Join(dir, "finite.json")
		// run, not runCLI: mmds-check runs once, below, where it must
		// verify the file (runCLI would also accept "not covered").
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"finite", "--quiet", "--witness", w}, c.args...), &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, code, stderr.String())
		}
		if code, out := runChecker(t, w); code != 0 {
			t.Errorf("%s: mmds-check: exit %d: %s", c.name, code, out)
		}
	}
	if code, _, errs := runCLI(t, "finite", "--alphabet", "2", "--witness", filepath.Join(dir, "m.json")); code != 2 || !strings.Contains(errs, "no witness") {
		t.Errorf("--alphabet 2 --witness: exit %d, %q; want 2", code, errs)
	}
}

// TestCertifyNetworkWitnesses: certificates of networks — JSON and ONNX,
// float32 and float64, ReLU, sigmoid and tanh layers, PyTorch's
// BatchNorm1d exports, a one-hot x on a finite model — carry their cells,
// and mmds-check verifies every one (exit 0: none is "not covered").
func TestCertifyNetworkWitnesses(t *testing.T) {
	dir := t.TempDir()
	bm := writeTestFile(t, dir, "model.json", `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	for _, f := range []string{"relu2-binary.json", "relu2-binary.onnx", "clamp-binary.onnx", "tanh-binary.onnx", "torch32-trained0.onnx", "trick24-binary.onnx",
		"bn-pass-binary.onnx", "bn-clamp-binary.onnx", "bn-clamp-binary-f64.onnx"} {
		b, err := os.ReadFile(fixtures + f)
		if err != nil {
			t.Fatal(err)
		}
		priv, cert := writeTestFile(t, dir, f, string(b)), filepath.Join(dir, f+".cert.json")
		runCLIVerified(t, cert, "certify", "--quiet", "--model", bm, "--privatizer", priv, "--d", "0.15", "--certificate", cert)
	}
	fm := writeTestFile(t, dir, "ternary.json", `{"prior": [0.5, 0.3, 0.2], "reconstructor": {"channel": [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]}, "adversaries": [{"channel": [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]}]}`)
	onehot := writeTestFile(t, dir, "onehot.json", `{"inputs": ["x=0", "x=1", "x=2", "r"], "precision": "float64", "layers": [
		{"weight": [[0.5, -0.2, 0.1, 1.2], [-0.3, 0.4, 0.9, -0.7], [0.2, 0.2, -0.5, 0.3]], "bias": [0.1, -0.2, 0.05], "activation": "relu"},
		{"weight": [[1.1, -0.8, 0.6]], "bias": [-0.1], "activation": "sigmoid"}]}`)
	if code, _, errs := runCLI(t, "certify", "--quiet", "--model", fm, "--privatizer", onehot, "--d", "0.15", "--certificate", filepath.Join(dir, "onehot.cert.json")); code == 2 {
		t.Errorf("one-hot network: exit 2: %s", errs)
	}
	// Categorical networks: PyTorch's float32 softmax over 4 labels (ONNX),
	// and a float32 ReLU → tanh → softmax over 3 labels.
	b, err := os.ReadFile(fixtures + "categorical-finite.onnx")
	if err != nil {
		t.Fatal(err)
	}
	torch := writeTestFile(t, dir, "categorical.onnx", string(b))
	smooth := writeTestFile(t, dir, "tanh-softmax.json", `{"inputs": ["x=0", "x=1", "x=2", "r"], "layers": [
		{"weight": [[0.5, -0.2, 0.1, 1.2], [-0.3, 0.4, 0.9, -0.7], [0.2, 0.2, -0.5, 0.3]], "bias": [0.1, -0.2, 0.05], "activation": "relu"},
		{"weight": [[1.1, -0.8, 0.6], [0.3, 0.9, -0.4]], "bias": [-0.1, 0.2], "activation": "tanh"},
		{"weight": [[1.5, -0.5], [-1.0, 0.8], [0.2, 1.3]], "bias": [0.1, 0, -0.1], "activation": "softmax"}]}`)
	// The second against --reference best, which on a finite model is the
	// paper's optimum (over all privatizers): mmds-check must verify both.
	for i, priv := range []string{torch, smooth} {
		args := []string{"certify", "--quiet", "--model", fm, "--privatizer", priv, "--d", "0.15", "--tol-expect", "1e-6", "--certificate", priv + ".cert.json"}
		if i == 1 {
			args = append(args, "--reference", "best")
		}
		runCLIVerified(t, priv+".cert.json", args...)
	}
}
