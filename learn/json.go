package learn

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/network"
)

// Floats is a []float64 written with NaN and ±Inf as null (jsonconf.Floats):
// the losses of results.json.
type Floats = jsonconf.Floats

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

// Network returns m as a network (package network) in PyTorch's nn.Linear
// layout: layer 0 the In×Hidden ReLU layer, layer 1 the output. It is
// float64: mmds trains and evaluates in float64, so that is the function
// that runs. The weights are copied; role and inputs are recorded with it
// in results.json.
func (m *MLP) Network(role string, inputs []string) network.Network {
	w1, b1, w2, b2 := m.Layers()
	return twoLayers(role, inputs, denseLayer(w1, b1, m.In, 1, m.Hidden, network.ReLU),
		denseLayer(w2, []float64{b2}, m.Hidden, 0, 1, m.Out))
}

// twoLayers is the float64 network of l1 and l2 (the trainers' layout: a
// ReLU layer, then the output layer) playing role, with inputs named so.
func twoLayers(role string, inputs []string, l1, l2 network.Layer) network.Network {
	return network.Network{Name: role, Role: role, Inputs: inputs, Layers: []network.Layer{l1, l2}, Precision: network.Float64}
}

// denseLayer returns the layer of len(b) units over in inputs with
// activation act whose weight W[j][i] is w[j*sj+i*si] (a flat parameter
// slice in either order), weights and biases copied.
func denseLayer(w, b []float64, in, sj, si int, act network.Activation) network.Layer {
	l := network.Layer{W: make([][]float64, len(b)), B: slices.Clone(b), Act: act}
	for j := range l.W {
		l.W[j] = make([]float64, in)
		for i := range in {
			l.W[j][i] = w[j*sj+i*si]
		}
	}
	return l
}

// MLPOf rebuilds the two-layer network n describes (Network's layout),
// checking its shapes.
func MLPOf(n *network.Network) (*MLP, error) {
	if len(n.Layers) != 2 {
		return nil, fmt.Errorf("learn: network %q has %d layers, want 2", n.Role, len(n.Layers))
	}
	l1, l2 := &n.Layers[0], &n.Layers[1]
	if l2.Act != network.Identity && l2.Act != network.Sigmoid {
		return nil, fmt.Errorf("learn: network %q: output activation %q: want identity or sigmoid", n.Role, l2.Act)
	}
	in := 0
	if len(l1.W) > 0 {
		in = len(l1.W[0])
	}
	if l1.Act != network.ReLU || in < 1 || len(l1.W) < 1 || len(l1.B) != len(l1.W) ||
		len(l2.W) != 1 || len(l2.W[0]) != len(l1.W) || len(l2.B) != 1 {
		return nil, fmt.Errorf("learn: network %q: layer shapes are not In×H relu, H×1", n.Role)
	}
	m := &MLP{In: in, Hidden: len(l1.W), Out: l2.Act, Params: make([]float64, NumParams(in, len(l1.W)))}
	w1, b1, w2, _ := m.Layers()
	for j, row := range l1.W {
		if len(row) != in {
			return nil, fmt.Errorf("learn: network %q: weight row %d has %d entries, want %d", n.Role, j, len(row), in)
		}
		for i, w := range row {
			w1[i*m.Hidden+j] = w
		}
	}
	copy(b1, l1.B)
	copy(w2, l2.W[0])
	m.Params[len(m.Params)-1] = l2.B[0] // B2
	return m, nil
}

// Privatizer returns the privatizer network of a finalized point (its
// networks[0], in results.json's layout), validated: any depth, inputs in
// the order the file declares.
func (p *DResult) Privatizer() (*network.Network, error) {
	if len(p.Networks) == 0 {
		return nil, fmt.Errorf("%w: point %d has no networks", network.ErrInput, p.DIndex)
	}
	n := p.Networks[0]
	n.Name = fmt.Sprintf("networks[0] (%s) of point %d", n.Role, p.DIndex)
	n.Precision = network.Float64
	n.Layers = make([]network.Layer, len(p.Networks[0].Layers))
	for l, ly := range p.Networks[0].Layers {
		n.Layers[l] = network.Layer{W: make([][]float64, len(ly.W)), B: slices.Clone(ly.B), Act: ly.Act}
		for j, row := range ly.W {
			n.Layers[l].W[j] = slices.Clone(row)
		}
	}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	return &n, nil
}
