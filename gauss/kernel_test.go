package gauss

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/internal/jsonconf"
)

// nestedAsKernel writes F = ⌊X/δ⌋ mod K (cells [cδ, (c+1)δ)) as a
// deterministic kernel on μ ± 8σ with distinct-label tails.
func nestedAsKernel(m *Model, delta float64, k int) Kernel {
	mu, sx := m.mean[m.private], math.Sqrt(m.VarX())
	lo := math.Floor((mu - 8*sx) / delta)
	n := int(math.Ceil(16 * sx / delta))
	kern := Kernel{Edges: make([]float64, n), Prob: make([][]float64, n+1)}
	for j := range kern.Edges {
		kern.Edges[j] = (lo + float64(j)) * delta
	}
	for j := range kern.Prob {
		kern.Prob[j] = make([]float64, k)
		kern.Prob[j][((int(lo)+j-1)%k+k)%k] = 1
	}
	return kern
}

// The kernel evaluator (Gauss–Hermite over m(W), matrix products) and the
// nested-quantizer evaluator (periodic trapezoid over m(W)) are independent
// computations of the same losses for a deterministic kernel.
func TestKernelMatchesNested(t *testing.T) {
	m := Paper()
	for _, c := range []struct {
		delta float64
		k     int
	}{{0.2, 60}, {0.5, 7}, {1.3, 3}} {
		got, qe, err := m.KernelLosses(nestedAsKernel(m, c.delta, c.k))
		if err != nil {
			t.Fatal(err)
		}
		g := cellGrid{delta: c.delta, origin: 0, labels: c.k}
		mu := m.mean[m.private]
		ref := []float64{g.loss(mu, m.vRecon, m.VarX()-m.vRecon)}
		for _, v := range m.vAdv {
			ref = append(ref, g.loss(mu, v, m.VarX()-v))
		}
		all := append([]float64{got.Recon}, got.Adv...)
		for i := range ref {
			if math.Abs(all[i]-ref[i]) > 1e-9*ref[i] {
				t.Errorf("δ = %g, K = %d, observer %d: kernel %.12g, cell grid %.12g (quadrature error estimate %.2g)", c.delta, c.k, i, all[i], ref[i], qe)
			}
		}
	}
}

// A short kernel search returns a feasible mechanism whose reported losses
// re-evaluate from scratch, above Proposition 1.
func TestOptimizeKernelFeasible(t *testing.T) {
	m := Paper()
	d := 3.0
	r, err := m.OptimizeKernel(context.Background(), d, 0.4, 15)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Achievable
	if a.Recon > d*(1+1e-12) {
		t.Errorf("L_R = %g > D = %g", a.Recon, d)
	}
	again, err := m.Losses(a.Mechanism)
	if err != nil || math.Abs(again.MinAdv-a.MinAdv) > 1e-9*a.MinAdv {
		t.Errorf("re-evaluated %v (err %v), reported %v", again, err, a.Losses)
	}
	p, _ := m.Optimum(d)
	if a.MinAdv < p.MinAdv {
		t.Errorf("kernel %g below Proposition 1 %g", a.MinAdv, p.MinAdv)
	}
	if r.QuadErr > 1e-6*m.VarX() {
		t.Errorf("quadrature error estimate %g too large", r.QuadErr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.OptimizeKernel(ctx, d, 0.4, 15); err == nil {
		t.Errorf("cancelled context: no error")
	}
}

// An optimized (stochastic) kernel's losses against a Monte Carlo with the
// exact posterior: the label is drawn from the kernel row of X's cell and
// the estimate is m(W) + Σ_j K_jl r_j / Σ_j K_jl q_j over all cells.
func TestKernelLossesMonteCarlo(t *testing.T) {
	m := Paper()
	r, err := m.OptimizeKernel(context.Background(), 3, 0.4, 25)
	if err != nil {
		t.Fatal(err)
	}
	k := r.Kernel
	lab := rand.New(rand.NewPCG(5, 6))
	draw := func(x float64) int {
		j := sort.SearchFloat64s(k.Edges, x) // cell index: x in [Edges[j−1], Edges[j])
		if j < len(k.Edges) && k.Edges[j] == x {
			j++
		}
		u, acc := lab.Float64(), 0.0
		for l, p := range k.Prob[j] {
			if acc += p; u < acc {
				return l
			}
		}
		return len(k.Prob[j]) - 1
	}
	est := func(x, mw, v float64) float64 {
		l := draw(x)
		sd := math.Sqrt(v)
		var a, b float64
		for j := range k.Prob {
			lo, hi := math.Inf(-1), math.Inf(1)
			if j > 0 {
				lo = (k.Edges[j-1] - mw) / sd
			}
			if j < len(k.Edges) {
				hi = (k.Edges[j] - mw) / sd
			}
			pl := k.Prob[j][l]
			if pl == 0 {
				continue
			}
			a += pl * 0.5 * (math.Erfc(-hi/math.Sqrt2) - math.Erfc(-lo/math.Sqrt2))
			b += pl * sd * (math.Exp(-lo*lo/2) - math.Exp(-hi*hi/2)) / math.Sqrt(2*math.Pi)
		}
		return mw + b/a
	}
	means, ses := mcLoss(m, rand.New(rand.NewPCG(9, 10)), 20000, est)
	want := append([]float64{r.Losses.Recon}, r.Losses.Adv...)
	for o := range want {
		if z := math.Abs(means[o]-want[o]) / ses[o]; z > 5 {
			t.Errorf("observer %d: exact %.6g, Monte Carlo %.6g ± %.2g: %.1f standard errors", o, want[o], means[o], ses[o], z)
		}
	}
}

// TestKernelCaps: a kernel from a file is refused, naming its count and the
// cap, above MaxKernelCells edges, MaxKernelLabels labels or
// MaxKernelEntries cells × labels, and accepted at each cap. The rows of a
// kernel share one slice, so that the largest tables cost one row.
func TestKernelCaps(t *testing.T) {
	kernel := func(edges, labels int) Kernel {
		k := Kernel{Edges: make([]float64, edges), Prob: make([][]float64, edges+1)}
		for j := range k.Edges {
			k.Edges[j] = float64(j)
		}
		row := make([]float64, labels)
		row[0] = 1
		for j := range k.Prob {
			k.Prob[j] = row
		}
		return k
	}
	for _, c := range []struct {
		name          string
		edges, labels int
		want          string // "" for a kernel within the caps
	}{
		{"labels at the cap", 0, MaxKernelLabels, ""},
		{"labels above the cap", 0, MaxKernelLabels + 1, "kernel has 4097 labels: at most 4096"},
		{"entries at the cap", MaxKernelEntries/MaxKernelLabels - 1, MaxKernelLabels, ""},
		{"entries above the cap", MaxKernelEntries / MaxKernelLabels, MaxKernelLabels, "kernel has 8193 cells × 4096 labels = 33558528 entries: at most 33554432"},
		{"edges at the cap", MaxKernelCells, 2, ""},
		{"edges above the cap", MaxKernelCells + 1, 1, "kernel has 16385 edges: at most 16384"},
		{"the largest codebook on the most cells", MaxKernelCells, 1024, ""},
	} {
		err := kernel(c.edges, c.labels).Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestKernelCapsAreTheCompactForms: the caps the compact JSON form of a
// table checks before allocating it are the caps of a kernel.
func TestKernelCapsAreTheCompactForms(t *testing.T) {
	if jsonconf.MaxMatrixRows != MaxKernelCells+1 || jsonconf.MaxMatrixLabels != MaxKernelLabels || jsonconf.MaxMatrixEntries != MaxKernelEntries {
		t.Fatalf("jsonconf.Matrix caps %d rows, %d labels, %d entries; gauss %d + 1, %d, %d",
			jsonconf.MaxMatrixRows, jsonconf.MaxMatrixLabels, jsonconf.MaxMatrixEntries, MaxKernelCells, MaxKernelLabels, MaxKernelEntries)
	}
}
