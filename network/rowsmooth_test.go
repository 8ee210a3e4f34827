package network

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomSmoothCategorical is randomCategorical with relu hidden layers of
// the widths relu, then sigmoid or tanh layers (acts) of the widths smooth.
func randomSmoothCategorical(rng *rand.Rand, n int, relu, smooth []int, acts []Activation, m int, scale float64) *Network {
	net := randomCategorical(rng, n, append(append([]int(nil), relu...), smooth...), m, scale)
	for l, a := range acts {
		net.Layers[len(relu)+l].Act = a
	}
	if err := net.Validate(); err != nil {
		panic(err)
	}
	return net
}

// ExpectRow on networks with tanh and sigmoid layers, with or without one
// relu layer before them, matches an independent composite Gauss–Legendre
// quadrature whose panels end at that relu layer's kinks (computed from its
// weights; the integrand is analytic between them), within the bound it
// states; the bound meets the tolerance asked for (every trial under -tags
// slow, the first 3 of each case in make test).
func TestExpectRowSmoothMatchesQuadrature(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(31, 32))
	cases := []struct {
		name   string
		relu   bool
		acts   []Activation
		trials int
	}{
		{"tanh", false, []Activation{Tanh}, 8},
		{"sigmoid", false, []Activation{Sigmoid}, 8},
		{"tanh sigmoid", false, []Activation{Tanh, Sigmoid}, 6},
		{"relu tanh", true, []Activation{Tanh}, 8},
		{"relu sigmoid tanh", true, []Activation{Sigmoid, Tanh}, 6},
	}
	for _, c := range cases {
		for trial := range c.trials {
			var relu []int
			if c.relu {
				relu = []int{1 + rng.IntN(6)}
			}
			smooth := make([]int, len(c.acts))
			for i := range smooth {
				smooth[i] = 1 + rng.IntN(6)
			}
			n := randomSmoothCategorical(rng, 2+rng.IntN(3), relu, smooth, c.acts, 2+rng.IntN(4), 1+3*rng.Float64())
			x := rng.IntN(n.XValues())
			if !slow && trial >= 3 {
				continue // drawn, so that every case's first trials are the same instances
			}
			var kinks []float64
			if c.relu {
				l0 := n.Layers[0]
				for j, row := range l0.W {
					if w := row[rCol(n)]; w != 0 {
						kinks = append(kinks, -(l0.B[j]+row[xCol(n, x)])/w)
					}
				}
			}
			// A steep network at DefaultTol reaches the step cap and
			// states a bound above tol (as documented); 1e-7 does not.
			for _, tol := range []float64{1e-4, 1e-7} {
				row, err := n.ExpectRow(ctx, float64(x), tol)
				if err != nil {
					t.Fatalf("%s trial %d: %v", c.name, trial, err)
				}
				if row.Bound > tol {
					t.Errorf("%s trial %d x=%d: bound %.3g above the tolerance %.3g", c.name, trial, x, row.Bound, tol)
				}
				var l1 float64
				for f := range row.P {
					ref := quadExpect(func(r float64) float64 { return n.Probs(float64(x), r, nil)[f] }, kinks, 0.25, 30)
					l1 += math.Abs(row.P[f] - ref)
				}
				if l1 > row.Bound+1e-13 {
					t.Fatalf("%s trial %d x=%d tol %g: ℓ1 error %.3g above the stated bound %.3g", c.name, trial, x, tol, l1, row.Bound)
				}
				if row.Samples == 0 || (c.relu && row.Pieces < 1) {
					t.Errorf("%s trial %d: %d samples, %d pieces", c.name, trial, row.Samples, row.Pieces)
				}
			}
		}
	}
}

// softmaxCurvature bounds Σ_f |s_f″| on random smooth logit curves
// z_f(r) = a_f + b_f sin(c_f r + d_f), whose derivative bounds are |b_f c_f|
// and b_f c_f², checked by central differences.
func TestSoftmaxCurvature(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for range 200 {
		m := 2 + rng.IntN(5)
		a, b, c, d := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
		d1, d2 := make([]float64, m), make([]float64, m)
		for f := range m {
			a[f], b[f], c[f], d[f] = 3*rng.NormFloat64(), 2*rng.NormFloat64(), 2*rng.NormFloat64(), rng.Float64()*6
			d1[f], d2[f] = math.Abs(b[f]*c[f]), math.Abs(b[f]*c[f]*c[f])
		}
		s := func(r float64) []float64 {
			z := make([]float64, m)
			for f := range z {
				z[f] = a[f] + b[f]*math.Sin(c[f]*r+d[f])
			}
			SoftmaxInPlace(z)
			return z
		}
		k := softmaxCurvature(d1, d2)
		const h = 1e-4
		for range 20 {
			r := 4 * rng.NormFloat64()
			lo, mid, hi := s(r-h), s(r), s(r+h)
			var sum float64
			for f := range m {
				sum += math.Abs(lo[f] - 2*mid[f] + hi[f])
			}
			if sum /= h * h; sum > k*(1+1e-4)+1e-6 {
				t.Fatalf("Σ|s″| ≈ %.6g above the bound %.6g", sum, k)
			}
		}
	}
}

// A float32 network with a tanh layer: the runtime's law at sampled noise
// values is within Row.Rounding of mmds's.
func TestExpectRowSmoothRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	for _, relu := range [][]int{nil, {6}} {
		n := randomSmoothCategorical(rng, 3, relu, []int{8}, []Activation{Tanh}, 4, 3)
		n.Precision = Float32
		if err := n.roundFloat32(); err != nil {
			t.Fatal(err)
		}
		checkRowRounding(t, rng, n, 1e-6, 1e-2, 300)
	}
}

// A relu after a tanh layer has kinks the walk does not see: refused.
func TestExpectRowReLUAfterTanh(t *testing.T) {
	n := randomSmoothCategorical(rand.New(rand.NewPCG(37, 38)), 3, nil, []int{4, 4}, []Activation{Tanh, ReLU}, 3, 1)
	_, err := n.ExpectRow(context.Background(), 0, DefaultTol)
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "relu after the tanh") {
		t.Errorf("ExpectRow with relu after tanh: %v, want ErrInput", err)
	}
}
