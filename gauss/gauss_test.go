package gauss

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// Paper's Section V-A numbers, written out here independently of paper.json.
const (
	sx2, sy2, sz12, sz22     = 16.0, 0.90, 12.25, 2.25
	rXY, rXZ1, rXZ2          = 0.80, 0.11, 0.65
	rYZ1, rYZ2, rZ1Z2        = 0.23, 0.59, 0.19
	relTol                   = 1e-12
	absTol                   = 1e-12
	crossCheckRel            = 1e-9 // Proposition 1 vs. the Schur complement of the joint covariance: CheckTol
	crossCheckAbsPerVarX     = 1e-12
	monteCarloSigmaAllowance = 4.0
)

func near(a, b float64) bool { return scalar.EqualWithinAbsOrRel(a, b, absTol, relTol) }

// qRho is the paper's Proposition 1 formula for Q_i with scalar side information.
func qRho(varX, rXZ, rXY float64) float64 {
	return (rXZ*rXZ - rXY*rXY) / (varX * (1 - rXZ*rXZ) * (1 - rXY*rXY))
}

// varGivenPair is Var[X | Z1, Z2] = σ_X²(1 − R²) with the two-regressor
// coefficient of determination R² = (r1² + r2² − 2 r1 r2 r12)/(1 − r12²).
func varGivenPair(varX, r1, r2, r12 float64) float64 {
	return varX * (1 - (r1*r1+r2*r2-2*r1*r2*r12)/(1-r12*r12))
}

func TestPaperHandDerived(t *testing.T) {
	m := Paper()
	cases := []struct {
		name      string
		got, want float64
	}{
		{"Var[X]", m.VarX(), 16},
		{"V_Y = Var[X|Y]", m.VarRecon(), 16 * (1 - 0.8*0.8)}, // 5.76, not the paper's 5.69 or 0.5502
		{"V_1 = Var[X|Z1]", m.VarAdv()[0], 16 * (1 - 0.11*0.11)},
		{"V_2 = Var[X|Z2]", m.VarAdv()[1], 16 * (1 - 0.65*0.65)},
		{"Var[X|Z1,Z2]", m.VarCoalitions()[0], varGivenPair(sx2, rXZ1, rXZ2, rZ1Z2)},
		{"Q_1", m.Q()[0], qRho(sx2, rXZ1, rXY)},
		{"Q_2", m.Q()[1], qRho(sx2, rXZ2, rXY)},
	}
	for _, c := range cases {
		if !near(c.got, c.want) {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	// The paper's rounded saturation values (Section V-A): 15.81 and 9.24.
	if math.Abs(m.VarAdv()[0]-15.81) > 0.005 || math.Abs(m.VarAdv()[1]-9.24) > 0.005 {
		t.Errorf("saturation values %v do not round to the paper's 15.81, 9.24", m.VarAdv())
	}
}

func TestPaperCurveEndPoints(t *testing.T) {
	m := Paper()
	vy := 16 * (1 - 0.8*0.8)
	q1, q2 := qRho(sx2, rXZ1, rXY), qRho(sx2, rXZ2, rXY)
	cases := []struct {
		d                     float64
		dEff, snr, adv1, adv2 float64
	}{
		{0.005, 0.005, 1/0.005 - 1/vy, 0.005 / (1 + q1*0.005), 0.005 / (1 + q2*0.005)},
		{vy / 2, vy / 2, 1 / vy, (vy / 2) / (1 + q1*vy/2), (vy / 2) / (1 + q2*vy/2)},
		{vy, vy, 0, 16 * (1 - 0.11*0.11), 16 * (1 - 0.65*0.65)},
		{100, vy, 0, 16 * (1 - 0.11*0.11), 16 * (1 - 0.65*0.65)},
		{math.Inf(1), vy, 0, 16 * (1 - 0.11*0.11), 16 * (1 - 0.65*0.65)},
		{0, 0, math.Inf(1), 0, 0},
	}
	for _, c := range cases {
		p, err := m.Optimum(c.d)
		if err != nil {
			t.Fatalf("Optimum(%g): %v", c.d, err)
		}
		got := []float64{p.DEff, p.Recon, p.SNR, p.Adv[0], p.Adv[1], p.MinAdv}
		want := []float64{c.dEff, c.dEff, c.snr, c.adv1, c.adv2, math.Min(c.adv1, c.adv2)}
		for i := range got {
			if !(near(got[i], want[i]) || got[i] == want[i]) {
				t.Errorf("D = %g: field %d = %.15g, want %.15g", c.d, i, got[i], want[i])
			}
		}
	}
}

func TestDefaultSweepIsPapers(t *testing.T) {
	m := Paper()
	ds := m.DefaultSweep().Values()
	if len(ds) != 30 || ds[0] != 0.005 || !near(ds[29], 16*(1-0.8*0.8)) {
		t.Fatalf("default sweep: %d values from %g to %g, want 30 from 0.005 to 5.76", len(ds), ds[0], ds[len(ds)-1])
	}
}

func TestOptimumRejectsBadD(t *testing.T) {
	for _, d := range []float64{-1e-300, -1, math.NaN(), math.Inf(-1)} {
		if _, err := Paper().Optimum(d); err == nil {
			t.Errorf("Optimum(%g): want error", d)
		}
	}
}

// randomCov returns G Gᵀ for a d×r standard normal G, plus a diagonal offset
// when r = d: PSD of rank min(r, d), with well-spread correlations.
func randomCov(rng *rand.Rand, d, r int) *mat.SymDense {
	g := mat.NewDense(d, r, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < r; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	cov := mat.NewSymDense(d, nil)
	cov.SymOuterK(1, g)
	if r >= d {
		for i := 0; i < d; i++ {
			cov.SetSym(i, i, cov.At(i, i)+0.1)
		}
	}
	return cov
}

// schurByInverse is Σ_tt − Σ_tS Σ_SS⁻¹ Σ_St with gonum's explicit inverse:
// an independent computation for nonsingular Σ_SS.
func schurByInverse(t *testing.T, cov mat.Symmetric, target int, given []int) float64 {
	t.Helper()
	if len(given) == 0 {
		return cov.At(target, target)
	}
	k := len(given)
	ss := mat.NewDense(k, k, nil)
	st := mat.NewVecDense(k, nil)
	for i, a := range given {
		st.SetVec(i, cov.At(a, target))
		for j, b := range given {
			ss.Set(i, j, cov.At(a, b))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(ss); err != nil {
		t.Fatalf("inverse: %v", err)
	}
	var tmp mat.VecDense
	tmp.MulVec(&inv, st)
	return cov.At(target, target) - mat.Dot(st, &tmp)
}

func TestCondVarMatchesInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for trial := 0; trial < 200; trial++ {
		d := 2 + rng.IntN(5)
		cov := randomCov(rng, d, d)
		given := rng.Perm(d)[:rng.IntN(d)]
		target := -1
		for j := 0; j < d && target < 0; j++ {
			if !contains(given, j) {
				target = j
			}
		}
		got, err := CondVar(cov, target, given)
		if err != nil {
			t.Fatal(err)
		}
		want := schurByInverse(t, cov, target, given)
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-12*cov.At(target, target), 1e-9) {
			t.Errorf("trial %d: CondVar = %.15g, inverse-based = %.15g", trial, got, want)
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// randomModel builds a model over d variables (index 0 is X) with K
// adversaries and random side sets of size 1..maxSide from the covariance.
func randomModel(t *testing.T, rng *rand.Rand, cov *mat.SymDense, k, maxSide int) *Model {
	t.Helper()
	d := cov.SymmetricDim()
	names := make([]string, d)
	rows := make([][]float64, d)
	for i := range names {
		names[i] = string(rune('A' + i))
		rows[i] = make([]float64, d)
		for j := range rows[i] {
			rows[i][j] = cov.At(i, j)
		}
	}
	side := func() []string {
		n := 1 + rng.IntN(maxSide)
		out := []string{}
		for _, j := range rng.Perm(d - 1)[:n] {
			out = append(out, names[j+1])
		}
		return out
	}
	c := Config{Names: names, Cov: rows, Private: names[0], Reconstructor: side()}
	for i := 0; i < k; i++ {
		c.Adversaries = append(c.Adversaries, side())
	}
	m, err := New(c)
	if err != nil {
		t.Fatalf("random model: %v", err)
	}
	return m
}

// TestClosedFormMatchesSchurProperty is cross-check 5(a) over random PSD
// covariances: the closed form of Proposition 1 against the losses of the
// same privatizer recomputed from the joint covariance of (X, F, side).
func TestClosedFormMatchesSchurProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	fracs := []float64{0, 1e-3, 0.05, 0.3, 0.7, 0.999, 1, 2}
	for trial := 0; trial < 300; trial++ {
		k := 1 + trial%3
		maxSide := 1 + (trial/3)%3 // scalar (1) and vector (2, 3) side information
		d := maxSide + 2 + rng.IntN(2)
		rank := d
		if trial%5 == 4 {
			rank = 1 + rng.IntN(d-1) // singular but valid
		}
		m := randomModel(t, rng, randomCov(rng, d, rank), k, maxSide)
		for _, f := range fracs {
			p, err := m.Optimum(f * m.VarRecon())
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.LinearLosses(p.Privatizer())
			if err != nil {
				t.Fatal(err)
			}
			abs := crossCheckAbsPerVarX * m.VarX()
			ok := scalar.EqualWithinAbsOrRel(got.Recon, p.Recon, abs, crossCheckRel)
			for i := range got.Adv {
				ok = ok && scalar.EqualWithinAbsOrRel(got.Adv[i], p.Adv[i], abs, crossCheckRel)
			}
			if !ok {
				t.Fatalf("trial %d (K=%d, rank %d/%d, D=%g·V_Y): Schur %v/%v, closed form %v/%v",
					trial, k, rank, d, f, got.Recon, got.Adv, p.Recon, p.Adv)
			}
			if _, err := m.Check(p); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
		}
	}
}

// TestLinearLossesIndependent compares LinearLosses with an explicit-inverse
// Schur complement of the joint covariance of (X, side, F) for arbitrary
// (not optimal) privatizers.
func TestLinearLossesIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	for trial := 0; trial < 100; trial++ {
		m := randomModel(t, rng, randomCov(rng, 4, 4), 2, 2)
		p := Linear{A: rng.NormFloat64(), B: 0.1 + rng.Float64(), C: rng.NormFloat64()}
		got, err := m.LinearLosses(p)
		if err != nil {
			t.Fatal(err)
		}
		joint := JointCov(m.cov, m.PrivateIndex(), p)
		want := schurByInverse(t, joint, 0, append(slices.Clone(m.recon), 4))
		if !scalar.EqualWithinAbsOrRel(got.Recon, want, 1e-12*m.VarX(), 1e-9) {
			t.Errorf("trial %d: recon %.15g, inverse-based %.15g", trial, got.Recon, want)
		}
		// And the information form 1/(1/V_S + a²/b²) of Appendix A.
		info := 1 / (1/m.VarRecon() + p.A*p.A/(p.B*p.B))
		if !scalar.EqualWithinAbsOrRel(got.Recon, info, 1e-12*m.VarX(), 1e-9) {
			t.Errorf("trial %d: recon %.15g, 1/(1/V_Y + a²/b²) = %.15g", trial, got.Recon, info)
		}
	}
}

// TestDegenerateLimits covers the singular cases of Proposition 1's formulas:
// side information that determines X (V_Y = 0, V_i = 0, so Q_i is infinite),
// an adversary with no side information, and D = 0 (Appendix A's corner F = X).
func TestDegenerateLimits(t *testing.T) {
	// Y = X exactly (V_Y = 0), Z1 = X exactly (V_1 = 0), Z2 with ρ = 0.5.
	c := Config{
		Names: []string{"X", "Y", "Z1", "Z2"},
		Var:   []float64{4, 1, 9, 1},
		Corr: [][]float64{
			{1, 1, 1, 0.5},
			{1, 1, 1, 0.5},
			{1, 1, 1, 0.5},
			{0.5, 0.5, 0.5, 1},
		},
		Private: "X", Reconstructor: []string{"Y"}, Adversaries: [][]string{{"Z1"}, {"Z2"}, {}},
	}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if m.VarRecon() != 0 || m.VarAdv()[0] != 0 {
		t.Fatalf("V_Y = %g, V_1 = %g, want exact 0", m.VarRecon(), m.VarAdv()[0])
	}
	want := []float64{0, 4 * (1 - 0.5*0.5), 4}
	for _, d := range []float64{0, 1, math.Inf(1)} {
		p, err := m.Optimum(d)
		if err != nil {
			t.Fatal(err)
		}
		// D ≥ V_Y = 0: F independent of X; every adversary keeps its own side info.
		if p.SNR != 0 || p.Recon != 0 || !floats.EqualApprox(p.Adv, want, 1e-12) {
			t.Errorf("D = %g: SNR %g recon %g adv %v, want 0, 0, %v", d, p.SNR, p.Recon, p.Adv, want)
		}
		if _, err := m.Check(p); err != nil {
			t.Error(err)
		}
	}
	// Reconstructor Z2 instead: V_Y = 3 > 0; adversary Z1 knows X (loss 0).
	c.Reconstructor = []string{"Z2"}
	c.Adversaries = [][]string{{"Z1"}, {}}
	if m, err = New(c); err != nil {
		t.Fatal(err)
	}
	for _, d := range []float64{0, 1e-9, 1.5, 3} {
		p, _ := m.Optimum(d)
		for _, v := range append(p.Adv, p.SNR, p.A, p.B, p.MinAdv) {
			if math.IsNaN(v) {
				t.Fatalf("D = %g: NaN in %+v", d, p)
			}
		}
		if p.Adv[0] != 0 || p.MinAdv != 0 || p.MinAdvIndex != 0 {
			t.Errorf("D = %g: adversary Z1 = X must have loss 0, got %+v", d, p)
		}
		// The adversary with no side information: 1/(1/σ_X² + SNR).
		if w := 1 / (1/4.0 + p.SNR); !near(p.Adv[1], w) {
			t.Errorf("D = %g: blind adversary loss %g, want %g", d, p.Adv[1], w)
		}
	}
}

// TestWeakerAdversaryQNegative: Q_i < 0 and still 1 + Q_i D' > 0 on [0, V_Y].
func TestWeakerAdversaryQNegative(t *testing.T) {
	m := Paper()
	for i, q := range m.Q() {
		if q >= 0 {
			t.Fatalf("Q_%d = %g: the paper's adversaries are weaker than Y (ρ_XZ < ρ_XY), want < 0", i+1, q)
		}
		for _, f := range []float64{0.01, 0.5, 0.99, 1} {
			d := f * m.VarRecon()
			if 1+q*d <= 0 {
				t.Errorf("1 + Q_%d·D' = %g ≤ 0 at D' = %g", i+1, 1+q*d, d)
			}
		}
	}
}

// TestQEqualsRhoFormula: for scalar side information, Q_i = 1/V_i − 1/V_Y
// equals Proposition 1's (ρ_XZ² − ρ_XY²)/(σ_X²(1−ρ_XZ²)(1−ρ_XY²)), with the
// correlations read off random covariances.
func TestQEqualsRhoFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	for trial := 0; trial < 200; trial++ {
		cov := randomCov(rng, 3, 3)
		rows := [][]float64{{cov.At(0, 0), cov.At(0, 1), cov.At(0, 2)},
			{cov.At(1, 0), cov.At(1, 1), cov.At(1, 2)}, {cov.At(2, 0), cov.At(2, 1), cov.At(2, 2)}}
		m, err := New(Config{Names: []string{"X", "Y", "Z"}, Cov: rows, Private: "X",
			Reconstructor: []string{"Y"}, Adversaries: [][]string{{"Z"}}})
		if err != nil {
			t.Fatal(err)
		}
		rho := func(i, j int) float64 { return cov.At(i, j) / math.Sqrt(cov.At(i, i)*cov.At(j, j)) }
		want := qRho(cov.At(0, 0), rho(0, 2), rho(0, 1))
		if got := m.Q()[0]; !scalar.EqualWithinAbsOrRel(got, want, 1e-12/cov.At(0, 0), 1e-9) {
			t.Errorf("trial %d: Q = %.15g, ρ-formula %.15g", trial, got, want)
		}
	}
}
