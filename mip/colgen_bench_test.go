package mip

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/internal/highsx"
)

// BenchmarkColGen proves the global optimum of one RandomFinite instance
// per size at 30% of D_max (the scale runs over 10 instances are
// TestColGenScale, make bench-finite).
func BenchmarkColGen(b *testing.B) {
	for _, s := range []struct{ n, k int }{{4, 2}, {5, 2}, {6, 2}} {
		m, err := RandomFinite(rand.New(rand.NewPCG(uint64(s.n*100+s.k), 0)), s.n, s.k)
		if err != nil {
			b.Fatal(err)
		}
		d := 0.3 * m.DMax()
		b.Run(fmt.Sprintf("n=%d,K=%d", s.n, s.k), func(b *testing.B) {
			for b.Loop() {
				r, err := m.SolveColGen(context.Background(), d, ColGenOptions{Solver: DefaultSolver()})
				if err != nil || !r.Proven {
					b.Fatalf("proven %v: %v", r.Proven, err)
				}
			}
		})
	}
}

// BenchmarkRealizer times the realizability test of decision rules (the
// exact pricing's pruning): one full rule at n = 8.
func BenchmarkRealizer(b *testing.B) {
	m, err := RandomFinite(rand.New(rand.NewPCG(8, 0)), 8, 1)
	if err != nil {
		b.Fatal(err)
	}
	rr := newRisk(m.Prior, m.Recon)
	r := newRealizer(m.Prior, m.Recon, rr)
	b.ReportAllocs()
	for b.Loop() {
		r.reset()
		for y := range rr.k {
			r.assign(y, y%len(rr.k[y]))
		}
	}
}

// TestRealizerAgainstSampling: every decision rule that is Bayes-optimal at
// a random interior column is realizable.
func TestRealizerAgainstSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for i := 0; i < 20; i++ {
		n := 2 + rng.IntN(5)
		m, err := RandomFinite(rng, n, 1)
		if err != nil {
			t.Fatal(err)
		}
		rr := newRisk(m.Prior, m.Recon)
		r := newRealizer(m.Prior, m.Recon, rr)
		cg := &colGen{rr: rr}
		rule := make([]int, len(rr.k))
		for range 200 {
			c := make([]float64, n)
			for x := range c {
				c[x] = rng.ExpFloat64()
			}
			cg.ruleAt(c, rule)
			r.reset()
			for y, a := range rule {
				if !r.assign(y, a) {
					t.Fatalf("instance %d: rule %v is optimal at %v but rejected at side value %d", i, rule, c, y)
				}
			}
		}
	}
}

// TestRealizerAgainstLP: for every decision rule of small 0-1 models, the
// realizer accepts it iff some interior column makes it Bayes-optimal,
// decided independently by the LP  max t  s.t.  q_y(a_y) c_{a_y} ≥ q_y(x) c_x,
// c_x ≥ t, Σ c = 1 (realizable iff t* > 0).
func TestRealizerAgainstLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	verdicts := map[bool]int{}
	defer func() {
		if verdicts[true] == 0 || verdicts[false] == 0 {
			t.Errorf("verdicts %v: the family must have realizable and unrealizable rules", verdicts)
		}
	}()
	for i := 0; i < 8; i++ {
		n := 2 + i%2
		m, err := RandomFinite(rng, n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 2 { // a tie-prone channel: two identical rows
			m.Recon.Channel[1] = m.Recon.Channel[0]
		}
		rr := newRisk(m.Prior, m.Recon)
		r := newRealizer(m.Prior, m.Recon, rr)
		ny := len(rr.k)
		rule := make([]int, ny)
		for {
			r.reset()
			ok := true
			for y, a := range rule {
				ok = ok && r.assign(y, a)
			}
			verdicts[ok]++
			if lp := realizableLP(t, m, rr, rule); ok != lp {
				t.Fatalf("instance %d: rule %v: realizer %v, LP %v", i, rule, ok, lp)
			}
			y := 0
			for y < ny && rule[y] == len(rr.k[y])-1 {
				rule[y] = 0
				y++
			}
			if y == ny {
				break
			}
			rule[y]++
		}
	}
}

func realizableLP(t *testing.T, m Finite, rr risk, rule []int) bool {
	t.Helper()
	n := m.N()
	mod := highsx.NewProblem(n + 1)
	mod.Maximize, mod.Cost[n] = true, 1
	for j := range mod.Upper {
		mod.Upper[j] = 1
	}
	row := newRowBuilder(mod)
	es := make([]entry, n)
	for x := range es {
		es[x] = entry{x, 1}
	}
	row.add(1, 1, es...)
	for x := 0; x < n; x++ {
		row.add(0, math.Inf(1), entry{x, 1}, entry{n, -1})
	}
	for y, j := range rule {
		a := rr.acts[y][j]
		for x := 0; x < n; x++ {
			qa, qx := m.Prior[a]*m.Recon.Channel[a][y], m.Prior[x]*m.Recon.Channel[x][y]
			if x != a {
				row.add(0, math.Inf(1), entry{a, qa}, entry{x, -qx})
			}
		}
	}
	res, err := mod.Solve(context.Background(), DefaultSolver())
	if errors.Is(err, highsx.ErrInfeasible) {
		return false // not even a boundary column
	}
	if err != nil {
		t.Fatal(err)
	}
	return res.Objective > 1e-9
}
