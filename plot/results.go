package plot

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify"
)

// Numbers of thresholds on the exact curves of each kind's figure, each
// one model.Model.Optimum: a closed form and a lookup in the bracket's
// envelope (Gaussian), a Proposition 2 solve and the global LP (binary,
// milliseconds each), the global LP alone (finite; a larger model's LP may
// take longer, so fewer thresholds).
const (
	GaussCurvePoints  = 201
	BinaryCurvePoints = 81
	FiniteCurvePoints = 21
)

// The figures' axis labels: the paper's "adversarial loss vs. reconstructor
// distortion" (Figures 2 and 3), with the loss each model uses (a finite
// model's loss matrices are its own).
const (
	XLabelGauss  = "Reconstructor distortion (MSE)"
	YLabelGauss  = "Adversarial loss (MSE)"
	XLabelBinary = "Reconstructor distortion (0-1 loss)"
	YLabelBinary = "Adversarial loss (0-1 loss)"
	XLabelFinite = "Reconstructor distortion"
	YLabelFinite = "Adversarial loss"
)

// Figure file stems written by mmds plot: figure2 for the Gaussian model,
// figure3 for the binary one (the paper's numbering), figure-finite for a
// finite model, each as .png and .svg.
const (
	Figure2Stem = "figure2"
	Figure3Stem = "figure3"
	FiniteStem  = "figure-finite"
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

// layout is what the figure of one model kind draws its own way.
type layout struct {
	stem           string
	title          string // with a %s for whose points are drawn
	xLabel, yLabel string
	points         int // thresholds on the exact curves
	// perAdversary draws one class curve and one set of markers per
	// adversary (Figure 2); otherwise the objective min_i L_i of eq. (1)
	// (Figure 3).
	perAdversary bool
	class        string // the class optimum's legend entry (a prefix when perAdversary)
	paper        bool   // one of the paper's figures (2, 3)
}

// layoutOf returns the layout of kind k's figure: the paper's Figure 2
// (Gaussian) and Figure 3 (binary), and Figure 3's form for a finite model,
// whose class optimum is already the optimum over all privatizers.
func layoutOf(k model.Kind) (layout, error) {
	l, ok := map[model.Kind]layout{
		model.Gauss: {stem: Figure2Stem, title: "Gaussian data model: %s vs. Proposition 1",
			xLabel: XLabelGauss, yLabel: YLabelGauss, points: GaussCurvePoints,
			perAdversary: true, class: "Proposition 1 (linear-Gaussian)", paper: true},
		model.Binary: {stem: Figure3Stem, title: "Binary data model: %s vs. Proposition 2",
			xLabel: XLabelBinary, yLabel: YLabelBinary, points: BinaryCurvePoints,
			class: "Proposition 2: γ*, binary-output privatizers", paper: true},
		model.Finite: {stem: FiniteStem, title: "Finite data model: %s vs. the global optimum",
			xLabel: XLabelFinite, yLabel: YLabelFinite, points: FiniteCurvePoints,
			class: globalLabel},
	}[k]
	if !ok {
		return layout{}, fmt.Errorf("%w: no figure for %s models", model.ErrUnsupported, k)
	}
	return l, nil
}

// PaperKinds are the model kinds whose figure is one of the paper's
// (Figure 2: Gaussian, Figure 3: binary), the figures mmds certify --plot
// draws privatizers trained elsewhere on; a finite model's is mmds's own.
func PaperKinds() []model.Kind {
	var ks []model.Kind
	for _, k := range model.Kinds() {
		if l, err := layoutOf(k); err == nil && l.paper {
			ks = append(ks, k)
		}
	}
	return ks
}

// Stem returns the file stem mmds plot writes the figure of a model of kind
// k under (with .png and .svg): figure2, figure3 or figure-finite.
func Stem(k model.Kind) string {
	if l, err := layoutOf(k); err == nil {
		return l.stem
	}
	return "figure-" + k.String()
}

// Figure returns the figure of a certified report on model m, a results
// directory of mmds train or privatizers trained elsewhere (mmds certify),
// and its file stem. The exact curves come from m.Optimum at evenly spaced
// thresholds from 0 to 5% beyond the largest of D_max and every plotted
// distortion: the class optimum of the paper and, beside it, the optimum
// over all privatizers that the optimum carries (see allPrivatizers).
func Figure(ctx context.Context, m model.Model, rep *verify.Report, o model.Options) (Spec, string, error) {
	l, err := layoutOf(m.Kind())
	if err != nil {
		return Spec{}, "", err
	}
	end := curveEnd(m.DMax(), rep)
	if !(end > 0) || math.IsInf(end, 0) {
		return Spec{}, "", fmt.Errorf("plot: curve end %v: must be finite and > 0", end)
	}
	opts, err := optima(ctx, m, grid(end, l.points), o)
	if err != nil {
		return Spec{}, "", err
	}
	s := Spec{Title: fmt.Sprintf(l.title, whose(rep)), XLabel: l.xLabel, YLabel: l.yLabel}
	if l.perAdversary {
		// The references are the objective, beside one curve per adversary.
		ref := referenceCurves(opts)
		for i := range ref {
			ref[i].Label += ", min over adversaries"
		}
		s.Curves = append(adversaryCurves(m, l.class, opts), ref...)
		s.Points = adversaryPoints(m.Adversaries(), rep)
		return s, l.stem, nil
	}
	s.Curves = append([]Series{objectiveCurve(l.class, opts)}, referenceCurves(opts)...)
	joins, points := objectivePoints(rep)
	s.Curves = append(s.Curves, joins...)
	s.Points = points
	return s, l.stem, nil
}

// optima returns m's optimum at every threshold of ds.
func optima(ctx context.Context, m model.Model, ds []float64, o model.Options) ([]model.Optimum, error) {
	out := make([]model.Optimum, len(ds))
	for i, d := range ds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if out[i], err = m.Optimum(ctx, d, o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// whose names the points of a figure's title: mmds train's learned
// privatizers with their epochs, or privatizers trained elsewhere (mmds
// certify, whose report has no epochs).
func whose(rep *verify.Report) string {
	if rep.Epochs > 0 {
		return fmt.Sprintf("learned (%s)", report.Plural(rep.Epochs, "epoch"))
	}
	return "certified privatizers"
}

// The legend entries of the optimum over all privatizers. The optimum of
// problem (1) over all privatizers lies between the best known mechanism
// (achievable) and the upper bound; where it is computed exactly (the
// global LP of a finite model, the binary one included) it is one curve.
const (
	globalLabel = "all privatizers: global optimum (LP)"
	bestLabel   = "all privatizers: best known"
	upperLabel  = "all privatizers: upper bound"
)

// allPrivatizers returns what an optimum says beside its class's optimum
// about the optimum over all privatizers, each the objective min_i L_i of
// eq. (1) or NaN when not given: the best known mechanism and the upper
// bound of the Gaussian bracket (docs/gauss.md), the global LP of the
// binary model, and the proven upper bound of a finite model's global
// optimum (equal to its value unless column generation only bracketed it).
func allPrivatizers(o model.Optimum) (best, global, upper float64) {
	best, global, upper = math.NaN(), math.NaN(), math.NaN()
	if g := o.Gauss(); g != nil {
		best, upper = g.Best.MinAdv, g.UpperBound
	}
	if b := o.Binary(); b != nil {
		global = b.Global.MinAdv
	}
	if f := o.Finite(); f != nil && f.UpperBound != nil {
		upper = *f.UpperBound
	}
	return best, global, upper
}

// referenceCurves returns the curves of the optimum over all privatizers
// that opts carry (allPrivatizers), those they do not carry left out: none
// where the class optimum is the optimum over all privatizers. An upper
// bound equal to the class optimum at every threshold (a finite model's
// exact LP) is not drawn.
func referenceCurves(opts []model.Optimum) []Series {
	best := Series{Label: bestLabel, Color: 6}
	global := Series{Label: globalLabel, Color: 6}
	upper := Series{Label: upperLabel, Color: 5, Dashed: true}
	tight := true
	for _, o := range opts {
		b, g, u := allPrivatizers(o)
		best.X, best.Y = append(best.X, o.D), append(best.Y, b)
		global.X, global.Y = append(global.X, o.D), append(global.Y, g)
		upper.X, upper.Y = append(upper.X, o.D), append(upper.Y, u)
		tight = tight && (math.IsNaN(u) || u <= o.MinAdv+1e-9*max(1, math.Abs(o.MinAdv)))
	}
	var out []Series
	for _, c := range []Series{global, best, upper} {
		if slices.ContainsFunc(c.Y, func(y float64) bool { return !math.IsNaN(y) }) && (c.Label != upperLabel || !tight) {
			out = append(out, c)
		}
	}
	return out
}

// adversaryCurves returns one curve per adversary of the class optimum:
// x = D, y the adversary's loss at the optimum (Proposition 1: flat beyond
// D_max = Var[X|Y]).
func adversaryCurves(m model.Model, class string, opts []model.Optimum) []Series {
	var out []Series
	for i := range m.Adversaries() {
		s := Series{Label: fmt.Sprintf("%s, adversary %d", class, i+1), Color: i}
		// the names of its side information (the Gaussian model's variables)
		if name := strings.Join(m.SideNames(i+1), ", "); name != "" {
			s.Label += " (" + name + ")"
		}
		for _, o := range opts {
			s.X, s.Y = append(s.X, o.D), append(s.Y, o.Adv[i])
		}
		out = append(out, s)
	}
	return out
}

// adversaryPoints returns, per adversary in its colour, the learned points
// (the trained estimators' test losses) and the certified points (the
// exact Bayes losses of the learned privatizer) of every finalized
// threshold (Figure 2).
func adversaryPoints(k int, rep *verify.Report) []Series {
	var out []Series
	for i := range k {
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
		out = append(out, learned, cert)
	}
	return out
}

// objectiveCurve returns the class optimum's objective min_i L_i against D.
func objectiveCurve(label string, opts []model.Optimum) Series {
	s := Series{Label: label}
	for _, o := range opts {
		s.X, s.Y = append(s.X, o.D), append(s.Y, o.MinAdv)
	}
	return s
}

// objectivePoints returns Figure 3's markers and, per threshold, the grey
// line joining them: the learned point with the soft losses Section V-B
// trains with, the learned point with the trained estimators' hard 0-1
// errors (when recorded), the certified point (the exact MAP losses of the
// learned privatizer), and a cross on a certified point that fails. The y
// value is the minimum over adversaries, the objective of eq. (1).
func objectivePoints(rep *verify.Report) (joins, points []Series) {
	soft := Series{Label: "learned, soft losses (trained estimators)", Color: 1, Shape: Circle}
	hard := Series{Label: "learned, hard decisions (trained estimators)", Color: 2, Shape: Square}
	cert := Series{Label: "certified (MAP estimators)", Color: 0, Shape: Triangle, Filled: true}
	fail := Series{Label: "fails certification", Color: 1, Shape: Cross}
	for _, p := range rep.Points {
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
			if p.Outcome() != verify.OutcomePass {
				fail.X, fail.Y = append(fail.X, c.Recon), append(fail.Y, c.MinAdv)
			}
		}
		if len(join.X) > 1 {
			joins = append(joins, join)
		}
	}
	return joins, []Series{soft, hard, cert, fail}
}
