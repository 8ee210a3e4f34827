package stdnormal

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// Mass, Moments and NodeMass against the normal CDF and adaptive quadrature.
func TestAgainstQuadrature(t *testing.T) {
	n := distuv.UnitNormal
	for _, c := range [][2]float64{{-1, 2}, {0.5, 3}, {-4, -1}, {-30, -8}, {8, 30}, {-2, 2}} {
		a, b := c[0], c[1]
		if got, want := Mass(a, b), n.CDF(b)-n.CDF(a); math.Abs(got-want) > 1e-15+1e-12*want {
			t.Errorf("Mass(%g, %g) = %g, want %g", a, b, got, want)
		}
		if got, want := NodeMass(NewNode(a), NewNode(b)), Mass(a, b); math.Abs(got-want) > 1e-16+1e-13*want {
			t.Errorf("NodeMass(%g, %g) = %g, Mass %g", a, b, got, want)
		}
		m0, m1, m2 := Moments(a, b)
		for k, got := range []float64{m0, m1, m2} {
			want := quad.Fixed(func(r float64) float64 { return math.Pow(r, float64(k)) * Density(r) }, a, b, 200, nil, 0)
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("Moments(%g, %g)[%d] = %g, quadrature %g", a, b, k, got, want)
			}
		}
	}
	if Mass(2, 1) != 0 || Density(math.Inf(1)) != 0 {
		t.Error("empty interval or infinite end")
	}
}
