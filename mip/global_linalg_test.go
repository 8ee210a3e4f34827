package mip

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReduceSupport exercises Carathéodory's reduction directly (HiGHS's
// simplex returns basic solutions, so Global.Solve rarely needs it): from
// random weights on many rays, the reduced support has at most n + K + 1
// rays with positive weights, and every quantity the LP sees — the n row
// sums Σ_j λ_j v_j(x), each adversary's Σ_j λ_j ρ_i(v_j) and the
// reconstructor's Σ_j λ_j ρ_R(v_j) — is unchanged.
func TestReduceSupport(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 20; i++ {
		n, k := 2+i%3, 1+i%3
		g := mustGlobal(t, randomSmall(rng, n, k))
		rows := n + k + 1
		size := min(len(g.rays), rows+1+rng.IntN(2*rows))
		if size <= rows {
			continue
		}
		sup := rng.Perm(len(g.rays))[:size]
		w := make([]float64, size)
		for c := range w {
			w[c] = 0.05 + rng.Float64()
		}
		want := supportQuantities(g, sup, w)
		rsup, rw := g.reduceSupport(append([]int(nil), sup...), append([]float64(nil), w...))
		if len(rsup) > rows || len(rsup) != len(rw) {
			t.Fatalf("instance %d: %d rays (%d weights) after reduction, want ≤ n + K + 1 = %d", i, len(rsup), len(rw), rows)
		}
		in := map[int]bool{}
		for _, j := range sup {
			in[j] = true
		}
		for c, j := range rsup {
			if !in[j] || !(rw[c] > 0) {
				t.Fatalf("instance %d: ray %d with weight %g after reduction (not in the support, or not positive)", i, j, rw[c])
			}
		}
		got := supportQuantities(g, rsup, rw)
		for r := range want {
			if math.Abs(got[r]-want[r]) > 1e-9*(1+math.Abs(want[r])) {
				t.Fatalf("instance %d: quantity %d is %.15g after reduction, %.15g before", i, r, got[r], want[r])
			}
		}
	}
}

// supportQuantities is Σ_c w_c (v_j, ρ_adv,1..K(v_j), ρ_R(v_j)) over j = sup[c].
func supportQuantities(g *Global, sup []int, w []float64) []float64 {
	n, k := g.model.N(), g.model.K()
	q := make([]float64, n+k+1)
	for c, j := range sup {
		for x := 0; x < n; x++ {
			q[x] += w[c] * g.rays[j][x]
		}
		for i := 0; i < k; i++ {
			q[n+i] += w[c] * g.adv[i][j]
		}
		q[n+k] += w[c] * g.recon[j]
	}
	return q
}

// TestEnumerationDoesNotAllocate: the ray enumeration's hot loop (copy the
// system, solve it, test the sign, look the point up) allocates nothing for
// a system whose point was already met, nor does the vertex test.
func TestEnumerationDoesNotAllocate(t *testing.T) {
	m, err := RandomFinite(rand.New(rand.NewPCG(1, 0)), 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := m.N()
	var tiers []risk
	for _, o := range append([]Observer{m.Recon}, m.Adv...) {
		tiers = append(tiers, newRisk(m.Prior, o))
	}
	s := newSupport([]int{0, 1, 2, 3}, m.hyperplanes())
	var sels [][]int
	combinations(len(s.hs), n-1, func(sel []int) { sels = append(sels, slices.Clone(sel)) })
	e := newEnumerator(n, tiers)
	for _, sel := range sels {
		e.system(s, sel)
	}
	if len(e.rays) == 0 || len(e.seen) <= len(e.rays) {
		t.Fatalf("%d systems: %d points, %d rays; want rays and non-vertex points", len(sels), len(e.seen), len(e.rays))
	}
	if a := testing.AllocsPerRun(3, func() {
		for _, sel := range sels {
			e.system(s, sel)
		}
	}); a != 0 {
		t.Errorf("%d systems again: %v allocations, want 0", len(sels), a)
	}
	v := e.rays[len(e.rays)-1]
	if a := testing.AllocsPerRun(10, func() { e.vt.isVertex(v, tiers) }); a != 0 {
		t.Errorf("isVertex: %v allocations, want 0", a)
	}
}
