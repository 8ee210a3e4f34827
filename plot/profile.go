package plot

import (
	"math"

	"github.com/mmds-project/mmds/bench"
)

// ProfileSpec is a performance profile: ρ_s(τ), the fraction of problems
// solver s solves within a factor τ of the fastest, against τ on a log
// axis from 1 to 1.5 times the largest finite τ (bench.Profile computes
// the curves), each a step function.
func ProfileSpec(title string, curves []bench.ProfileCurve) Spec {
	tauMax := 2.0
	for _, c := range curves {
		for _, t := range c.Tau {
			if !math.IsInf(t, 0) {
				tauMax = math.Max(tauMax, t)
			}
		}
	}
	tauMax *= 1.5
	s := Spec{
		Title:  title,
		XLabel: "τ (time within a factor τ of the fastest solver)",
		YLabel: "ρ(τ): fraction of problems solved",
		XAxis:  Axis{Log: true, Lo: 1, Hi: tauMax, Fixed: true},
		YAxis:  Axis{Lo: 0, Hi: 1.02, Fixed: true},
		Width:  7, Height: 4.5,
	}
	for i, c := range curves {
		ser := Series{Label: c.Label, Color: i, Dashed: i%2 == 1, X: []float64{1}, Y: []float64{0}}
		for k, t := range c.Tau {
			prev := ser.Y[len(ser.Y)-1]
			ser.X, ser.Y = append(ser.X, t, t), append(ser.Y, prev, c.Rho[k])
		}
		ser.X, ser.Y = append(ser.X, tauMax), append(ser.Y, ser.Y[len(ser.Y)-1])
		s.Curves = append(s.Curves, ser)
	}
	return s
}
