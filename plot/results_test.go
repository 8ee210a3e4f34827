package plot

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// certified loads and certifies a results directory.
func certified(t *testing.T, dir string) (*verify.Run, *verify.Report) {
	t.Helper()
	run, err := verify.Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Certify(context.Background(), run, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run, rep
}

// curve returns the curve of s labelled label.
func curve(t *testing.T, s Spec, label string) Series {
	t.Helper()
	for _, c := range s.Curves {
		if c.Label == label {
			return c
		}
	}
	t.Fatalf("no curve %q in %q", label, s.Title)
	return Series{}
}

// Figure 2's class curves are Proposition 1 (D'/(1 + Q_i D'), flat beyond
// V_Y), its markers the report's learned and certified losses, and beside
// them the Gaussian bracket of the optimum over all privatizers: the best
// known mechanism and the upper bound, as gauss computes them.
func TestFigure2(t *testing.T) {
	m := gauss.Paper()
	o2, _ := m.Optimum(2)
	net := learntest.LinearNet(o2.A, o2.B, 0)
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, model.Gauss, 0.1, []verifytest.Point{{D: 1}, {D: 2, Priv: &net, Recon: 2.1, Adv: []float64{2.4, 2.2}}})
	run, rep := certified(t, dir)
	spec, stem, err := Figure(context.Background(), run.Model, rep, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if stem != Figure2Stem || spec.XLabel != XLabelGauss || spec.YLabel != YLabelGauss || len(spec.Curves) != 4 || len(spec.Points) != 4 {
		t.Fatalf("figure %q: %d curves, %d point sets, labels %q %q", stem, len(spec.Curves), len(spec.Points), spec.XLabel, spec.YLabel)
	}
	vy, q := m.VarRecon(), m.Q()
	for i, c := range spec.Curves[:2] {
		if len(c.X) != GaussCurvePoints || c.X[len(c.X)-1] < vy {
			t.Fatalf("curve %d: %d points ending at %g", i, len(c.X), c.X[len(c.X)-1])
		}
		for j, d := range c.X {
			dd := min(d, vy)
			if want := dd / (1 + q[i]*dd); !scalar.EqualWithinAbsOrRel(c.Y[j], want, 1e-12, 1e-12) {
				t.Fatalf("curve %d at D = %g: %g, Proposition 1 gives %g", i, d, c.Y[j], want)
			}
		}
	}
	best, up := curve(t, spec, bestLabel+", min over adversaries"), curve(t, spec, upperLabel+", min over adversaries")
	for _, j := range []int{1, GaussCurvePoints / 3, GaussCurvePoints - 1} {
		d := best.X[j]
		b, err := m.Bracket(d)
		if err != nil {
			t.Fatal(err)
		}
		if best.Y[j] != b.Achievable.MinAdv || up.Y[j] != b.UpperBound {
			t.Errorf("D = %g: best known %g, upper %g; the bracket gives %g, %g", d, best.Y[j], up.Y[j], b.Achievable.MinAdv, b.UpperBound)
		}
		// Proposition 1 ≤ best known ≤ optimum ≤ upper bound.
		if p := math.Min(spec.Curves[0].Y[j], spec.Curves[1].Y[j]); !(p <= best.Y[j]+1e-12 && best.Y[j] <= up.Y[j]+1e-12) {
			t.Errorf("D = %g: Proposition 1 %g, best known %g, upper bound %g out of order", d, p, best.Y[j], up.Y[j])
		}
	}
	p := rep.Points[1]
	if l := spec.Points[0]; len(l.X) != 1 || l.X[0] != 2.1 || l.Y[0] != 2.4 {
		t.Errorf("learned adversary 1 markers %v %v", l.X, l.Y)
	}
	if c := spec.Points[3]; len(c.X) != 1 || c.X[0] != p.Certified.Recon || c.Y[0] != p.Certified.Adv[1] || !c.Filled {
		t.Errorf("certified adversary 2 markers %+v", c)
	}
}

// Figure 3's class curve is Proposition 2's γ*(D), beside it the global
// optimum over all privatizers (mip's global LP, never below γ*); learned
// soft, learned hard and certified markers are the report's.
func TestFigure3(t *testing.T) {
	net := learntest.ConstantNet(0.9, 0.8)
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, model.Binary, 0.01, []verifytest.Point{{D: 0.15, Priv: &net, Recon: 0.15, Adv: []float64{0.3}}})
	run, rep := certified(t, dir)
	spec, stem, err := Figure(context.Background(), run.Model, rep, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Proposition 2, the global LP, the connector.
	if stem != Figure3Stem || len(spec.Curves) != 3 || len(spec.Points) != 4 || spec.XLabel != XLabelBinary {
		t.Fatalf("figure %q: %d curves, %d point sets", stem, len(spec.Curves), len(spec.Points))
	}
	c, g := spec.Curves[0], curve(t, spec, globalLabel)
	m := mip.PaperBinary()
	glob, err := m.Finite().PrepareGlobal(mip.GlobalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []int{0, len(c.X) / 3, len(c.X) - 1} {
		opt, err := m.SolveProp2(c.X[j], mip.DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(c.Y[j], opt.MinAdv, 1e-9) {
			t.Errorf("curve at D = %g: %g, Proposition 2 gives %g", c.X[j], c.Y[j], opt.MinAdv)
		}
		gl, err := glob.Sweep(context.Background(), []float64{g.X[j]}, mip.DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(g.Y[j], gl[0].MinAdv, 1e-9) || g.Y[j] < c.Y[j]-1e-9 {
			t.Errorf("global curve at D = %g: %g; the global LP gives %g, Proposition 2 %g", g.X[j], g.Y[j], gl[0].MinAdv, c.Y[j])
		}
	}
	if c.Y[len(c.Y)-1] != m.AdvSaturation()[0] {
		t.Errorf("curve ends at %g, want the saturation %g beyond D_max", c.Y[len(c.Y)-1], m.AdvSaturation()[0])
	}
	if s := spec.Points[2]; s.X[0] != rep.Points[0].Certified.Recon || s.Y[0] != rep.Points[0].Certified.MinAdv {
		t.Errorf("certified marker %v %v", s.X, s.Y)
	}
	// The threshold's points are joined (soft, hard, certified), and a
	// failing point is marked.
	if j := spec.Curves[2]; !j.Connector || len(j.X) != 3 || j.X[2] != rep.Points[0].Certified.Recon {
		t.Errorf("connector %+v", j)
	}
	if f := spec.Points[3]; (len(f.X) == 1) != !rep.Points[0].Pass {
		t.Errorf("fail markers %v for a point that passes = %v", f.X, rep.Points[0].Pass)
	}
}

// A finite model's figure takes its class optimum, the global LP, through
// the same function: one curve, FiniteCurvePoints thresholds, the report's
// markers.
func TestFigureFinite(t *testing.T) {
	f, err := os.Open("../examples/finite-ternary.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fm, err := mip.ParseFiniteConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewFinite(fm)
	cert := loss.New(0.2, []float64{0.5, 0.45})
	rep := &verify.Report{Points: []verify.Point{{D: 0.2, Certified: &cert, Pass: true,
		Learned: &verify.Learned{Losses: loss.New(0.19, []float64{0.52, 0.46})}}}}
	spec, stem, err := Figure(context.Background(), m, rep, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if stem != FiniteStem || stem != Stem(model.Finite) || spec.XLabel != XLabelFinite || spec.Title != "Finite data model: certified privatizers vs. the global optimum" {
		t.Fatalf("figure %q %q %q", stem, spec.Title, spec.XLabel)
	}
	c := spec.Curves[0]
	if c.Label != globalLabel || len(c.X) != FiniteCurvePoints || c.X[len(c.X)-1] != 1.05*m.DMax() {
		t.Fatalf("class curve %q: %d points ending at %g (D_max %g)", c.Label, len(c.X), c.X[len(c.X)-1], m.DMax())
	}
	want, err := m.Optimum(context.Background(), c.X[7], model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Y[7] != want.MinAdv {
		t.Errorf("D = %g: %g, the global LP gives %g", c.X[7], c.Y[7], want.MinAdv)
	}
	if len(spec.Curves) != 2 || !spec.Curves[1].Connector {
		t.Errorf("%d curves: want the global LP and one connector (an exact LP draws no upper bound)", len(spec.Curves))
	}
	if s := spec.Points[2]; len(s.X) != 1 || s.Y[0] != 0.45 {
		t.Errorf("certified marker %v %v", s.X, s.Y)
	}
}

func TestStemAndErrors(t *testing.T) {
	for k, want := range map[model.Kind]string{model.Gauss: "figure2", model.Binary: "figure3", model.Finite: "figure-finite", model.Kind(9): "figure-Kind(9)"} {
		if got := Stem(k); got != want {
			t.Errorf("Stem(%s) = %q, want %q", k, got, want)
		}
	}
	if _, err := layoutOf(model.Kind(9)); !errors.Is(err, model.ErrUnsupported) {
		t.Errorf("layout of an unknown kind: %v", err)
	}
	for k, want := range map[model.Kind]bool{model.Gauss: true, model.Binary: true, model.Finite: false, model.Kind(9): false} {
		if got := slices.Contains(PaperKinds(), k); got != want {
			t.Errorf("%s in PaperKinds() = %v, want %v", k, got, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Figure(ctx, model.NewBinary(mip.PaperBinary()), &verify.Report{}, model.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
