package plot

import (
	"testing"

	"github.com/mmds-project/mmds/model"
)

// OptimumSpec draws Proposition 2's curve alone, or with the global
// optimum dashed beside it, and the Gaussian bracket: four curves on the
// grid of D, one a binning family, and with the optimum search its two
// series of points.
func TestOptimumSpec(t *testing.T) {
	c := model.Curve{X: []float64{0, 0.1, 0.2}, Y: []float64{0.1, 0.2, 0.3}}
	if s := OptimumSpec(model.Curves{Prop2: c}); len(s.Curves) != 1 || len(s.Curves[0].X) != 3 || s.Curves[0].Y[2] != 0.3 || !s.Curves[0].Markers {
		t.Errorf("binary curve spec %+v", s)
	}
	g := model.Curve{X: c.X, Y: []float64{0.2, 0.3, 0.4}}
	if s := OptimumSpec(model.Curves{Prop2: c, Global: &g}); len(s.Curves) != 2 || s.Curves[1].Y[1] != 0.3 || !s.Curves[1].Dashed {
		t.Errorf("binary global spec %+v", s)
	}
	gc := model.GaussCurves{Linear: c, Erasure: c, Best: c, Upper: c,
		Families: []model.FamilyCurve{{Family: "modulo", Curve: c}, {Family: "nested", Curve: c}, {Family: "quantizer", Curve: c}}}
	s := OptimumSpec(model.Curves{Gauss: &gc})
	if len(s.Curves) != 7 || len(s.Curves[0].X) != 3 || s.Curves[4].Dashed || !s.Curves[5].Dashed || len(s.Points) != 0 {
		t.Errorf("Gaussian envelope: %+v", s)
	}
	gc.Searched, gc.Mechanism = true, c
	if s := OptimumSpec(model.Curves{Gauss: &gc}); len(s.Points) != 2 || len(s.Points[0].X) != 3 || len(s.Points[1].X) != 0 {
		t.Errorf("Gaussian optimum search: %+v", s.Points)
	}
}
