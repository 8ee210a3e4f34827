package plot

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify"
)

// Default numbers of thresholds on the theory curves of the figures. The
// Gaussian curve is a closed form; the binary one is a Proposition 2 solve
// per threshold (milliseconds each).
const (
	GaussCurvePoints  = 201
	BinaryCurvePoints = 81
)

// The figures' axis labels: the paper's "adversarial loss vs. reconstructor
// distortion" (Figures 2 and 3), with the loss each model uses.
const (
	XLabelGauss  = "Reconstructor distortion (MSE)"
	YLabelGauss  = "Adversarial loss (MSE)"
	XLabelBinary = "Reconstructor distortion (0-1 loss)"
	YLabelBinary = "Adversarial loss (0-1 loss)"
)

// Figure file stems written by mmds plot: figure2 for the Gaussian model,
// figure3 for the binary one (the paper's numbering), each as .png and .svg.
const (
	Figure2Stem = "figure2"
	Figure3Stem = "figure3"
)

// grid returns n ≥ 2 thresholds evenly spaced in [0, d1].
func grid(d1 float64, n int) []float64 {
	n = max(n, 2)
	out := make([]float64, n)
	for i := range out {
		out[i] = d1 * float64(i) / float64(n-1)
	}
	out[n-1] = d1
	return out
}

// GaussCurve returns Proposition 1's optimum at n thresholds evenly spaced
// in [0, d1].
func GaussCurve(m *gauss.Model, d1 float64, n int) ([]gauss.Point, error) {
	if !(d1 > 0) || math.IsInf(d1, 0) {
		return nil, fmt.Errorf("plot: curve end %v: must be finite and > 0", d1)
	}
	return m.Sweep(grid(d1, n))
}

// BinaryCurve returns Proposition 2's optimum at n thresholds evenly spaced
// in [0, d1].
func BinaryCurve(ctx context.Context, m mip.Binary, d1 float64, n int, solver mip.SolverOptions) ([]mip.Optimum, error) {
	if !(d1 > 0) || math.IsInf(d1, 0) {
		return nil, fmt.Errorf("plot: curve end %v: must be finite and > 0", d1)
	}
	return m.SweepProp2(ctx, grid(d1, n), solver)
}

// curveEnd is where a figure's curves stop: 5% beyond the largest of D_max,
// the thresholds and every plotted distortion, so saturation shows.
func curveEnd(dmax float64, rep *verify.Report) float64 {
	end := dmax
	for _, p := range rep.Points {
		end = max(end, p.D)
		if p.Learned != nil && finite(p.Learned.Recon) {
			end = max(end, p.Learned.Recon)
		}
		if p.Certified != nil && finite(p.Certified.Recon) {
			end = max(end, p.Certified.Recon)
		}
	}
	return 1.05 * end
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func sideLabel(names []string) string { return strings.Join(names, ", ") }

// gaussCurves returns one curve per adversary of Proposition 1: x = D, y the
// adversary's loss at the optimum (flat beyond D_max = Var[X|Y]).
func gaussCurves(m *gauss.Model, pts []gauss.Point) []Series {
	var out []Series
	for i := range m.K() {
		s := Series{Label: fmt.Sprintf("Proposition 1, adversary %d (%s)", i+1, sideLabel(m.Adversary(i))), Color: i}
		for _, p := range pts {
			s.X = append(s.X, p.D)
			s.Y = append(s.Y, p.Adv[i])
		}
		out = append(out, s)
	}
	return out
}

// Figure2 is the paper's Figure 2 for a certified Gaussian results
// directory: Proposition 1's curve for every adversary, and for every
// finalized threshold the learned point (the trained estimators' test
// losses) and the certified point (the exact Bayes losses of the learned
// privatizer), in the adversary's colour.
func Figure2(m *gauss.Model, rep *verify.Report, curve []gauss.Point) Spec {
	s := Spec{
		Title:  fmt.Sprintf("Gaussian data model: learned (%d epochs) vs. Proposition 1", rep.Epochs),
		XLabel: XLabelGauss, YLabel: YLabelGauss,
		Curves: gaussCurves(m, curve),
	}
	for i := range m.K() {
		learned := Series{Label: fmt.Sprintf("learned, adversary %d (trained estimators)", i+1), Color: i, Shape: Circle}
		cert := Series{Label: fmt.Sprintf("certified, adversary %d (Bayes estimators)", i+1), Color: i, Shape: Triangle, Filled: true}
		for _, p := range rep.Points {
			if p.Learned != nil {
				learned.X, learned.Y = append(learned.X, p.Learned.Recon), append(learned.Y, p.Learned.Adv[i])
			}
			if p.Certified != nil {
				cert.X, cert.Y = append(cert.X, p.Certified.Recon), append(cert.Y, p.Certified.Adv[i])
			}
		}
		s.Points = append(s.Points, learned, cert)
	}
	return s
}

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

// Figure3 is the paper's Figure 3 for a certified binary results directory:
// Proposition 2's curve and, for every finalized threshold, the learned point
// with the soft losses Section V-B trains with, the learned point with the
// trained estimators' hard 0-1 errors (when recorded), and the certified
// point (the exact MAP losses of the learned privatizer). The y value is the
// minimum over adversaries, the objective of eq. (1).
func Figure3(rep *verify.Report, curve []mip.Optimum) Spec {
	s := Spec{
		Title:  fmt.Sprintf("Binary data model: learned (%d epochs) vs. Proposition 2", rep.Epochs),
		XLabel: XLabelBinary, YLabel: YLabelBinary,
		Curves: []Series{binaryCurve(curve)},
	}
	soft := Series{Label: "learned, soft losses (trained estimators)", Color: 1, Shape: Circle}
	hard := Series{Label: "learned, hard decisions (trained estimators)", Color: 2, Shape: Square}
	cert := Series{Label: "certified (MAP estimators)", Color: 0, Shape: Triangle, Filled: true}
	fail := Series{Label: "fails certification", Color: 1, Shape: Cross}
	for _, p := range rep.Points {
		// One threshold's points, joined: learned soft → learned hard →
		// certified.
		join := Series{Connector: true}
		if l := p.Learned; l != nil {
			soft.X, soft.Y = append(soft.X, l.Recon), append(soft.Y, l.MinAdv)
			join.X, join.Y = append(join.X, l.Recon), append(join.Y, l.MinAdv)
			if l.ReconHard != nil && len(l.AdvHard) > 0 {
				hard.X, hard.Y = append(hard.X, *l.ReconHard), append(hard.Y, loss.Min(l.AdvHard))
				join.X, join.Y = append(join.X, *l.ReconHard), append(join.Y, loss.Min(l.AdvHard))
			}
		}
		if c := p.Certified; c != nil {
			cert.X, cert.Y = append(cert.X, c.Recon), append(cert.Y, c.MinAdv)
			join.X, join.Y = append(join.X, c.Recon), append(join.Y, c.MinAdv)
			if !p.Pass {
				fail.X, fail.Y = append(fail.X, c.Recon), append(fail.Y, c.MinAdv)
			}
		}
		if len(join.X) > 1 {
			s.Curves = append(s.Curves, join)
		}
	}
	s.Points = append(s.Points, soft, hard, cert, fail)
	return s
}

// Figure returns the figure of a certified run (Figure 2 or 3, with curves
// of the default number of points) and its file stem.
func Figure(ctx context.Context, run *verify.Run, rep *verify.Report, solver *mip.SolverOptions) (Spec, string, error) {
	return FigureFor(ctx, run.Model, rep, solver)
}

// FigureFor is Figure for a report on model m (a results directory, or
// privatizers trained elsewhere).
func FigureFor(ctx context.Context, m model.Model, rep *verify.Report, solver *mip.SolverOptions) (Spec, string, error) {
	end := curveEnd(m.DMax(), rep)
	switch m := m.(type) {
	case model.BinaryModel:
		o := mip.DefaultSolver()
		if solver != nil {
			o = *solver
		}
		curve, err := BinaryCurve(ctx, m.M, end, BinaryCurvePoints, o)
		if err != nil {
			return Spec{}, "", err
		}
		return Figure3(rep, curve), Figure3Stem, nil
	case model.GaussModel:
		curve, err := GaussCurve(m.M, end, GaussCurvePoints)
		if err != nil {
			return Spec{}, "", err
		}
		return Figure2(m.M, rep, curve), Figure2Stem, nil
	}
	return Spec{}, "", fmt.Errorf("%w: no figure for %s models", model.ErrUnsupported, m.Kind())
}
