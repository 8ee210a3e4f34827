package plot

import (
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/mip"
)

// binaryCurve returns Proposition 2's γ*(D) against D.
func binaryCurve(opts []mip.Optimum) Series {
	s := Series{Label: "Proposition 2: γ* = max min adversarial loss"}
	for _, o := range opts {
		s.X = append(s.X, o.D)
		s.Y = append(s.Y, o.MinAdv)
	}
	return s
}

// BinaryCurveSpec is the exact curve alone (mmds binary --plot).
func BinaryCurveSpec(opts []mip.Optimum) Spec {
	c := binaryCurve(opts)
	c.Markers = len(opts) <= 60
	return Spec{
		Title:  "Binary data model: Proposition 2",
		XLabel: XLabelBinary, YLabel: YLabelBinary,
		Curves: []Series{c},
	}
}

// BinaryGlobalSpec is the exact curve with the global optimum beside it
// (mmds binary --global --plot): the optimum over all privatizers, any
// output alphabet, which Proposition 2's binary-output optimum can only
// trail.
func BinaryGlobalSpec(opts []mip.Optimum, global []mip.FiniteOptimum) Spec {
	spec := BinaryCurveSpec(opts)
	g := Series{Label: "global optimum (any output alphabet)", Color: 1, Dashed: true, Markers: len(global) <= 60}
	for _, o := range global {
		g.X, g.Y = append(g.X, o.D), append(g.Y, o.MinAdv)
	}
	spec.Curves = append(spec.Curves, g)
	spec.Title = "Binary data model: Proposition 2 and the global optimum"
	return spec
}

// gaussPlotPoints is the number of thresholds of each exact curve of
// GaussEnvelope.
const gaussPlotPoints = 200

// GaussEnvelope draws the Gaussian model's bracket (mmds gauss --plot): the
// objective min_i L_i against the reconstructor's loss for Proposition 1
// (the linear-Gaussian class), erasure, each binning family alone (its
// Pareto points, no time-sharing), the best achievable envelope and the
// upper bound min_i Var[X|Z_i] (docs/gauss.md).
func GaussEnvelope(m *gauss.Model) (Spec, error) {
	vy := m.VarRecon()
	env := m.Envelope()
	lin := Series{Label: "Proposition 1 (linear-Gaussian class)", Color: 0}
	era := Series{Label: "erasure (time-sharing F = X / F constant)", Color: 1, Dashed: true}
	best := Series{Label: "best achievable (envelope of all families)", Color: 6}
	up := Series{Label: "upper bound", Color: 5, Dashed: true}
	for i := range gaussPlotPoints + 1 {
		d := vy * float64(i) / gaussPlotPoints
		p, err := m.Optimum(d)
		if err != nil {
			return Spec{}, err
		}
		e, err := m.Losses(gauss.Erasure(1 - d/vy))
		if err != nil {
			return Spec{}, err
		}
		b, err := env.At(d)
		if err != nil {
			return Spec{}, err
		}
		lin.X, lin.Y = append(lin.X, d), append(lin.Y, p.MinAdv)
		era.X, era.Y = append(era.X, d), append(era.Y, e.MinAdv)
		best.X, best.Y = append(best.X, d), append(best.Y, b.MinAdv)
		up.X, up.Y = append(up.X, d), append(up.Y, m.UpperBound(d))
	}
	s := Spec{
		Title:  "Gaussian model: best achievable vs. Proposition 1",
		XLabel: "reconstructor distortion D",
		YLabel: "smallest adversarial loss minᵢ E[(X − X\u0303ᵢ)²]",
		Curves: []Series{best, up, lin, era},
	}
	for i, f := range []string{gauss.FamilyModulo, gauss.FamilyNested, gauss.FamilyQuantizer} {
		c := Series{Label: f + " alone (no time-sharing)", Color: 2 + i, Dashed: f != gauss.FamilyModulo}
		for _, a := range env.Family(f) {
			c.X, c.Y = append(c.X, a.Recon), append(c.Y, a.MinAdv)
		}
		s.Curves = append(s.Curves, c)
	}
	return s, nil
}

// GaussOptimum adds the optimum search's results (mmds gauss --optimum) to
// a GaussEnvelope figure: at every threshold searched, the best certified
// mechanism (filled circles) and the numerical estimate of the grid problem
// capped by the upper bound (open triangles; an estimate, not a bound).
func GaussOptimum(s Spec, bs []gauss.Bracket) Spec {
	mech := Series{Label: "best certified mechanism (--optimum)", Color: 6, Filled: true, Shape: Circle}
	est := Series{Label: "numerical estimate, grid problem (not a bound)", Color: 5, Shape: Triangle}
	for _, b := range bs {
		lo, hi, ok := b.Numerical()
		if !ok {
			continue
		}
		mech.X, mech.Y = append(mech.X, b.D), append(mech.Y, lo)
		est.X, est.Y = append(est.X, b.D), append(est.Y, hi)
	}
	s.Points = append(s.Points, mech, est)
	return s
}
