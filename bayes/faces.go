package bayes

import (
	"fmt"
	"math"

	"github.com/mmds-project/mmds/network"
)

// AffineLayer is one layer out = g(W·in + B) of a privatizer network whose
// activations g are the identity or ReLU; W is out × in.
type AffineLayer struct {
	W    [][]float64
	B    []float64
	ReLU bool
}

// LayerFaces returns the Faces function of the network with these layers
// (inputs (x, r), or (r, x) when xFirst is false; one output): the
// arrangement of every hidden unit's zero set, refined layer by layer. On a
// face every unit's pre-activation is affine, so splitting the face by its
// zero line keeps the network affine on both parts. More than maxFaces faces
// is an error wrapping network.ErrTooComplex, reported before the faces
// beyond the cap are allocated.
func LayerFaces(layers []AffineLayer, xFirst bool) func(box network.Box, maxFaces int) ([]network.Face, error) {
	return func(box network.Box, maxFaces int) ([]network.Face, error) {
		return layerFaces(layers, xFirst, box, maxFaces)
	}
}

// aff is an affine form c0 + cx·x + cr·r.
type aff struct{ c0, cx, cr float64 }

func (a aff) at(x, r float64) float64 { return a.c0 + a.cx*x + a.cr*r }

// poly is a convex polygon (counter-clockwise) with the affine forms of the
// current layer's outputs on it.
type poly struct {
	x, r []float64
	u    []aff
}

func layerFaces(layers []AffineLayer, xFirst bool, box network.Box, maxFaces int) ([]network.Face, error) {
	if !(box.X0 < box.X1 && box.R0 < box.R1) {
		panic(fmt.Sprintf("bayes: empty box %+v", box))
	}
	in := []aff{{cx: 1}, {cr: 1}}
	if !xFirst {
		in[0], in[1] = in[1], in[0]
	}
	faces := []poly{{x: []float64{box.X0, box.X1, box.X1, box.X0}, r: []float64{box.R0, box.R0, box.R1, box.R1}, u: in}}
	minArea := 1e-15 * (box.X1 - box.X0) * (box.R1 - box.R0)
	for l, ly := range layers {
		if len(ly.B) != len(ly.W) {
			panic("bayes: layer shapes do not chain")
		}
		for i := range faces {
			z := make([]aff, len(ly.W))
			for j, row := range ly.W {
				if len(row) != len(faces[i].u) {
					panic("bayes: layer shapes do not chain")
				}
				z[j].c0 = ly.B[j]
				for t, w := range row {
					u := faces[i].u[t]
					z[j].c0 += w * u.c0
					z[j].cx += w * u.cx
					z[j].cr += w * u.cr
				}
			}
			faces[i].u = z
		}
		if !ly.ReLU {
			continue
		}
		for j := range ly.W {
			next := faces[:0:0]
			for i, f := range faces {
				neg, pos := splitPoly(f.x, f.r, f.u[j])
				okNeg := len(neg.x) >= 3 && polyArea(neg.x, neg.r) > minArea
				okPos := len(pos.x) >= 3 && polyArea(pos.x, pos.r) > minArea
				if okNeg && okPos && len(next)+len(faces)-i+1 > maxFaces {
					return nil, fmt.Errorf("%w: more than %d linear regions in %+v (layer %d, unit %d)", network.ErrTooComplex, maxFaces, box, l, j)
				}
				switch {
				case okNeg && okPos:
					nu := append([]aff(nil), f.u...)
					nu[j] = aff{}
					next = append(next, poly{x: neg.x, r: neg.r, u: nu}, poly{x: pos.x, r: pos.r, u: f.u})
				case okPos:
					next = append(next, f)
				case okNeg:
					f.u[j] = aff{}
					next = append(next, f)
				default: // both parts degenerate: a sliver of no area
					next = append(next, f)
				}
			}
			faces = next
		}
	}
	out := make([]network.Face, 0, len(faces))
	for _, f := range faces {
		if len(f.u) != 1 {
			panic("bayes: the network has more than one output")
		}
		out = append(out, network.Face{X: f.x, R: f.r, C0: f.u[0].c0, Cx: f.u[0].cx, Cr: f.u[0].cr})
	}
	return out, nil
}

// splitPoly cuts a convex polygon by the line a = 0 into the parts where
// a ≤ 0 and a ≥ 0 (Sutherland–Hodgman against each side); both keep the
// polygon's orientation.
func splitPoly(x, r []float64, a aff) (neg, pos struct{ x, r []float64 }) {
	n := len(x)
	val := make([]float64, n)
	for i := range n {
		val[i] = a.at(x[i], r[i])
	}
	for i := range n {
		j := (i + 1) % n
		if val[i] <= 0 {
			neg.x, neg.r = append(neg.x, x[i]), append(neg.r, r[i])
		}
		if val[i] >= 0 {
			pos.x, pos.r = append(pos.x, x[i]), append(pos.r, r[i])
		}
		if (val[i] < 0 && val[j] > 0) || (val[i] > 0 && val[j] < 0) {
			t := val[i] / (val[i] - val[j])
			px, pr := x[i]+t*(x[j]-x[i]), r[i]+t*(r[j]-r[i])
			neg.x, neg.r = append(neg.x, px), append(neg.r, pr)
			pos.x, pos.r = append(pos.x, px), append(pos.r, pr)
		}
	}
	return neg, pos
}

// polyArea is the area of a simple polygon (shoelace formula).
func polyArea(x, r []float64) float64 {
	var a float64
	for i := range x {
		j := (i + 1) % len(x)
		a += x[i]*r[j] - x[j]*r[i]
	}
	return math.Abs(a) / 2
}

// boxFace is the one face of an affine privatizer c0 + cx·x + cr·r.
func boxFace(box network.Box, c0, cx, cr float64) []network.Face {
	return []network.Face{{X: []float64{box.X0, box.X1, box.X1, box.X0}, R: []float64{box.R0, box.R0, box.R1, box.R1}, C0: c0, Cx: cx, Cr: cr}}
}
