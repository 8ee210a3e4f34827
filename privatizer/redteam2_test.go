package privatizer_test

import (
	"errors"
	"math"
	"testing"

	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// A float64 network whose layer-1 unit z = (1 + 2⁻⁴⁰)x − 1 is exactly 2⁻⁴⁰
// at x = 1: the region walk rounds it to 0 (|z| ≤ zeroTol·Σ|terms| = 2e-12)
// and so never sees the next layer's −2⁴⁰ weight, while Eval (and any
// float64 runtime) computes k(1, r) = relu(0.537 − 1) = 0. The released
// channel is F = 1 − X (adversary loss 0), but the certified one is
// net-pass's p0 = 1, p1 = 0.537 (adversary loss 0.29, the optimum at
// D = 0.15): a leaking privatizer certified PASS.
func TestRedTeam2ZeroTolHidesUnit(t *testing.T) {
	eps := math.Ldexp(1, -40)
	m := &network.Network{
		Name:      "leak",
		Inputs:    []string{"x", "r"},
		Precision: network.Float64,
		Layers: []network.Layer{
			{W: [][]float64{{-0.463, 0}, {1 + eps, 0}}, B: []float64{1, -1}, Act: network.ReLU},
			{W: [][]float64{{1, -math.Ldexp(1, 40)}}, B: []float64{0}, Act: network.ReLU},
		},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := privatizer.NetworkBinaryLosses(t.Context(), m, mip.PaperBinary(), privatizer.DefaultTol)
	if errors.Is(err, network.ErrPrecision) {
		t.Logf("cannot certify (never a pass): %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for x := range 2 {
		// k(x, ·) is constant in r: E_R[k(x, R)] = k(x, 0).
		want := m.Eval(float64(x), 0)
		if got := r.Rows[x].Mean; math.Abs(got-want) > r.Bound+1e-9 {
			t.Errorf("x = %d: certified E_R[k] = %v ± %g, but k(%d, r) = %v for every r (the function that runs)", x, got, r.Bound, x, want)
		}
	}
	if r.Losses.MinAdv > 0.01 {
		t.Errorf("certified min adversary loss %v, but the network releases F = 1 − X (loss 0)", r.Losses.MinAdv)
	}
}

// forwardBiasLast is a float64 runtime that sums each unit as PyTorch's
// nn.Linear (addmm) does: the dot product first, then the bias.
func forwardBiasLast(m *network.Network, x, r float64) float64 {
	a := []float64{x, r}
	if m.Inputs[0] == "r" {
		a = []float64{r, x}
	}
	for _, ly := range m.Layers {
		na := make([]float64, len(ly.W))
		for j, row := range ly.W {
			var s float64
			for i, w := range row {
				s += w * a[i]
			}
			s += ly.B[j]
			if ly.Act == network.ReLU {
				s = max(s, 0)
			}
			na[j] = s
		}
		a = na
	}
	return a[0]
}

// A float64 network gets δ = 0 ("mmds's own evaluation is the function that
// runs"), but mmds's evaluation is itself rounded, in one summation order:
// the hidden unit z = 2⁵³ + x − 2⁵³·1 is 0 for mmds (2⁵³ + 1 rounds to 2⁵³
// first) and x for a float64 runtime that adds the bias last (PyTorch's
// addmm) — and for exact arithmetic. The output relu(1 − 0.463x − z) is
// net-pass for mmds (PASS at D = 0.15) and F = 1 − X for the runtime.
func TestRedTeam2Float64SummationOrder(t *testing.T) {
	two53 := math.Ldexp(1, 53)
	m := &network.Network{
		Name:      "order",
		Inputs:    []string{"x", "r"},
		Precision: network.Float64,
		Layers: []network.Layer{
			{W: [][]float64{{1, 0}, {0, 0}, {-0.463, 0}}, B: []float64{0, 1, 1}, Act: network.ReLU},
			{W: [][]float64{{1, -two53, 0}, {0, 0, 1}}, B: []float64{two53, 0}, Act: network.ReLU},
			{W: [][]float64{{-1, 1}}, B: []float64{0}, Act: network.ReLU},
		},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	for x := range 2 {
		k, delta, err := m.EvalBound(float64(x), 0)
		if err != nil {
			t.Fatal(err)
		}
		if rt := forwardBiasLast(m, float64(x), 0); math.Abs(k-rt) > delta {
			t.Errorf("x = %d: mmds k = %v with δ = %g, but a float64 runtime summing the bias last gives %v", x, k, delta, rt)
		}
	}
	r, err := privatizer.NetworkBinaryLosses(t.Context(), m, mip.PaperBinary(), privatizer.DefaultTol)
	if errors.Is(err, network.ErrPrecision) {
		t.Logf("cannot certify (never a pass): %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	// The runtime's loss, 0, must lie in the certified interval: the
	// rounding is part of the stated error (a verdict then says cannot
	// certify, the error being far above its limit).
	if r.Losses.MinAdv-r.Bound > 0 {
		t.Errorf("certified min adversary loss %v (bound %g), but the float64 runtime releases F = 1 − X (loss 0)", r.Losses.MinAdv, r.Bound)
	}
}
