package mip

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func TestMAPLossHandValues(t *testing.T) {
	paper := PaperBinary()
	for _, tc := range []struct {
		name string
		m    Binary
		s    Privatizer
		q    float64
		want float64
	}{
		// F independent of X (s0 + s1 = 1): side information alone (Section V-B: 0.200 and 0.440).
		{"paper recon, F independent", paper, Privatizer{1, 0}, 0.2, 0.46*0.2 + 0.54*0.2},
		{"paper adv, F independent", paper, Privatizer{0.3, 0.7}, 0.44, 0.54*0.44 + 0.46*0.44},
		// F = X and F = not X reveal X.
		{"F = X", paper, Privatizer{1, 1}, 0.2, 0},
		{"F = not X", paper, Privatizer{0, 0}, 0.44, 0},
		// Four cells worked by hand: (f,y) = (0,0) min(0.46·0.7·0.8, 0.54·0.1·0.2), (0,1) min(0.46·0.7·0.2, 0.54·0.1·0.8),
		// (1,0) min(0.46·0.3·0.8, 0.54·0.9·0.2), (1,1) min(0.46·0.3·0.2, 0.54·0.9·0.8).
		{"hand cells", paper, Privatizer{0.7, 0.9}, 0.2, 0.54*0.1*0.2 + 0.54*0.1*0.8 + 0.54*0.9*0.2 + 0.46*0.3*0.2},
		// A useless channel (q = 1/2): the prior's smaller mass when F is independent.
		{"q = 1/2", Binary{P: 0.3, QY: 0.5, QZ: []float64{0.5}}, Privatizer{0.5, 0.5}, 0.5, 0.3},
		// A perfect channel (q = 0) reveals X whatever F is.
		{"q = 0", Binary{P: 0.3, QY: 0, QZ: []float64{0}}, Privatizer{0.2, 0.6}, 0, 0},
		// A degenerate prior: nothing to estimate.
		{"p = 1", Binary{P: 1, QY: 0.2, QZ: []float64{0.3}}, Privatizer{0.2, 0.6}, 0.2, 0},
	} {
		got := tc.m.MAPLoss(tc.s, tc.q)
		if !scalar.EqualWithinAbsOrRel(got, tc.want, 1e-15, 1e-12) {
			t.Errorf("%s: MAPLoss = %.17g, want %.17g", tc.name, got, tc.want)
		}
	}
}

// bruteForceLoss is the Bayes risk as the smallest error over all 16
// deterministic decision rules g: (f, v) → x̂, computed from the joint
// distribution written out directly: an independent definition of the MAP loss.
func bruteForceLoss(p, q float64, s Privatizer) float64 {
	pf := func(f, x int) float64 { // P(F=f | X=x)
		if x == 0 {
			return [2]float64{s.S0, 1 - s.S0}[f]
		}
		return [2]float64{1 - s.S1, s.S1}[f]
	}
	pv := func(v, x int) float64 { // P(V=v | X=x)
		if v == x {
			return 1 - q
		}
		return q
	}
	prior := [2]float64{1 - p, p}
	best := math.Inf(1)
	for rule := 0; rule < 16; rule++ {
		var errProb float64
		for x := 0; x < 2; x++ {
			for f := 0; f < 2; f++ {
				for v := 0; v < 2; v++ {
					if xhat := (rule >> (2*f + v)) & 1; xhat != x {
						errProb += prior[x] * pf(f, x) * pv(v, x)
					}
				}
			}
		}
		best = math.Min(best, errProb)
	}
	return best
}

func TestMAPLossMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		p, q := rng.Float64(), rng.Float64()
		s := Privatizer{rng.Float64(), rng.Float64()}
		m := Binary{P: p, QY: q, QZ: []float64{q}}
		got, want := m.MAPLoss(s, q), bruteForceLoss(p, q, s)
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-14, 1e-12) {
			t.Fatalf("p=%g q=%g s=%+v: MAPLoss = %.17g, brute force %.17g", p, q, s, got, want)
		}
	}
}

func TestSideOnlyErrorIsLossWithIndependentF(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1000; i++ {
		p, q := rng.Float64(), rng.Float64()
		m := Binary{P: p, QY: q, QZ: []float64{q}}
		s0 := rng.Float64()
		indep := Privatizer{s0, 1 - s0}
		if got, want := m.SideOnlyError(q), bruteForceLoss(p, q, indep); !scalar.EqualWithinAbsOrRel(got, want, 1e-14, 1e-12) {
			t.Fatalf("p=%g q=%g: SideOnlyError = %g, brute force with independent F %g", p, q, got, want)
		}
		// Concavity bound: no privatizer makes an observer worse off than its side information alone.
		s := Privatizer{rng.Float64(), rng.Float64()}
		if l := m.MAPLoss(s, q); l > m.SideOnlyError(q)+1e-15 {
			t.Fatalf("p=%g q=%g s=%+v: loss %g exceeds side-only error %g", p, q, s, l, m.SideOnlyError(q))
		}
	}
}

func TestDMax(t *testing.T) {
	for _, tc := range []struct {
		m    Binary
		want float64
	}{
		{PaperBinary(), 0.2}, // q_Y when p is near 1/2 (Section V-B)
		{Binary{P: 0.1, QY: 0.2, QZ: []float64{0.3}}, 0.1}, // the prior's min(p, 1−p) when it is smaller
		{Binary{P: 0.5, QY: 0.7, QZ: []float64{0.3}}, 0.3}, // q > 1/2 is as good as 1 − q
		{Binary{P: 0.4, QY: 0.5, QZ: []float64{0.3}}, 0.4},
	} {
		if got := tc.m.DMax(); !scalar.EqualWithinAbsOrRel(got, tc.want, 1e-15, 1e-12) {
			t.Errorf("%+v: DMax = %g, want %g", tc.m, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		m       Binary
		wantErr string
	}{
		{Binary{P: -0.1, QY: 0.2, QZ: []float64{0.3}}, "p = -0.1"},
		{Binary{P: 0.5, QY: 1.5, QZ: []float64{0.3}}, "q_Y = 1.5"},
		{Binary{P: 0.5, QY: 0.2, QZ: []float64{0.3, math.NaN()}}, "q_Z[2] = NaN"},
		{Binary{P: 0.5, QY: 0.2}, "at least one adversary"},
	} {
		err := tc.m.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%+v: Validate() = %v, want an error containing %q", tc.m, err, tc.wantErr)
		}
	}
	if err := PaperBinary().Validate(); err != nil {
		t.Errorf("paper model: %v", err)
	}
}
