package gauss

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestCommittedOnPaper: every committed mechanism decodes and applies to
// the paper's model, with the losses certified when it was found (the
// labels method's by mmds verify of that run, the numbers docs/learn.md
// prints; the optimum search's by KernelLosses in mmds gauss --optimum).
func TestCommittedOnPaper(t *testing.T) {
	m := Paper()
	got := m.Committed()
	want := []struct{ recon, minAdv float64 }{ // in file order
		{1.922569011908697, 6.277239340210034},
		{3.8398954907795977, 8.482477332729811},
		// the optimum search's kernels (mmds gauss --optimum), with the
		// losses it certified them at
		{0.6003095231610435, 3.439104128496329},
		{1.1956879894562848, 4.9906309592419555},
		{1.9894827948501455, 6.42855821860959},
		{2.783275792707557, 7.513595734129898},
		{3.577072773575712, 8.301832224516398},
		{4.3708627916851555, 8.848983840145307},
	}
	if len(got) != len(want) {
		t.Fatalf("%d committed mechanisms, want %d", len(got), len(want))
	}
	for i, k := range got {
		if !scalar.EqualWithinRel(k.Recon, want[i].recon, 1e-12) || !scalar.EqualWithinRel(k.MinAdv, want[i].minAdv, 1e-12) || !(k.Err > 0 && k.Err < 1e-4) {
			t.Errorf("%s: losses %v ± %g, want %v", k.Source, k.Losses, k.Err, want[i])
		}
	}
	// The paper's model with X shifted and scaled (x ↦ a + s·x) is the same
	// problem, its losses times s²: the committed kernels apply there moved
	// with X as well as stored, or a privatizer that only moves one would
	// pass for a finding.
	moves := []struct{ shift, scale float64 }{{0.5, 1}, {7, 0.25}, {-3, 1}, {0, 2}}
	if !slow {
		moves = moves[:2] // a shift, and a shift with a scale
	}
	for _, tc := range moves {
		c := PaperConfig()
		c.Mean[0] = tc.shift + tc.scale*c.Mean[0]
		c.Var[0] *= tc.scale * tc.scale
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Committed()
		for i, w := range want {
			found := false
			for _, k := range got {
				s2 := tc.scale * tc.scale
				found = found || scalar.EqualWithinRel(k.Recon, s2*w.recon, 1e-9) && scalar.EqualWithinRel(k.MinAdv, s2*w.minAdv, 1e-9)
			}
			if !found {
				t.Errorf("X ↦ %g + %g·X: no committed mechanism with the losses of kernel %d times %g: %v", tc.shift, tc.scale, i, tc.scale*tc.scale, got)
			}
		}
	}
}

// TestBestKnown: the best known mechanism at D meets D, is never below the
// closed-form envelope, and its losses are those m.Losses computes for its
// mechanism (a committed kernel alone or time-shared), an independent
// evaluation; it does not decrease with D.
func TestBestKnown(t *testing.T) {
	m := Paper()
	pts := m.Committed()
	prev := 0.0
	for _, d := range []float64{0, 0.5, 1.5, 1.9233, 2.5, 3.8417, 4.5, 5.5, 5.76, 7} {
		k, err := m.BestKnown(d, pts)
		if err != nil {
			t.Fatal(err)
		}
		env, _ := m.BestAchievable(d)
		l, err := m.Losses(k.Mechanism)
		if err != nil {
			t.Fatalf("D = %g: %v", d, err)
		}
		switch {
		case k.Recon > d:
			t.Errorf("D = %g: best known %s has L_R = %g", d, k.Source, k.Recon)
		case k.MinAdv < env.MinAdv:
			t.Errorf("D = %g: best known %g below the envelope %g", d, k.MinAdv, env.MinAdv)
		case !scalar.EqualWithinAbs(l.MinAdv, k.MinAdv, 1e-9*k.MinAdv+k.Err):
			t.Errorf("D = %g: %s: losses %v, m.Losses of its mechanism %v", d, k.Source, k.Losses, l)
		case k.MinAdv < prev:
			t.Errorf("D = %g: best known %g below the one at a smaller D (%g)", d, k.MinAdv, prev)
		}
		prev = k.MinAdv
	}
	// At the threshold a committed kernel was found for, it is the best
	// known: it beats the closed forms there.
	k, _ := m.BestKnown(1.9233, pts)
	if env, _ := m.BestAchievable(1.9233); !(k.MinAdv >= 6.2772 && env.MinAdv < 6.24) {
		t.Errorf("D = 1.9233: best known %g (%s), envelope %g", k.MinAdv, k.Source, env.MinAdv)
	}
}
