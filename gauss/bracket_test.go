package gauss

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// bracketModel is a random model for the bracket property test: d ≥ 4
// variables (X first), covariance S·G·Gᵀ·S with G of rank r ≤ d (rank
// deficient when r < d) and S a diagonal of scales 10^[lo, hi], one side
// variable duplicated exactly (its row and column copied), a reconstructor
// side set, two random adversaries and one whose side information equals
// the reconstructor's (its variables in another order, or the duplicate in
// place of the original).
type bracketModel struct {
	m      *Model
	dupAdv int // index of the adversary with the reconstructor's information
}

func newBracketModel(t *testing.T, rng *rand.Rand, lo, hi float64) bracketModel {
	t.Helper()
	for {
		d := 4 + rng.IntN(3)
		r := 1 + rng.IntN(d) // rank of G before the duplicate
		g := make([][]float64, d)
		for i := range g {
			g[i] = make([]float64, r)
			for j := range g[i] {
				g[i][j] = rng.NormFloat64()
			}
		}
		dup, src := d-1, 1+rng.IntN(d-2) // variable dup copies src (both side variables)
		g[dup] = g[src]
		scale := make([]float64, d)
		for i := range scale {
			scale[i] = math.Pow(10, lo+(hi-lo)*rng.Float64())
		}
		scale[dup] = scale[src]
		names := make([]string, d)
		cov := make([][]float64, d)
		for i := range cov {
			names[i] = string(rune('A' + i))
			cov[i] = make([]float64, d)
		}
		for i := range cov {
			for j := 0; j <= i; j++ {
				v := dot(g[i], g[j]) * scale[i] * scale[j]
				cov[i][j], cov[j][i] = v, v
			}
		}
		side := func() []string {
			var s []string
			for _, j := range rng.Perm(d - 1)[:1+rng.IntN(d-2)] {
				s = append(s, names[j+1])
			}
			return s
		}
		recon := side()
		same := append([]string(nil), recon...)
		if rng.IntN(2) == 0 && len(same) > 1 {
			same[0], same[len(same)-1] = same[len(same)-1], same[0]
		} else {
			for i, n := range same {
				switch n {
				case names[src]:
					same[i] = names[dup]
				case names[dup]:
					same[i] = names[src]
				}
			}
			same = append(same, same[0])[1:] // rotate: another order
		}
		c := Config{Names: names, Cov: cov, Private: names[0], Reconstructor: recon,
			Adversaries: [][]string{side(), same, side()}}
		m, err := New(c)
		if err != nil {
			continue // G·Gᵀ with a zero variance, or rounding beyond the PSD tolerance
		}
		return bracketModel{m: m, dupAdv: 1}
	}
}

// TestBracketProperties: over random models, including rank-deficient
// covariances, scales from 1e-8 to 1e8 and exactly duplicated side
// variables, every bracket satisfies
//
//   - Proposition 1 ≤ best achievable ≤ upper bound (within BracketTol):
//     Proposition 1's mechanism is feasible and the upper bound is proven;
//   - the best achievable mechanism meets the constraint, L_R ≤ D, and at
//     D = 0 < V_Y it determines X (the only mechanisms with L_R = 0);
//   - State is closed exactly when the ends agree within BracketTol;
//   - the adversary with the reconstructor's side information has Q_i = 0,
//     and with it alone the bracket closes on the exact optimum D'.
func TestBracketProperties(t *testing.T) {
	scales := [][2]float64{{0, 0}, {-8, -8}, {8, 8}, {-8, 8}, {-4, 4}}
	n := 20
	switch {
	case testing.Short():
		n = 5
	case !slow:
		n = 10 // every scale twice
	}
	rng := rand.New(rand.NewPCG(26, 6))
	for trial := range n {
		sc := scales[trial%len(scales)]
		bm := newBracketModel(t, rng, sc[0], sc[1])
		m := bm.m
		if q := m.Q()[bm.dupAdv]; q != 0 {
			t.Errorf("trial %d: adversary with the reconstructor's side information %v: Q = %g, want 0",
				trial, m.Adversary(bm.dupAdv), q)
		}
		checkBrackets(t, m, trial)
		// The same model with only that adversary: Q = 0, optimum D'.
		c := m.Config()
		c.Adversaries = c.Adversaries[bm.dupAdv : bm.dupAdv+1]
		solo, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		vy := solo.VarRecon()
		for _, f := range []float64{0, 1e-9, 0.01, 0.5, 0.999, 1, 3} {
			b, err := solo.Bracket(f * vy)
			if err != nil {
				t.Fatalf("trial %d, D = %g·V_Y: %v", trial, f, err)
			}
			if b.State() != BracketClosed || !withinTol(b.UpperBound, b.DEff) || !withinTol(b.Achievable.MinAdv, b.DEff) {
				t.Errorf("trial %d, D = %g·V_Y = %g: bracket [%g, %g] %v, want closed at D' = %g",
					trial, f, f*vy, b.Achievable.MinAdv, b.UpperBound, b.State(), b.DEff)
			}
		}
	}
}

// withinTol reports whether a and b agree within BracketTol (relative,
// absolute below the smallest normal float64).
func withinTol(a, b float64) bool {
	return math.Abs(a-b) <= math.Max(BracketTol*math.Max(math.Abs(a), math.Abs(b)), minNormal)
}

func checkBrackets(t *testing.T, m *Model, trial int) {
	t.Helper()
	vy := m.VarRecon()
	ds := []float64{0, math.SmallestNonzeroFloat64, 1e-300, math.Inf(1)}
	for _, f := range []float64{1e-12, 1e-6, 0.01, 0.3, 0.7, 0.99, 1, 2} {
		ds = append(ds, f*vy)
	}
	for _, d := range ds {
		b, err := m.Bracket(d)
		if err != nil {
			t.Errorf("trial %d, D = %g (V_Y = %g): %v", trial, d, vy, err)
			continue
		}
		if _, err := m.Check(b.Prop1Optimum); err != nil {
			t.Errorf("trial %d: %v", trial, err)
		}
		a, u := b.Achievable, b.UpperBound
		tol := math.Max(BracketTol*math.Max(a.MinAdv, u), minNormal)
		switch {
		case b.MinAdv > a.MinAdv+tol:
			t.Errorf("trial %d, D = %g: Proposition 1 %g above the best achievable %g", trial, d, b.MinAdv, a.MinAdv)
		case a.MinAdv > u+tol:
			t.Errorf("trial %d, D = %g: best achievable %g (%v) above the upper bound %g", trial, d, a.MinAdv, a.Mechanism, u)
		case a.Recon > d*(1+1e-12):
			t.Errorf("trial %d, D = %g: best achievable violates the constraint: L_R = %g (%v)", trial, d, a.Recon, a.Mechanism)
		case d == 0 && vy > 0 && (a.Recon != 0 || !a.Mechanism.revealsX()):
			t.Errorf("trial %d, D = 0 < V_Y = %g: best achievable %v with L_R = %g, want F = X", trial, vy, a.Mechanism, a.Recon)
		}
		if closed := b.State() == BracketClosed; closed != (math.Abs(u-a.MinAdv) <= tol) || b.Open() == closed {
			t.Errorf("trial %d, D = %g: [%g, %g] state %v, Open() %v", trial, d, a.MinAdv, u, b.State(), b.Open())
		}
	}
}

// TestBracketIssueExample is the model whose D = 0 row used to report a
// modulo mechanism (reconstructor loss underflowed to 0) achieving 0.00234
// above the upper bound 0, and yet "closed".
func TestBracketIssueExample(t *testing.T) {
	c, err := ParseConfig(strings.NewReader(`{"names":["X","Y","Z1","Z2"],
		"cov":[[1,1,1,1],[1,2,1,1],[1,1,5.01,-3],[1,1,-3,5.01]],"private":"X",
		"reconstructor":["Z1","Z2"],"adversaries":[["Z1"],["Z2"],["Y"]]}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Bracket(0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Achievable.MinAdv != 0 || b.UpperBound != 0 || b.State() != BracketClosed || !b.Achievable.Mechanism.revealsX() {
		t.Errorf("D = 0: [%g (%v), %g] %v, want [0 (F = X), 0] closed",
			b.Achievable.MinAdv, b.Achievable.Mechanism, b.UpperBound, b.State())
	}
	// X mod Δ with √V_Y/Δ ≈ 0.013: the loss underflows, and is rounded up.
	l, err := m.Losses(Modulo(5.5))
	if err != nil {
		t.Fatal(err)
	}
	if !(l.Recon > 0) {
		t.Errorf("modulo Δ = 5.5: reconstructor loss %g, want > 0 (F does not determine X)", l.Recon)
	}
	checkBrackets(t, m, 0)
}

// TestBracketState: the enum's text form, and the classification at the
// tolerance's edges (an inconsistent bracket is an error of Model.Bracket,
// so it is exercised directly).
func TestBracketState(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   BracketState
	}{
		{0, 0, BracketClosed},
		{1, 1 + 0.5*BracketTol, BracketClosed},
		{1 + 0.5*BracketTol, 1, BracketClosed},
		{1, 1 + 2*BracketTol, BracketOpen},
		{0, 1e-300, BracketOpen},
		{0, 1e-310, BracketClosed}, // subnormal: below the absolute floor
		{1 + 2*BracketTol, 1, BracketInconsistent},
		{0.00234, 0, BracketInconsistent},
	}
	for _, c := range cases {
		b := Bracket{Achievable: Achievable{}, UpperBound: c.hi}
		b.Achievable.MinAdv = c.lo
		if got := b.State(); got != c.want {
			t.Errorf("[%g, %g]: %v, want %v", c.lo, c.hi, got, c.want)
		}
		if err := b.check(); (err != nil) != (c.want == BracketInconsistent) || err != nil && !errors.Is(err, ErrBracketInconsistent) {
			t.Errorf("[%g, %g]: check() = %v", c.lo, c.hi, err)
		}
	}
	for _, s := range []BracketState{BracketClosed, BracketOpen, BracketInconsistent} {
		txt, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back BracketState
		if err := back.UnmarshalText(txt); err != nil || back != s {
			t.Errorf("%v: round trip %q → %v, %v", s, txt, back, err)
		}
	}
	var s BracketState
	if err := s.UnmarshalText([]byte("OPEN")); !errors.Is(err, ErrBracketState) {
		t.Errorf("UnmarshalText(OPEN) = %v, want ErrBracketState", err)
	}
	if _, err := BracketState(7).MarshalText(); !errors.Is(err, ErrBracketState) {
		t.Errorf("MarshalText(7) = %v, want ErrBracketState", err)
	}
}
