package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/privatizer"
)

const tinyFiniteJSON = `{"prior": [0.5, 0.3, 0.2],
 "reconstructor": {"channel": [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]},
 "adversaries": [{"channel": [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]}]}`

// TestLabelChannelCertifiedAsTrained: the labels method's privatizer on a
// tiny finite model and on the binary paper model is its channel, and the
// channel's certificate (mip's exact finite sums, what mmds verify runs)
// equals the losses training recorded for it, to rounding.
func TestLabelChannelCertifiedAsTrained(t *testing.T) {
	fin, err := ParseAs(Finite, []byte(tinyFiniteJSON))
	if err != nil {
		t.Fatal(err)
	}
	bin, _ := Paper(Binary)
	for _, m := range []Model{fin, bin} {
		t.Run(m.Kind().String(), func(t *testing.T) {
			cfg, err := learn.PresetFor(learn.PresetQuick, m.Kind(), learn.MethodLabels, 5)
			if err != nil {
				t.Fatal(err)
			}
			law, ok := FiniteLaw(m)
			if !ok {
				t.Fatal("no finite law")
			}
			cfg.Law, cfg.DMax = law, m.DMax()
			cfg.D = []float64{m.DMax() / 3, m.DMax() * 2 / 3}
			cfg.Protocol.Tau = m.DMax() / 6
			cfg.Epochs, cfg.Labels.StepsPerEpoch = 10, 10
			cfg.Protocol.Accept, cfg.Protocol.MaxAttempts = 2, 2
			cfg.Workers, cfg.Seed = 1, 3
			x, y, z := m.Sample(rand.New(rand.NewPCG(1, 2)), 600)
			ds := &learn.Dataset{X: x, Y: y, Z: z}
			res, err := learn.Sweep(context.Background(), ds, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Points {
				if !p.Finalized {
					t.Fatalf("D = %g: not finalized", p.D)
				}
				c, err := CertifyChannel(m, p.Channel, "test")
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(c.Recon-p.Losses.Recon) > 1e-12 || math.Abs(c.MinAdv-p.Losses.MinAdv) > 1e-12 {
					t.Errorf("D = %g: certified (%.15g, %.15g), trained (%.15g, %.15g)", p.D, c.Recon, c.MinAdv, p.Losses.Recon, p.Losses.MinAdv)
				}
			}
		})
	}
	g, _ := Paper(Gauss)
	if _, ok := FiniteLaw(g); ok {
		t.Error("the Gaussian model has a finite law")
	}
	if _, err := CertifyChannel(g, [][]float64{{1}}, "test"); err == nil {
		t.Error("a channel was certified on the Gaussian model")
	}
}

// TestFiniteDataset: a finite model's samples follow its law (frequencies
// within 4 standard errors) and are symbols.
func TestFiniteDataset(t *testing.T) {
	m, err := ParseAs(Finite, []byte(tinyFiniteJSON))
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	x, y, z := m.Sample(rand.New(rand.NewPCG(4, 5)), n)
	ds := &learn.Dataset{X: x, Y: y, Z: z}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	var joint [3][3]float64
	for r, x := range ds.X {
		joint[int(x)][int(ds.Z[0][0][r])]++
	}
	law, _ := FiniteLaw(m)
	for x := range 3 {
		for v := range 3 {
			p := law.Prior[x] * law.Adv[0].Channel[x][v]
			got := joint[x][v] / n
			if se := math.Sqrt(p * (1 - p) / n); math.Abs(got-p) > 4*se {
				t.Errorf("P(X=%d, Z=%d): frequency %.4f, law %.4f", x, v, got, p)
			}
		}
	}
}

// TestCertifyKernelReveal: a kernel time-shared with F = X with
// probability λ certifies to exactly (1 − λ) times the kernel's losses
// (revealing X costs every observer 0) with the same relative quadrature
// error; λ outside [0, 1) or NaN is refused as input.
func TestCertifyKernelReveal(t *testing.T) {
	g, _ := Paper(Gauss)
	gm := g.(GaussModel)
	edges, err := gm.M.GridEdges(0.8, 8)
	if err != nil {
		t.Fatal(err)
	}
	k := privatizer.Kernel{Kernel: gauss.Kernel{Edges: edges, Prob: make([][]float64, len(edges)+1)}}
	for j := range k.Prob {
		k.Prob[j] = make([]float64, 7)
		k.Prob[j][j%7] = 0.9 // X mod 5.6 with a little noise
		k.Prob[j][(j+3)%7] = 0.1
	}
	base, err := CertifyKernel(g, k, "test")
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-14 // relative: one multiplication's rounding
	for _, lambda := range []float64{0.25, 0.9, 0.999} {
		k.Reveal = lambda
		c, err := CertifyKernel(g, k, "test")
		if err != nil {
			t.Fatalf("λ = %g: %v", lambda, err)
		}
		s := 1 - lambda
		if !scalar.EqualWithinRel(c.Recon, s*base.Recon, tol) || !scalar.EqualWithinRel(c.MinAdv, s*base.MinAdv, tol) {
			t.Errorf("λ = %g: certified (%.15g, %.15g), want (1 − λ)·(%.15g, %.15g)", lambda, c.Recon, c.MinAdv, base.Recon, base.MinAdv)
		}
		for i := range c.Adv {
			if !scalar.EqualWithinRel(c.Adv[i], s*base.Adv[i], tol) {
				t.Errorf("λ = %g: adversary %d certified %.15g, want %.15g", lambda, i+1, c.Adv[i], s*base.Adv[i])
			}
		}
		if !scalar.EqualWithinRel(c.Change, base.Change, 1e-12) {
			t.Errorf("λ = %g: relative quadrature error %.3g, kernel alone %.3g", lambda, c.Change, base.Change)
		}
	}
	for _, lambda := range []float64{1, -0.1, math.NaN(), math.Inf(1)} {
		k.Reveal = lambda
		if _, err := CertifyKernel(g, k, "test"); !errors.Is(err, privatizer.ErrInput) {
			t.Errorf("λ = %g: error %v, want privatizer.ErrInput", lambda, err)
		}
	}
}

// TestCertifyFileKernel: a kernel file certifies on the Gaussian model as
// CertifyKernel certifies the kernel (the same numbers), is cannot-certify
// when its quadrature error estimate exceeds the stated error, and is bad
// input on models with a finite X, as a channel is on the Gaussian model.
func TestCertifyFileKernel(t *testing.T) {
	g, _ := Paper(Gauss)
	edges, err := g.(GaussModel).M.GridEdges(0.8, 8)
	if err != nil {
		t.Fatal(err)
	}
	k := privatizer.Kernel{Kernel: gauss.Kernel{Edges: edges, Prob: make([][]float64, len(edges)+1)}, Reveal: 0.3}
	for j := range k.Prob {
		k.Prob[j] = []float64{0, 0, 0, 0, 0}
		k.Prob[j][j%5] = 1
	}
	want, err := CertifyKernel(g, k, "k")
	if err != nil {
		t.Fatal(err)
	}
	f := privatizer.File{Format: privatizer.FormatKernelJSON, Kernel: &privatizer.Kernel{Name: "k.json", Kernel: k.Kernel, Reveal: k.Reveal}}
	got, err := g.CertifyFile(context.Background(), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Recon != want.Recon || got.MinAdv != want.MinAdv || got.Change != want.Change {
		t.Errorf("CertifyFile %+v, CertifyKernel %+v: want equal", got.Losses, want.Losses)
	}
	if want.Change > 0 {
		o := Options{}
		o.Gauss.Target = want.Change / 2
		if _, err := g.CertifyFile(context.Background(), f, o); !errors.Is(err, bayes.ErrCannotCertify) {
			t.Errorf("stated error %g below the quadrature estimate %g: %v, want bayes.ErrCannotCertify", o.Gauss.Target, want.Change, err)
		}
	}
	for _, kind := range []Kind{Binary, Finite} {
		m, err := Paper(kind)
		if kind == Finite {
			m, err = ParseAs(Finite, []byte(tinyFiniteJSON))
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.CertifyFile(context.Background(), f, Options{}); !errors.Is(err, privatizer.ErrInput) || !strings.Contains(err.Error(), "cell kernel") {
			t.Errorf("%v model: %v, want privatizer.ErrInput naming the cell kernel", kind, err)
		}
	}
	ch := privatizer.File{Format: privatizer.FormatChannelJSON, Channel: &privatizer.Channel{Name: "c.json", P: [][]float64{{1}}}}
	if _, err := g.CertifyFile(context.Background(), ch, Options{}); !errors.Is(err, privatizer.ErrInput) {
		t.Errorf("channel on the Gaussian model: %v, want privatizer.ErrInput", err)
	}
}
