package verify

import (
	"math"
	"strings"
	"testing"
)

// Attack: a certificate whose minimum adversarial loss (loss.Min makes it
// NaN when any adversary's is, "so that a broken loss can never look like
// privacy"), optimum or gap tolerance is NaN has a NaN gap, and "gap >
// AdvTol" is false for NaN: the point passed with no number behind it. A
// gap that is not at most its tolerance fails.
func TestVerdictNaNGapFails(t *testing.T) {
	ok := Assessment{D: 0.1, Recon: 0.1, MinAdv: 0.3, Optimum: 0.3, BandLo: 0.09, BandHi: 0.11, AdvTol: 0.01, QuadTol: 1e-3}
	if pass, v := Verdict(ok); !pass {
		t.Fatalf("the honest point: %s", v)
	}
	nan := math.NaN()
	for _, c := range []struct {
		name string
		edit func(*Assessment)
	}{
		{"min adv NaN", func(a *Assessment) { a.MinAdv = nan }},
		{"optimum NaN", func(a *Assessment) { a.Optimum = nan }},
		{"tolerance NaN", func(a *Assessment) { a.AdvTol = nan }},
	} {
		a := ok
		c.edit(&a)
		pass, v := Verdict(a)
		if pass || !strings.Contains(v, "gap NaN") && !strings.Contains(v, "> NaN") {
			t.Errorf("%s: pass %v, %q: want a fail that names the gap", c.name, pass, v)
		}
	}
}
