package estimate

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// draw returns n rows of d standard normal features and the target
// f(v) + noise·N(0, 1).
func draw(rng *rand.Rand, n, d int, noise float64, f func(v []float64) float64) *Sample {
	s := &Sample{}
	for range n {
		v := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		s.V = append(s.V, v)
		s.X = append(s.X, f(v)+noise*rng.NormFloat64())
	}
	return s
}

// TestLinearMatchesLeastSquares: the linear estimator's test predictions
// are those of the least-squares fit gonum's QR computes on the raw
// features (the ridge and the standardization change them by far less
// than 1e-6), and an exactly linear target is fitted exactly.
func TestLinearMatchesLeastSquares(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f := func(v []float64) float64 { return 1 + 2*v[0] - 3*v[1] + v[2] }
	train, test := draw(rng, 400, 3, 0.5, f), draw(rng, 100, 3, 0.5, f)
	for _, s := range []*Sample{train, test} { // a feature on another scale
		for _, v := range s.V {
			v[2] *= 1e-3
		}
	}
	a := mat.NewDense(train.Rows(), 4, nil)
	for k, v := range train.V {
		a.SetRow(k, append([]float64{1}, v...))
	}
	var beta mat.VecDense
	if err := beta.SolveVec(a, mat.NewVecDense(train.Rows(), train.X)); err != nil {
		t.Fatal(err)
	}
	pred := make([]float64, test.Rows())
	for k, v := range test.V {
		pred[k] = mat.Dot(mat.NewVecDense(4, append([]float64{1}, v...)), &beta)
	}
	want := score(test, pred, MSE)
	rs, err := Fit(context.Background(), train, test, MSE, Options{Methods: []Method{Linear}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rs[0].Test; !scalar.EqualWithinRel(got.Mean, want.Mean, 1e-6) || !scalar.EqualWithinRel(got.SE, want.SE, 1e-5) {
		t.Errorf("linear: %+v, gonum's least squares %+v", got, want)
	}
	exact := func(v []float64) float64 { return 1 + 2*v[0] - 3*v[1] }
	rs, err = Fit(context.Background(), draw(rng, 200, 2, 0, exact), draw(rng, 50, 2, 0, exact), MSE, Options{Methods: []Method{Linear}})
	if err != nil || rs[0].Test.Mean > 1e-10 {
		t.Errorf("an exactly linear target: %+v, %v", rs, err)
	}
}

// bruteKNN is the k-nearest-neighbour prediction at v by a full stable
// sort of the standardized distances (the independent computation).
func bruteKNN(s *Sample, rows []int, v []float64, k int) float64 {
	type nd struct {
		row int
		d   float64
	}
	var all []nd
	for _, r := range rows {
		var d float64
		for j := range v {
			d += (s.V[r][j] - v[j]) * (s.V[r][j] - v[j])
		}
		all = append(all, nd{r, d})
	}
	slices.SortStableFunc(all, func(a, b nd) int {
		if a.d < b.d {
			return -1
		}
		if a.d > b.d {
			return 1
		}
		return 0
	})
	var sw, sx float64
	for _, n := range all[:min(k, len(all))] {
		sw += s.weight(n.row)
		sx += s.weight(n.row) * s.X[n.row]
	}
	return sx / sw
}

// TestKNNMatchesBruteForce: the cross-validated k and the test estimate
// are those of a brute-force search (full sorts, every k of the grid),
// ties in distance included (a feature of few values).
func TestKNNMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f := func(v []float64) float64 { return math.Sin(2*v[0]) + v[1]*v[1] }
	train, test := draw(rng, 300, 2, 0.3, f), draw(rng, 80, 2, 0.3, f)
	for _, s := range []*Sample{train, test} {
		for _, v := range s.V {
			v[1] = math.Round(v[1] * 2) // ties
		}
	}
	st := newScaler(train)
	tr, te := st.apply(train), st.apply(test)
	all := make([]int, tr.Rows())
	for k := range all {
		all[k] = k
	}
	bestK, bestCV := 0, math.Inf(1)
	for _, k := range knnGrid {
		cv := 0.0
		for q := range tr.Rows() {
			var rows []int
			for _, r := range all {
				if r%folds != q%folds {
					rows = append(rows, r)
				}
			}
			cv += pointLoss(bruteKNN(tr, rows, tr.V[q], k), tr.X[q], MSE)
		}
		if cv < bestCV {
			bestK, bestCV = k, cv
		}
	}
	pred := make([]float64, te.Rows())
	for q, v := range te.V {
		pred[q] = bruteKNN(tr, all, v, bestK)
	}
	want := score(te, pred, MSE)
	rs, err := Fit(context.Background(), train, test, MSE, Options{Methods: []Method{KNN}})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].K != bestK || rs[0].Test != want {
		t.Errorf("knn: k = %d, %+v; brute force k = %d, %+v", rs[0].K, rs[0].Test, bestK, want)
	}
}

// TestNeighboursAreTheSortedScan: the k-d tree's search keeps exactly the
// rows, in the order, of a stable sort of every candidate by distance, on
// random instances of 1–5 features: continuous, of few values (ties in
// distance and whole boxes at one point), with extreme scales, and with a
// feature that is not finite (the plain scan).
func TestNeighboursAreTheSortedScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for inst := range 60 {
		n, d, kmax := 1+rng.IntN(400), 1+rng.IntN(5), []int{1, 2, 16, 128}[rng.IntN(4)]
		s := draw(rng, n, d, 0, func([]float64) float64 { return 0 })
		for _, v := range s.V {
			for j := range v {
				switch inst % 4 {
				case 1:
					v[j] = math.Round(v[j] * 2) // few values
				case 2:
					v[j] *= math.Pow(10, float64(150*(j%3-1))) // scales 1e-150 to 1e150
				}
			}
		}
		if inst%4 == 3 {
			s.V[rng.IntN(n)][rng.IntN(d)] = math.Inf(1)
		}
		rows := make([]int, 0, n)
		for r := range n {
			if rng.IntN(5) > 0 {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		c, nb := newCandidates(s, rows), newNeighbours(kmax)
		if c.nodes != nil && (len(c.nodes) > len(rows)/4+1 || cap(c.nodes) > len(rows)/4+1) {
			t.Fatalf("instance %d: %d nodes (capacity %d) for %d rows, want at most n/4 + 1 (TreeBytesPerRow)", inst, len(c.nodes), cap(c.nodes), len(rows))
		}
		for range 20 {
			v := make([]float64, d)
			for j := range v {
				v[j] = s.V[rng.IntN(n)][j] // on the candidates' values: ties
				if rng.IntN(2) == 0 || math.IsInf(v[j], 0) {
					v[j] += rng.NormFloat64()
				}
				if math.IsInf(v[j], 0) {
					v[j] = 0 // the query finite: distances +Inf, not NaN
				}
			}
			type nd struct {
				d   float64
				row int
			}
			var all []nd
			for i, r := range rows {
				all = append(all, nd{c.dist(i, v), r})
			}
			slices.SortStableFunc(all, func(a, b nd) int { return cmp.Compare(a.d, b.d) })
			nb.find(c, v)
			if len(nb.near) != min(kmax, len(rows)) {
				t.Fatalf("instance %d: %d neighbours, want %d", inst, len(nb.near), min(kmax, len(rows)))
			}
			for k, e := range nb.near {
				if e.row != all[k].row || e.dist != all[k].d {
					t.Fatalf("instance %d (n %d, d %d, k %d): neighbour %d is row %d at %g, the sorted scan's row %d at %g", inst, n, d, kmax, k, e.row, e.dist, all[k].row, all[k].d)
				}
			}
		}
	}
}

// TestMLPLearnsWhatLinearCannot: on x = |v| + noise the MLP's test MSE is
// near the noise's variance, far below the linear fit's (Var|v| ≈ 0.36),
// and the same seed gives the same bits.
func TestMLPLearnsWhatLinearCannot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	f := func(v []float64) float64 { return math.Abs(v[0]) }
	train, test := draw(rng, 2000, 1, 0.1, f), draw(rng, 500, 1, 0.1, f)
	rs, err := Fit(context.Background(), train, test, MSE, Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	lin, knn, mlp := rs[0].Test.Mean, rs[1].Test.Mean, rs[2].Test.Mean
	if mlp > 0.03 || knn > 0.03 || lin < 0.25 {
		t.Errorf("test MSE: linear %g, knn %g, mlp %g; want the MLP and k-NN near the noise's 0.01, linear near 0.36", lin, knn, mlp)
	}
	again, _ := Fit(context.Background(), train, test, MSE, Options{Seed: 7})
	if again[2] != rs[2] {
		t.Errorf("the same seed gave %+v, then %+v", rs[2], again[2])
	}
	if b := Best(rs); b.Method == Linear {
		t.Errorf("best: %+v", b)
	}
}

// TestZeroOneAlternatives: a binary release scored as two weighted rows
// per example is the expectation over F: F = X with probability p leaves
// an error 1 − p to the rule "x̂ = F".
func TestZeroOneAlternatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const p = 0.8
	mk := func(n int) *Sample {
		s := &Sample{}
		for e := range n {
			x := float64(rng.IntN(2))
			for f := range 2 {
				w := 1 - p
				if float64(f) == x {
					w = p
				}
				s.V = append(s.V, []float64{float64(f)})
				s.X = append(s.X, x)
				s.W = append(s.W, w)
				s.Ex = append(s.Ex, e)
			}
		}
		return s
	}
	train, test := mk(1000), mk(300)
	rs, err := Fit(context.Background(), train, test, ZeroOne, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if !scalar.EqualWithinAbs(r.Test.Mean, 1-p, 1e-12) || r.Test.SE > 1e-12 {
			t.Errorf("%s: %+v; want %g with SE 0 (every example's expected error is 1 − p)", r.Name(), r.Test, 1-p)
		}
	}
}

// TestChannelBayesBruteForce: the plug-in rule's held-out loss equals a
// direct computation from the training law's posterior.
func TestChannelBayesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	const nx, ns, nf = 3, 4, 5
	ch := make([][]float64, nx)
	for x := range ch {
		ch[x] = make([]float64, nf)
		var sum float64
		for f := range ch[x] {
			ch[x][f] = rng.Float64()
			sum += ch[x][f]
		}
		for f := range ch[x] {
			ch[x][f] /= sum
		}
	}
	rows := func(n int) Symbols {
		s := Symbols{NX: nx, NS: ns}
		for range n {
			x := rng.IntN(nx)
			v := x
			if rng.Float64() < 0.4 {
				v = rng.IntN(ns)
			}
			s.X, s.S = append(s.X, x), append(s.S, v)
		}
		return s
	}
	train, test := rows(200), rows(60)
	got, err := ChannelBayes(ch, train, test)
	if err != nil {
		t.Fatal(err)
	}
	post := func(f, s int) int { // argmax of P̂(x | f, s) by division
		best, bv := 0, -1.0
		var z float64
		for x := range nx {
			for k := range train.X {
				if train.X[k] == x && train.S[k] == s {
					z += ch[x][f]
				}
			}
		}
		for x := range nx {
			n := 0.0
			for k := range train.X {
				if train.X[k] == x && train.S[k] == s {
					n++
				}
			}
			if v := n * ch[x][f] / z; v > bv {
				best, bv = x, v
			}
		}
		return best
	}
	per := make([]float64, len(test.X))
	for k, x := range test.X {
		for f := range nf {
			if post(f, test.S[k]) != x {
				per[k] += ch[x][f]
			}
		}
	}
	want := MeanSE(per)
	if !scalar.EqualWithinAbs(got.Mean, want.Mean, 1e-12) || !scalar.EqualWithinAbs(got.SE, want.SE, 1e-12) {
		t.Errorf("ChannelBayes %+v, brute force %+v", got, want)
	}
}

// TestFitRefusesBadSamples: non-finite features or targets, ragged rows
// and a 0-1 target outside {0, 1} are errors wrapping ErrSample, never a
// panic or a NaN estimate.
func TestFitRefusesBadSamples(t *testing.T) {
	good := func() *Sample { return &Sample{V: [][]float64{{1}, {2}, {3}}, X: []float64{0, 1, 1}} }
	for _, c := range []struct {
		name string
		edit func(*Sample)
		loss Loss
	}{
		{"NaN feature", func(s *Sample) { s.V[1][0] = math.NaN() }, MSE},
		{"infinite feature", func(s *Sample) { s.V[2][0] = math.Inf(-1) }, MSE},
		{"ragged", func(s *Sample) { s.V[1] = []float64{1, 2} }, MSE},
		{"NaN target", func(s *Sample) { s.X[0] = math.NaN() }, MSE},
		{"0-1 target 2", func(s *Sample) { s.X[0] = 2 }, ZeroOne},
		{"negative weight", func(s *Sample) { s.W = []float64{1, -1, 1} }, MSE},
		{"example without a row", func(s *Sample) { s.Ex = []int{0, 2, 2} }, MSE},
		{"no rows", func(s *Sample) { *s = Sample{} }, MSE},
	} {
		s := good()
		c.edit(s)
		if _, err := Fit(context.Background(), s, good(), c.loss, Options{}); !errors.Is(err, ErrSample) {
			t.Errorf("%s: %v; want ErrSample", c.name, err)
		}
	}
	huge := &Sample{V: [][]float64{{1e308}, {-1e308}, {1e308}, {0}}, X: []float64{1, 0, 1, 0}}
	rs, err := Fit(context.Background(), huge, huge, MSE, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if math.IsNaN(r.Test.Mean) || math.IsInf(r.Test.Mean, 0) {
			t.Errorf("features near the largest float64: %s gave %+v", r.Name(), r.Test)
		}
	}
}
