package learn

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/network"
)

// Floats is a []float64 whose JSON form writes NaN and ±Inf (a diverged
// trial's losses) as null, which encoding/json would otherwise refuse, and
// reads null back as NaN.
type Floats []float64

// MarshalJSON implements json.Marshaler.
func (fs Floats) MarshalJSON() ([]byte, error) {
	if fs == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 2+20*len(fs))
	b = append(b, '[')
	for k, f := range fs {
		if k > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendFloat(b, f, 'g', -1, 64)
		}
	}
	return append(b, ']'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (fs *Floats) UnmarshalJSON(b []byte) error {
	var ps []*float64
	if err := jsonconf.Unmarshal(b, &ps); err != nil {
		return err
	}
	if ps == nil {
		*fs = nil
		return nil
	}
	out := make(Floats, len(ps))
	for k, p := range ps {
		out[k] = math.NaN()
		if p != nil {
			out[k] = *p
		}
	}
	*fs = out
	return nil
}

// dResultJSON is DResult's JSON form, the shape results.json has always had:
// the losses sit between "finalized" and "recon_hard" as recon_loss,
// adv_loss (in Floats' encoding) and min_adv_loss, null when there is no
// finalized point. pointSeal hashes the same three fields. In encoding/json
// a field shadows a deeper one of the same name and fields keep their
// declaration order, so the three head fields here hide those of
// dResultFields and the losses follow them; every other field of DResult
// comes from dResultFields in its own order.
type dResultJSON struct {
	DIndex    int     `json:"d_index"`
	D         float64 `json:"D"`
	Finalized bool    `json:"finalized"`
	loss.Nullable[Floats]
	*dResultFields
}

// dResultFields is DResult without its methods, so that encoding it does
// not recurse into MarshalJSON.
type dResultFields DResult

// MarshalJSON writes the point with its losses as recon_loss, adv_loss and
// min_adv_loss (see dResultJSON).
func (p DResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(dResultJSON{DIndex: p.DIndex, D: p.D, Finalized: p.Finalized,
		Nullable: loss.NullableOf[Floats](p.Losses), dResultFields: (*dResultFields)(&p)})
}

// UnmarshalJSON reads what MarshalJSON writes. The losses are kept as
// written (min_adv_loss is not recomputed), so that the point's hash binds
// the file; Losses is nil when all three fields are null.
func (p *DResult) UnmarshalJSON(b []byte) error {
	var f dResultFields
	w := dResultJSON{dResultFields: &f}
	if err := jsonconf.Unmarshal(b, &w); err != nil {
		return err
	}
	f.DIndex, f.D, f.Finalized, f.Losses = w.DIndex, w.D, w.Finalized, w.Nullable.Losses()
	*p = DResult(f)
	return nil
}

// Network is an MLP's JSON form, for verify and other tools: layers in order,
// each with PyTorch's nn.Linear layout (Weights[o][i] multiplies input i into
// output o). Layer 0 has activation "relu", layer 1 "identity" or "sigmoid".
type Network struct {
	Role   string   `json:"role"`   // "privatizer", "reconstructor", "adversary_1", …
	Inputs []string `json:"inputs"` // input names in order, e.g. ["x", "r"], ["f", "y1"], ["f", "z1_1"]
	Layers []Layer  `json:"layers"`
}

// Layer is one fully connected layer: out = act(Weights · in + Bias).
type Layer struct {
	In         int      `json:"in"`
	Out        int      `json:"out"`
	Activation string   `json:"activation"`
	Weights    []Floats `json:"weights"` // Out rows of In
	Bias       Floats   `json:"bias"`    // Out
}

// NetworkOf returns m's JSON form.
func NetworkOf(m *MLP, role string, inputs []string) Network {
	w1, b1, w2, b2 := m.Layers()
	l1 := Layer{In: m.In, Out: m.Hidden, Activation: "relu", Bias: append(Floats(nil), b1...)}
	for j := range m.Hidden {
		row := make(Floats, m.In)
		for i := range m.In {
			row[i] = w1[i*m.Hidden+j]
		}
		l1.Weights = append(l1.Weights, row)
	}
	l2 := Layer{In: m.Hidden, Out: 1, Activation: m.Out.String(),
		Weights: []Floats{append(Floats(nil), w2...)}, Bias: Floats{b2}}
	return Network{Role: role, Inputs: inputs, Layers: []Layer{l1, l2}}
}

// MLP rebuilds the network n describes, checking its shapes.
func (n *Network) MLP() (*MLP, error) {
	if len(n.Layers) != 2 {
		return nil, fmt.Errorf("learn: network %q has %d layers, want 2", n.Role, len(n.Layers))
	}
	l1, l2 := &n.Layers[0], &n.Layers[1]
	out, ok := map[string]network.Activation{"identity": network.Identity, "sigmoid": network.Sigmoid}[l2.Activation]
	if !ok {
		return nil, fmt.Errorf("learn: network %q: output activation %q: want identity or sigmoid", n.Role, l2.Activation)
	}
	if l1.Activation != "relu" || l1.In < 1 || l1.Out < 1 || l2.In != l1.Out || l2.Out != 1 ||
		len(l1.Weights) != l1.Out || len(l1.Bias) != l1.Out || len(l2.Weights) != 1 || len(l2.Weights[0]) != l2.In || len(l2.Bias) != 1 {
		return nil, fmt.Errorf("learn: network %q: layer shapes are not In×H relu, H×1", n.Role)
	}
	m := &MLP{In: l1.In, Hidden: l1.Out, Out: out, Params: make([]float64, NumParams(l1.In, l1.Out))}
	w1, b1, w2, b2 := m.split(m.Params)
	for j, row := range l1.Weights {
		if len(row) != l1.In {
			return nil, fmt.Errorf("learn: network %q: weight row %d has %d entries, want %d", n.Role, j, len(row), l1.In)
		}
		for i, w := range row {
			w1[i*m.Hidden+j] = w
		}
	}
	copy(b1, l1.Bias)
	copy(w2, l2.Weights[0])
	b2[0] = l2.Bias[0]
	return m, nil
}

// Network returns m as a privatizer network (package network) with the
// given input names: layer 0 the In×Hidden ReLU layer, layer 1 the output.
// It is float64: mmds trains and evaluates in float64, so that is the
// function that runs. The weights are copied.
func (m *MLP) Network(inputs []string) *network.Network {
	w1, b1, w2, b2 := m.Layers()
	l1 := network.Layer{W: make([][]float64, m.Hidden), B: append([]float64(nil), b1...), Act: network.ReLU}
	for j := range m.Hidden {
		l1.W[j] = make([]float64, m.In)
		for i := range m.In {
			l1.W[j][i] = w1[i*m.Hidden+j]
		}
	}
	l2 := network.Layer{W: [][]float64{append([]float64(nil), w2...)}, B: []float64{b2}, Act: m.Out}
	return &network.Network{Name: "privatizer", Inputs: append([]string(nil), inputs...),
		Layers: []network.Layer{l1, l2}, Precision: network.Float64}
}

// Privatizer returns the privatizer network of a finalized point (its
// networks[0], in results.json's layout) as a network.Network, read by
// network.ParseRecord: any depth, inputs in the order the file declares.
func (p *DResult) Privatizer() (*network.Network, error) {
	if len(p.Networks) == 0 {
		return nil, fmt.Errorf("%w: point %d has no networks", network.ErrInput, p.DIndex)
	}
	b, err := json.Marshal(p.Networks[0])
	if err != nil {
		return nil, fmt.Errorf("%w: point %d: %v", network.ErrInput, p.DIndex, err)
	}
	return network.ParseRecord(b, fmt.Sprintf("networks[0] (%s) of point %d", p.Networks[0].Role, p.DIndex))
}
