package bayes

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/gauss"
)

// gaussRun's recurrence against math.Exp on random quadratics in the node
// index, from exponents near 0 to past the double's range, with runs cut
// short where the caller skips nodes: within runLen² + h ulps (h for the
// rounding of the exponent), where the value is a normal double, and 0 where
// e^{−h/2} underflows.
func TestGaussRunMatchesExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const ulp = 0x1p-52
	for trial := range 2000 {
		// h(n) = c·(n − n0)² + h0: c from flat to steep, the vertex anywhere.
		c := math.Pow(10, -4+6*rng.Float64())
		n0 := -40 + 120*rng.Float64()
		h0 := 200 * rng.Float64()
		h := func(n int) float64 { d := float64(n) - n0; return c*d*d + h0 }
		g := math.Exp(-c)
		var run gaussRun
		for n := range 80 {
			if rng.IntN(40) == 0 {
				run.left = 0 // a skipped node
				continue
			}
			got, ok := run.next(g)
			if !ok {
				got = run.start(h(n), c*(2*(float64(n)-n0)+1), g)
			}
			want := math.Exp(-0.5 * h(n))
			switch {
			case want < 0x1p-1000:
				if got > 0x1p-990 {
					t.Fatalf("trial %d, node %d: e^{−%g/2} = %g, recurrence %g", trial, n, h(n), want, got)
				}
			case math.Abs(got-want) > (runLen*runLen+h(n))*ulp*want:
				t.Fatalf("trial %d, node %d (c %g, vertex %g, h %g): recurrence %v, exp %v: %.3g ulps", trial, n, c, n0, h(n), got, want, math.Abs(got-want)/(ulp*want))
			}
		}
	}
}

// addFace's closed forms with shared exponentials (Mills ratios, gaussRun)
// against the direct ones (math.Erfc through truncMoments and math.Exp at
// every node), with one skip radius at every node and with a random radius
// per node, on every face of a random network at three values of F
// across its range, over 65 equispaced M nodes of each observer: the
// moments A, B, C about w = 0 agree within 1e-12 of the moments the whole
// level line k = f of the face's affine form would have (e^{−K/2}/√(2πD)
// times 1, |d| + s, (|d| + s)²: the scale A, B, C are sums of), plus the
// rounding of moving B and C from addFace's shift to 0. Not relative to
// each face's own moments: on a short segment they are differences of its
// ends' terms, which amplify the recurrence's 1e-13 (and the direct form's
// 1e-16) by the inverse length (a sliver face of this network: 7e-10
// relative; mpmath's value is within 5e-12 of the direct form's).
func TestAddFaceMatchesDirect(t *testing.T) {
	m := gauss.Paper()
	k, err := fromMLP(randomNet(7))
	if err != nil {
		t.Fatal(err)
	}
	s := testSetup(t, m, k)
	rng := rand.New(rand.NewPCG(3, 4))
	// Each node's skip radius: kCutMax at every node, and random radii in
	// [kCutMin, kCutMax] (a third at kCutMin), whose kept nodes have holes.
	cuts := []func(n int) cutRadii{
		func(n int) cutRadii { return uniformCut(n, kCutMax) },
		func(n int) cutRadii {
			c := cutRadii{k: make([]float64, n)}
			for i := range c.k {
				c.k[i] = kCutMin + rng.Float64()*(kCutMax-kCutMin)
				if rng.IntN(3) == 0 {
					c.k[i] = kCutMin
				}
				c.max = max(c.max, c.k[i])
			}
			return c
		},
	}
	for _, cutOf := range cuts {
		for _, v := range append([]float64{m.VarRecon()}, m.VarAdv()...) {
			sv := math.Sqrt(v)
			nodes, _, _ := mNodesTrapezoid(s.mu, math.Sqrt(s.vx-v), 64, mSpan)
			cut := cutOf(len(nodes))
			ev := newPanelEval(nodes, len(s.cont), cut)
			for j := range s.cont {
				c := &s.cont[j]
				for _, u := range []float64{0.13, 0.5, 0.91} {
					f := c.flo + u*(c.fhi-c.flo)
					clear(ev.A)
					clear(ev.B)
					clear(ev.C)
					clear(ev.shift)
					ev.addFace(c, int32(j), f, v, sv, nodes, 0)
					want, line := directFace(c, f, v, nodes, cut.k)
					for n := range nodes {
						sh := ev.shift[n]
						got := [3]float64{ev.A[n], ev.B[n] + sh*ev.A[n], ev.C[n] + sh*(2*ev.B[n]+sh*ev.A[n])}
						moved := [3]float64{0, math.Abs(sh * ev.A[n]), math.Abs(sh * (2*ev.B[n] + sh*ev.A[n]))}
						for q := range 3 {
							if d := math.Abs(got[q] - want[n][q]); d > 1e-12*(line[n][q]+moved[q]) {
								t.Fatalf("v %v, face %d, f %v, node %d (m %v): moment %d = %v, direct %v (line %g)", v, j, f, n, nodes[n].m, q, got[q], want[n][q], line[n][q])
							}
						}
					}
				}
			}
		}
	}
}

// directFace is face c's A, B, C (about w = 0) at f for each node, by the
// closed form of panelEval.eval's comment evaluated term by term, and those
// of the whole level line (scale).
func directFace(c *cface, f, v float64, nodes []mNode, kc []float64) (out, scale [][3]float64) {
	out, scale = make([][3]float64, len(nodes)), make([][3]float64, len(nodes))
	x0, r0, x1, r1, ok := levelSegment(c, f)
	if !ok {
		return out, scale
	}
	sv := math.Sqrt(v)
	d2 := c.cr*c.cr + c.cx*c.cx*v
	sg := 1.0
	if c.cr < 0 {
		sg = -1
	}
	for n, nd := range nodes {
		e := f - c.c0 - c.cx*nd.m
		K := e * e / d2
		z1 := sg * (c.cr*(x0-nd.m) - c.cx*v*r0) / (sv * math.Sqrt(d2))
		z2 := sg * (c.cr*(x1-nd.m) - c.cx*v*r1) / (sv * math.Sqrt(d2))
		z1, z2 = min(z1, z2), max(z1, z2)
		zm := max(z1, -z2, 0)
		if K > kc[n] || K+zm*zm > kc[n] {
			continue
		}
		j0, j1, j2 := truncMoments(z1, z2)
		pref := math.Exp(-K/2) / math.Sqrt(2*math.Pi*d2)
		d, s := c.cx*v*e/d2, sv*math.Abs(c.cr)/math.Sqrt(d2)
		out[n] = [3]float64{pref * j0, pref * (d*j0 + s*j1), pref * (d*d*j0 + 2*d*s*j1 + s*s*j2)}
		w := math.Abs(d) + s
		scale[n] = [3]float64{pref, pref * w, pref * w * w}
	}
	return out, scale
}
