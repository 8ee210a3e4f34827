package network

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrInput is wrapped by every error about a network's contents (as opposed
// to an I/O failure): the caller's input, not a failed computation.
var ErrInput = errors.New("network: invalid privatizer")

// ErrPrecision reports a network whose rounding error bound (the forward
// error bound δ of Network.EvalBound, or the region walk's own bound)
// exceeds the tolerance of a certificate, or whose runtime overflows: the
// function a runtime computes and the one mmds integrates may differ by
// more than the verdict can absorb, so neither pass nor fail can be stated.
var ErrPrecision = errors.New("network: cannot certify: rounding error bound above tolerance")

// Activation is a layer's elementwise output function.
type Activation int

// The activations of a layer.
const (
	Identity Activation = iota
	ReLU
	Sigmoid
	Tanh
	// Softmax is the last layer's of a categorical network only: its units
	// are the logits z_f and its output softmax(z)_f = e^{z_f}/Σ_g e^{z_g},
	// the law of the release F over the labels 0..m−1.
	Softmax
)

var actText = enum.Text[Activation]{Type: "Activation",
	Names:    []string{Identity: "identity", ReLU: "relu", Sigmoid: "sigmoid", Tanh: "tanh", Softmax: "softmax"},
	BadValue: func(a Activation) error { return fmt.Errorf("network: unknown activation %d", int(a)) },
	BadText: func(b []byte, want string) error {
		return fmt.Errorf("activation %s: want one of %s", safefile.Excerpt(clip(string(b))), strings.Replace(want, " or ", ", ", 1))
	}}

func (a Activation) String() string { return actText.String(a) }

// MarshalText implements encoding.TextMarshaler.
func (a Activation) MarshalText() ([]byte, error) { return actText.Marshal(a) }

// UnmarshalText implements encoding.TextUnmarshaler ("" means identity).
func (a *Activation) UnmarshalText(b []byte) error {
	v, err := ParseActivation(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// ParseActivation returns the activation named s (identity, relu, sigmoid,
// tanh, softmax; "" means identity).
func ParseActivation(s string) (Activation, error) {
	if s == "" {
		return Identity, nil
	}
	return actText.Parse(s)
}

// apply returns g(z) for an elementwise activation (not Softmax, which
// forward applies to the whole layer).
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

// Precision is the floating-point format a network's runtime computes in.
type Precision int

// The precisions. The zero value is Float32, PyTorch's default and what an
// exported network runs in unless it says otherwise.
const (
	Float32 Precision = iota
	Float64
)

var precisionText = enum.Text[Precision]{Type: "Precision", Names: []string{Float32: "float32", Float64: "float64"},
	BadValue: func(p Precision) error { return fmt.Errorf("network: unknown precision %d", int(p)) },
	BadText: func(b []byte, want string) error {
		return fmt.Errorf("precision %q: want %s", clip(string(b)), want)
	}}

func (p Precision) String() string { return precisionText.String(p) }

// MarshalText implements encoding.TextMarshaler.
func (p Precision) MarshalText() ([]byte, error) { return precisionText.Marshal(p) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (p *Precision) UnmarshalText(b []byte) error { return precisionText.Unmarshal(p, b) }

// Layer is one affine layer followed by its activation:
// out_j = g(Σ_i W[j][i]·in_i + B[j]), W in PyTorch nn.Linear layout
// (out × in).
type Layer struct {
	W   [][]float64
	B   []float64
	Act Activation
}

// Cost caps of a network read from a file: every layer's width, the depth,
// the total number of parameters, and the total number of hidden units
// (each hidden ReLU unit is a kink of k(x, ·) per x, and the certificates'
// work grows with their number squared); the labels of a categorical
// network and the values of a one-hot x.
const (
	MaxWidth   = 1 << 14
	MaxLayers  = 256
	MaxParams  = 1 << 22
	MaxUnits   = 1 << 12
	MaxOutputs = 1 << 12
	MaxXValues = 1 << 12
)

// Network is a privatizer network k(x, r) with one private input x and one
// noise input r ~ N(0, 1), independent of X and of every side variable
// (Algorithm 1's r). On the Gaussian model the release is F = k(X, R); on
// binary and finite models k(x, r) is P(F = 1 | X = x, R = r), or, for a
// categorical network (last layer Softmax, m outputs), the law of F over
// the labels 0..m−1: P(F = f | X = x, R = r) = softmax(z(x, r))_f
// (Section V-B's Algorithm 1 on a finite X).
type Network struct {
	// Name is the file (or results entry) the network was read from, for
	// messages.
	Name string
	// Role is the network's part in a trained point of results.json
	// (privatizer, reconstructor, adversary_1, …; see MarshalJSON), "" for
	// a network file.
	Role string
	// Inputs names the network's inputs in order: "x" and "r", once each;
	// or, for x taking the values 0..n−1 one-hot, "x=0", …, "x=n−1" (n ≥ 2,
	// in this order, each input 1 when x is that value and 0 otherwise)
	// followed or preceded by "r". Every method feeds them in this order.
	Inputs []string
	Layers []Layer
	// Precision is the format the network runs in; a Float32 network's
	// weights are float32 values and its evaluations carry the error bound
	// of EvalBound.
	Precision Precision
	// folds, when not nil, has one entry per layer: how the file's runtime
	// computes a layer the reader folded (ONNX's Gemm alpha and beta, Add
	// nodes), for EvalBound.
	folds []fold
}

// Validate reports the first problem: inputs other than x and r (one real x
// or a one-hot x, see Inputs), no layers, shapes that do not chain, an
// input size other than len(Inputs), a softmax layer that is not the last,
// an output size other than 1 (between 2 and MaxOutputs after a softmax), a
// NaN or infinite weight, or a size above the cost caps. Messages name the
// network, the layer and the entry; they wrap ErrInput.
func (m *Network) Validate() error {
	if err := m.checkInputs(); err != nil {
		return err
	}
	if len(m.Layers) == 0 || len(m.Layers) > MaxLayers {
		return m.errorf("%d layers: want between 1 and %d", len(m.Layers), MaxLayers)
	}
	if m.Precision != Float32 && m.Precision != Float64 {
		return m.errorf("unknown precision %v", m.Precision)
	}
	in, params, units := len(m.Inputs), 0, 0
	for l, ly := range m.Layers {
		if len(ly.W) == 0 || len(ly.W) > MaxWidth {
			return m.errorf("layer %d: weight has %d rows: want between 1 and %d (PyTorch nn.Linear layout, out × in)", l, len(ly.W), MaxWidth)
		}
		params += len(ly.W) * (in + 1)
		if params > MaxParams {
			return m.errorf("more than %d parameters (at layer %d): too large to certify", MaxParams, l)
		}
		if l < len(m.Layers)-1 {
			units += len(ly.W)
		}
		if err := m.checkLayer(l, ly, in); err != nil {
			return err
		}
		in = len(ly.W)
	}
	if err := m.checkOutputs(in); err != nil {
		return err
	}
	if units > MaxUnits {
		return m.errorf("%d hidden units: at most %d can be certified (each is a kink of k(x, ·) for every x)", units, MaxUnits)
	}
	return nil
}

// checkInputs checks Inputs: ["x", "r"] or ["r", "x"], or the one-hot
// names "x=0".."x=n−1" with "r" last or first.
func (m *Network) checkInputs() error {
	in := m.Inputs
	if len(in) == 2 && (in[0] == "x" && in[1] == "r" || in[0] == "r" && in[1] == "x") {
		return nil
	}
	want := `want ["x", "r"] (or ["r", "x"]): one private input x and one noise input r ~ N(0, 1); or a one-hot x, ["x=0", …, "x=n−1", "r"] (or "r" first), n ≥ 2`
	if len(in) < 3 || len(in) > MaxXValues+1 {
		return m.errorf("inputs %s: %s", short(in), want)
	}
	xs := in[:len(in)-1]
	if in[0] == "r" {
		xs = in[1:]
	} else if in[len(in)-1] != "r" {
		return m.errorf("inputs %s: %s", short(in), want)
	}
	for k, name := range xs {
		if name != "x="+strconv.Itoa(k) {
			return m.errorf("inputs %s: one-hot input %d is %s, want \"x=%d\": %s", short(in), k, safefile.Excerpt(clip(name)), k, want)
		}
	}
	return nil
}

// checkLayer checks layer l's shapes (in inputs), weights and activation.
func (m *Network) checkLayer(l int, ly Layer, in int) error {
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
	if ly.Act < Identity || ly.Act > Softmax {
		return m.errorf("layer %d: unknown activation %v", l, ly.Act)
	}
	if ly.Act == Softmax && l != len(m.Layers)-1 {
		return m.errorf("layer %d: softmax before the last layer: a softmax is the release's law over the labels, the network's output", l)
	}
	return nil
}

// checkOutputs checks the output size: 1, or 2..MaxOutputs labels after a
// softmax.
func (m *Network) checkOutputs(out int) error {
	if !m.Categorical() {
		if out != 1 {
			return m.errorf("output size %d: want 1 (the released value, or P(F = 1 | x, r)); a network releasing one of m labels ends in a softmax", out)
		}
		return nil
	}
	if out < 2 || out > MaxOutputs {
		return m.errorf("softmax over %d outputs: want between 2 and %d labels", out, MaxOutputs)
	}
	return nil
}

// short formats a list of names for a message, cut after a few entries.
func short(s []string) string {
	const n = 4
	var q []string
	for _, v := range s[:min(len(s), n)] {
		if len(v) > 16 {
			v = v[:16] + "…"
		}
		q = append(q, strconv.Quote(v))
	}
	if len(s) > n {
		q = append(q, fmt.Sprintf("… (%d in all)", len(s)))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func (m *Network) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: network %s: %s", ErrInput, m.Name, fmt.Sprintf(format, args...))
}

// Categorical reports whether the last layer is a softmax: the network
// releases one of Outputs() labels, F ~ Categorical(softmax(z(x, r))).
func (m *Network) Categorical() bool {
	return len(m.Layers) > 0 && m.Layers[len(m.Layers)-1].Act == Softmax
}

// Outputs is the number of output units: 1, or the labels of a categorical
// network.
func (m *Network) Outputs() int {
	if len(m.Layers) == 0 {
		return 0
	}
	return len(m.Layers[len(m.Layers)-1].W)
}

// XValues is n when x enters one-hot over the values 0..n−1, and 0 when it
// is one real input.
func (m *Network) XValues() int {
	if len(m.Inputs) <= 2 {
		return 0
	}
	return len(m.Inputs) - 1
}

// Width returns the largest layer width (at least the input size).
func (m *Network) Width() int {
	w := len(m.Inputs)
	for _, l := range m.Layers {
		w = max(w, len(l.W))
	}
	return w
}

// Eval returns k(x, r), computed in float64; m must be valid and not
// categorical (Probs), and x one of 0..n−1 for a one-hot x. It has the
// signature of bayes.Privatizer.K and is safe for concurrent use. Networks
// up to 64 units wide use stack scratch (no allocation); Forward takes
// caller scratch.
func (m *Network) Eval(x, r float64) float64 {
	if m.Categorical() {
		panic("network: Eval of a categorical network (use Probs)")
	}
	w := m.Width()
	if w <= 64 {
		var a, b [64]float64
		return m.Forward(x, r, a[:w], b[:w])
	}
	return m.Forward(x, r, make([]float64, w), make([]float64, w))
}

// Forward returns k(x, r) using a and b (each of length ≥ Width()) as
// scratch; it allocates nothing. m must not be categorical.
func (m *Network) Forward(x, r float64, a, b []float64) float64 {
	return forward(m.Layers, m.inputs(x, r, a), b)[0]
}

// Probs writes P(F = f | X = x, R = r) = softmax(z(x, r))_f, f = 0..m−1, of
// a categorical network into p (length ≥ Outputs()) and returns p[:m],
// computed in float64. It allocates nothing for networks up to 64 units
// wide.
func (m *Network) Probs(x, r float64, p []float64) []float64 {
	if !m.Categorical() {
		panic("network: Probs of a network with one output (use Eval)")
	}
	w := m.Width()
	var sa, sb [64]float64
	a, b := sa[:0], sb[:0]
	if w <= 64 {
		a, b = sa[:w], sb[:w]
	} else {
		a, b = make([]float64, w), make([]float64, w)
	}
	return append(p[:0], forward(m.Layers, m.inputs(x, r, a), b)...)
}

// forward passes a (the first layer's input) through layers, with b as
// scratch of the widest layer's width, and returns the output units (in a
// or b).
func forward(layers []Layer, a, b []float64) []float64 {
	for _, ly := range layers {
		b = b[:len(ly.W)]
		for j, row := range ly.W {
			z := ly.B[j]
			for i, w := range row {
				z += w * a[i]
			}
			b[j] = z
			if ly.Act != Softmax {
				b[j] = ly.Act.apply(z)
			}
		}
		if ly.Act == Softmax {
			SoftmaxInPlace(b)
		}
		a, b = b, a
	}
	return a
}

// SoftmaxInPlace replaces z by softmax(z), shifting by max z so that no
// exponential overflows: the law Probs computes from a categorical
// network's logits (and learn's trainer from its own).
func SoftmaxInPlace(z []float64) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, v)
	}
	var s float64
	for i, v := range z {
		z[i] = math.Exp(v - mx)
		s += z[i]
	}
	for i := range z {
		z[i] /= s
	}
}

// inputs writes the network's input at (x, r) into a: x and r in the
// declared order, or the one-hot code of x beside r. x must be one of
// 0..n−1 for a one-hot x (a programmer error otherwise: the models that
// feed one-hot networks have a finite X).
func (m *Network) inputs(x, r float64, a []float64) []float64 {
	a = a[:len(m.Inputs)]
	if m.Inputs[0] == "r" {
		a[0] = r
		m.xCode(x, a[1:])
	} else {
		a[len(a)-1] = r
		m.xCode(x, a[:len(a)-1])
	}
	return a
}

// xCode writes x's input columns: x itself, or its one-hot code.
func (m *Network) xCode(x float64, a []float64) {
	if len(a) == 1 {
		a[0] = x
		return
	}
	k := int(x)
	if float64(k) != x || k < 0 || k >= len(a) {
		panic(fmt.Sprintf("network: x = %v fed to a one-hot input over 0..%d", x, len(a)-1))
	}
	clear(a)
	a[k] = 1
}

// noiseColumn writes the input's derivative in r into a: 1 in r's column,
// 0 elsewhere.
func (m *Network) noiseColumn(a []float64) []float64 {
	a = a[:len(m.Inputs)]
	clear(a)
	if m.Inputs[0] == "r" {
		a[0] = 1
	} else {
		a[len(a)-1] = 1
	}
	return a
}

// PiecewiseLinear reports whether every activation is identity or ReLU:
// then k(x, ·) is continuous and piecewise linear in r, and Pieces is exact.
func (m *Network) PiecewiseLinear() bool { return m.prefixLen() == len(m.Layers) }

// Units is the number of hidden units (every layer's width but the last).
func (m *Network) Units() int {
	n := 0
	for _, l := range m.Layers[:max(len(m.Layers)-1, 0)] {
		n += len(l.W)
	}
	return n
}
