package privatizer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
)

// Activation is a layer's elementwise output function.
type Activation int

// The activations of the MLP layout.
const (
	Identity Activation = iota
	ReLU
	Sigmoid
	Tanh
)

var actNames = [...]string{"identity", "relu", "sigmoid", "tanh"}

func (a Activation) String() string {
	if a >= 0 && int(a) < len(actNames) {
		return actNames[a]
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// ParseActivation returns the activation named s (identity, relu, sigmoid,
// tanh; "" means identity).
func ParseActivation(s string) (Activation, error) {
	if s == "" {
		return Identity, nil
	}
	for i, n := range actNames {
		if s == n {
			return Activation(i), nil
		}
	}
	return 0, fmt.Errorf("activation %s: want one of %s", safefile.Excerpt(s), strings.Join(actNames[:], ", "))
}

// apply returns g(z).
func (a Activation) apply(z float64) float64 {
	switch a {
	case ReLU:
		return max(z, 0)
	case Sigmoid:
		if z >= 0 {
			return 1 / (1 + math.Exp(-z))
		}
		e := math.Exp(z)
		return e / (1 + e)
	case Tanh:
		return math.Tanh(z)
	}
	return z
}

// smooth reports whether g is analytic (not ReLU).
func (a Activation) smooth() bool { return a != ReLU }

// derivBounds returns sup|g′| and sup|g″| over the real line: σ′ ≤ 1/4,
// |σ″| ≤ 1/(6√3) (at σ = (3 ± √3)/6); tanh′ ≤ 1, |tanh″| ≤ 4/(3√3) (at
// tanh = ∓1/√3). Only for smooth activations.
func (a Activation) derivBounds() (g1, g2 float64) {
	switch a {
	case Sigmoid:
		return 0.25, 1 / (6 * math.Sqrt(3))
	case Tanh:
		return 1, 4 / (3 * math.Sqrt(3))
	}
	return 1, 0
}

// Layer is one affine layer followed by its activation:
// out_j = g(Σ_i W[j][i]·in_i + B[j]), W in PyTorch nn.Linear layout
// (out × in).
type Layer struct {
	W   [][]float64
	B   []float64
	Act Activation
}

// MaxWidth bounds every layer's width and MaxLayers the depth of a network
// read from a file.
const (
	MaxWidth  = 1 << 14
	MaxLayers = 256
)

// MLP is a privatizer network k(x, r) with one private input x and one noise
// input r ~ N(0, 1), independent of X and of every side variable
// (Algorithm 1's r). On the Gaussian model the release is F = k(X, R); on
// binary and finite models k(x, r) is P(F = 1 | X = x, R = r).
type MLP struct {
	// Name is the file the network was read from (for messages).
	Name string
	// Inputs names the network's inputs in order: "x" and "r", once each.
	Inputs []string
	Layers []Layer
}

// Validate reports the first problem: inputs other than one "x" and one "r",
// no layers, shapes that do not chain, an input size other than
// len(Inputs), an output size other than 1, or a NaN or infinite weight.
// Messages name the file, the layer and the entry; they wrap ErrInput.
func (m *MLP) Validate() error {
	if len(m.Inputs) != 2 || !(m.Inputs[0] == "x" && m.Inputs[1] == "r" || m.Inputs[0] == "r" && m.Inputs[1] == "x") {
		return m.errorf("inputs %s: want [\"x\", \"r\"] (or [\"r\", \"x\"]): one private input x and one noise input r ~ N(0, 1)", safefile.ExcerptList(m.Inputs))
	}
	if len(m.Layers) == 0 || len(m.Layers) > MaxLayers {
		return m.errorf("%d layers: want between 1 and %d", len(m.Layers), MaxLayers)
	}
	in := len(m.Inputs)
	for l, ly := range m.Layers {
		if len(ly.W) == 0 || len(ly.W) > MaxWidth {
			return m.errorf("layer %d: weight has %d rows: want between 1 and %d (PyTorch nn.Linear layout, out × in)", l, len(ly.W), MaxWidth)
		}
		for j, row := range ly.W {
			if len(row) != in {
				what := "the previous layer's output size"
				if l == 0 {
					what = "the number of inputs"
				}
				return m.errorf("layer %d: weight row %d has %d entries, want %d, %s (PyTorch nn.Linear layout, out × in)", l, j, len(row), in, what)
			}
			for i, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return m.errorf("layer %d: weight[%d][%d] = %v: weights must be finite", l, j, i, v)
				}
			}
		}
		if len(ly.B) != len(ly.W) {
			return m.errorf("layer %d: bias has %d entries, want %d (one per output)", l, len(ly.B), len(ly.W))
		}
		for j, v := range ly.B {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return m.errorf("layer %d: bias[%d] = %v: weights must be finite", l, j, v)
			}
		}
		if ly.Act < Identity || ly.Act > Tanh {
			return m.errorf("layer %d: unknown activation %v", l, ly.Act)
		}
		in = len(ly.W)
	}
	if in != 1 {
		return m.errorf("output size %d: want 1 (the released value, or P(F = 1 | x, r))", in)
	}
	return nil
}

func (m *MLP) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: network %s: %s", ErrInput, m.Name, fmt.Sprintf(format, args...))
}

// Width returns the largest layer width (at least the input size).
func (m *MLP) Width() int {
	w := len(m.Inputs)
	for _, l := range m.Layers {
		w = max(w, len(l.W))
	}
	return w
}

// Eval returns k(x, r); m must be valid. It has the signature of
// bayes.Privatizer.K and is safe for concurrent use. Networks up to 64
// units wide use stack scratch (no allocation); Forward takes caller scratch.
func (m *MLP) Eval(x, r float64) float64 {
	w := m.Width()
	if w <= 64 {
		var a, b [64]float64
		return m.Forward(x, r, a[:w], b[:w])
	}
	return m.Forward(x, r, make([]float64, w), make([]float64, w))
}

// Forward returns k(x, r) using a and b (each of length ≥ Width()) as
// scratch; it allocates nothing.
func (m *MLP) Forward(x, r float64, a, b []float64) float64 {
	a = m.inputs(x, r, a)
	for _, ly := range m.Layers {
		b = b[:len(ly.W)]
		for j, row := range ly.W {
			z := ly.B[j]
			for i, w := range row {
				z += w * a[i]
			}
			b[j] = ly.Act.apply(z)
		}
		a, b = b, a
	}
	return a[0]
}

// inputs writes (x, r) into a in the network's input order.
func (m *MLP) inputs(x, r float64, a []float64) []float64 {
	a = a[:2]
	if m.Inputs[0] == "r" {
		x, r = r, x
	}
	a[0], a[1] = x, r
	return a
}

// PiecewiseLinear reports whether every activation is identity or ReLU:
// then k(x, ·) is continuous and piecewise linear in r, and Pieces is exact.
func (m *MLP) PiecewiseLinear() bool {
	for _, l := range m.Layers {
		if l.Act.smooth() && l.Act != Identity {
			return false
		}
	}
	return true
}

// mlpJSON is the documented JSON layout.
type mlpJSON struct {
	Inputs []string `json:"inputs"`
	Noise  string   `json:"noise,omitempty"`
	Layers []struct {
		Weight     [][]float64 `json:"weight"`
		Bias       []float64   `json:"bias"`
		Activation string      `json:"activation"`
	} `json:"layers"`
}

// NoiseLaw is the only noise law of the layout: r ~ N(0, 1). A network
// trained with r ~ N(μ, σ²) is rewritten by folding μ and σ into the first
// layer (W[·][r] ← σ·W[·][r], b ← b + μ·W[·][r]).
const NoiseLaw = "normal(0,1)"

// ParseMLPJSON reads a network in the JSON layout
//
//	{"inputs": ["x", "r"], "noise": "normal(0,1)",
//	 "layers": [{"weight": [[…]], "bias": […], "activation": "relu"}, …]}
//
// ("noise" optional; "activation" one of identity, relu, sigmoid, tanh,
// default identity) and validates it; name is the file name for messages.
func ParseMLPJSON(r io.Reader, name string) (*MLP, error) {
	var v mlpJSON
	if err := jsonconf.Decode(r, &v); err != nil {
		return nil, fmt.Errorf("%w: network %s: %v%s", ErrInput, name, err, nanHint(err))
	}
	m := &MLP{Name: name, Inputs: v.Inputs}
	if v.Inputs == nil {
		return nil, m.errorf("field \"inputs\" is missing: want [\"x\", \"r\"]")
	}
	if v.Noise != "" && v.Noise != NoiseLaw {
		return nil, m.errorf("noise %s: only %q is supported (fold another normal law into the first layer)", safefile.Excerpt(v.Noise), NoiseLaw)
	}
	for l, ly := range v.Layers {
		act, err := ParseActivation(ly.Activation)
		if err != nil {
			return nil, m.errorf("layer %d: %v", l, err)
		}
		m.Layers = append(m.Layers, Layer{W: ly.Weight, B: ly.Bias, Act: act})
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// ReadMLP reads a network file: ONNX if its name ends in .onnx, the JSON
// layout otherwise.
func ReadMLP(path string) (*MLP, error) {
	data, err := safefile.Read(context.Background(), path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("network %s: %w", path, err)
	}
	if strings.EqualFold(filepath.Ext(path), ".onnx") {
		return ParseONNX(data, path)
	}
	return ParseMLPJSON(bytes.NewReader(data), path)
}
