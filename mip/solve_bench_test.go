package mip

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The benchmarks below time the hand-written eliminations of global.go
// against their gonum equivalents on inputs the ray enumeration actually
// sees. Each size runs the hand-written kernel and gonum's back to back, so
// one run's ratios are comparable even on a loaded machine. docs/finite.md
// ("Linear algebra in the ray enumeration") records the figures.

// benchPool is the number of inputs a benchmark cycles through (a power
// of two).
const benchPool = 256

// benchRCond is the gonum side's singularity criterion: a reciprocal
// condition number below it is singular.
const benchRCond = 1e-9

// benchSystems returns benchPool augmented k × (k+1) systems of the
// enumeration for the full support of a random model with n = k, K = 2:
// k−1 distinct hyperplanes and Σ v = 1 (right-hand side e_k). Some are
// singular, as in the enumeration.
func benchSystems(k int) [][][]float64 {
	rng := rand.New(rand.NewPCG(uint64(k), 3))
	m, err := RandomFinite(rng, k, 2)
	if err != nil {
		panic(err)
	}
	hs := m.hyperplanes()
	out := make([][][]float64, benchPool)
	for s := range out {
		a := make([][]float64, k)
		for i, h := range rng.Perm(len(hs))[:k-1] {
			a[i] = append(append([]float64(nil), hs[h]...), 0)
		}
		a[k-1] = append(ones(k), 1)
		out[s] = a
	}
	return out
}

// BenchmarkSolveDense: the k × k solve of the enumeration's hot loop
// (k = |S|, the support size, 2..n). gonumLU is mat.LU with reused
// storage (Factorize, Cond, SolveVecTo into a preallocated vector);
// gonumGetrf is the cheapest gonum path, lapack64.Getrf and Getrs on
// preallocated storage without a condition estimate.
func BenchmarkSolveDense(b *testing.B) {
	for _, k := range []int{2, 3, 4, 5, 6, 8} {
		sys := benchSystems(k)
		b.Run(fmt.Sprintf("k=%d/hand", k), func(b *testing.B) {
			a := cloneMatrix(sys[0])
			x := make([]float64, k)
			i := 0
			for b.Loop() {
				for r, row := range sys[i%benchPool] {
					copy(a[r], row)
				}
				i++
				solveDense(a, x)
			}
		})
		b.Run(fmt.Sprintf("k=%d/gonumLU", k), func(b *testing.B) {
			a := mat.NewDense(k, k, nil)
			rhs := mat.NewVecDense(k, nil)
			rhs.SetVec(k-1, 1)
			x := mat.NewVecDense(k, nil)
			var lu mat.LU
			i := 0
			for b.Loop() {
				for r, row := range sys[i%benchPool] {
					copy(a.RawRowView(r), row[:k])
				}
				i++
				lu.Factorize(a)
				if lu.Cond() > 1/benchRCond {
					continue
				}
				if err := lu.SolveVecTo(x, false, rhs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("k=%d/gonumGetrf", k), func(b *testing.B) {
			a := blas64.General{Rows: k, Cols: k, Stride: k, Data: make([]float64, k*k)}
			x := blas64.General{Rows: k, Cols: 1, Stride: 1, Data: make([]float64, k)}
			ipiv := make([]int, k)
			i := 0
			for b.Loop() {
				for r, row := range sys[i%benchPool] {
					copy(a.Data[r*k:], row[:k])
				}
				i++
				if !lapack64.Getrf(a, ipiv) {
					continue
				}
				clear(x.Data)
				x.Data[k-1] = 1
				lapack64.Getrs(blas.NoTrans, a, x, ipiv)
			}
		})
	}
}

// benchVertexRows returns the rows isVertex hands to rank at benchPool
// candidate points of the enumeration (full support, random model with
// n columns and K = 2): zero coordinates, Σ = 1 and the ties between
// minimal estimates.
func benchVertexRows(n int) [][][]float64 {
	rng := rand.New(rand.NewPCG(uint64(n), 4))
	m, err := RandomFinite(rng, n, 2)
	if err != nil {
		panic(err)
	}
	var obs []risk
	for _, o := range append([]Observer{m.Recon}, m.Adv...) {
		obs = append(obs, newRisk(m.Prior, o))
	}
	vt := newVertexTest(n, obs)
	sys := benchSystems(n)
	var out [][][]float64
	for i := 0; len(out) < benchPool; i++ {
		v := make([]float64, n)
		if !solveDense(cloneMatrix(sys[i%benchPool]), v) || slices.Min(v) < 0 {
			continue
		}
		normalize(v)
		vt.build(v, obs)
		out = append(out, cloneMatrix(vt.rows))
	}
	return out
}

// BenchmarkRank: isVertex's rank test (rows × n, n = |X|), run once per
// distinct candidate point of the enumeration. gonumSVD is mat.SVD's
// singular values (rank n iff σ_n ≥ benchRCond·σ_1).
func BenchmarkRank(b *testing.B) {
	for _, n := range []int{2, 3, 4, 5, 6, 8} {
		rows := benchVertexRows(n)
		b.Run(fmt.Sprintf("n=%d/hand", n), func(b *testing.B) {
			// rank overwrites its rows: copy them first, as isVertex
			// builds them afresh.
			var most int
			for _, r := range rows {
				most = max(most, len(r))
			}
			scratch := make([][]float64, most)
			for j := range scratch {
				scratch[j] = make([]float64, n)
			}
			i := 0
			for b.Loop() {
				r := rows[i%benchPool]
				i++
				a := scratch[:len(r)]
				for j, row := range r {
					copy(a[j], row)
				}
				_ = rank(a, n) == n
			}
		})
		b.Run(fmt.Sprintf("n=%d/gonumSVD", n), func(b *testing.B) {
			var svd mat.SVD
			var a mat.Dense
			s := make([]float64, n)
			i := 0
			for b.Loop() {
				r := rows[i%benchPool]
				i++
				a.Reset()
				a.ReuseAs(len(r), n)
				for j, row := range r {
					copy(a.RawRowView(j), row)
				}
				if !svd.Factorize(&a, mat.SVDNone) {
					b.Fatal("SVD failed")
				}
				sv := svd.Values(s[:min(len(r), n)])
				_ = len(sv) == n && sv[n-1] >= benchRCond*sv[0]
			}
		})
	}
}

// benchReduceMatrices returns benchPool matrices of reduceSupport: the
// (n + K + 1) × (n + K + 2) columns (v_j, ρ_adv(v_j), ρ_R(v_j)) of random
// rays of a model's ray LP (its last step; earlier ones have more columns).
func benchReduceMatrices(n, k int) [][][]float64 {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(k)))
	m, err := RandomFinite(rng, n, k)
	if err != nil {
		panic(err)
	}
	g, err := m.PrepareGlobal(GlobalOptions{})
	if err != nil {
		panic(err)
	}
	rows := n + k + 1
	out := make([][][]float64, benchPool)
	for s := range out {
		a := make([][]float64, rows)
		for r := range a {
			a[r] = make([]float64, rows+1)
		}
		for c, j := range rng.Perm(len(g.rays))[:rows+1] {
			for x := 0; x < n; x++ {
				a[x][c] = g.rays[j][x]
			}
			for i := 0; i < k; i++ {
				a[n+i][c] = g.adv[i][j]
			}
			a[n+k][c] = g.recon[j]
		}
		out[s] = a
	}
	return out
}

// BenchmarkNullVector: the null vector of one Carathéodory step of
// reduceSupport (off the enumeration: once per ray beyond n + K + 1 in an
// LP solution's support), gonum's QR of Aᵀ since it replaced a
// hand-written elimination; docs/finite.md has both timings.
func BenchmarkNullVector(b *testing.B) {
	for _, c := range []struct{ n, k int }{{2, 1}, {3, 2}, {4, 2}} {
		as := benchReduceMatrices(c.n, c.k)
		b.Run(fmt.Sprintf("%dx%d", c.n+c.k+1, c.n+c.k+2), func(b *testing.B) {
			i := 0
			for b.Loop() {
				nullVector(as[i%benchPool])
				i++
			}
		})
	}
}

// BenchmarkPrepareGlobal: the whole ray enumeration (no LP) of the bench
// family's instance 0 (RandomFinite, seed PCG(1, 0)), where the kernels
// above spend their time.
func BenchmarkPrepareGlobal(b *testing.B) {
	for _, c := range []struct{ n, k int }{{3, 2}, {4, 2}} {
		m, err := RandomFinite(rand.New(rand.NewPCG(1, 0)), c.n, c.k)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d,K=%d", c.n, c.k), func(b *testing.B) {
			var g *Global
			for b.Loop() {
				if g, err = m.PrepareGlobal(GlobalOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(g.Subsets), "systems")
			b.ReportMetric(float64(len(g.rays)), "rays")
		})
	}
}

// cloneMatrix is a deep copy of a.
func cloneMatrix(a [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i := range a {
		out[i] = slices.Clone(a[i])
	}
	return out
}
