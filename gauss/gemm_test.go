package gauss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMulIntoIsGonum holds mulInto, its vector kernel included, bit for bit
// to its scalar twin and to mat.Dense.Mul (gonum's DGEMM) on the shapes
// kernelLoss multiplies, odd widths, the sizes that take gonum's parallel
// path, and edge values: zeros of both signs in A (whose terms are left
// out even against ±Inf and NaN in B), subnormals, ±Inf and NaN. NaNs match
// as NaNs.
func TestMulIntoIsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	val := func(edges bool) float64 {
		switch rng.IntN(16) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return 5e-324 * float64(1+rng.IntN(1000)) // subnormal
		case 3:
			if edges {
				return []float64{math.Inf(1), math.Inf(-1), math.NaN()}[rng.IntN(3)]
			}
		}
		return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(31)-15))
	}
	fill := func(r, c int, edges bool) *mat.Dense {
		d := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				d.Set(i, j, val(edges))
			}
		}
		return d
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		for i := range got {
			g, w := got[i], want[i]
			if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
				t.Fatalf("%s: [%d] = %v, want %v", what, i, g, w)
			}
		}
	}
	shapes := [][3]int{{64, 81, 32}, {81, 64, 32}, {64, 81, 7}, {256, 81, 16}, {1, 1, 1}, {3, 5, 36}, {5, 1, 9},
		{130, 70, 200}, {200, 130, 33}}
	for trial := range 120 {
		s := shapes[trial%len(shapes)]
		m, k, n := s[0], s[1], s[2]
		edges := trial%3 == 0
		for _, trans := range []bool{false, true} {
			var a *mat.Dense
			var A mat.Matrix
			ai, al := k, 1
			if trans {
				a = fill(k, m, edges)
				A, ai, al = a.T(), 1, m
			} else {
				a = fill(m, k, edges)
				A = a
			}
			b := fill(k, n, edges || trial%3 == 1)
			var want mat.Dense
			want.Mul(A, b)
			got, scalar := make([]float64, m*n), make([]float64, m*n)
			for i := range got {
				got[i], scalar[i] = math.NaN(), 1 // overwritten
			}
			mulInto(got, a.RawMatrix().Data, b.RawMatrix().Data, m, n, k, n, ai, al, n)
			mulIntoScalar(scalar, a.RawMatrix().Data, b.RawMatrix().Data, m, n, k, n, ai, al, n, 0)
			what := fmt.Sprintf("trial %d, (%d×%d)·(%d×%d), transposed %t", trial, m, k, k, n, trans)
			same(what+": kernel against gonum", got, want.RawMatrix().Data)
			same(what+": scalar twin against gonum", scalar, want.RawMatrix().Data)
		}
	}
}

// BenchmarkMulInto times kernelLoss's two products, q·K and qᵀ·G (nodes 64,
// cells 81, labels 32), by gonum's mat.Dense.Mul, by mulInto and by its
// scalar twin.
func BenchmarkMulInto(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(r, c int) *mat.Dense {
		d := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				d.Set(i, j, rng.Float64())
			}
		}
		return d
	}
	const nodes, cells, labels = 64, 81, 32
	q, K, G := fill(nodes, cells), fill(cells, labels), fill(nodes, labels)
	for _, c := range []struct {
		name    string
		m, k    int
		trans   bool
		a, b, C *mat.Dense
	}{
		{"qK", nodes, cells, false, q, K, mat.NewDense(nodes, labels, nil)},
		{"qTG", cells, nodes, true, q, G, mat.NewDense(cells, labels, nil)},
	} {
		A, ai, al := mat.Matrix(c.a), cells, 1
		if c.trans {
			A, ai, al = c.a.T(), 1, cells
		}
		a, bb, out := c.a.RawMatrix().Data, c.b.RawMatrix().Data, c.C.RawMatrix().Data
		b.Run(c.name+"/gonum", func(b *testing.B) {
			for b.Loop() {
				c.C.Mul(A, c.b)
			}
		})
		b.Run(c.name+"/mulInto", func(b *testing.B) {
			for b.Loop() {
				mulInto(out, a, bb, c.m, labels, c.k, labels, ai, al, labels)
			}
		})
		b.Run(c.name+"/scalar", func(b *testing.B) {
			for b.Loop() {
				mulIntoScalar(out, a, bb, c.m, labels, c.k, labels, ai, al, labels, 0)
			}
		})
	}
}
