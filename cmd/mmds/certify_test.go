package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/mip"
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
		losses = append(losses, []float64{p.Certified.Recon, p.Certified.MinAdv})
	}
	// JSON and ONNX hold the same weights; the channel fixture is the
	// network's channel up to the float32 rounding of its weights.
	for i, tol := range map[int]float64{1: 1e-12, 2: 1e-7} {
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
	abs, _ := filepath.Abs(fixtures)
	pts := writeTestFile(t, dir, "curve.csv", "0.15,"+filepath.Join(abs, "net-pass.onnx")+"\n0.15,"+filepath.Join(abs, "channel-pass.json")+"\n")
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
		{"unsupported operator", []string{"--model", bm, "--privatizer", fixtures + "leaky.onnx", "--d", "0.1"}, "LeakyRelu"},
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
