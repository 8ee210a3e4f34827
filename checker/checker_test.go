package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the tests with the heap growth mmds-check runs with.
func TestMain(m *testing.M) {
	tuneGC()
	os.Exit(m.Run())
}

// The fixtures in testdata are certificates and witness files written by
// mmds (scripts/checker-fixtures.sh): channels on the paper's binary model
// and on a ternary finite model, Proposition 2 and global optima.
// slow marks certificates of networks with sigmoid layers, whose
// enclosures take a second each: TestMutations mutates a few of their
// numbers only.
var fixtures = []struct {
	path, want string
	slow       []string // the numbers TestMutations changes in a slow fixture
}{
	{"testdata/binary/cert.json", "6 points (3 pass, 3 fail, 0 cannot certify): FAIL", nil},
	{"testdata/binary/cert-best.json", "6 points (0 pass, 6 fail, 0 cannot certify): FAIL", bestPaths},
	{"testdata/finite/cert.json", "2 points (1 pass, 1 fail, 0 cannot certify): FAIL", nil},
	{"testdata/smooth/cert.json", "2 points (0 pass, 2 fail, 0 cannot certify): FAIL", smoothPaths},
	{"testdata/onehot/cert.json", "1 point (0 pass, 1 fail, 0 cannot certify): FAIL", smoothPaths},
	{"testdata/ops/cert.json", "5 points (0 pass, 5 fail, 0 cannot certify): FAIL", opsPaths},
	{"testdata/bn/cert.json", "3 points (1 pass, 2 fail, 0 cannot certify): FAIL", nil},
	{"testdata/bnops/cert.json", "2 points (0 pass, 2 fail, 0 cannot certify): FAIL", bnopsPaths},
	{"testdata/categorical/cert.json", "2 points (0 pass, 2 fail, 0 cannot certify): FAIL", catPaths},
	{"testdata/witness-binary.json", "binary model, 4 optima", nil},
	{"testdata/witness-finite.json", "finite model, 4 optima", nil},
	{"testdata/witness-colgen.json", "finite model, 2 optima", nil},
	{"testdata/run-labels/cert.json", "1 point (1 pass, 0 fail, 0 cannot certify, 0 not finalized, 0 not trained): PASS", nil},
	{"testdata/run-paper/cert.json", "30 points (1 pass, 1 fail, 0 cannot certify, 1 not finalized, 27 not trained): FAIL", runPaths},
}

var smoothPaths = []string{".points[0].witness.privatizer.rows[0].mean", ".points[0].witness.privatizer.rows[1].rounding",
	".points[0].witness.privatizer.rows[0].bound", ".points[0].certified.recon_loss", ".points[0].error"}

// opsPaths: the lowered and folded ONNX operators' channels.
var opsPaths = []string{".points[0].witness.privatizer.rows[0].rounding", ".points[1].witness.privatizer.rows[1].mean",
	".points[2].witness.privatizer.rows[0].mean", ".points[2].witness.privatizer.rows[1].rounding",
	".points[3].witness.privatizer.rows[0].mean", ".points[3].error", ".points[3].certified.recon_loss",
	".points[4].witness.privatizer.rows[1].rounding"}

// bnopsPaths: the batch normalizations' channels (sigmoid networks).
var bnopsPaths = []string{".points[0].witness.privatizer.rows[0].mean", ".points[0].witness.privatizer.rows[1].rounding",
	".points[1].witness.privatizer.rows[1].mean", ".points[1].error"}

// bestPaths: --reference best's optimum over all privatizers, the
// tolerance and the verdicts it decides.
var bestPaths = []string{".points[0].reference_at_D_hat", ".points[3].reference_at_D_hat", ".points[2].adv_tolerance",
	".points[5].verdict", ".points[5].pass", ".tolerances.reference"}

// catPaths: the categorical networks' laws and losses.
var catPaths = []string{".points[0].witness.privatizer.laws[0].p[1]", ".points[0].witness.privatizer.laws[1].rounding",
	".points[1].certified.adv_loss[1]"}

// runPaths: in verify's run-paper, a pass, a fail, one not finalized, one
// not trained, and the run's names and hashes.
var runPaths = []string{".points[1].witness.privatizer.rows[0].mean", ".points[1].point_sha256", ".points[1].verdict", ".points[1].pass",
	".points[1].certified.adv_loss[0]", ".points[1].D", ".points[1].gap", ".points[18].witness.privatizer.rows[1].bound",
	".points[18].adv_tolerance", ".points[18].witness.optimum_at_D.prop2.branches[3].nu", ".points[29].status", ".points[29].point_sha256",
	".points[2].verdict", ".config_sha256", ".not_trained", ".not_finalized", ".results_file", ".model_file"}

func TestFixturesVerify(t *testing.T) {
	for _, f := range fixtures {
		s, err := checkFile(f.path)
		if err != nil || !strings.Contains(s, f.want) {
			t.Errorf("%s: %q, %v; want %q", f.path, s, err, f.want)
		}
	}
}

// TestExitStatus: 0 when every file is verified, 1 naming the false claim,
// 2 for a file that cannot be read or is not covered.
func TestExitStatus(t *testing.T) {
	dir := copyFolder(t, "testdata/binary")
	gauss := writeFile(t, dir, "gauss.json", `{"format": "mmds-certificate/1", "mmds_version": "x", "model": "gauss"}`)
	// A sigmoid network that is 0 on [−8, 8] and whose pre-activation
	// overflows beyond 8: its interval derivatives there are 0·∞.
	huge := `{"inputs": ["x", "r"], "precision": "float64", "layers": [{"weight": [[0, 1e300]], "bias": [-8e300], "activation": "relu"},
		{"weight": [[1e10]], "bias": [0], "activation": "sigmoid"}]}`
	writeFile(t, dir, "huge.json", huge)
	overflow := filepath.Join(dir, "overflow.json")
	os.Rename(edit(t, filepath.Join(dir, "cert.json"), func(c map[string]any) {
		p := pointOf(c, 4)
		p["privatizer"], p["point_sha256"] = "huge.json", sha256Hex([]byte(huge))
	}), overflow)
	forged := edit(t, filepath.Join(dir, "cert.json"), func(c map[string]any) { pointOf(c, 1)["pass"] = true })
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"testdata/binary/cert.json", "testdata/witness-binary.json"}, 0, "verified"},
		{[]string{forged}, 1, "points[1]: the certificate says certified, pass true"},
		{[]string{"testdata/binary/cert.json", forged}, 1, "points[1]"},
		{[]string{filepath.Join(dir, "missing.json")}, 2, "no such file"},
		{[]string{gauss}, 2, "not covered: a certificate on the Gaussian model"},
		{[]string{overflow}, 2, "not covered: points[4].witness.privatizer.rows[0]: the enclosure"},
		{nil, 2, "usage"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("%v: exit %d, %q %q; want %d and %q", c.args, code, out.String(), errb.String(), c.code, c.want)
		}
	}
}

// TestReferenceBest: --reference best on a finite model is the paper's
// verdict (its optimum is over all privatizers already), so a certificate
// mmds writes with it differs only in tolerances.reference and verifies; on
// the binary model the verdict weighs against the optimum over all
// privatizers, which the certificate states (reference_at_D_hat) and its
// witness brackets.
func TestReferenceBest(t *testing.T) {
	for _, c := range []struct {
		cert string
		edit func(map[string]any)
		want string
	}{
		{"testdata/finite/cert.json", func(m map[string]any) { m["tolerances"].(map[string]any)["reference"] = "best" },
			"2 points (1 pass, 1 fail, 0 cannot certify): FAIL"},
		{"testdata/binary/cert.json", func(m map[string]any) { m["tolerances"].(map[string]any)["reference"] = "best" },
			"points[0].reference_at_D_hat is missing"},
		{"testdata/binary/cert.json", func(m map[string]any) { pointOf(m, 0)["reference_at_D_hat"] = 0.33 },
			"only with --reference best on the binary model"},
		{"testdata/binary/cert-best.json", func(m map[string]any) { pointOf(m, 1)["reference_at_D_hat"] = 0.331 },
			"points[1].reference_at_D_hat: 0.331 lies outside the witnessed bracket"},
		{"testdata/binary/cert-best.json", func(m map[string]any) { m["tolerances"].(map[string]any)["reference"] = "paper" },
			"points[0].reference_at_D_hat: only with --reference best"},
	} {
		dir := copyFolder(t, filepath.Dir(c.cert))
		path := edit(t, filepath.Join(dir, filepath.Base(c.cert)), c.edit)
		if s, err := checkFile(path); !strings.Contains(s+fmt.Sprint(err), c.want) {
			t.Errorf("%s: %q, %v; want %q", c.cert, s, err, c.want)
		}
	}
}

// TestMutations changes one number of a real certificate or witness file at
// a time, by more than the file's stated precision, and requires the
// checker to reject every change; so too every flipped boolean and edited
// string. Two kinds of field are left out, as docs/check.md says: the
// stated precision itself (TestPrecisionCaps) and the stated-error limit
// tolerances.quad, a policy input that changes nothing a certificate states
// unless it flips the stated error's comparison.
func TestMutations(t *testing.T) {
	for _, f := range fixtures {
		dir := copyFolder(t, filepath.Dir(f.path))
		path := filepath.Join(dir, filepath.Base(f.path))
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc := decode(t, orig)
		var leaves []string
		walk(doc, "", func(p string, v any) { leaves = append(leaves, p) })
		sort.Strings(leaves)
		// An even sample: every third claim outside the witnesses and every
		// 23rd number inside them (all of them with -mutate.all: 8,184
		// mutations, 12 minutes).
		n := 0
		if f.slow != nil {
			leaves = f.slow
		}
		alone := map[int]bool{} // the points checked alone: each verifies so
		for i, p := range leaves {
			stride := 3
			if strings.Contains(p, ".witness.") {
				stride = 23
			}
			if excluded(p) || (!*mutateAll && f.slow == nil && i%stride != 0) {
				continue
			}
			mutated, at := decode(t, orig), p
			// A claim of a later point is mutated in the certificate of
			// that point alone, which verifies unmutated: the points
			// before it, checked first, would verify as they do anyway.
			if k, ok := pointIndex(p); ok && k > 0 {
				if only, ok := pointAlone(mutated, k); ok {
					if !alone[k] {
						b, _ := json.Marshal(only)
						if err := os.WriteFile(path, b, 0o644); err != nil {
							t.Fatal(err)
						}
						if _, err := checkFile(path); err != nil {
							t.Fatalf("%s: points[%d] alone: %v", f.path, k, err)
						}
						alone[k] = true
					}
					mutated = only
					at = ".points[0]" + strings.TrimPrefix(p, fmt.Sprintf(".points[%d]", k))
				}
			}
			if !mutate(mutated, at) {
				continue
			}
			b, _ := json.Marshal(mutated)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if s, err := checkFile(path); err == nil {
				t.Errorf("%s: %s mutated, still verified: %s", f.path, p, s)
			}
			n++
		}
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d mutations, every one rejected", f.path, n)
	}
}

// pointIndex returns k for a path within .points[k].
func pointIndex(path string) (int, bool) {
	var k int
	if _, err := fmt.Sscanf(path, ".points[%d]", &k); err != nil {
		return 0, false
	}
	return k, true
}

// pointAlone returns the certificate doc with its point k only and the
// counts of outcomes and pass stated for that point; false for a
// certificate of a run (bound to the run's thresholds, every one a point).
func pointAlone(doc any, k int) (any, bool) {
	root, ok := doc.(map[string]any)
	if !ok || root["format"] != "mmds-certificate/1" || root["config_sha256"] != "" {
		return nil, false
	}
	points, ok := root["points"].([]any)
	if !ok || k >= len(points) {
		return nil, false
	}
	p, ok := points[k].(map[string]any)
	if !ok {
		return nil, false
	}
	outcome := "failed"
	switch {
	case p["status"] == "cannot certify":
		outcome = "cannot_certify"
	case p["pass"] == true:
		outcome = "passed"
	}
	for _, c := range []string{"passed", "failed", "cannot_certify", "not_finalized", "not_trained"} {
		if _, ok := root[c]; ok || c == outcome {
			root[c] = json.Number("0")
		}
	}
	root[outcome] = json.Number("1")
	root["pass"] = outcome == "passed"
	root["points"] = []any{p}
	return root, true
}

var mutateAll = flag.Bool("mutate.all", false, "TestMutations: mutate every number of the witnesses too (minutes)")

func excluded(path string) bool {
	return strings.Contains(path, "precision.") || strings.HasSuffix(path, "tolerances.quad") || strings.HasSuffix(path, "mmds_version") ||
		strings.Contains(path, ".cells[")
}

// mutate changes the value at path: a number by 1e-6 of max(|v|, 1) (far
// above the stated precisions, 1e-12 and 1e-8), a boolean flipped, a
// string edited.
func mutate(doc any, path string) bool {
	done := false
	var rec func(v any, p string) any
	rec = func(v any, p string) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = rec(e, p+"."+k)
			}
		case []any:
			for i, e := range x {
				x[i] = rec(e, fmt.Sprintf("%s[%d]", p, i))
			}
		default:
			if p != path {
				return v
			}
			done = true
			switch y := x.(type) {
			case json.Number:
				f, _ := y.Float64()
				return f + 1e-6*math.Max(math.Abs(f), 1)
			case bool:
				return !y
			case string:
				return y + "x"
			}
		}
		return v
	}
	rec(doc, "")
	return done
}

func walk(v any, p string, fn func(string, any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walk(e, p+"."+k, fn)
		}
	case []any:
		for i, e := range x {
			walk(e, fmt.Sprintf("%s[%d]", p, i), fn)
		}
	default:
		fn(p, v)
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestPrecisionCaps: a certificate that states a coarser precision than
// the checker's caps is refused, and one that states a finer precision
// than its float64 numbers have is caught by the numbers themselves.
func TestPrecisionCaps(t *testing.T) {
	dir := copyFolder(t, "testdata/binary")
	cert := filepath.Join(dir, "cert.json")
	for _, c := range []struct {
		value, optimum float64
		want           string
	}{
		{1e-6, 1e-8, "accepts at most"},
		{1e-12, 1e-3, "accepts at most"},
		{1e-12, 1e-16, "witnessed bracket"},
		{0, 1e-8, "but it is"},
	} {
		p := edit(t, cert, func(m map[string]any) {
			m["witness"].(map[string]any)["precision"] = map[string]any{"value": c.value, "optimum": c.optimum}
		})
		if _, err := checkFile(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("precision %v, %v: %v; want %q", c.value, c.optimum, err, c.want)
		}
	}
}

// TestForgeries are the hostile-author forgeries of mmds's own tests
// (cmd/mmds: TestCertifyCheck, TestCertifyCheckPathsStayInFolder,
// TestNonRegularInputs), and others, each rejected by the checker alone.
func TestForgeries(t *testing.T) {
	dir := copyFolder(t, "testdata/binary")
	cert := filepath.Join(dir, "cert.json")
	outside := writeFile(t, t.TempDir(), "model.json", `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	if err := os.Symlink(outside, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(cert)
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		text func(string) string
		want string
	}{
		{name: "pass flipped", edit: func(c map[string]any) { c["pass"] = true }, want: "pass is true"},
		{name: "a failing point passes", edit: func(c map[string]any) {
			p := pointOf(c, 1)
			p["pass"], p["verdict"] = true, "pass"
		}, want: "points[1]: the certificate says"},
		{name: "a failing point's losses forged to pass", edit: func(c map[string]any) {
			p := pointOf(c, 1)
			p["certified"] = pointOf(c, 0)["certified"]
		}, want: "points[1].certified"},
		{name: "hash", edit: func(c map[string]any) { pointOf(c, 0)["point_sha256"] = strings.Repeat("0", 64) }, want: "point_sha256"},
		{name: "privatizer swapped, hash updated", edit: func(c map[string]any) {
			p := pointOf(c, 1)
			p["privatizer"], p["point_sha256"] = "channel-pass.json", pointOf(c, 0)["point_sha256"]
		}, want: "points[1]"},
		{name: "model hash", edit: func(c map[string]any) { c["model_sha256"] = strings.Repeat("a", 64) }, want: "model_sha256"},
		{name: "case-variant PASS", text: func(s string) string {
			return strings.Replace(s, `"pass": true`, `"pass": true, "PASS": false`, 1)
		}, want: `"PASS"`},
		{name: "key twice", text: func(s string) string {
			return strings.Replace(s, `"pass": false`, `"pass": false, "pass": true`, 1)
		}, want: "given twice"},
		{name: "unknown key", edit: func(c map[string]any) { c["note"] = 1 }, want: `unknown key "note"`},
		{name: "absolute model file", edit: func(c map[string]any) { c["model_file"] = outside }, want: "absolute"},
		{name: "model file outside", edit: func(c map[string]any) { c["model_file"] = "../model.json" }, want: "leaves the certificate's folder"},
		{name: "model file a link out of the folder", edit: func(c map[string]any) { c["model_file"] = "link.json" }, want: "symbolic link out"},
		{name: "privatizer a FIFO", edit: func(c map[string]any) { pointOf(c, 0)["privatizer"] = "fifo.json" }, want: "not a regular file"},
		{name: "control character", edit: func(c map[string]any) { c["model_file"] = "model\n.json" }, want: "plain relative file name"},
		{name: "no witness", edit: func(c map[string]any) { delete(c, "witness") }, want: "not covered: the certificate carries no witness"},
		{name: "a witness for another threshold", edit: func(c map[string]any) {
			w := pointOf(c, 0)["witness"].(map[string]any)
			w["optimum_at_D"] = w["optimum_at_D_hat"]
		}, want: "another threshold"},
		{name: "a branch dropped", edit: func(c map[string]any) {
			p2 := pointOf(c, 0)["witness"].(map[string]any)["optimum_at_D_hat"].(map[string]any)["prop2"].(map[string]any)
			p2["branches"] = p2["branches"].([]any)[1:]
		}, want: "cover 15 of the 16"},
		{name: "a higher optimum claimed", edit: func(c map[string]any) { pointOf(c, 1)["optimum_at_D_hat"] = 0.3 }, want: "outside the witnessed bracket"},
		{name: "a network's rounding understated", edit: func(c map[string]any) {
			row(pointOf(c, 3), 0)["rounding"] = 1e-12
		}, want: "not within"},
		{name: "a network's mean moved", edit: func(c map[string]any) {
			row(pointOf(c, 5), 1)["mean"] = row(pointOf(c, 5), 1)["mean"].(float64) + 1e-4
		}, want: "not within"},
		{name: "a network's witness dropped", edit: func(c map[string]any) {
			delete(pointOf(c, 4)["witness"].(map[string]any), "privatizer")
		}, want: "privatizer is missing"},
		{name: "a network's cells without -8", edit: func(c map[string]any) {
			row(pointOf(c, 4), 0)["cells"] = []any{-16.0, 0.0, 16.0}
		}, want: "through -8 and 8"},
		{name: "a channel given a network's witness", edit: func(c map[string]any) {
			pointOf(c, 0)["witness"].(map[string]any)["privatizer"] = pointOf(c, 3)["witness"].(map[string]any)["privatizer"]
		}, want: "a channel needs none"},
	} {
		forge(t, dir, orig, c.name, c.want, c.edit, c.text)
	}
	// The privatizer file swapped after certification.
	if err := os.WriteFile(filepath.Join(dir, "channel-pass.json"), []byte(`{"channel": [[1, 0], [0, 1]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := checkFile(cert); err == nil || !strings.Contains(err.Error(), "point_sha256") {
		t.Errorf("swapped privatizer: %v", err)
	}
	// A FIFO as the certificate: refused at once.
	if _, err := checkFile(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO certificate: %v", err)
	}
}

// TestBatchNormForgeries: PyTorch's float32 export with a BatchNorm1d
// (testdata/bn) and the float32 sigmoid network of testdata/bnops with the
// scale γ or the variance of one unit moved and the file's hash updated:
// only the enclosure of the folded network can tell.
func TestBatchNormForgeries(t *testing.T) {
	for _, c := range []struct {
		name, dir, file string
		input           int     // of the first BatchNormalization node: 1 the scale, 4 the variance
		by              float32 // the factor on its unit 0
	}{
		{"the scale γ moved by 1%", "testdata/bn", "bn-pass-binary.onnx", 1, 1.01},
		{"the variance moved by 2%", "testdata/bn", "bn-pass-binary.onnx", 4, 1.02},
		{"the variance moved by 2% (a sigmoid network)", "testdata/bnops", "bn32.onnx", 4, 1.02},
	} {
		dir := copyFolder(t, c.dir)
		orig, _ := os.ReadFile(filepath.Join(dir, "cert.json"))
		b, _ := os.ReadFile(filepath.Join(dir, c.file))
		v := bnParam(t, b, c.input)
		binary.LittleEndian.PutUint32(v, math.Float32bits(c.by*math.Float32frombits(binary.LittleEndian.Uint32(v))))
		writeFile(t, dir, "forged.onnx", string(b))
		forge(t, dir, orig, c.name, "not within", func(c map[string]any) {
			p := pointOf(c, 0)
			p["privatizer"], p["point_sha256"] = "forged.onnx", sha256Hex(b)
		}, nil)
	}
}

// bnParam returns the raw bytes, within b, of input i of the first
// BatchNormalization node of an ONNX file.
func bnParam(t *testing.T, b []byte, i int) []byte {
	g := decodePB(b).msg(modelGraph)
	for _, nd := range g.msgs(graphNode) {
		if nd.str(nodeOp) == "BatchNormalization" {
			for _, init := range g.msgs(graphInit) {
				if init.str(tensorName) == nd.strs(nodeInput)[i] {
					return init.one(tensorRaw).([]byte)
				}
			}
		}
	}
	t.Fatal("no BatchNormalization with its parameters as raw initializers")
	return nil
}

// TestCategoricalForgeries: forgeries of the certificate of categorical
// networks (testdata/categorical: a ReLU network from PyTorch in ONNX, a
// ReLU → tanh network in JSON), rejected by the enclosure of their laws.
func TestCategoricalForgeries(t *testing.T) {
	dir := copyFolder(t, "testdata/categorical")
	orig, _ := os.ReadFile(filepath.Join(dir, "cert.json"))
	// A weight of the softmax layer moved by 0.05, the file's hash updated:
	// only the law's enclosure can tell.
	var net map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "tanh-softmax.json"))
	json.Unmarshal(b, &net)
	w := net["layers"].([]any)[2].(map[string]any)["weight"].([]any)[0].([]any)
	w[0] = w[0].(float64) + 0.05
	b, _ = json.Marshal(net)
	writeFile(t, dir, "forged-net.json", string(b))
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"a softmax weight moved, its hash updated", func(c map[string]any) {
			p := pointOf(c, 1)
			p["privatizer"], p["point_sha256"] = "forged-net.json", sha256Hex(b)
		}, "from the runtime's law"},
		{"a bound and the rounding understated", func(c map[string]any) {
			law(pointOf(c, 0), 2)["bound"], law(pointOf(c, 0), 2)["rounding"] = 1e-7, 1e-7
		}, "from the runtime's law"},
		{"cells too coarse", func(c map[string]any) {
			law(pointOf(c, 0), 0)["cells"] = []any{-16.0, -8.0, -4.0, 0.0, 4.0, 8.0, 16.0}
		}, "from the runtime's law"},
		{"a law given as one output's rows", func(c map[string]any) {
			w := pointOf(c, 0)["witness"].(map[string]any)["privatizer"].(map[string]any)
			w["rows"] = w["laws"]
			delete(w, "laws")
		}, "laws is missing"},
	} {
		forge(t, dir, orig, c.name, c.want, c.edit, nil)
	}
}

// forge writes orig, edited (edit on its JSON, or text on its text), beside
// it and requires the checker to reject it with an error naming want,
// within seconds.
func forge(t *testing.T, dir string, orig []byte, name, want string, edit func(map[string]any), text func(string) string) {
	t.Helper()
	s := string(orig)
	if text != nil {
		s = text(s)
	} else {
		var m map[string]any
		json.Unmarshal(orig, &m)
		edit(m)
		b, _ := json.Marshal(m)
		s = string(b)
	}
	path := writeFile(t, dir, "forged.json", s)
	start := time.Now()
	if _, err := checkFile(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v; want an error naming %q", name, err, want)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("%s: took %v", name, time.Since(start))
	}
}

// TestRunForgeries: forgeries of a certificate of mmds verify (the
// run-paper fixture: points 1 and 18 networks, a pass and a fail, 29 not
// finalized, the rest not trained) and of the results file it names.
func TestRunForgeries(t *testing.T) {
	dir := copyFolder(t, "testdata/run-paper")
	orig, _ := os.ReadFile(filepath.Join(dir, "cert.json"))
	for _, c := range []struct {
		name, want string
		edit       func(map[string]any)
	}{
		{"a point's record swapped", "points[1].point_sha256", func(c map[string]any) {
			pointOf(c, 1)["point_sha256"] = pointOf(c, 18)["point_sha256"]
		}},
		{"a network's witness dropped", "privatizer is missing", func(c map[string]any) {
			delete(pointOf(c, 18)["witness"].(map[string]any), "privatizer")
		}},
		{"a failing verdict flipped", "points[18]: the certificate says", func(c map[string]any) {
			p := pointOf(c, 18)
			p["pass"], p["verdict"] = true, "pass"
		}},
		{"a failing point's numbers replaced by a passing one's", "points[18]", func(c map[string]any) {
			c["points"].([]any)[18] = pointOf(c, 1)
		}},
		{"not finalized called not trained", "the point is not finalized", func(c map[string]any) {
			p := pointOf(c, 29)
			p["status"], p["verdict"] = "not trained", "not trained"
		}},
		{"a threshold not trained claimed passing", "the point is not trained", func(c map[string]any) {
			p := pointOf(c, 2)
			p["status"], p["pass"], p["verdict"] = "certified", true, "pass"
		}},
		{"a threshold moved", "points[1].D", func(c map[string]any) { pointOf(c, 1)["D"] = 0.01 }},
		{"a threshold dropped", "30 thresholds", func(c map[string]any) { c["points"] = c["points"].([]any)[:29] }},
		{"the configuration's hash", "config_sha256", func(c map[string]any) { c["config_sha256"] = strings.Repeat("a", 64) }},
		{"the counts", "not_trained", func(c map[string]any) { c["not_trained"] = 26 }},
		{"results file outside", "leaves the certificate's folder", func(c map[string]any) { c["results_file"] = "../results.json" }},
		{"no results file", "results_file is missing", func(c map[string]any) { delete(c, "results_file") }},
	} {
		forge(t, dir, orig, c.name, c.want, c.edit, nil)
	}
	// results.json edited: a weight of point 18's privatizer, then with
	// the record's hash and the certificate's updated to the new seal.
	resPath := filepath.Join(dir, "results.json")
	b, _ := os.ReadFile(resPath)
	res := decode(t, b).(map[string]any)
	rec := res["points"].([]any)[1].(map[string]any)
	w := rec["networks"].([]any)[0].(map[string]any)["layers"].([]any)[1].(map[string]any)["weights"].([]any)[0].([]any)
	w[0] = json.Number("1.5")
	nb, _ := json.Marshal(res)
	writeFile(t, dir, "results.json", string(nb))
	if _, err := checkFile(filepath.Join(dir, "cert.json")); err == nil || !strings.Contains(err.Error(), "the record's seal") {
		t.Errorf("a weight changed: %v", err)
	}
	var newSeal string
	if _, err := checkBytes(nil, func() { newSeal = seal(asObject("rec", decode(t, mustJSON(rec)))) }); err != nil {
		t.Fatal(err)
	}
	rec["sha256"] = newSeal
	nb, _ = json.Marshal(res)
	writeFile(t, dir, "results.json", string(nb))
	forge(t, dir, orig, "a weight changed, the hashes updated", "not within", func(c map[string]any) {
		pointOf(c, 18)["point_sha256"] = newSeal
	}, nil)
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// TestSeal: the seal of every record of the paper's binary run and of the
// labels example hashes to the sha256 mmds recorded beside it, and the
// numbers of a network keep Go's 'g' form.
func TestSeal(t *testing.T) {
	for _, p := range []string{"../paper/binary/results.json", "../examples/labels/binary/results.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range asObject(p, parseJSON(b)).list("points") {
			rec := asObject(p, v)
			if h := seal(rec); h != rec.str("sha256") {
				t.Errorf("%s: points[%d]: seal %s, recorded %s", p, i, h, rec.str("sha256"))
			}
		}
	}
	one, tiny, big, third := 1.0, 1e-5, 1234567.0, 1.0/3
	b, _ := json.Marshal(floatsG{&one, &tiny, &big, &third, nil})
	if want := `[1,1e-05,1.234567e+06,0.3333333333333333,null]`; string(b) != want {
		t.Errorf("floatsG: %s, want %s", b, want)
	}
}

// TestPaperCertificates: the committed certificates check — paper/binary
// (a verify certificate with witnesses; about 10 seconds of enclosures, so not
// with -short), paper/gauss not covered.
func TestPaperCertificates(t *testing.T) {
	if _, err := checkFile("../paper/gauss/certificate.json"); err == nil || !strings.Contains(err.Error(), "not covered: a certificate on the Gaussian model") {
		t.Errorf("paper/gauss: %v", err)
	}
	if testing.Short() {
		t.Skip("paper/binary: about 10 s of enclosures; run without -short")
	}
	if s, err := checkFile("../paper/binary/certificate.json"); err != nil || !strings.Contains(s, "30 points (27 pass, 2 fail, 0 cannot certify, 1 not finalized, 0 not trained): FAIL") {
		t.Errorf("paper/binary: %q, %v", s, err)
	}
}

// TestRiskBruteForce compares the exact Bayes risk with the best of every
// deterministic decision rule (float64) on random finite models and
// channels: the two are computed independently.
func TestRiskBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 30 {
		n, v, a, m := 2+rng.IntN(2), 1+rng.IntN(3), 2+rng.IntN(2), 1+rng.IntN(3)
		prior, w, l, p := dist(rng, n), rows(rng, n, v), make([][]float64, n), rows(rng, n, m)
		for x := range l {
			for range a {
				l[x] = append(l[x], float64(rng.IntN(4)))
			}
		}
		mod := &model{n: n}
		for _, q := range prior {
			mod.prior = append(mod.prior, exact(q))
		}
		o := mod.newObserver(ratMatrix(w), ratMatrix(l))
		pr := make([][]*big.Rat, n)
		for x := range p {
			for _, q := range p[x] {
				pr[x] = append(pr[x], exact(q))
			}
		}
		got := fl(o.risk(pr))
		// Every rule: an estimate per (f, v).
		best := math.Inf(1)
		cells := m * v
		for code := 0; code < int(math.Pow(float64(a), float64(cells))); code++ {
			c, r := code, 0.0
			for f := range m {
				for s := range v {
					est := c % a
					c /= a
					for x := range n {
						r += prior[x] * p[x][f] * w[x][s] * l[x][est]
					}
				}
			}
			best = math.Min(best, r)
		}
		if math.Abs(got-best) > 1e-12 {
			t.Fatalf("risk %v, brute force %v", got, best)
		}
	}
}

// TestProp2AgainstGrid: Proposition 2's witnessed bracket on the fixture
// contains the best binary privatizer of a 401 × 401 grid that meets D
// (Appendix B's MAP losses in float64: a lower bound found without any
// multiplier), and is not far above it.
func TestProp2AgainstGrid(t *testing.T) {
	root := asObject("", parseJSON(readFile("testdata/witness-binary.json", maxJSONBytes)))
	cfg := root.obj("config")
	p, qy, qz := cfg.num("p"), cfg.num("q_y"), numbers("q_z", cfg.get("q_z"))
	m := readModel("binary", cfg)
	c := &checker{m: m, prec: precision{value: exact(1e-12), optimum: exact(1e-8)}}
	mapLoss := func(s0, s1, q float64) float64 {
		pf := [2][2]float64{{s0, 1 - s0}, {1 - s1, s1}} // P(f | x)
		pi, l := [2]float64{1 - p, p}, 0.0
		for f := range 2 {
			for y := range 2 {
				var j [2]float64
				for x := range 2 {
					w := q
					if x == y {
						w = 1 - q
					}
					j[x] = pi[x] * pf[x][f] * w
				}
				l += math.Min(j[0], j[1])
			}
		}
		return l
	}
	for i, o := range root.list("optima") {
		ob := asObject("", o)
		d := ob.num("D")
		br := c.prop2Bracket("prop2", ob.obj("witness").obj("prop2"), d)
		best := -1.0
		for a := 0; a <= 400; a++ {
			for b := 0; b <= 400; b++ {
				s0, s1 := float64(a)/400, float64(b)/400
				if mapLoss(s0, s1, qy) > d {
					continue
				}
				adv := math.Inf(1)
				for _, q := range qz {
					adv = math.Min(adv, mapLoss(s0, s1, q))
				}
				best = math.Max(best, adv)
			}
		}
		if !(best <= fl(br.hi)+1e-12 && fl(br.hi)-best < 0.01) {
			t.Errorf("optima[%d] D=%v: grid %v, bracket [%v, %v]", i, d, best, fl(br.lo), fl(br.hi))
		}
		t.Logf("D = %.4g: grid %.6g, bracket [%.9g, %.9g]", d, best, fl(br.lo), fl(br.hi))
	}
}

func TestSqrtBounds(t *testing.T) {
	for _, v := range []float64{1e-300, 2, 0.25, 3e12, 1e-9 * 0.99} {
		lo, hi := sqrtBounds(exact(v))
		if mul(lo, lo).Cmp(exact(v)) > 0 || mul(hi, hi).Cmp(exact(v)) < 0 || math.Abs(fl(lo)-math.Sqrt(v)) > 1e-15*math.Sqrt(v) {
			t.Errorf("√%v: [%v, %v]", v, fl(lo), fl(hi))
		}
	}
}

func TestStrictJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": 1, "a": 2}`, "given twice"},
		{`{"a": 1, "A": 2}`, "given twice"},
		{`{"k": 1, "K": 2}`, "given twice"},
		{"\xEF\xBB\xBF{}", "byte order mark"},
		{`{} {}`, "data after it"},
		{`{"a": NaN}`, "not JSON"},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), "deeper"},
	} {
		_, err := checkBytes([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.in, err, c.want)
		}
	}
	o := asObject("", parseJSON([]byte(`{"x": 1e400}`)))
	if _, err := checkBytes(nil, func() { o.num("x") }); err == nil || !strings.Contains(err.Error(), "not a finite float64") {
		t.Errorf("1e400: %v", err)
	}
}

// checkBytes runs parseJSON (or fn) under checkFile's recovery.
func checkBytes(b []byte, fn ...func()) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *checkError:
				err = e
			default:
				panic(r)
			}
		}
	}()
	if len(fn) > 0 {
		fn[0]()
		return "", nil
	}
	parseJSON(b)
	return "", nil
}

// helpers

func dist(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	s := 0.0
	for i := range v {
		v[i] = rng.Float64()
		s += v[i]
	}
	for i := range v {
		v[i] /= s
	}
	return v
}

func rows(rng *rand.Rand, n, m int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = dist(rng, m)
	}
	return out
}

func row(p map[string]any, x int) map[string]any {
	return p["witness"].(map[string]any)["privatizer"].(map[string]any)["rows"].([]any)[x].(map[string]any)
}

// law is a categorical network's law at x in point p's witness.
func law(p map[string]any, x int) map[string]any {
	return p["witness"].(map[string]any)["privatizer"].(map[string]any)["laws"].([]any)[x].(map[string]any)
}

func pointOf(c map[string]any, i int) map[string]any {
	return c["points"].([]any)[i].(map[string]any)
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// edit writes a copy of the certificate at path, edited, beside it.
func edit(t *testing.T, path string, fn func(map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	nb, _ := json.Marshal(m)
	return writeFile(t, filepath.Dir(path), "edited.json", string(nb))
}

// copyFolder copies the files of dir into a new temporary folder.
func copyFolder(t testing.TB, dir string) string {
	t.Helper()
	dst := t.TempDir()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.IsDir() {
			continue
		}
		in, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(out, in)
		in.Close()
		out.Close()
	}
	return dst
}

// TestCellsProveTooLittle: cells coarser than the samples mmds took leave
// the chord's curvature term wider than the stated bound of a network with
// a sigmoid layer, and the claim is not verified.
func TestCellsProveTooLittle(t *testing.T) {
	dir := copyFolder(t, "testdata/smooth")
	p := edit(t, filepath.Join(dir, "cert.json"), func(c map[string]any) {
		cells := []any{}
		for r := -16.0; r <= 16; r += 0.5 {
			cells = append(cells, r)
		}
		row(pointOf(c, 1), 0)["cells"] = cells
	})
	if _, err := checkFile(p); err == nil || !strings.Contains(err.Error(), "rows[0]: the runtime's P(F = 1 | X = 0) lies in") {
		t.Errorf("coarse cells: %v", err)
	}
}

// TestONNXOpsLowered: the float64 fixture's folds and lowerings (the
// functions themselves are tested by the fixture's enclosures against
// mmds's means: an α ignored or a leaky slope moved by 1% is rejected), and
// what this checker does not read is "not covered".
func TestONNXOpsLowered(t *testing.T) {
	b, _ := os.ReadFile("testdata/ops/ops64.onnx")
	var n *network
	if _, err := checkBytes(nil, func() { n = parseONNX("ops64.onnx", b) }); err != nil {
		t.Fatal(err)
	}
	// Gemm(α, β) + Sub with LeakyRelu's units; its combination; Gemm(α)
	// with Clip's max stage; Clip's min stage and its end (virtual); Gemm +
	// Sigmoid. The float64 folds count two roundings each, Sub and the
	// clip's fold one.
	var ops []int
	var virtual []bool
	for _, ly := range n.layers {
		ops, virtual = append(ops, ly.ops), append(virtual, ly.virtual)
	}
	if fmt.Sprint(ops, virtual) != "[5 0 3 1 0 0] [false false false true true false]" || n.layers[0].alpha != 0.75 || n.layers[2].alpha != 0.5 {
		t.Errorf("ops %v, virtual %v, alpha %v and %v", ops, virtual, n.layers[0].alpha, n.layers[2].alpha)
	}
	// The inexact variant: the last Gemm's C = 0.1 plus an Add of 0.2, one
	// more rounding and the float64 sum's error, 2⁻⁵³·|0.1 + 0.2|.
	b, _ = os.ReadFile("testdata/ops/ops64-inexact.onnx")
	if _, err := checkBytes(nil, func() { n = parseONNX("ops64-inexact.onnx", b) }); err != nil {
		t.Fatal(err)
	}
	c3, c4 := 0.1, 0.2 // float64 values, summed in float64
	if ly := n.layers[5]; ly.ops != 1 || len(ly.berr) != 1 || !(ly.berr[0] >= 0x1p-53*0.3 && ly.berr[0] < 0x1p-53*0.31) || ly.b[0] != c3+c4 {
		t.Errorf("inexact bias parts: ops %d, berr %v, b %v", ly.ops, ly.berr, ly.b)
	}
	// BatchNorm1d → LeakyReLU (and a Dropout whose training_mode is a
	// constant false): the normalized units doubled (z and −z), each
	// folded weight within u + 5u' of s·w for the float64 s (the exact s
	// within 4u' of it).
	for _, f := range []string{"bn-leaky-gauss.onnx", "bn-leaky-gauss-f64.onnx", "bn-leaky-gauss-dropout.onnx"} {
		b, _ := os.ReadFile("../privatizer/testdata/" + f)
		if _, err := checkBytes(nil, func() { n = parseONNX(f, b) }); err != nil {
			t.Fatal(err)
		}
		u, _, _, _ := n.roundoff()
		ly := n.layers[0]
		if len(ly.bn) != 16 || len(ly.w) != 16 || ly.act != "relu" {
			t.Fatalf("%s: %d normalized units of %d, %s", f, len(ly.bn), len(ly.w), ly.act)
		}
		for j, bu := range ly.bn {
			for i, w := range bu.w {
				if d := math.Abs(bu.s * w); bu.own[i] > (u+5*0x1p-53)*d || ly.w[j][i] != -ly.w[(j+8)%16][i] {
					t.Errorf("%s: unit %d weight %d: fold %v of s·w = %v, off by %v", f, j, i, ly.w[j][i], d, bu.own[i])
				}
			}
		}
	}
	// The batch normalizations of testdata/bnops (float64): folded into a
	// Gemm with α (two roundings) and doubled by a LeakyRelu; into a Gemm
	// before a Clip, whose max stage adds a rounding; into the Clip's last,
	// virtual stage; an Add after it gets an identity layer.
	b, _ = os.ReadFile("testdata/bnops/bn64.onnx")
	if _, err := checkBytes(nil, func() { n = parseONNX("bn64.onnx", b) }); err != nil {
		t.Fatal(err)
	}
	ops, virtual = nil, nil
	var bn []bool
	for _, ly := range n.layers {
		ops, virtual, bn = append(ops, ly.ops), append(virtual, ly.virtual), append(bn, ly.bn != nil)
	}
	if fmt.Sprint(ops, virtual, bn) != "[2 0 1 1 0 1 0] [false false false true true false false] [true false true false true false false]" || len(n.layers[0].bn) != 8 {
		t.Errorf("bn64.onnx: ops %v, virtual %v, normalized %v", ops, virtual, bn)
	}
	for _, c := range []struct{ file, want string }{
		{"../privatizer/testdata/bn-train.onnx", `node 1 ("BatchNormalization"): the graph must be a chain`},
		{"../privatizer/testdata/view-size.onnx", "not covered"},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := checkBytes(nil, func() { parseONNX(filepath.Base(c.file), b) }); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.file, err, c.want)
		}
	}
}

// FuzzONNX: any bytes as an ONNX file are a network or refused (exit 2),
// never a crash.
func FuzzONNX(f *testing.F) {
	for _, p := range []string{"testdata/binary/net-pass.onnx", "testdata/binary/relu2-binary.onnx", "testdata/smooth/torch32-fresh0.onnx",
		"testdata/ops/ops32.onnx", "testdata/ops/ops64.onnx", "testdata/ops/leaky-relu6-binary.onnx", "testdata/ops/ops64-inexact.onnx",
		"testdata/categorical/categorical-finite.onnx", "testdata/bn/bn-clamp-binary.onnx", "testdata/bnops/bn32.onnx"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := checkBytes(nil, func() { parseONNX("f.onnx", b) }); err != nil {
			if e, ok := err.(*checkError); !ok || e.exit != 2 {
				t.Fatalf("%v", err)
			}
		}
	})
}

// FuzzJSON: any bytes as a certificate are verified or refused, never a
// crash.
func FuzzJSON(f *testing.F) {
	for _, p := range []string{"testdata/binary/cert.json", "testdata/witness-binary.json", "testdata/run-labels/cert.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := copyFolder(f, "testdata/run-labels") // the files run-labels' certificate names
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "c.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		checkFile(path) // a panic other than a checkError fails
	})
}

// FuzzResults: any bytes as the results file of a certificate of mmds
// verify are verified or refused, never a crash.
func FuzzResults(f *testing.F) {
	for _, p := range []string{"testdata/run-labels/results.json", "testdata/run-paper/results.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := copyFolder(f, "testdata/run-labels")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		checkFile(filepath.Join(dir, "cert.json")) // a panic other than a checkError fails
	})
}

// TestElementaryFunctions measures the trusted base: the enclosures of Φ,
// φ, the sigmoid and tanh from Go's math package, at 2,000 points of
// [−16, 16], against 512-bit series.
func TestElementaryFunctions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sqrtTwoPi := new(big.Float).SetPrec(refPrec).Sqrt(new(big.Float).SetPrec(refPrec).Mul(big.NewFloat(2), refPi()))
	for i := range 2000 {
		x := -16 + 32*float64(i)/2000 + rng.Float64()*1e-2
		phi, cdf := refNormal(x, sqrtTwoPi)
		for _, c := range []struct {
			name string
			iv   fi
			ref  *big.Float
		}{
			{"φ", phiFI(pt(x)), phi},
			{"Φ", cdfFI(pt(x)), cdf},
			{"σ", sigmoidFI(pt(x)), refSigmoid(x)},
			{"tanh", tanhFI(pt(x)), refTanh(x)},
		} {
			lo, hi := new(big.Float).SetFloat64(c.iv.lo), new(big.Float).SetFloat64(c.iv.hi)
			if lo.Cmp(c.ref) > 0 || hi.Cmp(c.ref) < 0 {
				t.Fatalf("%s(%v): [%v, %v] misses %v", c.name, x, c.iv.lo, c.iv.hi, c.ref)
			}
		}
	}
}

const refPrec = 512

// refExp is e^x by its Taylor series at 200 bits (x reduced by halving).
func refExp(x *big.Float) *big.Float {
	k := 0
	y := new(big.Float).SetPrec(refPrec).Set(x)
	for y.Cmp(big.NewFloat(0.5)) > 0 || y.Cmp(big.NewFloat(-0.5)) < 0 {
		y.Quo(y, big.NewFloat(2))
		k++
	}
	sum, term := new(big.Float).SetPrec(refPrec).SetInt64(1), new(big.Float).SetPrec(refPrec).SetInt64(1)
	for n := 1; n < 120; n++ {
		term.Mul(term, y)
		term.Quo(term, big.NewFloat(float64(n)))
		sum.Add(sum, term)
	}
	for range k {
		sum.Mul(sum, sum)
	}
	return sum
}

// refPi is π by Machin's formula at 200 bits.
func refPi() *big.Float {
	atanInv := func(n int64) *big.Float {
		x := new(big.Float).SetPrec(refPrec).Quo(big.NewFloat(1), new(big.Float).SetInt64(n))
		sum, p := new(big.Float).SetPrec(refPrec).Set(x), new(big.Float).SetPrec(refPrec).Set(x)
		x2 := new(big.Float).SetPrec(refPrec).Mul(x, x)
		for k := int64(1); k < 400; k++ {
			p.Mul(p, x2)
			term := new(big.Float).SetPrec(refPrec).Quo(p, new(big.Float).SetInt64(2*k+1))
			if k%2 == 1 {
				sum.Sub(sum, term)
			} else {
				sum.Add(sum, term)
			}
		}
		return sum
	}
	pi := new(big.Float).SetPrec(refPrec).Mul(big.NewFloat(16), atanInv(5))
	return pi.Sub(pi, new(big.Float).SetPrec(refPrec).Mul(big.NewFloat(4), atanInv(239)))
}

// refNormal is φ(x) and Φ(x) = 1/2 + φ(x)·Σ_k x^{2k+1}/(1·3·…·(2k+1)),
// given √(2π) (refPi).
func refNormal(x float64, sqrtTwoPi *big.Float) (*big.Float, *big.Float) {
	bx := new(big.Float).SetPrec(refPrec).SetFloat64(x)
	e := refExp(new(big.Float).SetPrec(refPrec).Quo(new(big.Float).SetPrec(refPrec).Neg(new(big.Float).SetPrec(refPrec).Mul(bx, bx)), big.NewFloat(2)))
	phi := new(big.Float).SetPrec(refPrec).Quo(e, sqrtTwoPi)
	sum, term := new(big.Float).SetPrec(refPrec).Set(bx), new(big.Float).SetPrec(refPrec).Set(bx)
	x2 := new(big.Float).SetPrec(refPrec).Mul(bx, bx)
	for k := 1; k < 1000; k++ {
		term.Mul(term, x2)
		term.Quo(term, big.NewFloat(float64(2*k+1)))
		sum.Add(sum, term)
	}
	cdf := new(big.Float).SetPrec(refPrec).Mul(phi, sum)
	return phi, cdf.Add(cdf, big.NewFloat(0.5))
}

func refSigmoid(x float64) *big.Float {
	e := refExp(new(big.Float).SetPrec(refPrec).SetFloat64(-x))
	return new(big.Float).SetPrec(refPrec).Quo(big.NewFloat(1), e.Add(e, big.NewFloat(1)))
}

func refTanh(x float64) *big.Float {
	e := refExp(new(big.Float).SetPrec(refPrec).SetFloat64(2 * x))
	q := new(big.Float).SetPrec(refPrec).Quo(big.NewFloat(2), e.Add(e, big.NewFloat(1)))
	return q.Sub(big.NewFloat(1), q)
}

// TestUpDownNextafter: up and down are math.Nextafter toward ±Inf, bit for bit.
func TestUpDownNextafter(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), 0x1p-1022, -0x1p-1022}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		vals = append(vals, math.Float64frombits(r.Uint64()))
	}
	for _, x := range vals {
		if x != x {
			continue
		}
		if a, b := up(x), math.Nextafter(x, math.Inf(1)); math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("up(%v) = %v, Nextafter %v", x, a, b)
		}
		if a, b := down(x), math.Nextafter(x, math.Inf(-1)); math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("down(%v) = %v, Nextafter %v", x, a, b)
		}
	}
}
