package gauss_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mmds-project/mmds/gauss"
)

// The paper's Section V-A model: D_max = V_Y = Var[X|Y] = 16(1 − 0.8²) = 5.76,
// and the adversaries saturate at Var[X|Z1] = 15.8064 and Var[X|Z2] = 9.24.
func ExamplePaper() {
	m := gauss.Paper()
	fmt.Printf("V_Y = %.4f, V_i = %.4f\n", m.VarRecon(), m.VarAdv())
	// Output: V_Y = 5.7600, V_i = [15.8064 9.2400]
}

// At D = V_Y/2 the optimal SNR is 1/D' − 1/V_Y = 1/V_Y and adversary i's loss
// is D'/(1 + Q_i D').
func ExampleModel_Optimum() {
	m := gauss.Paper()
	p, _ := m.Optimum(m.VarRecon() / 2)
	fmt.Printf("D' = %.2f, SNR = %.4f, adversary losses %.4f, min %.4f (adversary %d)\n",
		p.DEff, p.SNR, p.Adv, p.MinAdv, p.MinAdvIndex+1)
	// By hand: 1/(1/15.8064 + 1/2.88 − 1/5.76) = 1/0.236877 = 4.2216 and
	// 1/(1/9.24 + 1/2.88 − 1/5.76) = 1/0.281836 = 3.5482.
	// Output: D' = 2.88, SNR = 0.1736, adversary losses [4.2216 3.5482], min 3.5482 (adversary 2)
}

// Var[X | S] for the side sets the config lists as coalitions, here
// (Z1, Z2) and (Y, Z1, Z2).
func ExampleModel_VarCoalitions() {
	m := gauss.Paper()
	fmt.Printf("Var[X|%v] = %.4f\n", m.Coalitions()[0], m.VarCoalitions()[0])
	// Output: Var[X|[Z1 Z2]] = 9.2370
}

// A config with vector side information: the reconstructor is the coalition
// Y = (Z1, Z2) of Section II; each adversary holds one share.
func ExampleParseConfig() {
	c, err := gauss.ParseConfig(strings.NewReader(`{
	  "names": ["X", "Z1", "Z2"],
	  "var": [16, 12.25, 2.25],
	  "corr": [[1, 0.11, 0.65], [0.11, 1, 0.19], [0.65, 0.19, 1]],
	  "private": "X", "reconstructor": ["Z1", "Z2"], "adversaries": [["Z1"], ["Z2"]]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := gauss.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("V_Y = %.4f, Q = %.4f\n", m.VarRecon(), m.Q())
	// Q_2 = 1/9.24 − 1/9.2370 ≈ −3.5e-5: Z2 alone is almost as good as (Z1, Z2).
	// Output: V_Y = 9.2370, Q = [-0.0450 -0.0000]
}

// Exact losses of any linear privatizer F = aX + bR + c, from the joint
// covariance of (X, F, side variables).
func ExampleLinearLosses() {
	m := gauss.Paper()
	l, _ := m.LinearLosses(gauss.Linear{A: 1, B: 2, C: 10})
	fmt.Printf("recon %.4f, adversaries %.4f\n", l.Recon, l.Adv)
	// By hand, SNR = a²/b² = 1/4: 1/(1/5.76 + 1/4) = 2.3607,
	// 1/(1/15.8064 + 1/4) = 3.1922, 1/(1/9.24 + 1/4) = 2.7915.
	// Output: recon 2.3607, adversaries [3.1922 2.7915]
}

// Seeded joint samples for a training set, with the columns by role.
func ExampleModel_Sample() {
	m := gauss.Paper()
	s := m.Sample(rand.New(rand.NewPCG(1, 2)), 10000)
	fmt.Println(len(s.Private()), len(s.Reconstructor()), len(s.Adversary(1)))
	// Output: 10000 1 1
}

func ExampleNew_invalid() {
	_, err := gauss.New(gauss.Config{Names: []string{"X", "Y"}, Var: []float64{1, -2},
		Corr: [][]float64{{1, 0}, {0, 1}}, Private: "X", Reconstructor: []string{"Y"}, Adversaries: [][]string{{}}})
	fmt.Println(err)
	// Output: var[1] (Y) = -2: a variance must be finite and > 0
}

// On the paper's setup a lattice coset F = X mod Δ gives the adversaries
// about six times Proposition 1's loss at D = 0.5; the exact optimum lies
// between that and the upper bound min_i Var[X|Z_i] = 9.24.
func ExampleModel_Bracket() {
	m := gauss.Paper()
	b, _ := m.Bracket(0.5)
	fmt.Printf("Proposition 1 %.3f, best achievable %.2f (%s), upper bound %.2f, open %v\n",
		b.MinAdv, b.Achievable.MinAdv, b.Achievable.Mechanism.Family, b.UpperBound, b.Open())
	// Output: Proposition 1 0.517, best achievable 3.06 (modulo), upper bound 9.24, open true
}

// The exact losses of any mechanism: erasure revealing X with probability
// 1/2 halves every observer's conditional variance.
func ExampleModel_Losses() {
	m := gauss.Paper()
	l, _ := m.Losses(gauss.Erasure(0.5))
	fmt.Printf("recon %.2f, adversaries %.4f\n", l.Recon, l.Adv)
	// Output: recon 2.88, adversaries [7.9032 4.6200]
}
