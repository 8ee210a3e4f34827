package learn

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/internal/stdnormal"
)

// ErrFiniteNetwork is wrapped by every error about a network that is not
// the privatizer of Algorithm 1 on a finite X.
var ErrFiniteNetwork = errors.New("learn: not a finite-X privatizer network")

// Channel quadrature of FiniteChannel: panels at most channelPanel wide on
// [−channelRCut, channelRCut], Gauss–Legendre of the two orders per panel.
const (
	channelRCut   = 9
	channelPanel  = 0.5
	channelOrderA = 10
	channelOrderB = 20
)

// FiniteChannel returns the channel P(f | x) = E_R[softmax(k(one-hot x,
// R))_f], R ~ N(0, 1), of the privatizer network nw of Algorithm 1 on a
// finite X with n values (inputs x=0..x=n−1 and r; a ReLU layer, then a
// softmax layer), and errBound, a bound on every row's ℓ1 error: the ℓ1
// change between Gauss–Legendre of orders 10 and 20 on every panel
// between the kinks of the ReLU units (where the integrand is analytic in
// r), plus the mass 2Φ(−9) beyond ±9, where the integrand, in [0, 1], is
// replaced by its value at the cut. The channel returned is order 20's.
func FiniteChannel(nw Network, n int) (p [][]float64, errBound float64, err error) {
	d, err := finiteNet(nw, n)
	if err != nil {
		return nil, 0, err
	}
	tail := stdnormal.Mass(math.Inf(-1), -channelRCut)
	for x := range n {
		a := d.channelRow(x, n, channelOrderA, tail)
		b := d.channelRow(x, n, channelOrderB, tail)
		var e float64
		for f := range b {
			e += math.Abs(a[f] - b[f])
		}
		errBound = max(errBound, e+4*tail) // ℓ1 ≤ 2 per tail point
		p = append(p, b)
	}
	return p, errBound, nil
}

// finiteNet rebuilds the denseNet nw describes, checking its shape.
func finiteNet(nw Network, n int) (*denseNet, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: network %q: %s", ErrFiniteNetwork, nw.Role, fmt.Sprintf(format, args...))
	}
	if len(nw.Layers) != 2 {
		return nil, bad("%d layers, want 2", len(nw.Layers))
	}
	l1, l2 := nw.Layers[0], nw.Layers[1]
	if l1.Activation != "relu" || l2.Activation != "softmax" {
		return nil, bad("activations %q, %q: want relu, softmax", l1.Activation, l2.Activation)
	}
	if l1.In != n+1 || len(nw.Inputs) != n+1 {
		return nil, bad("%d inputs: want one-hot x (%d) and r", l1.In, n)
	}
	if l1.Out < 1 || l2.In != l1.Out || l2.Out < 2 || l2.Out > MaxLabels {
		return nil, bad("layer sizes %d→%d→%d→%d", l1.In, l1.Out, l2.In, l2.Out)
	}
	d := &denseNet{in: l1.In, hidden: l1.Out, out: l2.Out}
	for _, l := range []Layer{l1, l2} {
		if len(l.Weights) != l.Out || len(l.Bias) != l.Out {
			return nil, bad("a %d×%d layer has %d weight rows and %d biases", l.Out, l.In, len(l.Weights), len(l.Bias))
		}
	}
	w1, b1, w2, b2 := []float64{}, l1.Bias, []float64{}, l2.Bias
	for _, row := range l1.Weights {
		w1 = append(w1, row...)
	}
	for _, row := range l2.Weights {
		w2 = append(w2, row...)
	}
	if len(w1) != d.in*d.hidden || len(w2) != d.hidden*d.out {
		return nil, bad("weight rows of the wrong length")
	}
	d.params = slices.Concat(w1, b1, w2, b2)
	for _, v := range d.params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, bad("a weight is %g: want finite weights", v)
		}
	}
	return d, nil
}

// channelRow integrates softmax(k(one-hot x, r)) φ(r) over r with
// Gauss–Legendre of the given order per panel; the tails carry the value
// at ±channelRCut times their mass tail.
func (d *denseNet) channelRow(x, n, order int, tail float64) []float64 {
	w1, b1, _, _ := d.split(d.params)
	brk := []float64{-channelRCut, channelRCut}
	for j := range d.hidden {
		// Unit j's pre-activation b1 + w[x] + r·w[n] changes sign here.
		if w := w1[j*d.in+n]; w != 0 {
			if r := -(b1[j] + w1[j*d.in+x]) / w; r > -channelRCut && r < channelRCut {
				brk = append(brk, r)
			}
		}
	}
	slices.Sort(brk)
	gx, gw := make([]float64, order), make([]float64, order)
	quad.Legendre{}.FixedLocations(gx, gw, -1, 1)
	h, p, row := make([]float64, d.hidden), make([]float64, d.out), make([]float64, d.out)
	at := func(r, w float64) {
		d.forwardSparse(x, n, r, h, p)
		softmaxInPlace(p)
		for f, v := range p {
			row[f] += w * v
		}
	}
	at(-channelRCut, tail)
	at(channelRCut, tail)
	for i := 0; i+1 < len(brk); i++ {
		a, b := brk[i], brk[i+1]
		if !(b > a) {
			continue
		}
		pieces := int(math.Ceil((b - a) / channelPanel))
		w := (b - a) / float64(pieces)
		for k := range pieces {
			pa := a + float64(k)*w
			for j, t := range gx {
				r := pa + 0.5*w*(t+1)
				at(r, 0.5*w*gw[j]*stdnormal.Density(r))
			}
		}
	}
	return row
}
