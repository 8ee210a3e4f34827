package network

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
)

// jsonLayout is the documented JSON layout of a network file.
type jsonLayout struct {
	Inputs    []string    `json:"inputs"`
	Noise     string      `json:"noise,omitempty"`
	Precision string      `json:"precision,omitempty"`
	Layers    []jsonLayer `json:"layers"`
}

type jsonLayer struct {
	Weight     [][]float64 `json:"weight"`
	Bias       []float64   `json:"bias"`
	Activation string      `json:"activation"`
}

// NoiseLaw is the only noise law of the layout: r ~ N(0, 1). A network
// trained with r ~ N(μ, σ²) is rewritten by folding μ and σ into the first
// layer (W[·][r] ← σ·W[·][r], b ← b + μ·W[·][r]).
const NoiseLaw = "normal(0,1)"

// ParseJSON reads a network in the JSON layout
//
//	{"inputs": ["x", "r"], "noise": "normal(0,1)", "precision": "float32",
//	 "layers": [{"weight": [[…]], "bias": […], "activation": "relu"}, …]}
//
// ("noise" optional; "precision" float32 (the default: PyTorch's) or
// float64; "activation" one of identity, relu, sigmoid, tanh, default
// identity, or softmax on the last layer of a categorical network; a
// one-hot x is declared as "inputs": ["x=0", …, "x=n−1", "r"]) and
// validates it; name is the file name for messages. The
// weights of a float32 network are rounded to float32, as a runtime loading
// them does: that is the function that runs.
func ParseJSON(r io.Reader, name string) (*Network, error) {
	var v jsonLayout
	if err := jsonconf.Decode(r, &v); err != nil {
		return nil, fmt.Errorf("%w: network %s: %v", ErrInput, name, err)
	}
	m := &Network{Name: name, Inputs: v.Inputs}
	if v.Inputs == nil {
		return nil, m.errorf("field \"inputs\" is missing: want [\"x\", \"r\"]")
	}
	if v.Noise != "" && v.Noise != NoiseLaw {
		return nil, m.errorf("noise %s: only %q is supported (fold another normal law into the first layer)", safefile.Excerpt(v.Noise), NoiseLaw)
	}
	if v.Precision != "" {
		if err := m.Precision.UnmarshalText([]byte(v.Precision)); err != nil {
			return nil, m.errorf("%v", err)
		}
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
	if m.Precision == Float32 {
		if err := m.roundFloat32(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// roundFloat32 rounds every weight to the nearest float32, refusing one
// beyond float32's range.
func (m *Network) roundFloat32() error {
	round := func(l int, what string, v *float64) error {
		f := float64(float32(*v))
		if math.IsInf(f, 0) {
			return m.errorf("layer %d: %s = %g is beyond float32's range (the network is float32 unless it declares \"precision\": \"float64\")", l, what, *v)
		}
		*v = f
		return nil
	}
	for l, ly := range m.Layers {
		for j, row := range ly.W {
			for i := range row {
				if err := round(l, fmt.Sprintf("weight[%d][%d]", j, i), &row[i]); err != nil {
					return err
				}
			}
		}
		for j := range ly.B {
			if err := round(l, fmt.Sprintf("bias[%d]", j), &ly.B[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteJSON writes m in the JSON layout that ParseJSON reads, its precision
// included.
func (m *Network) WriteJSON(w io.Writer) error {
	v := jsonLayout{Inputs: m.Inputs, Noise: NoiseLaw, Precision: m.Precision.String()}
	for _, l := range m.Layers {
		v.Layers = append(v.Layers, jsonLayer{Weight: l.W, Bias: l.B, Activation: l.Act.String()})
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("network %s: %w", m.Name, err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// clip shortens a string from a file for a message.
