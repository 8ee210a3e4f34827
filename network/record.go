package network

import (
	"encoding/json"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
)

// record is a network's layout in results.json, one entry of a point's
// "networks" as mmds writes it: {"role", "inputs", "layers": [{"in", "out",
// "activation", "weights", "bias"}]}, a weight that is NaN or infinite (a
// diverged trial) written as null. Points hash these bytes (docs/check.md),
// so the layout and the number format (strconv's shortest 'g') are fixed.
type record struct {
	Role   string        `json:"role"`
	Inputs []string      `json:"inputs"`
	Layers []recordLayer `json:"layers"`
}

type recordLayer struct {
	In         int               `json:"in"`
	Out        int               `json:"out"`
	Activation string            `json:"activation"`
	Weights    []jsonconf.Floats `json:"weights"`
	Bias       jsonconf.Floats   `json:"bias"`
}

// MarshalJSON writes m in results.json's layout (record); Name and
// Precision are not part of it.
func (m Network) MarshalJSON() ([]byte, error) {
	v := record{Role: m.Role, Inputs: m.Inputs}
	if m.Layers != nil {
		v.Layers = make([]recordLayer, len(m.Layers))
	}
	for l, ly := range m.Layers {
		r := recordLayer{Out: len(ly.W), Activation: ly.Act.String(), Bias: ly.B}
		if ly.W != nil {
			r.Weights = make([]jsonconf.Floats, len(ly.W))
		}
		for j, row := range ly.W {
			r.Weights[j] = row
		}
		if len(ly.W) > 0 {
			r.In = len(ly.W[0])
		}
		v.Layers[l] = r
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads results.json's layout (record) strictly, into a
// network of precision Float64 (mmds trains and evaluates in float64) with
// its inputs in the order the entry declares; null weights read as NaN,
// which Validate refuses. Declared in and out sizes must match the
// weights and every activation be named, so that writing m back gives the
// bytes read (the point's hash binds them).
func (m *Network) UnmarshalJSON(b []byte) error {
	var v record
	if err := jsonconf.Unmarshal(b, &v); err != nil {
		return err
	}
	n := Network{Role: v.Role, Inputs: v.Inputs, Precision: Float64}
	if v.Layers != nil {
		n.Layers = make([]Layer, 0, len(v.Layers))
	}
	name := safefile.Excerpt(clip(v.Role))
	for l, ly := range v.Layers {
		act, err := actText.Parse(ly.Activation) // "" is refused: it would not write back as read
		if err != nil {
			return jsonconf.Errorf("network %s: layer %d: %v", name, l, err)
		}
		if ly.Out != len(ly.Weights) || ly.Out != len(ly.Bias) {
			return jsonconf.Errorf("network %s: layer %d: out %d, but %d weight rows and %d biases", name, l, ly.Out, len(ly.Weights), len(ly.Bias))
		}
		L := Layer{B: ly.Bias, Act: act}
		if ly.Weights != nil {
			L.W = make([][]float64, len(ly.Weights))
		}
		for j, row := range ly.Weights {
			if len(row) != ly.In {
				return jsonconf.Errorf("network %s: layer %d: in %d, but weight row %d has %d entries", name, l, ly.In, j, len(row))
			}
			L.W[j] = row
		}
		n.Layers = append(n.Layers, L)
	}
	*m = n
	return nil
}
