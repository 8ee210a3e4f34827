package plot

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/nettest"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/mip"
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

// Figure 2's curves are Proposition 1 (D'/(1 + Q_i D'), flat beyond V_Y) and
// its markers are the report's learned and certified losses.
func TestFigure2(t *testing.T) {
	m := gauss.Paper()
	o2, _ := m.Optimum(2)
	net := nettest.LinearNet(o2.A, o2.B, 0)
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, learn.Gauss, 0.1, []verifytest.Point{{D: 1}, {D: 2, Priv: &net, Recon: 2.1, Adv: []float64{2.4, 2.2}}})
	run, rep := certified(t, dir)
	spec, stem, err := Figure(context.Background(), run, rep, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stem != Figure2Stem || spec.XLabel != XLabelGauss || spec.YLabel != YLabelGauss || len(spec.Curves) != 2 || len(spec.Points) != 4 {
		t.Fatalf("figure %q: %d curves, %d point sets, labels %q %q", stem, len(spec.Curves), len(spec.Points), spec.XLabel, spec.YLabel)
	}
	vy, q := m.VarRecon(), m.Q()
	for i, c := range spec.Curves {
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
	p := rep.Points[1]
	if l := spec.Points[0]; len(l.X) != 1 || l.X[0] != 2.1 || l.Y[0] != 2.4 {
		t.Errorf("learned adversary 1 markers %v %v", l.X, l.Y)
	}
	if c := spec.Points[3]; len(c.X) != 1 || c.X[0] != p.Certified.Recon || c.Y[0] != p.Certified.Adv[1] || !c.Filled {
		t.Errorf("certified adversary 2 markers %+v", c)
	}
}

// Figure 3's curve is Proposition 2's γ*(D); learned soft, learned hard and
// certified markers are the report's.
func TestFigure3(t *testing.T) {
	net := nettest.ConstantNet(0.9, 0.8)
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, learn.Binary, 0.01, []verifytest.Point{{D: 0.15, Priv: &net, Recon: 0.15, Adv: []float64{0.3}}})
	run, rep := certified(t, dir)
	spec, stem, err := Figure(context.Background(), run, rep, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stem != Figure3Stem || len(spec.Curves) != 2 || len(spec.Points) != 4 || spec.XLabel != XLabelBinary {
		t.Fatalf("figure %q: %d curves, %d point sets", stem, len(spec.Curves), len(spec.Points))
	}
	c := spec.Curves[0]
	m := mip.PaperBinary()
	for _, j := range []int{0, len(c.X) / 3, len(c.X) - 1} {
		opt, err := m.SolveProp2(c.X[j], mip.DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(c.Y[j], opt.MinAdv, 1e-9) {
			t.Errorf("curve at D = %g: %g, Proposition 2 gives %g", c.X[j], c.Y[j], opt.MinAdv)
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
	if j := spec.Curves[1]; !j.Connector || len(j.X) != 3 || j.X[2] != rep.Points[0].Certified.Recon {
		t.Errorf("connector %+v", j)
	}
	if f := spec.Points[3]; (len(f.X) == 1) != !rep.Points[0].Pass {
		t.Errorf("fail markers %v for a point that passes = %v", f.X, rep.Points[0].Pass)
	}
}

func TestCurveSpecs(t *testing.T) {
	m := gauss.Paper()
	pts, err := GaussCurve(m, 6, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 7 || pts[6].D != 6 {
		t.Errorf("Gaussian curve %+v", pts)
	}
	if _, err := GaussCurve(m, 0, 5); err == nil {
		t.Error("curve end 0: no error")
	}
	opts, err := BinaryCurve(context.Background(), mip.PaperBinary(), 0.2, 3, mip.DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	if s := BinaryCurveSpec(opts); len(s.Curves) != 1 || len(s.Curves[0].X) != 3 || s.Curves[0].Y[2] != opts[2].MinAdv {
		t.Errorf("binary curve spec %+v", s)
	}
}
