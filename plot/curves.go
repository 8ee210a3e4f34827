package plot

import "github.com/mmds-project/mmds/model"

// OptimumSpec draws the exact curves of an optimum sweep (mmds binary
// --plot, mmds gauss --plot; model.SweepRequest.Plot).
func OptimumSpec(c model.Curves) Spec {
	if c.Gauss != nil {
		return gaussSpec(*c.Gauss)
	}
	return binarySpec(c.Prop2, c.Global)
}

// series is a curve drawn as s.
func series(c model.Curve, s Series) Series {
	s.X, s.Y = c.X, c.Y
	return s
}

// binarySpec draws Proposition 2's γ*(D) and, when global is set, the
// global optimum beside it (mmds binary --global): the optimum over all
// privatizers, any output alphabet, which Proposition 2's binary-output
// optimum can only trail.
func binarySpec(prop2 model.Curve, global *model.Curve) Spec {
	s := Spec{
		Title:  "Binary data model: Proposition 2",
		XLabel: XLabelBinary, YLabel: YLabelBinary,
		Curves: []Series{series(prop2, Series{Label: "Proposition 2: γ* = max min adversarial loss", Markers: len(prop2.X) <= 60})},
	}
	if global != nil {
		s.Curves = append(s.Curves, series(*global, Series{Label: "global optimum (any output alphabet)", Color: 1, Dashed: true, Markers: len(global.X) <= 60}))
		s.Title = "Binary data model: Proposition 2 and the global optimum"
	}
	return s
}

// gaussSpec draws the Gaussian model's bracket (docs/gauss.md): the
// objective min_i L_i against the reconstructor's loss for Proposition 1
// (the linear-Gaussian class), erasure, each binning family alone (its
// Pareto points, no time-sharing), the best achievable envelope and the
// upper bound min_i Var[X|Z_i]; with the optimum search, at every threshold
// searched, the best certified mechanism (filled circles) and the numerical
// estimate of the grid problem capped by the upper bound (open triangles;
// an estimate, not a bound).
func gaussSpec(c model.GaussCurves) Spec {
	s := Spec{
		Title:  "Gaussian model: best achievable vs. Proposition 1",
		XLabel: "reconstructor distortion D",
		YLabel: "smallest adversarial loss minᵢ E[(X − X\u0303ᵢ)²]",
		Curves: []Series{
			series(c.Best, Series{Label: "best achievable (envelope of all families)", Color: 6}),
			series(c.Upper, Series{Label: "upper bound", Color: 5, Dashed: true}),
			series(c.Linear, Series{Label: "Proposition 1 (linear-Gaussian class)", Color: 0}),
			series(c.Erasure, Series{Label: "erasure (time-sharing F = X / F constant)", Color: 1, Dashed: true}),
		},
	}
	for i, f := range c.Families {
		s.Curves = append(s.Curves, series(f.Curve, Series{Label: f.Family + " alone (no time-sharing)", Color: 2 + i, Dashed: i > 0}))
	}
	if c.Searched {
		s.Points = append(s.Points,
			series(c.Mechanism, Series{Label: "best certified mechanism (--optimum)", Color: 6, Filled: true, Shape: Circle}),
			series(c.Estimate, Series{Label: "numerical estimate, grid problem (not a bound)", Color: 5, Shape: Triangle}))
	}
	return s
}
