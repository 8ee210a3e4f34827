package model

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/mip"
)

// TestSweepCurves: the figure of a sweep (SweepRequest.Plot) holds the
// optima solved: Proposition 2's and the global optimum's against
// independent sweeps of each; the Gaussian figure's curves on
// gaussPlotPoints + 1 thresholds and its three binning families.
func TestSweepCurves(t *testing.T) {
	ctx := context.Background()
	ds := []float64{0, 0.1, 0.2}
	m := mip.PaperBinary()
	var c Curves
	r := SweepRequest{D: ds, Format: report.CSV, Binary: BinarySweep{Global: true},
		Plot: func(got Curves) error { c = got; return nil }}
	var out bytes.Buffer
	if _, err := Sweep(ctx, NewBinary(m), r, &out); err != nil {
		t.Fatal(err)
	}
	opts, err := m.SweepProp2(ctx, ds, mip.DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Finite().PrepareGlobal(mip.GlobalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gl, err := g.Sweep(ctx, ds, mip.DefaultSolver())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Prop2.X) != 3 || c.Prop2.Y[2] != opts[2].MinAdv || c.Global == nil || len(c.Global.X) != 3 || c.Global.Y[1] != gl[1].MinAdv {
		t.Errorf("binary curves %+v, Proposition 2 %v, global %v", c, opts, gl)
	}
	r.Binary.Global = false
	if _, err := Sweep(ctx, NewBinary(m), r, &out); err != nil || c.Global != nil || len(c.Prop2.X) != 3 {
		t.Errorf("Proposition 2 alone: %+v (%v)", c, err)
	}
	r = SweepRequest{D: []float64{1, 2}, Format: report.JSON, Plot: func(got Curves) error { c = got; return nil }}
	if _, err := Sweep(ctx, NewGauss(gauss.Paper()), r, &out); err != nil {
		t.Fatal(err)
	}
	if gc := c.Gauss; gc == nil || len(gc.Linear.X) != gaussPlotPoints+1 || len(gc.Upper.Y) != gaussPlotPoints+1 || len(gc.Families) != 3 || gc.Searched {
		t.Errorf("Gaussian curves %+v", gc)
	}
}

// TestGaussCSVMechanismColumns: a mixture's parameters are columns of
// their own, not a description string, at full precision.
func TestGaussCSVMechanismColumns(t *testing.T) {
	lam, snr := 0.25, 1.0/3
	mix := gauss.Mechanism{Family: gauss.FamilyMixture, Parts: []gauss.Part{
		{Weight: 0.1, Mechanism: gauss.Modulo(math.Pi)},
		{Weight: 0.9, Mechanism: gauss.Mechanism{Family: gauss.FamilyErasure, Lambda: &lam}},
	}}
	if got := mechanismCells(mix); strings.Join(got, ",") != "mixture,,,,," {
		t.Errorf("mixture cells %q", got)
	}
	for _, tc := range []struct {
		mech gauss.Mechanism
		want string
	}{
		{mix.Parts[0].Mechanism, "modulo,3.141592653589793,,,,"},
		{mix.Parts[1].Mechanism, "erasure,,,,0.25,"},
		{gauss.Nested(0.1, 7), "nested,0.1,7,,,"},
		{gauss.Mechanism{Family: gauss.FamilyLinear, SNR: &snr}, "linear,,,,,0.3333333333333333"},
		{gauss.Mechanism{Family: gauss.FamilyLinear, SNRInfinite: true}, "linear,,,,,inf"},
	} {
		if got := strings.Join(mechanismCells(tc.mech), ","); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.mech, got, tc.want)
		}
	}
}
