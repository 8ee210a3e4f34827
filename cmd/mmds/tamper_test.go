package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/rundir"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// copyDir copies a results directory (results.json, model.json, trials/).
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editJSON decodes dir/results.json into a generic map, lets edit change
// it, and writes it back as is: an edit by hand, after training.
func editJSON(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, rundir.ResultsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	edit(v)
	if b, err = json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func obj(v any, keys ...string) map[string]any {
	m := v.(map[string]any)
	for _, k := range keys {
		m = m[k].(map[string]any)
	}
	return m
}

func point(v map[string]any, i int) map[string]any { return v["points"].([]any)[i].(map[string]any) }

// Tampering with a real results directory in every way a verdict could
// read: a broken binding is exit 2 naming what changed; fields a verdict
// must not read leave it unchanged; the outcome of an unedited copy is the
// baseline's.
func TestVerifyTamperedDirectories(t *testing.T) {
	base := t.TempDir()
	// The quick preset of make run on two of its thresholds (every one
	// finalized): a directory as training writes it, its bindings included.
	if code, _, errs := runCLI(t, "train", "binary", "--preset", "quick", "--sweep", "0.1:0.2:2", "--out", base, "--format", "json"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	baseCode, baseOut, _ := runCLI(t, "verify", base, "--format", "json")
	if baseCode == 2 {
		t.Fatalf("baseline: exit 2")
	}
	verdicts := func(out string) []string {
		var rep struct {
			Points []struct{ Verdict string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("verify JSON: %v", err)
		}
		var vs []string
		for _, p := range rep.Points {
			vs = append(vs, p.Verdict)
		}
		return vs
	}
	baseVerdicts := verdicts(baseOut)
	fi := -1 // a finalized point
	for i, p := range readResults(t, base).Points {
		if p.Finalized {
			fi = i
		}
	}
	if fi < 0 {
		t.Fatal("the baseline run finalized no point")
	}
	where := fmt.Sprintf("points[%d] (D = %v) was changed after training", fi, readResults(t, base).Points[fi].D)

	broken := []struct {
		name string
		edit func(dir string)
		want string
	}{
		{"tau", func(d string) {
			editJSON(t, d, func(v map[string]any) { obj(v, "config", "protocol")["tau"] = 1e6 })
		}, `"config" was changed after training`},
		{"test size", func(d string) {
			editJSON(t, d, func(v map[string]any) { obj(v, "config")["test_size"] = 1 })
		}, `"config" was changed after training`},
		{"thresholds", func(d string) {
			editJSON(t, d, func(v map[string]any) { obj(v, "config")["d"].([]any)[1] = 0.11 })
		}, `"config" was changed after training`},
		{"model swapped", func(d string) {
			os.WriteFile(filepath.Join(d, rundir.ModelFile), []byte(`{"p": 0.54, "q_y": 0.2, "q_z": [0.49]}`), 0o644)
		}, "not the model this run was trained on"},
		{"model hash", func(d string) {
			editJSON(t, d, func(v map[string]any) { obj(v, "config")["model_sha256"] = strings.Repeat("ab", 32) })
		}, "not the model this run was trained on"},
		{"privatizer weight", func(d string) {
			editJSON(t, d, func(v map[string]any) {
				l := point(v, fi)["networks"].([]any)[0].(map[string]any)["layers"].([]any)[1].(map[string]any)
				l["bias"].([]any)[0] = l["bias"].([]any)[0].(float64) + 1
			})
		}, where},
		{"learned distortion", func(d string) {
			editJSON(t, d, func(v map[string]any) { point(v, fi)["recon_loss"] = 0.049 })
		}, where},
		{"finalized flag", func(d string) {
			editJSON(t, d, func(v map[string]any) { point(v, fi)["finalized"] = false })
		}, where},
		{"binding removed", func(d string) {
			editJSON(t, d, func(v map[string]any) { delete(v, "binding") })
		}, "no binding"},
	}
	for _, c := range broken {
		dir := copyDir(t, base)
		c.edit(dir)
		code, _, errs := runCLI(t, "verify", dir)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming %q", c.name, code, errs, c.want)
		}
	}

	// Fields no verdict reads: timings, trial counts, the trial files.
	harmless := []struct {
		name string
		edit func(dir string)
	}{
		{"trial seconds", func(d string) {
			editJSON(t, d, func(v map[string]any) {
				point(v, 0)["trials"].([]any)[0].(map[string]any)["seconds"] = 1e9
			})
		}},
		{"attempted count", func(d string) {
			editJSON(t, d, func(v map[string]any) { point(v, fi)["attempted"] = 99 })
		}},
		{"trial files removed", func(d string) { os.RemoveAll(filepath.Join(d, "trials")) }},
		{"unedited copy", func(string) {}},
	}
	for _, c := range harmless {
		dir := copyDir(t, base)
		c.edit(dir)
		code, out, errs := runCLI(t, "verify", dir, "--format", "json")
		if code != baseCode {
			t.Errorf("%s: exit %d (stderr %q), baseline %d", c.name, code, errs, baseCode)
			continue
		}
		if got := verdicts(out); strings.Join(got, "|") != strings.Join(baseVerdicts, "|") {
			t.Errorf("%s: verdicts %q, baseline %q", c.name, got, baseVerdicts)
		}
	}
}

// An interrupted run (results.json as training leaves it after the first of
// two thresholds) cannot pass: the second threshold is "not trained".
func TestVerifyInterruptedRunFails(t *testing.T) {
	dir := passingBinary(t)
	res := readResults(t, dir)
	res.Config.D = append(res.Config.D, 0.15)
	verifytest.WriteResults(t, dir, res)
	code, out, errs := runCLI(t, "verify", dir, "--summary")
	if code != 1 || !strings.Contains(out, "1 not trained") || !strings.Contains(out, "D = 0.15") ||
		!strings.Contains(errs, "1 not trained") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and 1 not trained", code, out, errs)
	}
}

// A privatizer that releases X itself is optimal at D̂ = 0. At D = 0.005 on
// the Gaussian model its certified D̂ is the stated error's floor (the box's
// tails, the far terms skipped and the M nodes left out, each within its
// share of the tolerance on the scale 1e-6·Var X on which a loss of 0 is
// measured: about 3e-9) and its gap the optimum there, below the absolute
// floor (1e-9 × Var X = 1.6e-8) that keeps it from deciding the verdict;
// the gap at D reports what F = X gives up against the optimum at the asked
// D.
func TestVerifyIdentityPrivatizerAtSmallD(t *testing.T) {
	dir := t.TempDir()
	net := learntest.LinearNet(1, 0, 0)
	verifytest.Synthetic(t, dir, model.Gauss, 0.1, []verifytest.Point{{D: 0.005, Priv: &net, Recon: 0, Adv: []float64{0, 0}}})
	code, out, errs := runCLI(t, "verify", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var rep struct {
		Points []struct {
			Gap     float64 `json:"gap"`
			GapD    float64 `json:"gap_at_D"`
			Verdict string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Points[0]
	if p.GapD <= 0 || p.Gap > 1e-9*16 || !strings.HasPrefix(p.Verdict, "pass") {
		t.Errorf("F = X at D = 0.005: gap %g, gap at D %g, verdict %q", p.Gap, p.GapD, p.Verdict)
	}
}

// The certificate file round-trips through --check, and a certificate that
// claims another verdict or number does not match.
func TestVerifyCertificateCheck(t *testing.T) {
	dir := passingBinary(t)
	cert := filepath.Join(t.TempDir(), "cert.json")
	if code, _, errs := runCLI(t, "verify", dir, "--certificate", cert); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, out, errs := runCLI(t, "verify", "--check", cert, dir); code != 0 || !strings.Contains(out, "matches") {
		t.Fatalf("--check of its own certificate: exit %d, %q %q", code, out, errs)
	}
	b, _ := os.ReadFile(cert)
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	for _, edit := range []struct {
		name string
		do   func(map[string]any)
		want string
	}{
		{"verdict", func(c map[string]any) { c["points"].([]any)[0].(map[string]any)["verdict"] = "fail: made up" }, "verdict"},
		{"gap", func(c map[string]any) { c["points"].([]any)[0].(map[string]any)["gap"] = -0.5 }, "gap"},
		{"tolerance", func(c map[string]any) { obj(c, "tolerances")["adv_se"] = 30.0 }, "adv_se"},
		{"model hash", func(c map[string]any) { c["model_sha256"] = strings.Repeat("0", 64) }, "model_sha256"},
	} {
		var cc map[string]any
		json.Unmarshal(b, &cc)
		edit.do(cc)
		nb, _ := json.Marshal(cc)
		path := filepath.Join(t.TempDir(), "c.json")
		os.WriteFile(path, nb, 0o644)
		code, _, errs := runCLI(t, "verify", "--check", path, dir)
		if code != 1 || !strings.Contains(errs, edit.want) {
			t.Errorf("%s edited: exit %d, stderr %q; want exit 1 naming %q", edit.name, code, errs, edit.want)
		}
	}
	if code, _, _ := runCLI(t, "verify", "--check", filepath.Join(t.TempDir(), "none.json"), dir); code != 2 {
		t.Errorf("--check of a missing file: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "verify", dir, "--certificate", filepath.Join(t.TempDir(), "no", "c.json")); code != 2 {
		t.Errorf("--certificate into a missing folder: exit %d, want 2", code)
	}
}

// Two writers of one results directory: the second is refused with exit 75
// (retry later) while the first holds the lock; a lock left by a dead
// process is taken over; a planted symbolic link as the lock is refused
// with exit 2, its target neither written nor echoed.
func TestTrainLocksOut(t *testing.T) {
	dir := t.TempDir()
	if err := rundir.Dir(dir).Prepare(); err != nil { // as the first writer did
		t.Fatal(err)
	}
	l, err := rundir.Dir(dir).Lock(cluster.Shard{})
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, tinyTrain("binary", dir)...)
	if code != exitRetry || !strings.Contains(errs, "by another mmds train") {
		t.Errorf("second writer: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runCLI(t, append(tinyTrain("binary", dir), "--shard", "1/2")...); code != exitRetry {
		t.Errorf("shard beside a whole-run writer: exit %d, stderr %q", code, errs)
	}
	l.Unlock()
	os.WriteFile(filepath.Join(dir, ".lock"), []byte("pid 999999 on gone since 2026-01-01T00:00:00Z\n"), 0o644)
	if code, _, errs := runCLI(t, tinyTrain("binary", dir)...); code != 0 || !strings.Contains(errs, "pid 999999 on gone") {
		t.Errorf("stale lock: exit %d, stderr %q", code, errs)
	}

	dir = t.TempDir()
	if err := rundir.Dir(dir).Prepare(); err != nil { // a results directory, its lock planted
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("token=s3cr3t\n"), 0o600)
	if err := os.Symlink(secret, filepath.Join(dir, ".lock")); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, tinyTrain("binary", dir)...)
	if code != exitUsage || !strings.Contains(errs, filepath.Join(dir, ".lock")) || strings.Contains(errs, "s3cr3t") || strings.Count(errs, "\n") != 1 {
		t.Errorf("symlinked lock: exit %d, stderr %q; want exit 2 naming it in one line", code, errs)
	}
	if b, _ := os.ReadFile(secret); string(b) != "token=s3cr3t\n" {
		t.Errorf("the symlink's target now holds %q", b)
	}
}

// A results directory whose privatizer declares its inputs as ["r", "x"]
// and reads only its second input, x: a near-identity channel (s0 = s1 =
// 0.95) that leaks X. Read with x as input 0 it would be a function of the
// noise alone, optimal at D = D_max = 0.2; mmds verify and mmds certify of
// the same weights must both judge the function k(x, r) itself: fail.
func TestInputOrderSameVerdict(t *testing.T) {
	net := learntest.ConstantNet(0.95, 0.95)
	net.Inputs = []string{"r", "x"}
	net.Layers[0].W = [][]float64{{0, 1}}
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, model.Binary, 0.05, []verifytest.Point{{D: 0.2, Priv: &net, Recon: 0.05, Adv: []float64{0.05}}})
	vcode, vout, verrs := runCLI(t, "verify", dir, "--format", "json")
	var rep struct{ Points []struct{ Verdict string } }
	if err := json.Unmarshal([]byte(vout), &rep); err != nil || len(rep.Points) != 1 {
		t.Fatalf("verify: exit %d, %v, stderr %q", vcode, err, verrs)
	}
	res := readResults(t, dir)
	n, err := res.Points[0].Privatizer()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := n.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	priv := filepath.Join(t.TempDir(), "priv.json")
	if err := os.WriteFile(priv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ccode, cout, cerrs := runCLI(t, "certify", "--model", filepath.Join(dir, rundir.ModelFile), "--privatizer", priv, "--d", "0.2", "--format", "json")
	var crep struct{ Points []struct{ Verdict string } }
	if err := json.Unmarshal([]byte(cout), &crep); err != nil || len(crep.Points) != 1 {
		t.Fatalf("certify: exit %d, %v, stderr %q", ccode, err, cerrs)
	}
	v, c := rep.Points[0].Verdict, crep.Points[0].Verdict
	if vcode != 1 || ccode != 1 || !strings.HasPrefix(v, "fail") || !strings.HasPrefix(c, "fail") {
		t.Errorf("verify: exit %d %q; certify: exit %d %q; want both to fail (k reads x)", vcode, v, ccode, c)
	}
}

// Float32 networks whose runtime release carries other information than
// the exact function: cannot be certified (exit 3), never pass or fail.
//   - Adding and subtracting 2^24 is F = X in float32 but constant in exact
//     arithmetic (certifying the exact function would pass it at D = 0.2),
//     from ONNX and from the JSON layout alike, the verdict naming the
//     rounding.
//   - On the Gaussian model, a release offset far from 0 (F = 10⁷ or 10⁶ +
//     0.01X + 0.011R, the linear optimum at D = 1 shifted) or a step below
//     its own rounding (F = 1 + 1e-8·1{X > 4}, F = 0.03 + 5e-10·1{X > 4})
//     rounds to a release with no information on X: the runtime's
//     reconstructor loss is 5.76 or 2.51 (brute force over the float32
//     forward pass), where the exact function certifies D̂ = 1 or 3.37. The
//     rounding is measured against √Var[F], not against |F| or a floor.
//
// An honest float32 network still certifies.
func TestCertifyFloat32Trick(t *testing.T) {
	binary := binaryModelFile(t)
	gauss, _ := filepath.Abs("../../gauss/paper.json")
	for _, c := range []struct{ model, file, d, want string }{
		{binary, "trick24-binary.onnx", "0.2", "rounding of the network's runtime precision"},
		{binary, "trick24-binary.json", "0.2", "rounding of the network's runtime precision"},
		{gauss, "gauss-f32-offset7.json", "1", "rounding of the network's runtime precision"},
		{gauss, "gauss-f32-offset.json", "1", "rounding of the network's runtime precision"},
		{gauss, "gauss-f32-steps.json", "3.37", "rounding of the network's runtime precision"},
		{gauss, "gauss-f32-steps-small.json", "3.37", "rounding of the network's runtime precision"},
	} {
		code, out, errs := runCLI(t, "certify", "--model", c.model, "--privatizer", fixtures+c.file, "--d", c.d)
		if code != 3 || !strings.Contains(errs, "cannot certify") || !strings.Contains(out, c.want) {
			t.Errorf("%s at D = %s: exit %d, stdout %q, stderr %q; want 3, cannot certify (%s)", c.file, c.d, code, out, errs, c.want)
		}
	}
	if code, _, errs := runCLI(t, "certify", "--model", binary, "--privatizer", fixtures+"net-pass.onnx", "--d", "0.15"); code != 0 {
		t.Errorf("honest float32 network: exit %d, stderr %q", code, errs)
	}
}
