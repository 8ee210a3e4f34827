package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mmds-project/mmds/internal/vexp"
	"github.com/mmds-project/mmds/mip"
)

// evalCellwise is eval one cell at a time, its products rounded (explicit
// conversions) so that no compiler fuses them.
func (r *bayesRisk) evalCellwise(p []float64, m int, tau float64, grad []float64, scale float64) float64 {
	n, na := r.n, r.na
	c, w := make([]float64, na), make([]float64, na)
	var total float64
	for v := range r.nv {
		mass := r.mass[v*n : v*n+n]
		for l := range m {
			var cm float64
			for x := range n {
				cm += float64(mass[x] * p[x*m+l])
			}
			best, ab := math.Inf(1), 0
			for a := range na {
				k := r.coef[(v*na+a)*n : (v*na+a)*n+n]
				var s float64
				for x := range n {
					s += float64(k[x] * p[x*m+l])
				}
				c[a] = s
				if s < best {
					best, ab = s, a
				}
			}
			if tau <= 0 || cm <= 0 {
				total += best
				if grad != nil {
					k := r.coef[(v*na+ab)*n : (v*na+ab)*n+n]
					for x := range n {
						grad[x*m+l] += float64(scale * k[x])
					}
				}
				continue
			}
			// Soft minimum of the posterior risks r_a = c_a/cm, shifted
			// by the exact minimum for stability.
			rmin := best / cm
			for a := range na {
				w[a] = -(c[a]/cm - rmin) / tau
			}
			vexp.Exp(w, w) // math.Exp's bits
			var z float64
			for _, w := range w {
				z += w
			}
			g := rmin - float64(tau*math.Log(z))
			var wr float64
			for a := range na {
				w[a] /= z
				wr += float64(w[a]*c[a]) / cm
			}
			total += float64(cm * g)
			if grad != nil {
				// ∂(cm·g)/∂c_a = w_a; ∂(cm·g)/∂cm = g − Σ_a w_a r_a.
				dm := g - wr
				for x := range n {
					s := float64(dm * mass[x])
					for a := range na {
						s += float64(w[a] * r.coef[(v*na+a)*n+x])
					}
					grad[x*m+l] += float64(scale * s)
				}
			}
		}
	}
	return total
}

// TestBayesRiskEvalMatchesCellwise: eval, label-innermost, gives the bits of
// the cell-at-a-time loop (the sums in the same order), on random laws,
// losses other than 0-1, channels with zero columns, and τ = 0 and τ > 0;
// with label counts below, at and above the vector kernels' widths (4, 16).
func TestBayesRiskEvalMatchesCellwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	labels := []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 19, 32, 37}
	for trial := range 240 {
		n, nv, m := 2+rng.IntN(5), 1+rng.IntN(5), labels[rng.IntN(len(labels))]
		prior := randRow(rng, n)
		ch := make([][]float64, n)
		for x := range ch {
			ch[x] = randRow(rng, nv)
		}
		var r *bayesRisk
		switch trial % 4 {
		case 0:
			r = newBayesRisk(prior, mip.Observer{Channel: ch})
		case 2: // a loss with more estimates than values of X
			loss := make([][]float64, n)
			for x := range loss {
				loss[x] = make([]float64, n+2)
				for a := range loss[x] {
					loss[x][a] = float64(rng.IntN(3)) * rng.Float64()
				}
			}
			r = newBayesRisk(prior, mip.Observer{Channel: ch, Loss: loss})
		default:
			xs, vs := make([]int, 50), make([]int, 50)
			for k := range xs {
				xs[k], vs[k] = rng.IntN(n), rng.IntN(nv)
			}
			r = empiricalRisk(n, nv, xs, vs)
		}
		p := make([]float64, n*m)
		for x := range n {
			copy(p[x*m:], randRow(rng, m))
			if m > 1 && trial%3 == 0 {
				p[x*m+m-1] = 0 // a label that never follows: a cell of mass 0
			}
		}
		for _, tau := range []float64{0, 0.05, 1} {
			g1, g2 := make([]float64, n*m), make([]float64, n*m)
			v1 := r.eval(p, m, tau, g1, 0.7)
			v2 := r.evalCellwise(p, m, tau, g2, 0.7)
			if math.Float64bits(v1) != math.Float64bits(v2) {
				t.Fatalf("trial %d τ=%g: eval %v, cellwise %v", trial, tau, v1, v2)
			}
			for i := range g1 {
				if math.Float64bits(g1[i]) != math.Float64bits(g2[i]) {
					t.Fatalf("trial %d τ=%g: grad[%d] %v, cellwise %v", trial, tau, i, g1[i], g2[i])
				}
			}
		}
	}
}

func randRow(rng *rand.Rand, k int) []float64 {
	row := make([]float64, k)
	var s float64
	for i := range row {
		row[i] = rng.Float64()
		s += row[i]
	}
	for i := range row {
		row[i] /= s
	}
	return row
}

// BenchmarkBayesRiskEval is one observer's risk on the shape of the labels
// method's quick run on examples/finite-random-n6-k2.json (|X| = 6, six
// side values, 0-1 loss, M = 32): a training step's evaluation (τ > 0, with
// the gradient), one after annealing (τ = 0, with the gradient) and an
// epoch's record (τ = 0, no gradient).
func BenchmarkBayesRiskEval(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, nv, m = 6, 6, 32
	ch := make([][]float64, n)
	for x := range ch {
		ch[x] = randRow(rng, nv)
	}
	r := newBayesRisk(randRow(rng, n), mip.Observer{Channel: ch})
	p := make([]float64, n*m)
	for x := range n {
		copy(p[x*m:], randRow(rng, m))
	}
	grad := make([]float64, n*m)
	for _, c := range []struct {
		name string
		tau  float64
		grad []float64
	}{{"soft", 0.05, grad}, {"hard", 0, grad}, {"record", 0, nil}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.eval(p, m, c.tau, c.grad, 1)
			}
		})
	}
}

// TestBayesRiskKernelsAreScalar: accRows, minRows, softWeights and
// normalize (whose leading labels run in the vector kernels where they are
// in use) give the bits of their scalar twins run over every label, on
// random inputs with magnitudes over many decades, tied least risks, NaN
// and +Inf risks, cells of mass 0, negative and NaN masses, and label
// counts below, at and above the kernels' widths.
func TestBayesRiskKernelsAreScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	val := func() float64 {
		switch rng.IntN(12) {
		case 0:
			return 0
		case 1:
			return 5e-324 * float64(1+rng.IntN(1000)) // subnormal
		default:
			return rng.Float64() * math.Pow(10, float64(rng.IntN(31)-15))
		}
	}
	fill := func(k int) []float64 {
		s := make([]float64, k)
		for i := range s {
			s[i] = val()
		}
		return s
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: [%d] = %v, scalar %v", what, i, got[i], want[i])
			}
		}
	}
	for trial := range 300 {
		m := []int{1, 3, 4, 5, 8, 12, 16, 17, 20, 31, 32, 36, 64}[rng.IntN(13)]
		rows, terms := 1+rng.IntN(7), 1+rng.IntN(7)
		kr, kj := []int{0, 1, terms}[rng.IntN(3)], []int{0, 1, rows}[rng.IntN(3)]
		k, q := fill(rows*kr+terms*kj+1), fill(terms*m)
		out := fill(rows * m)
		want := append([]float64(nil), out...)
		accRows(out, k, q, rows, terms, m, kr, kj)
		accRowsScalar(want, k, q, rows, terms, m, kr, kj, 0)
		same(fmt.Sprintf("trial %d: accRows", trial), out, want)

		na, tau := 1+rng.IntN(7), val()+1e-3
		c, cm, best := fill(na*m), fill(m), fill(m)
		switch trial % 3 {
		case 0:
			cm[rng.IntN(m)] = -cm[rng.IntN(m)]
		case 1:
			cm[rng.IntN(m)] = math.NaN()
		}
		cc := append([]float64(nil), c...)
		cc[rng.IntN(na*m)] = math.NaN()
		cc[rng.IntN(na*m)] = math.Inf(1)
		l := rng.IntN(m)
		cc[rng.IntN(na)*m+l], cc[rng.IntN(na)*m+l] = -1, -1 // the least, tied
		best, bs := make([]float64, m), make([]float64, m)
		ab, abs := make([]int, m), make([]int, m)
		minRows(best, ab, cc, na, m)
		minRowsScalar(bs, abs, cc, na, m, 0)
		same(fmt.Sprintf("trial %d: minRows", trial), best, bs)
		if !slices.Equal(ab, abs) {
			t.Fatalf("trial %d: minRows's estimates %v, scalar %v", trial, ab, abs)
		}

		w, ws := fill(na*m), fill(na*m)
		softWeights(w, c, cm, best, na, m, tau)
		softWeightsScalar(ws, c, cm, best, na, m, tau, 0)
		same(fmt.Sprintf("trial %d: softWeights", trial), w, ws)

		z, wr, wrs := fill(m), make([]float64, m), make([]float64, m)
		copy(ws, w)
		normalize(w, c, cm, z, wr, na, m)
		normalizeScalar(ws, c, cm, z, wrs, na, m, 0)
		same(fmt.Sprintf("trial %d: normalize w", trial), w, ws)
		same(fmt.Sprintf("trial %d: normalize wr", trial), wr, wrs)
	}
}

// BenchmarkBayesRiskKernels compares each pass of bayesRisk.eval with its
// scalar twin on the quick run's shape (six values of X and estimates,
// M = 32): the vector kernels stay where they are faster.
func BenchmarkBayesRiskKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, na, m = 6, 6, 32
	k, p, c := randRow(rng, na*n), randRow(rng, n*m), randRow(rng, na*m)
	cm, best, z, wr := randRow(rng, m), randRow(rng, m), randRow(rng, m), make([]float64, m)
	w, ab := make([]float64, na*m), make([]int, m)
	for _, c := range []struct {
		name           string
		kernel, scalar func()
	}{
		{"accRows", func() { accRows(c, k, p, na, n, m, n, 1) }, func() { accRowsScalar(c, k, p, na, n, m, n, 1, 0) }},
		{"minRows", func() { minRows(best, ab, c, na, m) }, func() { minRowsScalar(best, ab, c, na, m, 0) }},
		{"softWeights", func() { softWeights(w, c, cm, best, na, m, 0.05) }, func() { softWeightsScalar(w, c, cm, best, na, m, 0.05, 0) }},
		{"normalize", func() { normalize(w, c, cm, z, wr, na, m) }, func() { normalizeScalar(w, c, cm, z, wr, na, m, 0) }},
	} {
		b.Run(c.name+"/kernel", func(b *testing.B) {
			for b.Loop() {
				c.kernel()
			}
		})
		b.Run(c.name+"/scalar", func(b *testing.B) {
			for b.Loop() {
				c.scalar()
			}
		})
	}
}

// eval is risk, then, when grad is not nil, gradient.
func (r *bayesRisk) eval(p []float64, m int, tau float64, grad []float64, scale float64) float64 {
	total := r.risk(p, m, tau)
	if grad != nil {
		r.gradient(grad, scale)
	}
	return total
}
