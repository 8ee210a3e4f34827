package bayes

import (
	"math/rand/v2"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/network"
)

// randomNet returns a freshly initialized two-input privatizer network (the
// paper's 50 hidden units, PyTorch's initialization): far from linear, with
// ranges of r where k(x, ·) is flat, the hard case for the quadrature.
func randomNet(seed uint64) *learn.MLP {
	return learn.NewMLP(2, 50, network.Identity, rand.New(rand.NewPCG(seed, 9)))
}

// testQuadTol is the refinement change the tests accept (verify's default).
const testQuadTol = 5e-3

// fromMLP is FromNetwork of a trained network with inputs (x, r).
func fromMLP(m *learn.MLP) (Privatizer, error) {
	n := m.Network("privatizer", []string{"x", "r"})
	return FromNetwork(&n)
}

// AffineLayer is one layer out = g(W·in + B) of a test network whose
// activations g are the identity or ReLU; W is out × in.
type AffineLayer struct {
	W    [][]float64
	B    []float64
	ReLU bool
}

// layersNetwork is the float64 network k(x, r) with these layers.
func layersNetwork(layers []AffineLayer) *network.Network {
	n := &network.Network{Name: "test", Inputs: []string{"x", "r"}, Precision: network.Float64}
	for _, l := range layers {
		act := network.Identity
		if l.ReLU {
			act = network.ReLU
		}
		n.Layers = append(n.Layers, network.Layer{W: l.W, B: l.B, Act: act})
	}
	return n
}

// LayerFaces returns the faces function of the network with these layers
// (inputs x, r): network.Network.Faces, the one face enumeration.
func LayerFaces(layers []AffineLayer, xFirst bool) func(box network.Box, maxFaces int) ([]network.Face, error) {
	if !xFirst {
		panic("LayerFaces: tests use inputs (x, r)")
	}
	return layersNetwork(layers).Faces
}

// layersK is the function k(x, r) of the network with these layers,
// evaluated layer by layer in float64.
func layersK(layers []AffineLayer) func(x, r float64) float64 {
	return func(x, r float64) float64 {
		in := []float64{x, r}
		for _, l := range layers {
			out := make([]float64, len(l.W))
			for j, row := range l.W {
				z := l.B[j]
				for i, w := range row {
					z += w * in[i]
				}
				if l.ReLU {
					z = max(z, 0)
				}
				out[j] = z
			}
			in = out
		}
		return in[0]
	}
}

func layersPrivatizer(layers []AffineLayer) Privatizer {
	return Privatizer{K: layersK(layers), PiecewiseLinear: true, Faces: LayerFaces(layers, true)}
}
