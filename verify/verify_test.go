package verify

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/verify/verifytest"
)

func TestVerdict(t *testing.T) {
	base := Assessment{D: 2, Recon: 1.95, MinAdv: 2.0, Optimum: 2.05, BandLo: 1.8, BandHi: 2.1, AdvTol: 0.1, Change: 1e-4, QuadTol: 5e-3, NumFloor: 1e-6}
	cases := []struct {
		name   string
		mod    func(*Assessment)
		pass   bool
		prefix string
	}{
		{"inside", func(*Assessment) {}, true, VerdictPass},
		{"gap at the tolerance", func(a *Assessment) { a.Optimum, a.MinAdv, a.AdvTol = 2, 1.75, 0.25 }, true, VerdictPass},
		{"gap beyond", func(a *Assessment) { a.MinAdv = 1.9 }, false, "fail: gap"},
		{"above optimum", func(a *Assessment) { a.MinAdv = 2.3 }, true, VerdictAbove},
		{"above by noise only", func(a *Assessment) { a.MinAdv = a.Optimum + 1e-9 }, true, VerdictPass},
		{"distortion below the band", func(a *Assessment) { a.Recon = 1.7 }, false, "fail: distortion"},
		{"distortion above the band", func(a *Assessment) { a.Recon = 2.2 }, false, "fail: distortion"},
		{"distortion NaN", func(a *Assessment) { a.Recon = math.NaN() }, false, "fail: distortion"},
		// loss.Min makes the minimum adversarial loss NaN when any
		// adversary's is, and "gap > AdvTol" is false for NaN: a gap that is
		// not at most its tolerance fails.
		{"min adv NaN", func(a *Assessment) { a.MinAdv = math.NaN() }, false, "fail: gap NaN"},
		{"optimum NaN", func(a *Assessment) { a.Optimum = math.NaN() }, false, "fail: gap NaN"},
		{"tolerance NaN", func(a *Assessment) { a.AdvTol = math.NaN() }, false, "fail: gap 0.05 > NaN"},
		{"both", func(a *Assessment) { a.Recon, a.MinAdv = 1.7, 1.0 }, false, "fail: distortion"},
		{"not converged", func(a *Assessment) { a.Change = 0.01 }, false, "fail: not converged"},
		{"above optimum but outside the band", func(a *Assessment) { a.Recon, a.MinAdv = 1.0, 3 }, false, "fail: distortion"},
	}
	for _, c := range cases {
		a := base
		c.mod(&a)
		pass, v := Verdict(a)
		if pass != c.pass || !strings.HasPrefix(v, c.prefix) {
			t.Errorf("%s: Verdict = %v, %q; want %v, %q…", c.name, pass, v, c.pass, c.prefix)
		}
	}
	if _, v := Verdict(Assessment{Recon: 9, BandHi: 1, MinAdv: 0, Optimum: 1, Change: 1, QuadTol: 0}); strings.Count(v, ";") != 2 {
		t.Errorf("three failures should be listed: %q", v)
	}
}

func TestTolerancesValidate(t *testing.T) {
	if err := DefaultTolerances().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tol := range []Tolerances{{BandTau: -1}, {DistSE: math.NaN()}, {AdvSE: math.Inf(1)}, {Quad: -1e-3}} {
		if tol.Validate() == nil {
			t.Errorf("%+v: no error", tol)
		}
	}
}

func certifyDir(t *testing.T, dir string, o Options) *Report {
	t.Helper()
	run, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Certify(context.Background(), run, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// Synthetic Gaussian results: the optimal linear privatizer of Proposition 1
// at D = 2 passes with a gap of 0 (up to quadrature); the optimal privatizer
// for D = 1 submitted at D = 3 is optimal at its own distortion (gap 0) but
// its distortion is off; a threshold without networks is "not finalized".
func TestCertifySyntheticGauss(t *testing.T) {
	m := gauss.Paper()
	o2, _ := m.Optimum(2)
	o1, _ := m.Optimum(1)
	net2, net1 := learntest.LinearNet(o2.A, o2.B, 0.5), learntest.LinearNet(o1.A, o1.B, 0)
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, model.Gauss, 0.1, []verifytest.Point{
		{D: 0.5},
		{D: 2, Priv: &net2, Recon: 1.95, Adv: []float64{2.4, 2.2}},
		{D: 3, Priv: &net1, Recon: 1, Adv: o1.Adv},
	})
	rep := certifyDir(t, dir, Options{})
	if rep.Passed != 1 || rep.Failed != 1 || rep.NotFinalized != 1 || rep.Pass {
		t.Fatalf("counts pass %d fail %d not finalized %d, overall %v", rep.Passed, rep.Failed, rep.NotFinalized, rep.Pass)
	}
	nf := rep.Points[0]
	if nf.Finalized || nf.Pass || nf.Verdict != VerdictNotFinalized || nf.Certified != nil || nf.Gap != nil {
		t.Errorf("not finalized point: %+v", nf)
	}
	p := rep.Points[1]
	if !p.Pass || p.Verdict != VerdictPass {
		t.Errorf("optimal privatizer at D = 2: %v %q", p.Pass, p.Verdict)
	}
	if !scalar.EqualWithinRel(p.Certified.Recon, 2, DefaultQuadTol) || math.Abs(*p.Gap) > DefaultQuadTol*o2.MinAdv {
		t.Errorf("D = 2: certified distortion %g, gap %g; want 2 and 0", p.Certified.Recon, *p.Gap)
	}
	if p.Optimum.Class != model.LinearGaussian || !scalar.EqualWithinRel(p.Optimum.D, p.Certified.Recon, 1e-15) {
		t.Errorf("D = 2: optimum %+v is not Proposition 1 at the certified distortion", p.Optimum)
	}
	// The learned losses are results.json's; the excess is learned − certified.
	if p.Learned.Recon != 1.95 || p.Learned.MinAdv != 2.2 || !scalar.EqualWithinAbs(p.Excess.Recon, 1.95-p.Certified.Recon, 1e-15) {
		t.Errorf("D = 2: learned %+v, excess %+v", p.Learned, p.Excess)
	}
	q := rep.Points[2]
	if q.Pass || !strings.Contains(q.Verdict, "distortion") || strings.Contains(q.Verdict, "gap") {
		t.Errorf("D = 3 with the D = 1 privatizer: %v %q, want a distortion failure only", q.Pass, q.Verdict)
	}
	if lo, hi := q.DistortionBand[0], q.DistortionBand[1]; !(lo < 3 && hi > 3 && q.Certified.Recon < lo) {
		t.Errorf("D = 3: band [%g, %g], certified %g", lo, hi, q.Certified.Recon)
	}
}

// Synthetic binary results: Proposition 2's optimal privatizer at D = 0.1
// passes with a gap of 0; (s0, s1) = (0.9, 0.8) at D = 0.15 has the gap
// Proposition 2 gives at its own distortion, recomputed here.
func TestCertifySyntheticBinary(t *testing.T) {
	m := mip.PaperBinary()
	opt, err := m.SolveProp2(0.1, mip.DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	clamp := func(s float64) float64 { return min(max(s, 1e-12), 1-1e-12) }
	best := learntest.ConstantNet(clamp(opt.S.S0), clamp(opt.S.S1))
	other := learntest.ConstantNet(0.9, 0.8)
	dir := t.TempDir()
	verifytest.Synthetic(t, dir, model.Binary, 0.01, []verifytest.Point{
		{D: 0.1, Priv: &best, Recon: 0.1, Adv: []float64{opt.MinAdv}},
		{D: 0.15, Priv: &other, Recon: 0.15, Adv: []float64{0.3}},
	})
	rep := certifyDir(t, dir, Options{})
	p := rep.Points[0]
	if !p.Pass || math.Abs(*p.Gap) > 1e-7 || !scalar.EqualWithinAbs(p.Certified.Recon, opt.Recon, 1e-9) {
		t.Errorf("optimal privatizer: pass %v %q, gap %g, distortion %g (want %g)", p.Pass, p.Verdict, *p.Gap, p.Certified.Recon, opt.Recon)
	}
	q := rep.Points[1]
	s := mip.Privatizer{S0: 0.9, S1: 0.8}
	d := mapError(m.P, m.QY, s.S0, s.S1)
	optD, err := m.SolveProp2(d, mip.DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	if want := optD.MinAdv - mapError(m.P, m.QZ[0], s.S0, s.S1); !scalar.EqualWithinAbs(*q.Gap, want, 1e-9) {
		t.Errorf("(0.9, 0.8): gap %g, want %g", *q.Gap, want)
	}
	inBand := q.Certified.Recon >= q.DistortionBand[0] && q.Certified.Recon <= q.DistortionBand[1]
	if want := inBand && *q.Gap <= *q.AdvTol; q.Pass != want || strings.Contains(q.Verdict, "gap") != (*q.Gap > *q.AdvTol) {
		t.Errorf("(0.9, 0.8): pass %v, verdict %q; distortion %g in band %v, gap %g, tolerance %g",
			q.Pass, q.Verdict, q.Certified.Recon, *q.DistortionBand, *q.Gap, *q.AdvTol)
	}
	// Binary learned losses carry the hard errors; the excess uses them.
	if p.Excess.Soft == nil || p.Excess.SoftUsed {
		t.Errorf("binary excess should use the hard errors and keep the soft one: %+v", p.Excess)
	}
}

// The tiny training runs of verifytest, certified end to end: learned losses
// are results.json's, certified losses are within their bounds, and the
// report does not depend on the number of workers.
func TestCertifyTrainedFixtures(t *testing.T) {
	for _, kind := range []model.Kind{model.Gauss, model.Binary} {
		dir := t.TempDir()
		var res *learn.Results
		if kind == model.Gauss {
			res = verifytest.Gauss(t, dir)
		} else {
			res = verifytest.Binary(t, dir)
		}
		o := Options{Workers: 1}
		rep := certifyDir(t, dir, o)
		o.Workers = 2
		if rep2 := certifyDir(t, dir, o); !reflect.DeepEqual(rep, rep2) {
			t.Errorf("%s: the report depends on the number of workers", kind)
		}
		finalized := 0
		for i, p := range rep.Points {
			r := res.Points[i]
			if p.D != r.D || p.Finalized != r.Finalized {
				t.Fatalf("%s point %d: D %g finalized %v, results %g %v", kind, i, p.D, p.Finalized, r.D, r.Finalized)
			}
			if !p.Finalized {
				continue
			}
			finalized++
			if p.Learned.Recon != r.Losses.Recon || p.Learned.MinAdv != r.Losses.MinAdv {
				t.Errorf("%s D = %g: learned %+v, results %g %g", kind, p.D, p.Learned, r.Losses.Recon, r.Losses.MinAdv)
			}
			if p.Certified.Recon < 0 || p.Certified.MinAdv < 0 || *p.Gap != p.Optimum.MinAdv-p.Certified.MinAdv {
				t.Errorf("%s D = %g: certified %+v gap %g", kind, p.D, p.Certified, *p.Gap)
			}
		}
		if finalized == 0 || finalized == len(rep.Points) {
			t.Errorf("%s: %d of %d points finalized; the fixture should have both kinds", kind, finalized, len(rep.Points))
		}
	}
}

func TestCertifyCancelled(t *testing.T) {
	dir := t.TempDir()
	net := learntest.LinearNet(1, 1, 0)
	verifytest.Synthetic(t, dir, model.Gauss, 0.1, []verifytest.Point{{D: 2, Priv: &net, Recon: 2, Adv: []float64{2, 2}}})
	run, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Certify(ctx, run, Options{}); err == nil {
		t.Error("a cancelled context: no error")
	}
	if _, err := Certify(context.Background(), run, Options{Tol: Tolerances{BandTau: -1}}); err == nil {
		t.Error("a negative tolerance: no error")
	}
}

// mapError is the MAP error of guessing X ~ Bernoulli(p) from F = the
// output of the binary channel (s0, s1) and V = X through a BSC(q),
// enumerated over the eight outcomes (Appendix B).
func mapError(p, q, s0, s1 float64) float64 {
	px := [2]float64{1 - p, p}
	pf := [2][2]float64{{s0, 1 - s0}, {1 - s1, s1}} // pf[x][f]
	e := 0.0
	for f := range 2 {
		for v := range 2 {
			var j [2]float64
			for x := range 2 {
				pv := q
				if v == x {
					pv = 1 - q
				}
				j[x] = px[x] * pf[x][f] * pv
			}
			e += min(j[0], j[1])
		}
	}
	return e
}

// The verdict of a file that cannot be certified drops the file's
// name so that --check, which reads the file by another name, reproduces
// it; it dropped every " NAME:" in the reason. A file named after the
// reason ("gauss: the kernel's quadrature cannot resolve an observer")
// erased the reason from its own verdict, and on the kernel's message the
// sentinel itself was doubled ("cannot certify: cannot certify:: …"). The
// name is dropped once, where the model placed it, and the reason stays.
func TestCannotCertifyVerdictDropsNameOnce(t *testing.T) {
	reason := "the kernel's quadrature cannot resolve an observer"
	for _, c := range []struct {
		name, file string
		err        error
		want       string
	}{
		{"kernel", "k.json", fmt.Errorf("%w: %s: %w", bayes.ErrCannotCertify, "k.json", gauss.ErrUnresolved),
			"cannot certify: gauss: " + reason},
		{"kernel named after its reason", "gauss: " + reason, fmt.Errorf("%w: %s: %w", bayes.ErrCannotCertify, "gauss: "+reason, gauss.ErrUnresolved),
			"cannot certify: gauss: " + reason},
		{"kernel named after the sentinel", "certify", fmt.Errorf("%w: %s: %w", bayes.ErrCannotCertify, "certify", gauss.ErrUnresolved),
			"cannot certify: gauss: " + reason},
		{"network", "n.onnx", fmt.Errorf("%w: float32 network %s: E_R[k(0, R)]: the bound", network.ErrPrecision, "n.onnx"),
			"cannot certify: rounding error bound above tolerance: float32 network: E_R[k(0, R)]: the bound"},
		{"network named after its reason", "E_R[k(0, R)]", fmt.Errorf("%w: float32 network %s: E_R[k(0, R)]: the bound", network.ErrPrecision, "E_R[k(0, R)]"),
			"cannot certify: rounding error bound above tolerance: float32 network: E_R[k(0, R)]: the bound"},
	} {
		var p Point
		cannotCertify(&p, c.err, c.file)
		if p.Verdict != c.want || p.Status != StatusCannotCertify || p.Pass {
			t.Errorf("%s: %q (%v, pass %v), want %q", c.name, p.Verdict, p.Status, p.Pass, c.want)
		}
	}
}
