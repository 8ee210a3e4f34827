package learn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The gradients fed to a single parameter in the optimizer tests.
var optGrads = []float64{0.5, -0.2, 0.3, 0.1, -0.4, 0.25, 0.6, -0.1}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-13*max(1, math.Abs(b)) }

// TestAdamByHand checks Adam's first steps against the update written out
// with the moments carried by hand.
func TestAdamByHand(t *testing.T) {
	const lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
	o := NewOptimizer(Adam, lr, 1)
	p := []float64{1}

	// Step 1, g = 0.5: m = 0.1·0.5 = 0.05, v = 0.001·0.25 = 0.00025,
	// m̂ = 0.05/0.1 = 0.5, √v̂ = √(0.00025/0.001) = 0.5,
	// θ = 1 − 0.01·0.5/(0.5 + 1e-8).
	o.Step(p, []float64{0.5})
	if want := 1 - 0.01*0.5/(0.5+1e-8); !near(p[0], want) {
		t.Fatalf("step 1: θ = %.17g, want %.17g", p[0], want)
	}
	// Step 2, g = −0.2: m = 0.05 + 0.1(−0.2 − 0.05) = 0.025,
	// v = 0.999·0.00025 + 0.001·0.04 = 0.00028975,
	// θ −= lr · (m/(1−0.81)) / (√v/√(1−0.998001) + eps).
	want := p[0] - lr*(0.025/(1-0.81))/(math.Sqrt(0.00028975)/math.Sqrt(1-0.998001)+eps)
	o.Step(p, []float64{-0.2})
	if !near(p[0], want) {
		t.Fatalf("step 2: θ = %.17g, want %.17g", p[0], want)
	}
	// Steps 3–8 with the moments carried along.
	m, v := 0.025, 0.00028975
	for k, g := range optGrads[2:] {
		step := float64(k + 3)
		m = m + (1-b1)*(g-m)
		v = b2*v + (1-b2)*g*g
		want := p[0] - lr*(m/(1-math.Pow(b1, step)))/(math.Sqrt(v)/math.Sqrt(1-math.Pow(b2, step))+eps)
		o.Step(p, []float64{g})
		if !near(p[0], want) {
			t.Fatalf("step %v: θ = %.17g, want %.17g", step, p[0], want)
		}
	}
	if o.Steps() != len(optGrads) {
		t.Errorf("Steps() = %d", o.Steps())
	}
}

// TestRAdamByHand checks RAdam's un-rectified steps 1–5 (ρ_t ≤ 5) and its
// rectified steps 6–8.
func TestRAdamByHand(t *testing.T) {
	const lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
	rhoInf := 2/(1-b2) - 1 // = 1999
	if rhoInf != 1999 {
		t.Fatalf("ρ∞ = %g", rhoInf)
	}
	o := NewOptimizer(RAdam, lr, 1)
	p := []float64{1}

	// Step 1, g = 0.5: ρ_1 = 1999 − 2·0.999/0.001 = 1 ≤ 5, so SGD with
	// momentum: θ = 1 − 0.01 · m̂ = 1 − 0.01 · 0.5.
	o.Step(p, []float64{0.5})
	if !near(p[0], 1-0.01*0.5) {
		t.Fatalf("step 1: θ = %.17g, want 0.995", p[0])
	}
	m, v := 0.05, 0.00025
	for k, g := range optGrads[1:] {
		step := float64(k + 2)
		m = m + (1-b1)*(g-m)
		v = b2*v + (1-b2)*g*g
		bc1, bc2 := 1-math.Pow(b1, step), 1-math.Pow(b2, step)
		rho := rhoInf - 2*step*math.Pow(b2, step)/bc2
		var want float64
		if step <= 5 {
			// ρ_2..ρ_5 ≈ 2, 3, 4, 4.996: still un-rectified.
			if rho > 5 {
				t.Fatalf("ρ_%v = %g, expected ≤ 5", step, rho)
			}
			want = p[0] - lr*m/bc1
		} else {
			if rho <= 5 {
				t.Fatalf("ρ_%v = %g, expected > 5", step, rho)
			}
			r := math.Sqrt((rho - 4) * (rho - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rho))
			want = p[0] - (m/bc1)*lr*(math.Sqrt(bc2)/(math.Sqrt(v)+eps))*r
		}
		o.Step(p, []float64{g})
		if !near(p[0], want) {
			t.Fatalf("step %v (ρ = %g): θ = %.17g, want %.17g", step, rho, p[0], want)
		}
	}
	// ρ_6 = 1999 − 12·0.999⁶/(1 − 0.999⁶) ≈ 5.9942.
	if rho6 := rhoInf - 12*math.Pow(b2, 6)/(1-math.Pow(b2, 6)); math.Abs(rho6-5.99416) > 1e-4 {
		t.Errorf("ρ_6 = %g, want ≈ 5.99416", rho6)
	}
}

func TestOptimizerPerNetworkRate(t *testing.T) {
	// Two optimizers with different rates move the same parameter by amounts
	// in the ratio of their rates on the first (un-rectified) RAdam step.
	a, b := NewOptimizer(RAdam, 0.05, 1), NewOptimizer(RAdam, 0.01, 1)
	pa, pb := []float64{0}, []float64{0}
	a.Step(pa, []float64{1})
	b.Step(pb, []float64{1})
	if !near(pa[0]/pb[0], 5) {
		t.Errorf("step ratio %g, want 5", pa[0]/pb[0])
	}
}

// TestOptimizerKernelsAreScalar: Step (whose element-wise updates run in
// the vector kernels where they are in use) gives the bits of its scalar
// loops, written out here, over 40 steps of Adam and of RAdam (both of its
// branches) on parameter counts that are and are not multiples of four.
func TestOptimizerKernelsAreScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for _, method := range []Method{Adam, RAdam} {
		for _, n := range []int{1, 3, 4, 7, 64, 201} {
			o := NewOptimizer(method, 0.01, n)
			p := make([]float64, n)
			for k := range p {
				p[k] = rng.NormFloat64()
			}
			q := append([]float64(nil), p...)
			m, v := make([]float64, n), make([]float64, n)
			for step := 1; step <= 40; step++ {
				g := make([]float64, n)
				for k := range g {
					g[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
				}
				o.Step(p, g)
				ts := float64(step)
				b1, b2 := o.Beta1, o.Beta2
				bc1, bc2 := 1-math.Pow(b1, ts), 1-math.Pow(b2, ts)
				for k, gk := range g {
					m[k] += float64((1 - b1) * (gk - m[k]))
					v[k] = float64(b2*v[k]) + float64(float64((1-b2)*gk)*gk)
				}
				rhoInf := 2/(1-b2) - 1
				rhoT := rhoInf - 2*ts*math.Pow(b2, ts)/bc2
				for k := range q {
					switch {
					case method == Adam:
						q[k] -= o.LR / bc1 * m[k] / (math.Sqrt(v[k])/math.Sqrt(bc2) + o.Eps)
					case rhoT > 5:
						rect := math.Sqrt((rhoT - 4) * (rhoT - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rhoT))
						q[k] -= float64(float64(float64(m[k]/bc1*o.LR)*(math.Sqrt(bc2)/(math.Sqrt(v[k])+o.Eps))) * rect)
					default:
						q[k] -= float64(m[k] / bc1 * o.LR)
					}
				}
			}
			for k := range p {
				if math.Float64bits(p[k]) != math.Float64bits(q[k]) {
					t.Fatalf("%v, n = %d: parameter %d is %v, scalar %v", method, n, k, p[k], q[k])
				}
			}
		}
	}
}
