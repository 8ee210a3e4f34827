package bayes

import (
	"fmt"
	"math"
	"slices"

	"github.com/mmds-project/mmds/internal/stdnormal"
	"github.com/mmds-project/mmds/network"
)

// Privatizer is a privatizer k(x, r) whose noise input r ~ N(0,1) is
// independent of X and of every side variable (Algorithm 1: r_j is "an
// independent noise source"). For the Gaussian model the release is
// F = k(X, R); for the binary model k is a probability and the release is
// F ~ Bernoulli(k(X, R)).
//
// K alone is enough: tests pass analytic functions. Kinks and
// PiecewiseLinear let the integrals over r be exact for a ReLU network.
type Privatizer struct {
	// K returns k(x, r). It must be deterministic and safe for concurrent
	// use.
	K func(x, r float64) float64
	// Kinks, if not nil, appends to dst the noise values r at which k(x, ·)
	// is not smooth (for a ReLU network, where a hidden unit switches). It
	// may append values in any order, duplicates, and values far out.
	Kinks func(x float64, dst []float64) []float64
	// PiecewiseLinear reports that k(x, ·) is affine between consecutive
	// kinks and beyond the outermost ones (a ReLU network with identity
	// output). Profiles are then exact; otherwise k(x, ·) is sampled on a
	// grid of step RStep and interpolated linearly.
	PiecewiseLinear bool
	// Faces, if not nil, returns the faces of a box on which k is affine,
	// covering it (a network with identity and ReLU activations), or an
	// error wrapping network.ErrTooComplex past maxFaces. The Gaussian
	// certificate needs it.
	Faces func(box network.Box, maxFaces int) ([]network.Face, error)
	// Rounding, when not nil, collects the forward error bound of every
	// evaluation of K (set by FromNetwork: a runtime's k, in float32 or in
	// float64 summed in another order, is within it of K's).
	Rounding *network.Rounding
}

// FromNetwork returns the privatizer computed by network n (package
// network), the one place a network becomes a Privatizer: K evaluates n
// with its inputs in the order n declares, Kinks are where its ReLU units
// switch, and PiecewiseLinear is n's. K also records the forward error bound
// δ(x, r) of every evaluation in Rounding (see network.Network.EvalBound),
// in both precisions; an evaluation beyond the precision's range returns
// NaN, which the certificates refuse, and leaves its error in Rounding.
func FromNetwork(n *network.Network) (Privatizer, error) {
	if err := n.Validate(); err != nil {
		return Privatizer{}, fmt.Errorf("bayes: %w", err)
	}
	if n.XValues() > 0 || n.Categorical() {
		return Privatizer{}, fmt.Errorf("bayes: %w: network %s: a one-hot x or a softmax release is a finite X's privatizer (privatizer.CategoricalChannel), not a k(x, r) of a real x", network.ErrInput, n.Name)
	}
	k := Privatizer{Kinks: n.Kinks, PiecewiseLinear: n.PiecewiseLinear(), Rounding: new(network.Rounding)}
	if k.PiecewiseLinear {
		k.Faces = n.Faces
	}
	k.K = n.Tracked(k.Rounding)
	return k, nil
}

// profile is k(x, ·) for one x as a continuous piecewise-linear function of r:
// nodes r[0] < … < r[n−1] (n ≥ 2) with values f, continued beyond both ends
// with the slopes of the end segments. r[lo] = −rRow and r[hi] = rRow are
// nodes.
type profile struct {
	r, f   []float64
	lo, hi int
}

// Node ranges of profiles.
const (
	// kinkCut: kinks beyond ±12 are dropped (P(|R| > 12) ≈ 4e-33), so a
	// piecewise-linear profile is exact wherever R has mass.
	kinkCut = 12
	// gridCut: a privatizer that is not piecewise linear is sampled on
	// [−8, 8] (P(|R| > 8) ≈ 1.2e-15) and continued linearly beyond.
	gridCut = 8
)

// profileOpts sets how profiles are built.
type profileOpts struct {
	// rRow: binned rows (binning.fill) integrate over [−rRow, rRow] and put
	// the mass beyond at the end values.
	rRow float64
	// rStep is the grid step for privatizers that are not piecewise linear.
	rStep float64
}

// build fills p with k(x, ·). For a piecewise-linear privatizer the nodes are
// its kinks in (−12, 12) and ±rRow, so p equals k(x, ·) wherever R has mass;
// otherwise they are also a uniform grid of step rStep on [−8, 8].
func (k *Privatizer) build(x float64, o profileOpts, p *profile, scratch []float64) ([]float64, error) {
	r := scratch[:0]
	if k.Kinks != nil {
		r = k.Kinks(x, r)
		n := 0
		for _, v := range r {
			if v > -kinkCut && v < kinkCut { // also drops NaN
				r[n] = v
				n++
			}
		}
		r = r[:n]
	}
	r = append(r, -o.rRow, o.rRow)
	if !k.PiecewiseLinear {
		steps := int(math.Ceil(2 * gridCut / o.rStep))
		for i := 0; i <= steps; i++ {
			r = append(r, -gridCut+2*gridCut*float64(i)/float64(steps))
		}
	}
	slices.Sort(r)
	// Drop nodes too close to their predecessor to give a usable slope,
	// keeping ±rRow.
	n := 1
	for _, v := range r[1:] {
		switch {
		case v-r[n-1] > 1e-12*(1+math.Abs(v)):
			r[n] = v
			n++
		case v == -o.rRow || v == o.rRow:
			r[n-1] = v
		}
	}
	r = r[:n]
	p.r = append(p.r[:0], r...)
	p.lo, _ = slices.BinarySearch(p.r, -o.rRow)
	p.hi, _ = slices.BinarySearch(p.r, o.rRow)
	p.f = p.f[:0]
	for _, v := range p.r {
		f := k.K(x, v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return r, fmt.Errorf("bayes: privatizer k(%g, %g) = %v: must be finite", x, v, f)
		}
		p.f = append(p.f, f)
	}
	return r, nil
}

// segments calls fn for every linear piece of p: r in (ra, rb) with
// f(r) = alpha + beta·r; the first piece starts at −Inf, the last ends at +Inf.
func (p *profile) segments(fn func(ra, rb, alpha, beta float64)) {
	n := len(p.r)
	b := p.slope(0)
	fn(math.Inf(-1), p.r[0], p.f[0]-b*p.r[0], b)
	p.inner(fn)
	b = p.slope(n - 2)
	fn(p.r[n-1], math.Inf(1), p.f[n-1]-b*p.r[n-1], b)
}

// inner calls fn for the pieces between the first and the last node.
func (p *profile) inner(fn func(ra, rb, alpha, beta float64)) {
	for i := 0; i+1 < len(p.r); i++ {
		b := p.slope(i)
		fn(p.r[i], p.r[i+1], p.f[i]-b*p.r[i], b)
	}
}

func (p *profile) slope(i int) float64 { return (p.f[i+1] - p.f[i]) / (p.r[i+1] - p.r[i]) }

// moments returns E_r[k], E_r[k·R] and E_r[k²] over R ~ N(0,1) for the
// profile, exactly (closed forms of segMoments on each linear piece).
func (p *profile) moments() (e, er, e2 float64) {
	p.segments(func(ra, rb, a, b float64) {
		m0, m1, m2 := stdnormal.Moments(ra, rb)
		e += a*m0 + b*m1
		er += a*m1 + b*m2
		e2 += a*a*m0 + 2*a*b*m1 + b*b*m2
	})
	return
}
