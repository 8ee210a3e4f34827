package network

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readNet(t testing.TB, name string) *Network {
	t.Helper()
	path := filepath.Join("../privatizer/testdata", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m *Network
	if filepath.Ext(path) == ".onnx" {
		m, err = ParseONNX(data, path)
	} else {
		m, err = ParseJSON(bytes.NewReader(data), path)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The JSON and ONNX files of the same network (written from the same
// float32 weights by scripts/make-certify-fixtures.py) describe the same
// function: weights equal and outputs within 1e-12.
func TestJSONAndONNXAgree(t *testing.T) {
	ctx := t.Context()
	pairs := [][2]string{
		{"linear-gauss.json", "linear-gauss.onnx"},
		{"clamp-binary.json", "clamp-binary.onnx"},
		{"relu2-binary.json", "relu2-binary.onnx"},
		{"relu2-gauss.json", "relu2-gauss.onnx"},
		{"relu2-gauss.json", "relu2-gauss-matmul.onnx"},
		{"relu2-gauss.json", "relu2-gauss-gemm.onnx"},
		{"relu2-gauss.json", "relu2-gauss-transpose.onnx"},
		{"two-inputs.json", "two-inputs.onnx"},
		{"tanh-binary.json", "tanh-binary.onnx"},
		{"relu-sigmoid-binary.json", "relu-sigmoid-binary.onnx"},
		{"net-pass.json", "net-pass.onnx"},
		{"net-fail.json", "net-fail.onnx"},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range pairs {
		a, b := readNet(t, p[0]), readNet(t, p[1])
		if a.Inputs[0] != b.Inputs[0] {
			t.Errorf("%s inputs %q, %s inputs %q", p[0], a.Inputs, p[1], b.Inputs)
		}
		for range 200 {
			x, r := 4*rng.NormFloat64(), 3*rng.NormFloat64()
			if ka, kb := a.Eval(x, r), b.Eval(x, r); !near(ka, kb, 1e-12) {
				t.Errorf("%s vs %s at (%g, %g): %v vs %v", p[0], p[1], x, r, ka, kb)
				break
			}
		}
		for _, x := range []float64{0, 1, -0.7} {
			ea, err := a.Expect(ctx, x, 1e-9)
			if err != nil {
				t.Fatal(err)
			}
			eb, err := b.Expect(ctx, x, 1e-9)
			if err != nil {
				t.Fatal(err)
			}
			if !near(ea.Mean, eb.Mean, 1e-12) {
				t.Errorf("%s vs %s: E_R[k(%g, R)] %v vs %v", p[0], p[1], x, ea.Mean, eb.Mean)
			}
		}
	}
}

func TestONNXInputOrder(t *testing.T) {
	m := readNet(t, "relu2-binary.onnx")
	if m.Inputs[0] != "r" || m.Inputs[1] != "x" {
		t.Fatalf("inputs %q: the file's metadata says r,x", m.Inputs)
	}
	// Swapping the declared order changes the function (the net is not
	// symmetric), so the order is really used.
	sw := *m
	sw.Inputs = []string{"x", "r"}
	if near(m.Eval(0.3, 1.1), sw.Eval(0.3, 1.1), 1e-9) {
		t.Error("input order has no effect")
	}
}

// Every strict prefix of a torch-exported file is refused: either protobuf
// fails (a length prefix runs past the end) or a required part is missing.
func TestONNXTruncated(t *testing.T) {
	for _, f := range []string{"relu2-gauss.onnx", "tanh-binary.onnx"} {
		data, err := os.ReadFile(filepath.Join("../privatizer/testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(data) {
			_, err := ParseONNX(data[:n], f)
			if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), f) {
				t.Fatalf("%s cut to %d of %d bytes: %v", f, n, len(data), err)
			}
		}
	}
	data, _ := os.ReadFile(filepath.Join("../privatizer/testdata", "relu2-gauss.onnx"))
	_, err := ParseONNX(data[:len(data)/2], "half.onnx")
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("half a file: %v; want it to say truncated", err)
	}
}

func TestParseMLPErrors(t *testing.T) {
	const l1 = `{"weight": [[1, 2]], "bias": [0], "activation": "relu"}`
	for _, tc := range []struct{ name, in, want string }{
		{"noinputs.json", `{"layers": [` + l1 + `]}`, `"inputs" is missing`},
		{"inputs3.json", `{"inputs": ["x", "r", "r2"], "layers": [` + l1 + `]}`, `inputs ["x", "r", "r2"]`},
		{"inputsxx.json", `{"inputs": ["x", "x"], "layers": [` + l1 + `]}`, "one private input x and one noise input r"},
		{"nolayers.json", `{"inputs": ["x", "r"], "layers": []}`, "0 layers"},
		{"width.json", `{"inputs": ["x", "r"], "layers": [{"weight": [[1, 2, 3]], "bias": [0]}]}`, "weight row 0 has 3 entries, want 2, the number of inputs"},
		{"chain.json", `{"inputs": ["x", "r"], "layers": [{"weight": [[1, 2], [3, 4]], "bias": [0, 0]}, {"weight": [[1, 2, 3]], "bias": [0]}]}`, "layer 1: weight row 0 has 3 entries, want 2, the previous layer's output size"},
		{"out2.json", `{"inputs": ["x", "r"], "layers": [{"weight": [[1, 2], [3, 4]], "bias": [0, 0]}]}`, "output size 2: want 1"},
		{"bias.json", `{"inputs": ["x", "r"], "layers": [{"weight": [[1, 2]], "bias": [0, 1]}]}`, "bias has 2 entries, want 1"},
		{"act.json", `{"inputs": ["x", "r"], "layers": [{"weight": [[1, 2]], "bias": [0], "activation": "gelu"}]}`, `activation "gelu"`},
		{"nan.json", `{"inputs": ["x", "r"], "layers": [{"weight": [[NaN, 2]], "bias": [0]}]}`, "NaN and Infinity are not JSON"},
		{"huge.json", `{"inputs": ["x", "r"], "layers": [{"weight": [[1e999, 2]], "bias": [0]}]}`, "cannot use JSON number"},
		{"noise.json", `{"inputs": ["x", "r"], "noise": "uniform", "layers": [` + l1 + `]}`, `noise "uniform"`},
		{"extra.json", `{"inputs": ["x", "r"], "layers": [` + l1 + `], "optimizer": {}}`, "unknown field"},
	} {
		_, err := ParseJSON(strings.NewReader(tc.in), tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) || !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v; want an ErrInput naming the file and containing %q", tc.name, err, tc.want)
		}
	}
}

// results.json's layout is read into a Network honouring its input order,
// and written back byte for byte.
func TestRecord(t *testing.T) {
	read := func(rec string) (*Network, error) {
		n := &Network{}
		if err := json.Unmarshal([]byte(rec), n); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInput, err)
		}
		n.Name = "rec"
		return n, n.Validate()
	}
	rec := `{"role":"privatizer","inputs":["r","x"],"layers":[` +
		`{"in":2,"out":1,"activation":"relu","weights":[[0,2]],"bias":[0.5]},` +
		`{"in":1,"out":1,"activation":"identity","weights":[[3]],"bias":[1]}]}`
	n, err := read(rec)
	if err != nil {
		t.Fatal(err)
	}
	if n.Precision != Float64 || n.Eval(1, 7) != 3*(2*1+0.5)+1 {
		t.Errorf("k(1, 7) = %v with precision %v: want 8.5 (only x read), float64", n.Eval(1, 7), n.Precision)
	}
	if b, err := json.Marshal(n); err != nil || string(b) != rec {
		t.Errorf("written back: %s, %v; want %s", b, err, rec)
	}
	for _, bad := range []string{
		strings.Replace(rec, "[[0,2]]", "[[0,null]]", 1),
		strings.Replace(rec, `"in":2`, `"in":3`, 1),
		strings.Replace(rec, `"out":1`, `"out":2`, 1),
		strings.Replace(rec, `"relu"`, `"gelu"`, 1),
		strings.Replace(rec, `"relu"`, `""`, 1),
	} {
		if _, err := read(bad); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", bad, err)
		}
	}
}

func TestValidateNonFinite(t *testing.T) {
	m := readNet(t, "relu2-gauss.json")
	m.Layers[1].W[3][4] = posInf()
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "layer 1: weight[3][4] = +Inf") {
		t.Errorf("Inf weight: %v", err)
	}
}

func posInf() float64 { return math.Inf(1) }

func FuzzParseJSON(f *testing.F) {
	for _, name := range []string{"relu2-gauss.json", "tanh-binary.json", "net-pass.json", "categorical-finite.json"} {
		data, err := os.ReadFile(filepath.Join("../privatizer/testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"inputs": ["r", "x"], "layers": [{"weight": [[1, 2]], "bias": [0]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error does not wrap ErrInput: %v", err)
			}
			return
		}
		if m.Width() <= 64 && len(m.Layers) <= 4 {
			exercise(t, m)
		}
	})
}

// exercise evaluates an accepted network as a certificate would: a
// categorical one's law and its row, another's value and expectation, at
// an x its inputs take (0 for a one-hot x). Errors must be input errors or
// precision and cost refusals, never a panic.
func exercise(t *testing.T, m *Network) {
	ok := func(err error) bool {
		return err == nil || errors.Is(err, ErrInput) || errors.Is(err, ErrPrecision) || errors.Is(err, ErrTooComplex)
	}
	if m.Categorical() {
		m.Probs(0, -0.25, nil)
		if _, _, err := m.ProbsBound(0, -0.25, nil); !ok(err) {
			t.Fatal(err)
		}
		if _, err := m.ExpectRow(t.Context(), 0, 1e-3); !ok(err) {
			t.Fatal(err)
		}
		return
	}
	m.Eval(0, -0.25)
	if _, err := m.Expect(t.Context(), 1, 1e-3); !ok(err) {
		t.Fatal(err)
	}
}

func FuzzParseONNX(f *testing.F) {
	for _, name := range []string{"relu2-gauss.onnx", "relu2-gauss-gemm.onnx", "relu2-gauss-matmul.onnx", "relu2-binary.onnx", "leaky.onnx", "two-inputs.onnx", "relu2-gauss-transpose.onnx", "categorical-finite.onnx",
		"bn-clamp-binary.onnx", "bn-clamp-binary-f64.onnx", "leaky-relu6-binary.onnx", "sigmoid-clamp-binary.onnx", "bn-leaky-gauss-dropout.onnx", "hardtanh-gauss.onnx", "elu.onnx", "bn-train.onnx", "view-size.onnx"} {
		data, err := os.ReadFile(filepath.Join("../privatizer/testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, c := range append(append(shapeOpsCases(), opsBadInputCases()...), onnxRefusalCases()...) {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseONNX(data, "fuzz.onnx")
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error does not wrap ErrInput: %v", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid network: %v", err)
		}
		if m.Width() <= 64 && len(m.Layers) <= 12 {
			exercise(t, m)
		}
	})
}

func TestAffine(t *testing.T) {
	m := readNet(t, "linear-gauss.onnx")
	a, b, c, ok := m.Affine()
	if !ok || a != float64(float32(0.8)) || b != float64(float32(1.3)) || c != float64(float32(0.25)) {
		t.Errorf("linear-gauss: %v %v %v %v", a, b, c, ok)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for range 20 {
		n := randomNet(rng, []int{1 + rng.IntN(5), 1 + rng.IntN(5)}, Identity, Identity, 1)
		a, b, c, ok := n.Affine()
		x, r := rng.NormFloat64(), rng.NormFloat64()
		if !ok || !near(a*x+b*r+c, n.Eval(x, r), 1e-12) {
			t.Errorf("%v: %v·%v + %v·%v + %v ≠ %v", n, a, x, b, r, c, n.Eval(x, r))
		}
	}
	if _, _, _, ok := readNet(t, "relu2-gauss.json").Affine(); ok {
		t.Error("a ReLU network reported affine")
	}
}
