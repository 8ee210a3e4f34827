package verify

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
)

// The band is the verifier's: an author's coarse grid does not widen it
// beyond the quick preset's, so F = X (D̂ = 0) is outside the band of
// D = 0.05 on the binary model however the run's grid was chosen; the
// presets' own grids keep their τ.
func TestDefaultTauCappedAgainstCraftedGrids(t *testing.T) {
	m := model.NewBinary(mip.PaperBinary())
	def := m.DefaultSweep()
	quick := learn.DefaultTau(sweepValues(def.D0, def.D1, 4), m.DMax(), def)
	paper := learn.DefaultTau(sweepValues(def.D0, def.D1, 30), m.DMax(), def)
	for _, c := range []struct {
		name string
		ds   []float64
		want float64
	}{
		{"two-point grid [0, 0.05]", []float64{0, 0.05}, quick},
		{"one threshold", []float64{0.05}, paper},
		{"quick grid", sweepValues(def.D0, def.D1, 4), quick},
		{"paper grid", sweepValues(def.D0, def.D1, 30), paper},
	} {
		got := DefaultTau(c.ds, m)
		if !scalar.EqualWithinRel(got, c.want, 1e-12) {
			t.Errorf("%s: τ = %g, want %g", c.name, got, c.want)
		}
	}
	if tau := DefaultTau([]float64{0, 0.05}, m); 0.05-tau <= 0 {
		t.Errorf("τ = %g: the band [D − τ, D] of D = 0.05 holds D̂ = 0", tau)
	}
}

func sweepValues(d0, d1 float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = d0 + (d1-d0)*float64(i)/float64(n-1)
	}
	return out
}
