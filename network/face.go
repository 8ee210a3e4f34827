package network

import (
	"errors"
	"fmt"
	"math"
)

// Box is the rectangle [X0, X1] × [R0, R1] of the (x, r) plane.
type Box struct {
	X0, X1, R0, R1 float64
}

// Face is a convex polygon of the (x, r) plane on which a network with
// identity and ReLU activations is affine: k(x, r) = C0 + Cx·x + Cr·r.
// X and R hold its vertices counter-clockwise.
type Face struct {
	X, R       []float64
	C0, Cx, Cr float64
}

// ErrTooComplex reports a network whose linear regions, units or kinks exceed
// a cost cap: certifying it would take unbounded work.
var ErrTooComplex = errors.New("network: network too complex to certify")

// affine is c0 + cx·x + cr·r.
type affine struct{ c0, cx, cr float64 }

func (f affine) at(x, r float64) float64 { return f.c0 + f.cx*x + f.cr*r }

// region is a convex polygon on which every unit of the current layer's
// input is affine.
type region struct {
	x, r []float64
	in   []affine
}

// Faces returns the convex polygons of box on which k is affine, with k's
// affine form on each, for a network whose activations are identity and
// ReLU (any depth). The box is split layer by layer: on a polygon every
// pre-activation of the next layer is affine in (x, r), and each ReLU unit
// whose pre-activation changes sign on it splits it along the line where
// that pre-activation is zero (active side: the unit passes its affine
// form; inactive: 0). The faces tile the box; vertices are
// counter-clockwise. More than maxFaces faces, at any stage, is an error
// wrapping ErrTooComplex, reported before the excess is allocated; a
// network with a sigmoid or tanh layer, an empty box or maxFaces < 1 is an
// error wrapping ErrInput.
func (m *Network) Faces(box Box, maxFaces int) ([]Face, error) {
	if err := m.checkFacesInput(box, maxFaces); err != nil {
		return nil, err
	}
	in := make([]affine, 2)
	in[0], in[1] = affine{cx: 1}, affine{cr: 1}
	if m.Inputs[0] == "r" {
		in[0], in[1] = in[1], in[0]
	}
	regs := []region{{x: []float64{box.X0, box.X1, box.X1, box.X0}, r: []float64{box.R0, box.R0, box.R1, box.R1}, in: in}}
	for l, ly := range m.Layers {
		var next []region
		for gi, g := range regs {
			// Besides g's pieces, the regions made so far and those left.
			others := len(next) + len(regs) - gi - 1
			ps, ok := splitRegion(ly, g, maxFaces-others)
			if !ok {
				return nil, fmt.Errorf("%w: network %s: more than %d linear regions in the box (layer %d)", ErrTooComplex, m.Name, maxFaces, l)
			}
			next = append(next, ps...)
		}
		regs = next
	}
	faces := make([]Face, len(regs))
	memo := make(evalMemo)
	for i, g := range regs {
		f := g.in[0]
		faces[i] = Face{X: g.x, R: g.r, C0: f.c0, Cx: f.cx, Cr: f.cr}
		if err := m.checkFace(faces[i], memo); err != nil {
			return nil, err
		}
	}
	return faces, nil
}

// checkFacesInput refuses what Faces cannot split: an invalid network, a
// sigmoid or tanh layer, an empty or infinite box, maxFaces < 1.
func (m *Network) checkFacesInput(box Box, maxFaces int) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if m.XValues() > 0 || m.Categorical() {
		return m.errorf("a one-hot x or a softmax release (a finite X's privatizer): Faces needs a real x and one output")
	}
	if !m.PiecewiseLinear() {
		return m.errorf("not piecewise linear (a sigmoid or tanh layer): Faces needs identity and ReLU activations only")
	}
	if !(box.X0 < box.X1 && box.R0 < box.R1) || math.IsInf(box.X1-box.X0, 0) || math.IsInf(box.R1-box.R0, 0) {
		return fmt.Errorf("%w: box [%g, %g]×[%g, %g]: want a finite box with X0 < X1 and R0 < R1", ErrInput, box.X0, box.X1, box.R0, box.R1)
	}
	if maxFaces < 1 {
		return fmt.Errorf("%w: maxFaces %d: want ≥ 1", ErrInput, maxFaces)
	}
	return nil
}

// preActivations is the affine form of each unit of ly's pre-activation on
// a region whose inputs to ly are in.
func preActivations(ly Layer, in []affine) []affine {
	z := make([]affine, len(ly.W))
	for j, row := range ly.W {
		f := affine{c0: ly.B[j]}
		for i, w := range row {
			f.c0 += w * in[i].c0
			f.cx += w * in[i].cx
			f.cr += w * in[i].cr
		}
		z[j] = f
	}
	return z
}

// splitRegion splits g along the zero line of every ReLU unit of ly whose
// pre-activation changes sign on it, and returns the pieces with ly's
// output on each (a unit's affine form where it is active, 0 where not);
// false when there would be limit pieces or more.
func splitRegion(ly Layer, g region, limit int) ([]region, bool) {
	z := preActivations(ly, g.in)
	// pieces of g with their activation pattern so far
	type piece struct {
		x, r []float64
		on   []bool
	}
	ps := []piece{{x: g.x, r: g.r, on: make([]bool, len(z))}}
	for j := range z {
		if ly.Act != ReLU {
			for k := range ps {
				ps[k].on[j] = true
			}
			continue
		}
		n := len(ps)
		for k := 0; k < n; k++ {
			p := ps[k]
			pos, neg := side(z[j], p.x, p.r)
			switch {
			case !neg:
				p.on[j] = true
			case !pos:
				p.on[j] = false
			default:
				if len(ps) >= limit {
					return nil, false
				}
				ax, ar := clip1(z[j], p.x, p.r, 1)
				bx, br := clip1(z[j], p.x, p.r, -1)
				on := append([]bool(nil), p.on...)
				p.x, p.r, p.on[j] = ax, ar, true
				on[j] = false
				ps = append(ps, piece{x: bx, r: br, on: on})
			}
			ps[k] = p
		}
	}
	out := make([]region, 0, len(ps))
	for _, p := range ps {
		in := make([]affine, len(z))
		for j, f := range z {
			if p.on[j] {
				in[j] = f
			}
		}
		out = append(out, region{x: p.x, r: p.r, in: in})
	}
	return out, true
}

// checkFace compares the face's affine form with Eval at its centroid and at
// its vertices. A unit whose pre-activation is within rounding of 0 over a
// whole polygon is kept on whichever side the splitting chose; if its sign
// matters downstream (a tiny pre-activation times a huge weight), the
// affine form is wrong there and Eval shows it. Eval is within its error
// bound δ of the exact k, and the affine form's coefficients were summed in
// another order, so the two must agree within a few δ plus a few rounding
// units of the form's terms; otherwise the regions cannot be resolved in
// float64 and the certificate must not rely on them (ErrTooComplex).
// Neighbouring faces share vertices: memo, if not nil, keeps evalError's
// answers by the point's bits, so each vertex is evaluated once.
func (m *Network) checkFace(f Face, memo evalMemo) error {
	var cx, cr float64
	for i := range f.X {
		cx += f.X[i]
		cr += f.R[i]
	}
	n := float64(len(f.X))
	check := func(x, r float64) error {
		k, delta, err := memo.evalError(m, x, r)
		if err != nil {
			return fmt.Errorf("%w: network %s: at (x, r) = (%g, %g): %v", ErrTooComplex, m.Name, x, r, err)
		}
		a := f.C0 + f.Cx*x + f.Cr*r
		terms := math.Abs(f.C0) + math.Abs(f.Cx*x) + math.Abs(f.Cr*r)
		if d := math.Abs(k - a); !(d <= 8*delta+64*0x1p-53*terms) {
			return fmt.Errorf("%w: network %s: its linear regions cannot be resolved in float64: at (x, r) = (%g, %g) the network gives %g and its region's affine form %g (a unit within rounding of 0 whose sign matters downstream)", ErrTooComplex, m.Name, x, r, k, a)
		}
		return nil
	}
	if err := check(cx/n, cr/n); err != nil {
		return err
	}
	for i := range f.X {
		if err := check(f.X[i], f.R[i]); err != nil {
			return err
		}
	}
	return nil
}

// side reports whether the affine form f is positive, and negative, at
// some vertex of a polygon; a value within rounding of 0 counts as 0.
func side(f affine, xs, rs []float64) (pos, neg bool) {
	for i := range xs {
		v := f.at(xs[i], rs[i])
		tol := 1e-12 * (math.Abs(f.c0) + math.Abs(f.cx*xs[i]) + math.Abs(f.cr*rs[i]))
		pos = pos || v > tol
		neg = neg || v < -tol
	}
	return pos, neg
}

// clip1 returns the part of a convex polygon where s·f ≥ 0
// (Sutherland–Hodgman against one half-plane); orientation is kept.
func clip1(f affine, xs, rs []float64, s float64) (ox, or []float64) {
	n := len(xs)
	val := func(i int) float64 {
		v := s * f.at(xs[i], rs[i])
		tol := 1e-12 * (math.Abs(f.c0) + math.Abs(f.cx*xs[i]) + math.Abs(f.cr*rs[i]))
		if math.Abs(v) <= tol {
			return 0
		}
		return v
	}
	for i := range n {
		j := (i + 1) % n
		vi, vj := val(i), val(j)
		if vi >= 0 {
			ox, or = append(ox, xs[i]), append(or, rs[i])
		}
		if vi > 0 && vj < 0 || vi < 0 && vj > 0 {
			t := vi / (vi - vj)
			ox = append(ox, xs[i]+t*(xs[j]-xs[i]))
			or = append(or, rs[i]+t*(rs[j]-rs[i]))
		}
	}
	return ox, or
}

// Area is the face's signed area (shoelace formula): positive when its
// vertices are counter-clockwise, as Faces returns them.
func (f Face) Area() float64 {
	var a float64
	for i := range f.X {
		j := (i + 1) % len(f.X)
		a += f.X[i]*f.R[j] - f.X[j]*f.R[i]
	}
	return a / 2
}

// evalMemo holds evalError's answers by the bits of (x, r).
type evalMemo map[[2]uint64]evalAnswer

type evalAnswer struct {
	k, delta float64
	err      error
}

// evalError is m.evalError(x, r), answered from memo where it was asked
// before.
func (memo evalMemo) evalError(m *Network, x, r float64) (k, delta float64, err error) {
	if memo == nil {
		return m.evalError(x, r)
	}
	key := [2]uint64{math.Float64bits(x), math.Float64bits(r)}
	if a, ok := memo[key]; ok {
		return a.k, a.delta, a.err
	}
	k, delta, err = m.evalError(x, r)
	memo[key] = evalAnswer{k, delta, err}
	return k, delta, err
}
