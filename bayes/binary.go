package bayes

import (
	"fmt"
	"github.com/mmds-project/mmds/loss"
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/internal/stdnormal"
	"github.com/mmds-project/mmds/mip"
)

// BinaryQuad sets the quadrature over the noise r of the binary
// certificate. The zero value of a field means the default beside it.
type BinaryQuad struct {
	// Levels is the number of refinements reported; the Gauss–Legendre node
	// count per panel doubles from one to the next (default 3).
	Levels int
	// Nodes is the node count per panel at the first level (default 8).
	Nodes int
	// RCut: panels cover [−RCut, RCut]; beyond, k is taken constant at its
	// value at ±RCut (default 9; P(|R| > 9) ≈ 2.3e-19).
	RCut float64
	// Panel is the largest panel width (default 1, a standard deviation of R).
	Panel float64
}

func (q BinaryQuad) withDefaults() BinaryQuad {
	if q.Levels == 0 {
		q.Levels = 3
	}
	if q.Nodes == 0 {
		q.Nodes = 8
	}
	if q.RCut == 0 {
		q.RCut = 9
	}
	if q.Panel == 0 {
		q.Panel = 1
	}
	return q
}

func (q BinaryQuad) validate() error {
	switch {
	case q.Levels < 1 || q.Levels > 8:
		return fmt.Errorf("bayes: BinaryQuad.Levels = %d: must be in [1, 8]", q.Levels)
	case q.Nodes < 1 || q.Nodes<<(q.Levels-1) > 1024:
		return fmt.Errorf("bayes: BinaryQuad.Nodes = %d: must be ≥ 1 with at most 1024 nodes at the last level", q.Nodes)
	case !(q.RCut >= 4) || math.IsInf(q.RCut, 0):
		return fmt.Errorf("bayes: BinaryQuad.RCut = %g: must be finite and ≥ 4", q.RCut)
	case !(q.Panel > 0) || q.Panel > q.RCut:
		return fmt.Errorf("bayes: BinaryQuad.Panel = %g: must be in (0, RCut]", q.Panel)
	}
	return nil
}

// BinaryLevel is one refinement of the binary quadrature.
type BinaryLevel struct {
	Nodes int     `json:"nodes"` // Gauss–Legendre nodes per panel
	S0    float64 `json:"s0"`
	S1    float64 `json:"s1"`
}

// BinaryAnalysis is the exact analysis of a binary privatizer: the
// mechanism it releases, P(F = 1 | X = x) = E_R[k(x, R)], as the pair
// s0 = 1 − E_R[k(0, R)], s1 = E_R[k(1, R)] of Section III-B, and the exact MAP
// losses of that pair (Appendix B, mip.Binary.MAPLoss).
type BinaryAnalysis struct {
	S0     float64       `json:"s0"`
	S1     float64       `json:"s1"`
	Levels []BinaryLevel `json:"refinement"`
	Change float64       `json:"change"` // max |Δs0|, |Δs1| between the last two levels
	loss.Losses
}

// CertifyBinary computes the mechanism a binary privatizer k releases and its
// exact MAP losses on model m. Because f ~ Bernoulli(k(x, r)) with r ~ N(0,1)
// independent of everything, P(F=1 | X=x, side) = E_R[k(x, R)]: the release
// is the binary channel (s0, s1) whatever k does with r, and the Bayes-optimal
// (MAP) reconstructor and adversaries of Appendix B see exactly that channel.
func CertifyBinary(m mip.Binary, k Privatizer, q BinaryQuad) (*BinaryAnalysis, error) {
	q = q.withDefaults()
	if err := q.validate(); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("bayes: binary model: %w", err)
	}
	if k.K == nil {
		return nil, fmt.Errorf("bayes: privatizer has no function K")
	}
	c := &BinaryAnalysis{}
	for l := 0; l < q.Levels; l++ {
		n := q.Nodes << l
		p0, err := expectR(k, 0, n, q)
		if err != nil {
			return nil, err
		}
		p1, err := expectR(k, 1, n, q)
		if err != nil {
			return nil, err
		}
		c.Levels = append(c.Levels, BinaryLevel{Nodes: n, S0: 1 - p0, S1: p1})
	}
	last := c.Levels[len(c.Levels)-1]
	c.S0, c.S1 = last.S0, last.S1
	if n := len(c.Levels); n >= 2 {
		prev := c.Levels[n-2]
		c.Change = max(math.Abs(last.S0-prev.S0), math.Abs(last.S1-prev.S1))
	}
	s := mip.Privatizer{S0: c.S0, S1: c.S1}
	c.Losses = loss.New(m.ReconLoss(s), m.AdvLosses(s))
	return c, nil
}

// expectR returns E_R[k(x, R)], R ~ N(0,1), by Gauss–Legendre quadrature with
// n nodes on every panel of [−RCut, RCut]: panels end at k(x, ·)'s kinks, so
// the integrand k(x, r)φ(r) is smooth (analytic for a sigmoid of an affine
// function) on each, and are at most Panel wide. k is constant beyond ±RCut.
func expectR(k Privatizer, x float64, n int, q BinaryQuad) (float64, error) {
	brk := []float64{-q.RCut, q.RCut}
	if k.Kinks != nil {
		for _, r := range k.Kinks(x, nil) {
			if r > -q.RCut && r < q.RCut {
				brk = append(brk, r)
			}
		}
	}
	slices.Sort(brk)
	gx, gw := make([]float64, n), make([]float64, n)
	quad.Legendre{}.FixedLocations(gx, gw, -1, 1)
	eval := func(r float64) (float64, error) {
		v := k.K(x, r)
		if !(v >= 0 && v <= 1) {
			return 0, fmt.Errorf("bayes: binary privatizer k(%g, %g) = %v: must be a probability in [0, 1]", x, r, v)
		}
		return v, nil
	}
	lo, err := eval(-q.RCut)
	if err != nil {
		return 0, err
	}
	hi, err := eval(q.RCut)
	if err != nil {
		return 0, err
	}
	tail := stdnormal.Mass(math.Inf(-1), -q.RCut)
	sum := tail * (lo + hi)
	for i := 0; i+1 < len(brk); i++ {
		a, b := brk[i], brk[i+1]
		if !(b > a) {
			continue
		}
		pieces := int(math.Ceil((b - a) / q.Panel))
		w := (b - a) / float64(pieces)
		for p := range pieces {
			pa := a + float64(p)*w
			for j, t := range gx {
				r := pa + 0.5*w*(t+1)
				v, err := eval(r)
				if err != nil {
					return 0, err
				}
				sum += 0.5 * w * gw[j] * stdnormal.Density(r) * v
			}
		}
	}
	return sum, nil
}
