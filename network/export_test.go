package network

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// torchExports are the fixtures scripts/make-export-fixtures.py wrote with
// torch.onnx.export (PyTorch 1.13) at its defaults, with what each reads as.
var torchExports = []struct {
	name, points string // NAME.onnx and the .torch.json of its function
	shape        string
	prec         Precision
}{
	// Gemm with the BN folded, ReLU, Gemm + Add(0.5); the clamp to [0, 1]
	// as max(z, 0) = relu(z) (the identity layer after it is z⁺) and
	// min(y, 1) = 1 − relu(1 − y); Squeeze(-1) a no-op.
	{"bn-clamp-binary", "bn-clamp-binary", "2→8 relu→1 relu→1 relu→1 identity", Float32},
	{"bn-clamp-binary-f64", "bn-clamp-binary-f64", "2→8 relu→1 relu→1 relu→1 identity", Float64},
	// Proposition 2's optimum, 1 − 0.463·x: Gemm+BN folded, Hardtanh(0, 1).
	{"bn-pass-binary", "bn-pass-binary", "2→1 relu→1 relu→1 identity", Float32},
	// LeakyRelu(0.1): [z, −z] ReLU units, then z⁺ − 0.1·z⁻; Relu then
	// Clip(0, 6) is min(relu(z), 6) = 6 − relu(6 − relu(z)) (an identity
	// layer carries relu(z)); Hardtanh(0, 1) at the output; Flatten.
	{"leaky-relu6-binary", "leaky-relu6-binary", "2→16 relu→8 identity→8 relu→8 relu→8 identity→1 relu→1 relu→1 identity", Float32},
	// Clip(0, 1) after a sigmoid changes nothing; view(-1) is a no-op.
	{"sigmoid-clamp-binary", "sigmoid-clamp-binary", "2→6 tanh→1 sigmoid", Float32},
	// BN folded before LeakyRelu(0.2), both into the first Gemm, and
	// before a ReLU; reshape(-1).
	{"bn-leaky-gauss", "bn-leaky-gauss", "2→16 relu→8 identity→8 relu→1 identity", Float32},
	{"bn-leaky-gauss-f64", "bn-leaky-gauss-f64", "2→16 relu→8 identity→8 relu→1 identity", Float64},
	{"bn-leaky-gauss-dropout", "bn-leaky-gauss", "2→16 relu→8 identity→8 relu→1 identity", Float32},
	// Hardtanh(−1, 1): max(z, −1) after an identity layer (b + 1 is not a
	// float32 value), then min(y, 1); the BN after it folded into the
	// last combination layer.
	{"hardtanh-gauss", "hardtanh-gauss", "2→8 identity→8 relu→8 relu→8 identity→1 identity", Float32},
	// LeakyRelu(0.1) between two nn.Linear (scripts/make-certify-fixtures.py;
	// no recorded points).
	{"leaky", "leaky", "2→8 relu→4 identity→1 identity", Float32},
}

// torchPoints reads NAME.torch.json: PyTorch's forward pass at points
// (x, r), in the export's precision (k) and in float64 (k64).
func torchPoints(t *testing.T, name string) []struct{ X, R, K, K64 float64 } {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../privatizer/testdata", name+".torch.json"))
	if errors.Is(err, os.ErrNotExist) && name == "leaky" {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Points []struct{ X, R, K, K64 float64 }
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Points) < 50 {
		t.Fatalf("%s.torch.json: %d points", name, len(ref.Points))
	}
	return ref.Points
}

// Each PyTorch export reads as the folded and lowered network it is; at
// every recorded point PyTorch's own forward pass (float32, or float64 for
// the double export) lies within EvalBound's δ of mmds's float64 value, and
// so does PyTorch's float64 forward pass of the same module — the file's
// function to within float64 rounding, an independent check that the folds
// and lowerings compute it (mmds's folded batch-normalized weights are
// rounded to float32, so the two differ by ~1e-8 relative, within δ).
// Logs the largest observed/δ ratios.
func TestTorchExportsWithinBound(t *testing.T) {
	for _, tc := range torchExports {
		m := readNet(t, tc.name+".onnx")
		if got := m.String(); got != tc.shape || m.Precision != tc.prec {
			t.Errorf("%s: read as %s (%v), want %s (%v)", tc.name, got, m.Precision, tc.shape, tc.prec)
		}
		var worst, worst64, sup, dev64 float64
		for _, p := range torchPoints(t, tc.points) {
			k, d, err := m.EvalBound(p.X, p.R)
			if err != nil {
				t.Fatalf("%s at (%g, %g): %v", tc.name, p.X, p.R, err)
			}
			if dev := math.Abs(p.K - k); dev > d {
				t.Errorf("%s at (x, r) = (%g, %g): PyTorch %v, mmds %v: |Δ| = %.3g > δ = %.3g", tc.name, p.X, p.R, p.K, k, dev, d)
			} else if d > 0 {
				worst = max(worst, dev/d)
			}
			if dev := math.Abs(p.K64 - k); dev > d {
				t.Errorf("%s at (x, r) = (%g, %g): PyTorch in float64 %v, mmds %v: |Δ| = %.3g > δ = %.3g", tc.name, p.X, p.R, p.K64, k, dev, d)
			} else if d > 0 {
				worst64 = max(worst64, dev/d)
			}
			sup = max(sup, d)
			dev64 = max(dev64, math.Abs(p.K64-k))
		}
		t.Logf("%s (%v): sup δ %.3g; largest |PyTorch − mmds|/δ %.3g; in float64: |Δ| ≤ %.2g, %.3g of δ", tc.name, m.Precision, sup, worst, dev64, worst64)
	}
}

// The exports mmds refuses, each in one line naming the file, the node and
// what to do.
func TestONNXUnsupportedOperator(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"elu.onnx", `node 1 ("/1/Elu") is Elu: supported operators are Gemm, MatMul, Add, Sub (of a constant), BatchNormalization, Relu, LeakyRelu, Clip`},
		{"bn-train.onnx", `node 1 ("/1/BatchNormalization", op BatchNormalization): 3 outputs (the batch statistics of training mode)`},
		{"view-size.onnx", `node 3 ("/Shape") is Shape: supported operators are`},
	} {
		path := filepath.Join("../privatizer/testdata", tc.name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseONNX(data, path)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) ||
			!strings.Contains(err.Error(), "model.eval()") && !strings.Contains(err.Error(), "Export checklist") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v\nwant one line naming the file and containing %q and the fix", tc.name, err, tc.want)
		}
	}
}

// The JSON and ONNX forms of a folded and lowered network are plain
// Gemm/activation chains that read back as the same network, bit for bit,
// where its weights are values of its precision. A float32 network whose
// reader folded an Add into a bias (C + 0.5, exact in float64) is refused
// by WriteONNX rather than rounded; its JSON form, read as float32, rounds
// that bias.
func TestTorchExportsWriteBack(t *testing.T) {
	for _, tc := range torchExports {
		m := readNet(t, tc.name+".onnx")
		var buf bytes.Buffer
		if err := m.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ParseJSON(&buf, "back.json")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		buf.Reset()
		err = m.WriteONNX(&buf)
		if tc.name == "bn-clamp-binary" {
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "is not a float32 value") {
				t.Errorf("%s: WriteONNX %v, want a refusal", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		fromONNX, err := ParseONNX(buf.Bytes(), "back.onnx")
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []*Network{back, fromONNX} {
			if d := sameNetwork(m, b); d != "" {
				t.Errorf("%s: %s differs: %s", tc.name, b.Name, d)
			}
		}
	}
}
