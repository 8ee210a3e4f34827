package learn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mmds-project/mmds/internal/vexp"
	"github.com/mmds-project/mmds/network"
)

// MLP is the paper's network (Section V): a fully connected In×Hidden layer
// with ReLU, then a Hidden×1 layer followed by Out (identity or sigmoid).
//
// All parameters live in one slice, Params, so an optimizer updates a network
// with a single loop. The layout is
//
//	W1 [In][Hidden]  W1[i*Hidden+j] is the weight from input i to hidden unit j
//	B1 [Hidden]
//	W2 [Hidden]      weight from hidden unit j to the output
//	B2 [1]
//
// W1 is stored input-major (the transpose of PyTorch's Linear.weight).
//
// Batches are feature-major: an input batch of n rows is an In×n slice
// (in[i*n+r] is input i of row r), the hidden activations a Hidden×n slice,
// so the kernels run down contiguous columns of n rows, four rows per vector
// instruction on amd64 (kernel.go). For a single row (n = 1) this is the
// plain input vector.
type MLP struct {
	In, Hidden int
	// Out is the output unit's function: network.Identity for the Gaussian
	// model's real-valued outputs, network.Sigmoid for the binary model's
	// probabilities (Section V).
	Out    network.Activation
	Params []float64
}

// NewMLP returns a network with in inputs and hidden ReLU units, initialized
// like PyTorch's default nn.Linear: every weight and bias of a layer with
// fan-in n is drawn from U(−1/√n, 1/√n) (kaiming_uniform with a = √5 gives
// exactly this bound for the weights). Draws are taken from rng in the order
// W1 (input-major), B1, W2, B2. It panics if in or hidden is not positive,
// or out is neither network.Identity nor network.Sigmoid.
func NewMLP(in, hidden int, out network.Activation, rng *rand.Rand) *MLP {
	if in < 1 || hidden < 1 {
		panic(fmt.Sprintf("learn: NewMLP(%d, %d): sizes must be positive", in, hidden))
	}
	if out != network.Identity && out != network.Sigmoid {
		panic(fmt.Sprintf("learn: NewMLP: output activation %v: want identity or sigmoid", out))
	}
	m := &MLP{In: in, Hidden: hidden, Out: out, Params: make([]float64, NumParams(in, hidden))}
	initLinear(m.Params, in*hidden+hidden, in, hidden, rng)
	return m
}

// initLinear draws the parameters p of a network of two linear layers in
// their order, PyTorch's nn.Linear initialization: the first k (the first
// layer's weights and biases, fan-in in) from U(±1/√in), the rest (fan-in
// hidden) from U(±1/√hidden).
func initLinear(p []float64, k, in, hidden int, rng *rand.Rand) {
	b1, b2 := 1/math.Sqrt(float64(in)), 1/math.Sqrt(float64(hidden))
	for j := range p {
		b := b1
		if j >= k {
			b = b2
		}
		p[j] = b * (2*rng.Float64() - 1)
	}
}

// NumParams is the number of parameters of an MLP with in inputs and hidden
// units: In·Hidden + Hidden + Hidden + 1.
func NumParams(in, hidden int) int { return in*hidden + 2*hidden + 1 }

// Layers returns views of the weights and biases: W1 (In×Hidden,
// input-major), B1, W2 and the output bias B2.
func (m *MLP) Layers() (w1, b1, w2 []float64, b2 float64) { return layers(m.Params, m.In, m.Hidden) }

// check panics unless the parameters have the right length and the non-nil
// buffers hold n rows: in n×In, h n×Hidden, out n.
func (m *MLP) check(n int, in, h, out []float64) {
	if len(m.Params) != NumParams(m.In, m.Hidden) {
		panic(fmt.Sprintf("learn: MLP has %d params, want %d", len(m.Params), NumParams(m.In, m.Hidden)))
	}
	need := func(name string, b []float64, size int) {
		if b != nil && len(b) < size {
			panic(fmt.Sprintf("learn: MLP %s buffer has length %d, need %d for %d rows", name, len(b), size, n))
		}
	}
	need("input", in, n*m.In)
	need("hidden", h, n*m.Hidden)
	need("output", out, n)
}

// Forward computes the outputs of the n rows of the feature-major batch in
// (In×n: in[i*n+r] is input i of row r) into out (length ≥ n) and keeps the
// hidden ReLU activations in h (Hidden×n: h[j*n+r]), which Backward needs.
// The arithmetic is the canonical order of kernel.go. It allocates nothing.
func (m *MLP) Forward(in []float64, n int, h, out []float64) {
	m.check(n, in, h, out)
	forwardKernel(m.Params, m.In, m.Hidden, in, n, h, out)
	if m.Out == network.Sigmoid {
		sigmoidRows(out[:n])
	}
}

// sigmoidRows applies sigmoid to every entry of z, with the same result
// bit for bit, four entries at a time where vexp can (math.Exp's bits).
func sigmoidRows(z []float64) { vexp.Sigmoid(z, z) }

// outGrad returns dL/dz for the output pre-activation z given dL/dy for the
// output y = act(z).
func (m *MLP) outGrad(dy, y float64) float64 { return dzOut(m.Out == network.Sigmoid, dy, y) }

// Backward back-propagates dOut (dL/dy for each of the n outputs y) through
// the network whose Forward on the same in produced h and out. It writes the
// parameter gradient into grad (overwritten; same layout as Params) when grad
// is not nil, and the input gradient dL/din (In×n, feature-major like in)
// into dIn when dIn is not nil. It allocates nothing.
func (m *MLP) Backward(in, h, out, dOut []float64, n int, grad, dIn []float64) {
	m.check(n, in, h, out)
	m.check(n, nil, nil, dOut)
	if grad != nil && len(grad) != len(m.Params) {
		panic(fmt.Sprintf("learn: gradient length %d, want %d", len(grad), len(m.Params)))
	}
	if dIn != nil && len(dIn) < n*m.In {
		panic(fmt.Sprintf("learn: input gradient length %d, need %d", len(dIn), n*m.In))
	}
	if grad != nil {
		paramGradKernel(m.Out == network.Sigmoid, m.Params, m.In, m.Hidden, in, h, out, dOut, n, grad)
	}
	if dIn != nil {
		H := m.Hidden
		w1, _, w2, _ := m.Layers()
		for i := 0; i < m.In; i++ {
			wi, di := w1[i*H:i*H+H], dIn[i*n:i*n+n]
			for r := range di {
				var s float64
				for j := 0; j < H; j++ {
					s += gate(float64(w2[j]*wi[j]), h[j*n+r])
				}
				di[r] = m.outGrad(dOut[r], out[r]) * s
			}
		}
	}
}

// InputGradCol writes dL/din[col][r] for the n rows into d, given dOut as in
// Backward. It is the only gradient the privatizer step needs from the frozen
// reconstructor and adversaries (the gradient with respect to f), and is
// cheaper than Backward: with v_j = W2_j·W1[col]_j precomputed into v (length
// ≥ Hidden), each row costs one masked sum. It allocates nothing.
func (m *MLP) InputGradCol(col int, h, out, dOut []float64, n int, v, d []float64) {
	if col < 0 || col >= m.In {
		panic(fmt.Sprintf("learn: InputGradCol(%d) on a network with %d inputs", col, m.In))
	}
	m.check(n, nil, h, out)
	m.check(n, nil, nil, dOut)
	m.check(n, nil, nil, d)
	H := m.Hidden
	w1, _, w2, _ := m.Layers()
	v = v[:H]
	wc := w1[col*H : col*H+H]
	for j := range v {
		v[j] = w2[j] * wc[j]
	}
	inputGradKernel(m.Out == network.Sigmoid, m.Params, m.In, H, col, h, out, dOut, n, v, d)
}

// Predict returns the network's output for one input vector x (length In).
// It allocates; use Forward for batches.
func (m *MLP) Predict(x []float64) float64 {
	if len(x) != m.In {
		panic(fmt.Sprintf("learn: Predict with %d inputs on a network with %d", len(x), m.In))
	}
	h := make([]float64, m.Hidden)
	out := make([]float64, 1)
	m.Forward(x, 1, h, out)
	return out[0]
}

// relu returns max(v, 0) without a branch, as (v + |v|)/2: exact, because
// v + v = 2v and v + (−v) = +0 are exact and halving is exact (barring
// overflow past MaxFloat64/2, where v is meaningless anyway). math.Abs is a
// single bit-mask instruction, so this is three floating-point operations; a
// branch would mispredict about half the time.
func relu(v float64) float64 {
	return 0.5 * (v + math.Abs(v))
}

// gate returns g where the ReLU unit with output hv ≥ 0 is active (hv > 0) and
// 0 where it is not, without a branch: the sign of −bits(hv) spreads into a
// mask. (A branch here mispredicts about half the time.)
func gate(g, hv float64) float64 {
	k := uint64(-int64(math.Float64bits(hv)) >> 63)
	return math.Float64frombits(math.Float64bits(g) & k)
}
