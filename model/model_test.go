package model

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/nettest"
	"github.com/mmds-project/mmds/mip"
)

// Equal models hash equally whatever the layout of their file; a changed
// parameter changes the hash.
func TestHashIsCanonical(t *testing.T) {
	a, err := Parse(Binary, []byte(`{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Parse(Binary, []byte("{\n  \"q_z\": [0.44],\n  \"q_y\": 0.20,\n  \"p\": 5.4e-1\n}\n"))
	c, _ := Parse(Binary, []byte(`{"p": 0.54, "q_y": 0.2, "q_z": [0.49]}`))
	ha, _ := Hash(a)
	hb, _ := Hash(b)
	hc, _ := Hash(c)
	if ha != hb || ha == hc || len(ha) != 64 {
		t.Errorf("hashes %s %s %s", ha, hb, hc)
	}
	// Encode round-trips.
	for _, k := range []Kind{Gauss, Binary} {
		m, _ := Paper(k)
		e, _ := m.Encode()
		m2, err := Parse(k, e)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		e2, _ := m2.Encode()
		if !bytes.Equal(e, e2) {
			t.Errorf("%s: encoding does not round-trip", k)
		}
	}
}

func TestStdErr(t *testing.T) {
	g, b := NewGauss(gauss.Paper()), NewBinary(mip.PaperBinary())
	if got, want := g.StdErr(2, 2000), 2*math.Sqrt(2.0/2000); !scalar.EqualWithinRel(got, want, 1e-15) {
		t.Errorf("Gaussian SE %g, want %g", got, want)
	}
	if got, want := b.StdErr(0.2, 2000), math.Sqrt(0.2*0.8/2000); !scalar.EqualWithinRel(got, want, 1e-15) {
		t.Errorf("binary SE %g, want %g", got, want)
	}
	f := NewFinite(mip.PaperBinary().Finite())
	if got, want := f.StdErr(0.2, 2000), math.Sqrt(0.2*0.8/2000); !scalar.EqualWithinRel(got, want, 1e-15) {
		t.Errorf("finite 0-1 SE %g, want %g", got, want)
	}
	if !math.IsInf(b.StdErr(0.2, 0), 1) {
		t.Error("no test rows: the SE should be infinite")
	}
}

// The three kinds agree where they describe the same model: the binary model
// as a finite one has the same D_max and, at D, a global optimum at least
// Proposition 2's (binary-output privatizers are a subset of all).
func TestKindsAgree(t *testing.T) {
	ctx := context.Background()
	b := NewBinary(mip.PaperBinary())
	f := NewFinite(mip.PaperBinary().Finite())
	if b.DMax() != f.DMax() || b.Adversaries() != f.Adversaries() {
		t.Errorf("D_max %g vs %g", b.DMax(), f.DMax())
	}
	ob, err := b.Optimum(ctx, 0.1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	of, err := f.Optimum(ctx, 0.1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if of.MinAdv < ob.MinAdv-1e-9 {
		t.Errorf("global optimum %g below Proposition 2's %g", of.MinAdv, ob.MinAdv)
	}
	if _, err := f.Dataset(rand.New(rand.NewPCG(1, 2)), 10); !errors.Is(err, ErrUnsupported) {
		t.Errorf("finite Dataset: %v", err)
	}
	net := nettest.ConstantNet(0.9, 0.8)
	mlp, _ := net.MLP()
	k, _ := bayes.FromNetwork(mlp.Network(net.Inputs))
	if _, err := f.Certify(k, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("finite Certify: %v", err)
	}
	c, err := b.Certify(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := mip.Privatizer{S0: 0.9, S1: 0.8}
	if !scalar.EqualWithinAbs(c.Recon, b.M.ReconLoss(s), 1e-12) {
		t.Errorf("binary certificate recon %g, want %g", c.Recon, b.M.ReconLoss(s))
	}
	// Proposition 1 at D on the Gaussian model, bracketed.
	g := NewGauss(gauss.Paper())
	og, err := g.Optimum(ctx, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if og.Class != "linear-gaussian" || og.Best == nil || og.UpperBound == nil || *og.UpperBound < og.Best.MinAdv || og.Best.MinAdv < og.MinAdv-1e-12 {
		t.Errorf("Gaussian optimum %+v", og)
	}
	ds, err := g.Dataset(rand.New(rand.NewPCG(1, 2)), 100)
	if err != nil || len(ds.X) != 100 || len(ds.Z) != 2 {
		t.Errorf("Gaussian dataset: %v", err)
	}
}

func TestParseRejects(t *testing.T) {
	for _, c := range []struct {
		k    Kind
		body string
	}{{Binary, `{"p": 2}`}, {Gauss, `{}`}, {Finite, `[]`}, {"poisson", `{}`}} {
		if _, err := Parse(c.k, []byte(c.body)); !errors.Is(err, ErrConfig) {
			t.Errorf("%s %s: %v", c.k, c.body, err)
		}
	}
	if _, err := Paper(Finite); err == nil {
		t.Error("finite has no paper model")
	}
}

// A file no kind accepts gets one parser's error: the kind its keys point
// to, or the JSON's own, never three at once.
func TestDetectOneError(t *testing.T) {
	for _, c := range []struct{ body, want, not string }{
		{`{"p": 2, "q_y": 0.2, "q_z": [0.3]}`, `not a valid binary model: field "p" = 2`, "gauss"},
		{`{"names": ["X"]}`, "not a valid gauss model", "binary"},
		{`{"prior": [1], "reconstructor": {}}`, "not a valid finite model", "gauss"},
		{`{"zzz": 1}`, "not a model file", "allowed"},
		{"\uFEFF{}", "byte order mark", "binary"},
		{`garbage`, "malformed JSON", "gauss"},
	} {
		_, err := Detect([]byte(c.body))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) ||
			strings.Contains(err.Error(), "invalid configuration") {
			t.Errorf("%s: got %v, want one error containing %q", c.body, err, c.want)
		}
	}
}
