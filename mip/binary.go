package mip

import (
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/sweep"
)

// Binary is the binary model of Section III-B: X ~ Bernoulli(P), the
// reconstructor's side information Y = BSC(QY)(X), and one adversary per
// entry of QZ with Z_i = BSC(QZ[i])(X).
type Binary struct {
	P  float64   // P(X = 1)
	QY float64   // crossover probability of the reconstructor's channel
	QZ []float64 // crossover probability of each adversary's channel (K ≥ 1)
}

// MaxAdversaries bounds K in every model file and on the command line, as
// the finite model bounds its alphabets: a typo (or a list pasted twice)
// cannot ask for a sweep of 10⁵ adversaries that runs for hours in
// gigabytes.
const MaxAdversaries = 64

// PaperBinary returns the paper's binary setup (Section V-B): p = 0.54,
// q_Y = 0.2 and a single adversary with q_Z = 0.44.
func PaperBinary() Binary {
	return Binary{P: 0.54, QY: 0.2, QZ: []float64{0.44}}
}

// Validate reports the first parameter outside its range.
func (m Binary) Validate() error { return m.validate("p", "q_Y", "q_Z[%d]", 1) }

// validate is Validate with the parameters' names: p, q_Y, and q_Z[i]'s
// format, its index counted from first.
func (m Binary) validate(p, qy, qz string, first int) error {
	if err := checkProb(p, m.P); err != nil {
		return err
	}
	if err := checkProb(qy, m.QY); err != nil {
		return err
	}
	if len(m.QZ) == 0 {
		return fmt.Errorf("q_Z: need at least one adversary")
	}
	if len(m.QZ) > MaxAdversaries {
		return fmt.Errorf("q_Z: %d adversaries: at most %d", len(m.QZ), MaxAdversaries)
	}
	for i, q := range m.QZ {
		if err := checkProb(fmt.Sprintf(qz, i+first), q); err != nil {
			return err
		}
	}
	return nil
}

func checkProb(name string, v float64) error {
	if math.IsNaN(v) || v < 0 || v > 1 {
		return fmt.Errorf("%s = %v: must be a probability in [0, 1]", name, v)
	}
	return nil
}

// Privatizer is a binary-output privatizer: S0 = P(F=0|X=0), S1 = P(F=1|X=1).
type Privatizer struct{ S0, S1 float64 }

// affine is c + a0·s0 + a1·s1.
type affine struct{ c, a0, a1 float64 }

func (t affine) at(s Privatizer) float64 { return t.c + t.a0*s.S0 + t.a1*s.S1 }

// cell holds, for one observation (f, y), the two joint probabilities
// cell[x] = P(X=x, F=f, Y=y) as affine functions of (s0, s1). The MAP
// observer errs with probability min(cell[0], cell[1]) in that cell.
type cell [2]affine

// cells returns the four cells (f, y) ∈ {0,1}² of an observer whose side
// information is X through a BSC with crossover q (Appendix B).
func (m Binary) cells(q float64) [4]cell {
	var out [4]cell
	pi := [2]float64{1 - m.P, m.P}
	for f := 0; f < 2; f++ {
		for y := 0; y < 2; y++ {
			var c cell
			for x := 0; x < 2; x++ {
				w := pi[x] * bsc(q, x, y)
				c[x] = privTerm(x, f, w)
			}
			out[2*f+y] = c
		}
	}
	return out
}

// bsc is P(Y=y | X=x) for a binary symmetric channel with crossover q.
func bsc(q float64, x, y int) float64 {
	if x == y {
		return 1 - q
	}
	return q
}

// privTerm is w·P(F=f|X=x) as an affine function of (s0, s1).
func privTerm(x, f int, w float64) affine {
	switch {
	case x == 0 && f == 0: // s0
		return affine{a0: w}
	case x == 0 && f == 1: // 1 − s0
		return affine{c: w, a0: -w}
	case x == 1 && f == 1: // s1
		return affine{a1: w}
	default: // x == 1, f == 0: 1 − s1
		return affine{c: w, a1: -w}
	}
}

// MAPLoss is the exact 0-1 loss of the MAP estimator of X from (F, V), where
// V = BSC(q)(X) and F is released by privatizer s (Appendix B).
func (m Binary) MAPLoss(s Privatizer, q float64) float64 {
	var sum float64
	for _, c := range m.cells(q) {
		sum += math.Min(c[0].at(s), c[1].at(s))
	}
	return sum
}

// ReconLoss is L_recon(s0, s1), the reconstructor's MAP error.
func (m Binary) ReconLoss(s Privatizer) float64 { return m.MAPLoss(s, m.QY) }

// AdvLosses returns L_adv,i(s0, s1) for every adversary.
func (m Binary) AdvLosses(s Privatizer) []float64 {
	return each(m.QZ, func(q float64) float64 { return m.MAPLoss(s, q) })
}

// SideOnlyError is the MAP error of X from V = BSC(q)(X) alone: the loss
// every observer saturates at when F is independent of X.
func (m Binary) SideOnlyError(q float64) float64 {
	return math.Min((1-m.P)*(1-q), m.P*q) + math.Min((1-m.P)*q, m.P*(1-q))
}

// DMax is the reconstructor's side-information-only error: for D ≥ DMax the
// distortion constraint is slack for every privatizer.
func (m Binary) DMax() float64 { return m.SideOnlyError(m.QY) }

// AdvSaturation returns each adversary's side-information-only error, the
// adversarial losses of the optimum for D ≥ DMax.
func (m Binary) AdvSaturation() []float64 {
	return each(m.QZ, func(q float64) float64 { return m.SideOnlyError(q) })
}

// DefaultSweep is the paper's sweep for the binary model (Section V-B): 30
// evenly spaced thresholds from 0.0025 to D_max (q_Y = 0.2 on the paper's
// setup). When D_max < 0.0025 it starts at D_max; when D_max = 0 it is the
// single point D = 0.
func (m Binary) DefaultSweep() sweep.Spec {
	dmax := m.DMax()
	if dmax == 0 {
		return sweep.Spec{N: 1}
	}
	return sweep.Spec{D0: math.Min(0.0025, dmax), D1: dmax, N: 30}
}
