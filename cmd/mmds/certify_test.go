package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify/verifytest"
)

const fixtures = "../../privatizer/testdata/"

func binaryModelFile(t *testing.T) string {
	return writeTestFile(t, t.TempDir(), "model.json", `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
}

type certifyDoc struct {
	Model  string
	Points []struct {
		D         float64
		Certified struct {
			Recon  float64   `json:"recon_loss"`
			Adv    []float64 `json:"adv_loss"`
			MinAdv float64   `json:"min_adv_loss"`
		}
		Optimum struct {
			MinAdv float64 `json:"min_adv_loss"`
		}
		Change     float64
		Gap        float64
		Pass       bool
		Verdict    string
		Privatizer string
	}
	Pass bool
}

// The JSON contract on the committed fixtures: the pass fixture passes with
// exit 0, the fail fixture fails with exit 1; the ONNX and JSON forms of a
// network, and the channel it releases, give the same certified losses, and
// those match the binary model's exact MAP losses of the channel.
func TestCertifyContract(t *testing.T) {
	model := binaryModelFile(t)
	var losses [][]float64
	for _, c := range []struct {
		file string
		code int
	}{{"net-pass.onnx", 0}, {"net-pass.json", 0}, {"channel-pass.json", 0}, {"net-fail.onnx", 1}, {"channel-fail.json", 1}} {
		code, out, errs := runCLI(t, "certify", "--model", model, "--privatizer", fixtures+c.file, "--d", "0.15", "--format", "json")
		if code != c.code {
			t.Fatalf("%s: exit %d, want %d (stderr %q)", c.file, code, c.code, errs)
		}
		var doc certifyDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		p := doc.Points[0]
		if doc.Model != "binary" || p.D != 0.15 || p.Pass != (c.code == 0) || p.Verdict == "" || len(p.Certified.Adv) != 1 {
			t.Errorf("%s: %+v", c.file, doc)
		}
		losses = append(losses, []float64{p.Certified.Recon, p.Certified.MinAdv, p.Change})
	}
	// JSON and ONNX hold the same weights; the channel fixture is the
	// network's channel up to the float32 rounding of its weights, and the
	// network's losses are the ends of intervals as wide as its stated
	// error (the runtime's float32 rounding among it).
	for i, tol := range map[int]float64{1: 1e-12, 2: 1e-7 + losses[0][2] + losses[2][2]} {
		if !scalar.EqualWithinAbs(losses[i][0], losses[0][0], tol) || !scalar.EqualWithinAbs(losses[i][1], losses[0][1], tol) {
			t.Errorf("pass fixture %d: losses %v, ONNX %v", i, losses[i], losses[0])
		}
	}
	// The channel fixture, independently: its rows are P(F | X = x).
	b, _ := os.ReadFile(fixtures + "channel-fail.json")
	var ch struct{ Channel [][]float64 }
	if err := json.Unmarshal(b, &ch); err != nil {
		t.Fatal(err)
	}
	s := mip.Privatizer{S0: ch.Channel[0][0], S1: ch.Channel[1][1]}
	m := mip.PaperBinary()
	if got := losses[4]; !scalar.EqualWithinAbs(got[0], m.ReconLoss(s), 1e-12) || !scalar.EqualWithinAbs(got[1], m.AdvLosses(s)[0], 1e-12) {
		t.Errorf("channel-fail: certified %v, MAP losses %g %g", got, m.ReconLoss(s), m.AdvLosses(s)[0])
	}
}

// A curve from a --points file, with a certificate and a figure.
func TestCertifyPointsPlotCertificate(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"net-pass.onnx", "channel-pass.json"} {
		b, err := os.ReadFile(fixtures + f)
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, dir, f, string(b))
	}
	pts := writeTestFile(t, dir, "curve.csv", "0.15,net-pass.onnx\n0.15,sub/../channel-pass.json\n")
	cert, plot := filepath.Join(dir, "cert.json"), filepath.Join(dir, "curve.png")
	code, out, errs := runCLI(t, "certify", "--model", binaryModelFile(t), "--points", pts, "--certificate", cert, "--plot", plot)
	if code != 0 || !strings.Contains(out, "2 pass, 0 fail, 0 cannot certify: PASS") {
		t.Fatalf("exit %d, %q %q", code, out, errs)
	}
	b, err := os.ReadFile(cert)
	if err != nil || !strings.Contains(string(b), `"point_sha256"`) || !strings.Contains(string(b), `"mmds-certificate/1"`) {
		t.Errorf("certificate: %v %s", err, b)
	}
	checkFigure(t, plot)
}

// The linear network F = aX + bR on the Gaussian model is Proposition 1's
// optimum at its distortion: the certificate reproduces it and passes.
func TestCertifyGaussLinear(t *testing.T) {
	model := writeTestFile(t, t.TempDir(), "gauss.json", verifytestGaussModel)
	code, out, errs := runCLI(t, "certify", "--model", model, "--privatizer", fixtures+"linear-gauss.onnx", "--d", "2", "--format", "json")
	if code == 2 {
		t.Fatalf("exit 2: %s", errs)
	}
	var doc certifyDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Points[0]
	if doc.Model != "gauss" || !scalar.EqualWithinRel(p.Certified.MinAdv, p.Optimum.MinAdv, 5e-3) {
		t.Errorf("linear privatizer: certified %g, Proposition 1 at D̂ %g", p.Certified.MinAdv, p.Optimum.MinAdv)
	}
}

func TestCertifyBadInput(t *testing.T) {
	dir := t.TempDir()
	bm := binaryModelFile(t)
	gm := writeTestFile(t, dir, "gauss.json", verifytestGaussModel)
	fm := writeTestFile(t, dir, "finite.json", `{"prior": [0.5, 0.3, 0.2], "reconstructor": {"channel": [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]}, "adversaries": [{"channel": [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]}]}`)
	onnx, _ := os.ReadFile(fixtures + "net-pass.onnx")
	trunc := filepath.Join(dir, "cut.onnx")
	os.WriteFile(trunc, onnx[:len(onnx)/2], 0o644)
	nan := writeTestFile(t, dir, "nan.json", `{"inputs": ["x", "r"], "layers": [{"weight": [[1, NaN]], "bias": [0], "activation": "sigmoid"}]}`)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"--privatizer", fixtures + "net-pass.onnx", "--d", "0.1"}, "--model"},
		{"model not a model", []string{"--model", nan, "--privatizer", fixtures + "net-pass.onnx", "--d", "0.1"}, "NaN and Infinity are not JSON"},
		{"no privatizer", []string{"--model", bm, "--d", "0.1"}, "--privatizer"},
		{"both forms", []string{"--model", bm, "--privatizer", fixtures + "net-pass.onnx", "--d", "0.1", "--points", "x.json"}, "mutually exclusive"},
		{"negative D", []string{"--model", bm, "--privatizer", fixtures + "net-pass.onnx", "--d", "-1"}, "D = -1"},
		{"missing file", []string{"--model", bm, "--privatizer", filepath.Join(dir, "none.onnx"), "--d", "0.1"}, "none.onnx"},
		{"truncated onnx", []string{"--model", bm, "--privatizer", trunc, "--d", "0.1"}, "cut.onnx"},
		{"unsupported operator", []string{"--model", bm, "--privatizer", fixtures + "elu.onnx", "--d", "0.1"}, `elu.onnx: node 1 ("/1/Elu") is Elu: supported operators are`},
		{"training mode", []string{"--model", bm, "--privatizer", fixtures + "bn-train.onnx", "--d", "0.1"}, "call model.eval() before torch.onnx.export"},
		{"shape at run time", []string{"--model", bm, "--privatizer", fixtures + "view-size.onnx", "--d", "0.1"}, "write x.flatten(1)"},
		{"NaN weight", []string{"--model", bm, "--privatizer", nan, "--d", "0.1"}, "nan.json"},
		{"channel on gauss", []string{"--model", gm, "--privatizer", fixtures + "channel-pass.json", "--d", "1"}, "Gaussian"},
		{"channel rows", []string{"--model", fm, "--privatizer", fixtures + "channel-pass.json", "--d", "0.3"}, "channel-pass.json"},
		{"plot finite", []string{"--model", fm, "--privatizer", fixtures + "channel-finite.json", "--d", "0.3", "--plot", filepath.Join(dir, "f.png")}, "gauss and binary"},
		{"certificate folder", []string{"--model", bm, "--privatizer", fixtures + "net-pass.onnx", "--d", "0.1", "--certificate", filepath.Join(dir, "no", "c.json")}, "does not exist"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, append([]string{"certify"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.name, code, out, errs, c.want)
		}
	}
}

var verifytestGaussModel = verifytest.GaussModelJSON

// What torch.onnx.export writes for nets with nn.BatchNorm1d, LeakyReLU,
// ReLU6, Hardtanh, torch.clamp, squeeze, view and Dropout
// (scripts/make-export-fixtures.py) gets a verdict, pass or fail, never
// "cannot certify", on the paper's binary and Gaussian models, in float32
// as in float64; Proposition 2's optimum written with a BatchNorm1d and a
// Hardtanh passes. mmds-check verifies the binary model's certificates.
func TestCertifyTorchExports(t *testing.T) {
	dir := t.TempDir()
	bm, gm := binaryModelFile(t), writeTestFile(t, dir, "gauss.json", verifytestGaussModel)
	for _, c := range []struct {
		file, model, d string
		pass           bool // must pass (else pass or fail)
	}{
		{"bn-pass-binary.onnx", bm, "0.15", true},
		{"bn-clamp-binary.onnx", bm, "0.15", false},
		{"bn-clamp-binary-f64.onnx", bm, "0.15", false},
		{"leaky-relu6-binary.onnx", bm, "0.15", false},
		{"sigmoid-clamp-binary.onnx", bm, "0.15", false},
		{"bn-leaky-gauss.onnx", gm, "2", false},
		{"bn-leaky-gauss-f64.onnx", gm, "2", false},
		{"bn-leaky-gauss-dropout.onnx", gm, "2", false},
		{"hardtanh-gauss.onnx", gm, "2", false},
	} {
		args := []string{"certify", "--model", c.model, "--privatizer", fixtures + c.file, "--d", c.d, "--format", "json"}
		cert := filepath.Join(dir, c.file+".cert.json")
		if c.model == bm {
			args = append(args, "--certificate", cert)
		}
		var code int
		var out, errs string
		if c.model == bm { // mmds-check verifies the certificate (Gaussian ones it does not cover)
			code, out, errs = runCLIVerified(t, cert, args...)
		} else {
			code, out, errs = runCLI(t, args...)
		}
		var doc certifyDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Points) != 1 {
			t.Fatalf("%s: exit %d, %v: %q %q", c.file, code, err, out, errs)
		}
		v := doc.Points[0].Verdict
		t.Logf("%s: exit %d, %s", c.file, code, v)
		switch {
		case code == 0 && v == "pass":
		case code == 1 && strings.HasPrefix(v, "fail") && !c.pass:
		default:
			t.Errorf("%s: exit %d, verdict %q: want pass%s", c.file, code, v, map[bool]string{false: " or fail"}[c.pass])
		}
	}
}

// A certificate whose verdict is FAIL or "cannot certify" is reproduced by
// --check, but a script writing "mmds certify --check c.json && deploy"
// must not deploy it: an identical certificate exits with its verdict's
// status (1, 3), in one line saying it matched and what the verdict is; a
// passing one (or any under verify's --report-only) exits 0 on standard
// output. For certify (a failing channel) and verify (a constant
// privatizer that misses D; a quadrature tolerance no point meets).
func TestCheckExitsWithVerdict(t *testing.T) {
	dir := t.TempDir()
	bm := writeTestFile(t, dir, "model.json", `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	for _, c := range []struct {
		priv, d string
		code    int
		verdict string
	}{
		{"channel-pass.json", "0.15", 0, "1 pass: PASS"},
		{"channel-fail.json", "0.15", 1, "0 pass: FAIL (exit 1"},
		// The verdict does not name the file, which --check reads by
		// another name (from the certificate's folder).
		{"trick24-binary.onnx", "0.15", exitCannotCertify, "0 pass: CANNOT CERTIFY (exit 3"},
	} {
		b, err := os.ReadFile(fixtures + c.priv)
		if err != nil {
			t.Fatal(err)
		}
		priv := writeTestFile(t, dir, c.priv, string(b))
		cert := filepath.Join(dir, c.priv+".cert")
		if code, _, errs := runCLI(t, "certify", "--model", bm, "--privatizer", priv, "--d", c.d, "--certificate", cert); code != c.code {
			t.Fatalf("%s: certify exit %d, want %d: %s", c.priv, code, c.code, errs)
		}
		code, out, errs := runCLI(t, "certify", "--check", cert)
		line := out
		if c.code != 0 {
			line = errs
		}
		if code != c.code || !strings.Contains(line, "matches its files") || !strings.Contains(line, c.verdict) || strings.Count(out+errs, "\n") != 1 {
			t.Errorf("%s: certify --check exit %d, stdout %q, stderr %q; want exit %d, one line saying it matches with %q", c.priv, code, out, errs, c.code, c.verdict)
		}
	}

	m := mip.PaperBinary()
	o, err := m.SolveProp2(0.1, mip.DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	net := learntest.ConstantNet(0.5, 0.5)
	run := t.TempDir()
	verifytest.Synthetic(t, run, model.Binary, 0.01, []verifytest.Point{{D: 0.1, Priv: &net, Recon: 0.1, Adv: []float64{o.MinAdv}}})
	cert := filepath.Join(dir, "verify.cert")
	if code, _, errs := runCLI(t, "verify", run, "--certificate", cert); code != 1 {
		t.Fatalf("verify of a constant privatizer: exit %d, want 1: %s", code, errs)
	}
	code, out, errs := runCLI(t, "verify", "--check", cert, run)
	if code != 1 || out != "" || !strings.Contains(errs, "matches "+run) || !strings.Contains(errs, "0 pass: FAIL (exit 1") || strings.Count(errs, "\n") != 1 {
		t.Errorf("verify --check of a failing certificate: exit %d, stdout %q, stderr %q; want exit 1, one line saying it matches and fails", code, out, errs)
	}
	// --report-only asks whether the certificate is genuine only.
	code, out, errs = runCLI(t, "verify", "--check", cert, "--report-only", run)
	if code != 0 || errs != "" || !strings.Contains(out, "0 pass: FAIL (--report-only: exit 0)") || strings.Count(out, "\n") != 1 {
		t.Errorf("verify --check --report-only of a failing certificate: exit %d, stdout %q, stderr %q; want exit 0, one line saying it matches and fails", code, out, errs)
	}
	// A quadrature tolerance below every stated error: cannot certify (one
	// threshold: it refines up to the stored-value cap).
	opt, err := gauss.Paper().Optimum(2)
	if err != nil {
		t.Fatal(err)
	}
	lin := learntest.LinearNet(opt.A, opt.B, 1)
	run = t.TempDir()
	verifytest.Synthetic(t, run, model.Gauss, 0.1, []verifytest.Point{{D: 2, Priv: &lin, Recon: 2, Adv: opt.Adv}})
	if code, _, errs := runCLI(t, "verify", run, "--tol-quad", "1e-300", "--certificate", cert); code != exitCannotCertify {
		t.Fatalf("verify --tol-quad 1e-300: exit %d, want %d: %s", code, exitCannotCertify, errs)
	}
	code, out, errs = runCLI(t, "verify", "--check", cert, "--tol-quad", "1e-300", "--quiet", run)
	if code != exitCannotCertify || out != "" || !strings.Contains(errs, "matches "+run) || !strings.Contains(errs, "0 pass: CANNOT CERTIFY (exit 3") || strings.Count(errs, "\n") != 1 {
		t.Errorf("verify --check of a certificate that cannot certify: exit %d, stdout %q, stderr %q; want exit 3, one line saying it matches and cannot certify", code, out, errs)
	}
}

// A message names each thing once: a channel handed to certify on a
// Gaussian model reads "invalid privatizer: FILE is a channel", not
// "invalid privatizer: privatizer FILE".
func TestPrivatizerMessageSaysItOnce(t *testing.T) {
	code, _, errs := runCLI(t, "certify", "--model", "../../examples/gauss-coalition.json", "--privatizer", fixtures+"channel-pass.json", "--d", "1")
	if code != 2 || !strings.Contains(errs, "invalid privatizer: "+fixtures+"channel-pass.json is a channel P(F | X), but the model is Gaussian") || strings.Contains(errs, "privatizer: privatizer") {
		t.Errorf("a channel on a Gaussian model: exit %d, stderr %q; want exit 2 saying \"privatizer\" once", code, errs)
	}
}

// mmds verify --summary and mmds certify --summary of the same privatizer
// on the same binary model print the same line for it (certify naming its
// file on the line before), the gap to the optimum over all privatizers ("global")
// included, under the same reference line: one rendering for both.
func TestSummaryColumnsAgree(t *testing.T) {
	dir := passingBinary(t)
	res := readResults(t, dir)
	n, err := res.Points[0].Privatizer()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := n.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	priv := writeTestFile(t, t.TempDir(), "priv.json", b.String())
	vcode, vout, verrs := runCLI(t, "verify", "--summary", "--quiet", dir)
	ccode, cout, cerrs := runCLI(t, "certify", "--summary", "--quiet", "--model", filepath.Join(dir, "model.json"), "--privatizer", priv, "--d", "0.1", "--tau", "0.01")
	if vcode != 0 || ccode != 0 {
		t.Fatalf("verify exit %d %s; certify exit %d %s", vcode, verrs, ccode, cerrs)
	}
	vl, cl := strings.Split(vout, "\n"), strings.Split(cout, "\n")
	if len(vl) != 4 || len(cl) != 5 {
		t.Fatalf("verify:\n%s\ncertify:\n%s", vout, cout)
	}
	if vl[1] != cl[1] || !strings.Contains(vl[1], `"global"`) {
		t.Errorf("reference lines differ:\n%s\n%s", vl[1], cl[1])
	}
	if cl[2] != "  "+priv+":" || cl[3] != vl[2] || !strings.Contains(vl[2], " global ") {
		t.Errorf("point lines differ:\nverify  %s\ncertify %s\n        %s", vl[2], cl[2], cl[3])
	}
}

// The privatizers of a list are certified --workers at a time, and the
// report does not depend on how many.
func TestCertifyWorkersSameReport(t *testing.T) {
	var outs []string
	for _, w := range []string{"1", "3"} {
		code, out, errs := runCLI(t, "certify", "--model", "../../examples/binary-paper.json", "--points", "../../examples/certify/curve.csv", "--workers", w, "--format", "json")
		if code != 0 && code != 1 {
			t.Fatalf("--workers %s: exit %d: %s", w, code, errs)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("the report depends on --workers:\n%s\n%s", outs[0], outs[1])
	}
}

// A FINDING claims that a privatizer beats every mechanism mmds knows. It
// is given only for a point that passes at the threshold asked, against the
// best of the closed-form families, the committed mechanisms
// (gauss/known) and the kernel search at max(D, D̂), by more than both
// numbers' errors. Each row is a privatizer certified on a Gaussian model
// and whether it may be called a finding.
func TestFindingOnlyBeyondWhatMmdsKnows(t *testing.T) {
	dir := t.TempDir()
	root, _ := filepath.Abs("../..")
	paper := filepath.Join(root, "gauss", "paper.json")
	kernelFile := func(name string, k gauss.Kernel, reveal, shift float64) string {
		return writeTestFile(t, dir, name, string(kernelJSON(t, k, reveal, shift)))
	}
	// The mechanism `mmds gauss --d 4.5 --kernels` prints as the best
	// achievable: the kernel search's kernel, time-shared with F = X. The
	// search takes seconds: make test reads its result from testdata, and
	// -tags slow runs it and requires those bytes (-update rewrites them).
	searched, _ := filepath.Abs(filepath.Join("testdata", "kernel-search-4.5.json"))
	if slow || *updateDocs {
		r, err := gauss.Paper().OptimizeKernel(t.Context(), 4.5, gauss.DefaultKernelSearch().Cell, gauss.DefaultKernelSearch().Iters)
		if err != nil {
			t.Fatal(err)
		}
		reveal := 0.0
		if ps := r.Achievable.Mechanism.Parts; len(ps) == 2 {
			reveal = ps[1].Weight
		}
		fresh := kernelJSON(t, r.Kernel, reveal, 0)
		if *updateDocs {
			if err := os.WriteFile(searched, fresh, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if !bytes.Equal(fresh, mustRead(t, searched)) {
			t.Fatalf("the kernel search at D = 4.5 no longer gives %s (go test -tags slow -run TestFindingOnlyBeyondWhatMmdsKnows -update rewrites it)", searched)
		}
	}
	// A committed mechanism, and the same kernel moved with X on a model
	// whose X is shifted by 0.5 (or scaled by 2): the same problem, the
	// same mechanism (its losses the same, or 4 times), so no finding —
	// the committed kernels apply moved with X as well as where they were
	// found (gauss.Model.Committed).
	var committed struct{ Kernel gauss.Kernel }
	b, err := os.ReadFile(filepath.Join(root, "gauss", "known", "labels-paper-quick-1.923.json"))
	if err != nil || json.Unmarshal(b, &committed) != nil {
		t.Fatalf("the committed kernel: %v", err)
	}
	labels := kernelFile("labels-1.923.json", committed.Kernel, 0, 0)
	moved := kernelFile("labels-1.923-moved.json", committed.Kernel, 0, 0.5)
	scaledKernel := kernelFile("labels-1.923-scaled.json", committed.Kernel, 0, 2)
	var cfg map[string]any
	b, _ = os.ReadFile(paper)
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["mean"].([]any)[0] = cfg["mean"].([]any)[0].(float64) + 0.5
	b, _ = json.Marshal(cfg)
	shifted := writeTestFile(t, dir, "shifted.json", string(b))
	cfg["mean"].([]any)[0] = 8.0
	cfg["var"].([]any)[0] = 64.0
	b, _ = json.Marshal(cfg)
	scaled := writeTestFile(t, dir, "scaled.json", string(b))
	for _, tc := range []struct {
		name, model, priv, d string
		code                 int
		finding              bool
	}{
		{"the kernel search's own mechanism, at its D", paper, searched, "4.5", 0, false},
		{"the same at D = 0.5, which it misses (D̂ = 4.5)", paper, searched, "0.5", 1, false},
		{"a committed mechanism", paper, labels, "1.9233", 0, false},
		{"a committed mechanism moved with X's mean", shifted, moved, "1.9233", 0, false},
		{"a committed mechanism scaled with X", scaled, scaledKernel, "7.6933", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "certify", "--model", tc.model, "--privatizer", tc.priv, "--d", tc.d, "--summary", "--quiet")
			if code != tc.code || strings.Contains(out, "FINDING") != tc.finding || strings.Contains(out, "beats the best known") != tc.finding {
				t.Errorf("exit %d (want %d), FINDING %v (want %v):\n%s%s", code, tc.code, strings.Contains(out, "FINDING"), tc.finding, out, errs)
			}
		})
	}
}

// kernelJSON is a privatizer file of kernel k time-shared with F = X
// (reveal), its edges moved by shift (2: scaled by 2, the scaled model's X).
func kernelJSON(t *testing.T, k gauss.Kernel, reveal, shift float64) []byte {
	t.Helper()
	edges := make([]float64, len(k.Edges))
	for i, e := range k.Edges {
		edges[i] = e + shift
		if shift == 2 { // x ↦ 2x: the scaled model's X
			edges[i] = 2 * e
		}
	}
	b, err := json.Marshal(map[string]any{"kernel": map[string]any{"edges": edges, "prob": k.Prob, "reveal": reveal}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Budgets count bytes of what a run will allocate, before the work: a
// compact kernel table (4097 cells × 1024 labels, 25 kB of file, 32 MiB
// once read) named three times in a --points list is held once, but three
// workers certifying it need three times its working memory, past the
// default 1GiB: exit 2 naming what it needs and the flag; one worker
// fits. --max-memory is read strictly.
func TestMaxMemory(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"kernel": {"edges": [`)
	for i := range 4096 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%g", -12+float64(i)*0.01)
	}
	b.WriteString(`], "prob": {"labels": 1024, "rows": [`)
	for j := range 4097 {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d,1]", j%1024)
	}
	b.WriteString("]}}}")
	writeTestFile(t, dir, "k.json", b.String())
	pts := writeTestFile(t, dir, "pts.csv", "2,k.json\n2,k.json\n2,k.json\n")
	paper, _ := filepath.Abs("../../gauss/paper.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"three workers past the budget", []string{"certify", "--model", paper, "--points", pts, "--workers", "3", "--max-memory", "256MiB"},
			"--max-memory 256MiB: this run needs about 396MiB (96.1MiB for the inputs once read, 300MiB of work for 3 of them at once); raise --max-memory to at least 397MiB, or run fewer --workers"},
		{"a results directory past a small budget", []string{"verify", "../../examples/labels/gauss", "--max-memory", "64MiB"}, "results.json reads as"},
		{"a fraction", []string{"certify", "--model", paper, "--points", pts, "--max-memory", "1.5GiB"}, `--max-memory "1.5GiB": want a whole number and a unit`},
		{"no unit", []string{"verify", "../../examples/labels/gauss", "--max-memory", "1073741824"}, `--max-memory "1073741824": want a whole number and a unit`},
		{"a unit misspelt", []string{"certify", "--model", paper, "--points", pts, "--max-memory", "2Gib"}, `--max-memory "2Gib": want a whole number and a unit`},
		{"below a run's base", []string{"certify", "--model", paper, "--points", pts, "--max-memory", "10MiB"}, "at least 64MiB"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2, one line naming %q", tc.name, code, errs, tc.want)
		}
	}
}
