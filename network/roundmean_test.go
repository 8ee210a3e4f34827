package network

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// float32Run evaluates n as a float32 runtime may, in one of three ways:
// each dot product summed in order, in reverse order (bias last, as
// PyTorch's addmm), or with fused multiply-adds; activations rounded to
// float32.
func float32Run(n *Network, x, r float64, way int) float64 {
	in := []float32{float32(x), float32(r)}
	if n.Inputs[0] == "r" {
		in[0], in[1] = in[1], in[0]
	}
	for _, ly := range n.Layers {
		out := make([]float32, len(ly.W))
		for j, row := range ly.W {
			var z float32
			switch way {
			case 0:
				z = float32(ly.B[j])
				for i := range row {
					z += float32(row[i]) * in[i]
				}
			case 1:
				for i := len(row) - 1; i >= 0; i-- {
					z += float32(row[i]) * in[i]
				}
				z += float32(ly.B[j])
			default:
				z = float32(ly.B[j])
				for i := range row {
					// The product of two float32 values is exact in
					// float64; one rounding to float32 after the sum.
					z = float32(math.FMA(float64(float32(row[i])), float64(in[i]), float64(z)))
				}
			}
			out[j] = float32(ly.Act.apply(float64(z)))
		}
		in = out
	}
	return float64(in[0])
}

// stratifiedMean returns the mean of f over R ~ N(0, 1) at the midpoints of
// n equal-probability strata, and the largest |f| met.
func stratifiedMean(f func(r float64) float64, n int) (mean, sup float64) {
	for i := range n {
		u := (float64(i) + 0.5) / float64(n)
		r := math.Sqrt2 * math.Erfinv(2*u-1)
		v := f(r)
		mean += v
		sup = max(sup, math.Abs(v))
	}
	return mean / float64(n), sup
}

// The mean rounding bound covers what float32 runtimes release: on random
// float32 networks with a sigmoid output (a probability, as on a binary
// model), the mean over R of k_rt − k, k_rt a float32 evaluation in order,
// in reverse or with FMA, is within Expectation.Rounding, and the largest
// deviation met within RoundingSup. The ratios bound/observed are logged
// (docs/certify.md records them).
func TestMeanRoundingCoversFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	var ratios, supRatios []float64
	trials := 24 // six of each shape
	if !slow {
		trials = 8 // two of each shape
	}
	for trial := range trials {
		widths := [][]int{{16, 16}, {8}, {32}, {8, 8, 8}}[trial%4]
		hidden := []Activation{ReLU, ReLU, Tanh, ReLU}[trial%4]
		n := randomNet(rng, widths, hidden, Sigmoid, 0.5+2*rng.Float64())
		n.Precision = Float32
		if err := n.roundFloat32(); err != nil {
			t.Fatal(err)
		}
		for _, x := range []float64{0, 1} {
			e, err := n.Expect(t.Context(), x, DefaultTol)
			if err != nil {
				t.Fatal(err)
			}
			for way := range 3 {
				mean, sup := stratifiedMean(func(r float64) float64 { return float32Run(n, x, r, way) - n.Eval(x, r) }, 1<<13)
				if math.Abs(mean) > e.Rounding || sup > e.RoundingSup {
					t.Fatalf("trial %d, x = %v, way %d: mean deviation %.3g (bound %.3g), largest %.3g (bound %.3g)", trial, x, way, mean, e.Rounding, sup, e.RoundingSup)
				}
				if mean != 0 {
					ratios = append(ratios, e.Rounding/math.Abs(mean))
				}
				if sup != 0 {
					supRatios = append(supRatios, e.RoundingSup/sup)
				}
			}
			if !(e.Rounding <= e.RoundingSup) {
				t.Errorf("trial %d: mean bound %g above the sup bound %g", trial, e.Rounding, e.RoundingSup)
			}
		}
	}
	t.Logf("bound/observed, mean deviation: median %.3g, min %.3g (%d cases); largest deviation: median %.3g, min %.3g",
		median(ratios), minOf(ratios), len(ratios), median(supRatios), minOf(supRatios))
}

// The same for categorical networks, in ℓ1 over the labels: the mean over R
// of the float32 law minus mmds's is within Row.Rounding, every deviation
// within RoundingSup — saturated softmaxes (large weights) included, where
// the bound uses 1 − max_f s_f.
func TestMeanRoundingCoversFloat32Categorical(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	var ratios []float64
	for trial := range 16 {
		n := randomCategorical(rng, 2+rng.IntN(3), []int{4 + rng.IntN(12)}, 2+rng.IntN(4), 1+6*rng.Float64())
		n.Precision = Float32
		if err := n.roundFloat32(); err != nil {
			t.Fatal(err)
		}
		for x := range n.XValues() {
			row, err := n.ExpectRow(t.Context(), float64(x), DefaultTol)
			if err != nil {
				t.Fatal(err)
			}
			for _, rev := range []bool{false, true} {
				const strata = 1 << 12
				mean := make([]float64, n.Outputs())
				var sup float64
				for i := range strata {
					r := math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/strata-1)
					p, q := n.Probs(float64(x), r, nil), float32Probs(n, x, r, rev)
					var l1 float64
					for f := range p {
						mean[f] += (q[f] - p[f]) / strata
						l1 += math.Abs(q[f] - p[f])
					}
					sup = max(sup, l1)
				}
				var l1 float64
				for _, v := range mean {
					l1 += math.Abs(v)
				}
				if l1 > row.Rounding || sup > row.RoundingSup {
					t.Fatalf("trial %d, x = %d: mean deviation %.3g (bound %.3g), largest %.3g (bound %.3g)", trial, x, l1, row.Rounding, sup, row.RoundingSup)
				}
				if l1 > 0 {
					ratios = append(ratios, row.Rounding/l1)
				}
			}
		}
	}
	t.Logf("bound/observed, mean ℓ1 deviation: median %.3g, min %.3g (%d cases)", median(ratios), minOf(ratios), len(ratios))
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func minOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return slices.Min(v)
}

// The limit of a pointwise bound on a real-valued release (docs/certify.md,
// "Real-valued releases"): q = relu(relu(r + 4) − 4) is r for r ≥ 0 in exact
// arithmetic and r rounded to a multiple of 2⁻²¹ in float32 (fl(r + 4) has
// that ulp), so F = q + 2⁻²²·b(x), b(x) = relu(2¹⁰x) − relu(2¹⁰x − 1) = 1
// for x ≥ 2⁻¹⁰, tells b(x) in its low-order bits in float32 — in either
// summation order — while δ stays below 1e-5 and the real function hides
// b(x) in R's noise. mmds certifies the real function and widens the
// intervals by ρ = sup δ/scale: a stated model, not a proof.
func TestLowBitsOutsideThePointwiseModel(t *testing.T) {
	n := &Network{Name: "lowbits", Inputs: []string{"x", "r"}, Precision: Float32, Layers: []Layer{
		{W: [][]float64{{1024, 0}, {1024, 0}, {0, 1}}, B: []float64{0, -1, 4}, Act: ReLU},
		{W: [][]float64{{1, -1, 0}, {0, 0, 1}}, B: []float64{0, -4}, Act: ReLU},
		{W: [][]float64{{0x1p-22, 1}}, B: []float64{0}, Act: Identity},
	}}
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		x, r := rng.NormFloat64(), min(math.Abs(rng.NormFloat64()), 3.9)
		_, d, err := n.EvalBound(x, r)
		if err != nil {
			t.Fatal(err)
		}
		if d > 1e-5 {
			t.Fatalf("δ(%g, %g) = %g: the example needs δ below 1e-5", x, r, d)
		}
		want := 0.0
		if float32(x) >= 0x1p-10 {
			want = 1
		}
		for way := range 2 {
			f := float32Run(n, x, r, way)
			if bit := math.Mod(f, 0x1p-21) / 0x1p-22; bit != want {
				t.Fatalf("x = %g, r = %g, way %d: F = %v carries %v in its low bit, want b(x) = %v", x, r, way, f, bit, want)
			}
		}
	}
}
