package network

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Faces of random identity/ReLU networks: at random points inside each
// face Eval equals the face's affine form, every face is counter-clockwise,
// and the faces tile the box (areas sum to its area).
func TestFacesProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := range 60 {
		depth := 1 + rng.IntN(3)
		widths := make([]int, depth)
		for i := range widths {
			widths[i] = 1 + rng.IntN(6)
		}
		n := randomNet(rng, widths, ReLU, Identity, 1+2*rng.Float64())
		box := Box{X0: -2 - rng.Float64(), X1: 1 + rng.Float64(), R0: -3, R1: 2 + rng.Float64()}
		faces, err := n.Faces(box, 1<<14)
		if err != nil {
			t.Fatal(err)
		}
		var total float64
		for i, f := range faces {
			a := f.Area()
			if a < -1e-12 {
				t.Fatalf("trial %d face %d: clockwise (area %g)", trial, i, a)
			}
			total += a
			for range 4 {
				// a random convex combination of the vertices
				var x, r, s float64
				for v := range f.X {
					w := rng.Float64()
					x, r, s = x+w*f.X[v], r+w*f.R[v], s+w
				}
				x, r = x/s, r/s
				got, want := f.C0+f.Cx*x+f.Cr*r, n.Eval(x, r)
				if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
					t.Fatalf("trial %d (%v) face %d at (%g, %g): affine %v, Eval %v", trial, n, i, x, r, got, want)
				}
			}
		}
		if want := (box.X1 - box.X0) * (box.R1 - box.R0); math.Abs(total-want) > 1e-9*want {
			t.Fatalf("trial %d: faces cover %v of the box's %v", trial, total, want)
		}
	}
}

func TestFacesErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	n := randomNet(rng, []int{30, 30}, ReLU, Identity, 2)
	box := Box{X0: -5, X1: 5, R0: -5, R1: 5}
	if _, err := n.Faces(box, 3); !errors.Is(err, ErrTooComplex) {
		t.Errorf("cap 3 on a 30×30 network: %v, want ErrTooComplex", err)
	}
	if _, err := n.Faces(Box{X0: 1, X1: 0, R0: 0, R1: 1}, 10); !errors.Is(err, ErrInput) {
		t.Errorf("empty box: %v", err)
	}
	s := randomNet(rng, []int{3}, Tanh, Identity, 1)
	if _, err := s.Faces(box, 10); !errors.Is(err, ErrInput) {
		t.Errorf("tanh network: %v", err)
	}
	// The identity network k = x (inputs r, x): one face, Cx = 1.
	id := &Network{Inputs: []string{"r", "x"}, Layers: []Layer{{W: [][]float64{{0, 1}}, B: []float64{0}}}, Precision: Float64}
	fs, err := id.Faces(box, 1)
	if err != nil || len(fs) != 1 || fs[0].Cx != 1 || fs[0].Cr != 0 {
		t.Errorf("k = x with inputs [r, x]: %+v, %v", fs, err)
	}
}

// Every face's affine form is checked against Eval: a form that is wrong on
// part of its face (as when a unit within rounding of 0 over a whole sliver
// is put on the side where its sign matters downstream) is ErrTooComplex,
// never a silently wrong certificate.
func TestCheckFaceRefusesWrongForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := randomNet(rng, []int{4, 3}, ReLU, Identity, 1)
	faces, err := n.Faces(Box{X0: -2, X1: 2, R0: -3, R1: 3}, 1<<12)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range faces {
		if err := n.checkFace(f, nil); err != nil {
			t.Fatalf("face %d of an honest network: %v", i, err)
		}
		bad := f
		bad.C0 += 1e-6 * (1 + math.Abs(f.C0))
		if err := n.checkFace(bad, nil); !errors.Is(err, ErrTooComplex) {
			t.Errorf("face %d with its constant moved by 1e-6: %v, want ErrTooComplex", i, err)
		}
	}
}
