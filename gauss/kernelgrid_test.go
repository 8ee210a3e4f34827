package gauss

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// randomKernel returns a row-stochastic cells × labels kernel, row-major.
func randomKernel(rng *rand.Rand, cells, labels int) []float64 {
	p := make([]float64, cells*labels)
	for j := range cells {
		var s float64
		for l := range labels {
			p[j*labels+l] = rng.Float64() + 0.01
			s += p[j*labels+l]
		}
		for l := range labels {
			p[j*labels+l] /= s
		}
	}
	return p
}

// The gradient of every observer's kernel loss matches central differences
// of the loss itself, entry by entry, on grids of several widths.
func TestKernelEvaluatorGradient(t *testing.T) {
	m := Paper()
	rng := rand.New(rand.NewPCG(5, 7))
	for _, c := range []struct {
		width  float64
		labels int
	}{{3.2, 3}, {1.6, 5}, {0.8, 8}} {
		g, err := m.NewKernelGrid(cellEdges(m, c.width, 8), 64)
		if err != nil {
			t.Fatal(err)
		}
		ev := g.NewEvaluator()
		p := randomKernel(rng, g.Cells(), c.labels)
		grad := make([]float64, len(p))
		for i := range g.Observers() {
			ev.Loss(i, p, c.labels, grad)
			const h = 1e-6
			for k := range p {
				save := p[k]
				p[k] = save + h
				up := ev.Loss(i, p, c.labels, nil)
				p[k] = save - h
				down := ev.Loss(i, p, c.labels, nil)
				p[k] = save
				fd := (up - down) / (2 * h)
				if math.Abs(fd-grad[k]) > 1e-6*(1+math.Abs(fd)) {
					t.Fatalf("width %g, observer %d, entry %d: gradient %.10g, central difference %.10g", c.width, i, k, grad[k], fd)
				}
			}
		}
	}
}

// At the certificate's order the grid's losses are KernelLosses' own.
func TestKernelGridMatchesKernelLosses(t *testing.T) {
	m := Paper()
	rng := rand.New(rand.NewPCG(3, 9))
	edges := cellEdges(m, 1.1, 8)
	g, err := m.NewKernelGrid(edges, KernelCertNodes)
	if err != nil {
		t.Fatal(err)
	}
	const labels = 4
	p := randomKernel(rng, g.Cells(), labels)
	k := Kernel{Edges: edges}
	for j := range g.Cells() {
		k.Prob = append(k.Prob, p[j*labels:(j+1)*labels])
	}
	want, _, err := m.KernelLosses(k)
	if err != nil {
		t.Fatal(err)
	}
	ev := g.NewEvaluator()
	got := []float64{ev.Loss(0, p, labels, nil)}
	for i := range m.K() {
		got = append(got, ev.Loss(1+i, p, labels, nil))
	}
	for i, w := range append([]float64{want.Recon}, want.Adv...) {
		if math.Abs(got[i]-w) > 1e-12*w {
			t.Errorf("observer %d: grid %.15g, KernelLosses %.15g", i, got[i], w)
		}
	}
	if _, err := m.NewKernelGrid([]float64{1, 0}, 0); err == nil {
		t.Error("decreasing edges accepted")
	}
}

// periodicKernel returns the labelling j ↦ j mod labels on the grid with
// the given edges (the fine grid's privatizer of learn's labels method).
func periodicKernel(edges []float64, labels int) Kernel {
	k := Kernel{Edges: edges, Prob: make([][]float64, len(edges)+1)}
	for j := range k.Prob {
		k.Prob[j] = make([]float64, labels)
		k.Prob[j][j%labels] = 1
	}
	return k
}

// A fine periodic kernel (cells of width √D on μ_X ± 5σ_X, the quantized
// X mod Δ with Δ ≈ 20.9, D = 0.005: learn's fine grid) certifies within
// its stated error: KernelLosses' losses at order 256 differ from order
// 512's by less than the stated error (the change against order 128), and
// that error is far below --tol-quad's 0.005 relative to the smallest loss.
func TestFineKernelWithinStatedError(t *testing.T) {
	m := Paper()
	w := math.Sqrt(0.005)
	k := periodicKernel(cellEdges(m, w, 5), 295)
	l, qe, err := m.KernelLosses(k)
	if err != nil {
		t.Fatal(err)
	}
	if !(l.Recon > 0.004 && l.Recon < 0.006) {
		t.Fatalf("recon loss %g: want the quantized X mod Δ near D = 0.005", l.Recon)
	}
	f := m.kernelLossFuncOf(k.Edges, k.dense(), 512)
	want := append([]float64{l.Recon}, l.Adv...)
	for i, v := range append([]float64{m.vRecon}, m.vAdv...) {
		if d := math.Abs(f(v) - want[i]); d > qe+1e-15 {
			t.Errorf("observer %d: order 256 %.15g, order 512 %.15g: differ by %.2g > stated error %.2g", i, want[i], f(v), d, qe)
		}
	}
	if rel := qe / l.Recon; rel > 1e-4 {
		t.Errorf("stated error %.2g relative to the recon loss: want ≤ 1e-4", rel)
	}
}

// The sparse forward product (large kernels with few nonzeros) gives the
// dense product's losses to rounding.
func TestSparseKernelLossMatchesDense(t *testing.T) {
	m := Paper()
	rng := rand.New(rand.NewPCG(4, 2))
	edges := cellEdges(m, 0.1, 5)
	g, err := m.NewKernelGrid(edges, 64)
	if err != nil {
		t.Fatal(err)
	}
	const labels = 97
	cells := g.Cells()
	if cells*labels < sparseMinEntries {
		t.Fatalf("%d entries: the test needs a kernel that takes the sparse product", cells*labels)
	}
	p := make([]float64, cells*labels)
	for j := range cells {
		a, b := j%labels, rng.IntN(labels)
		p[j*labels+a] += 0.7
		p[j*labels+b] += 0.3
	}
	ev, grad := g.NewEvaluator(), make([]float64, len(p))
	for i := range g.Observers() {
		sparse := ev.Loss(i, p, labels, nil)
		dense := ev.Loss(i, p, labels, grad) // the gradient takes the dense product
		if math.Abs(sparse-dense) > 1e-12*dense {
			t.Errorf("observer %d: sparse %.15g, dense %.15g", i, sparse, dense)
		}
	}
}

// A grid too fine for a kernel is an input error, not a panic: cells
// narrower than MinCellWidth·σ_X (a labels config with a tiny cell width, a
// kernel search with tiny cells) are refused with ErrCellGrid by
// GridEdges, NewKernelGrid and OptimizeKernel, and the narrowest allowed
// width lays exactly MaxKernelCells edges, for several σ_X.
func TestGridEdgesTooFine(t *testing.T) {
	if MinCellWidth(8) != 0x1p-10 {
		t.Fatalf("MinCellWidth(8) = %g, want 2⁻¹⁰", MinCellWidth(8))
	}
	for _, vx := range []float64{16, 1, 0.3, 7e3} {
		c := PaperConfig()
		c.Var[0] = vx
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		sx := math.Sqrt(vx)
		for _, span := range []float64{8, 5, 0.5} {
			w := MinCellWidth(span) * sx
			edges, err := m.GridEdges(w, span)
			if err != nil || len(edges) != MaxKernelCells {
				t.Errorf("σ_X² = %g, span %g: width %g gives %d edges, %v; want %d", vx, span, w, len(edges), err, MaxKernelCells)
			}
			below := math.Nextafter(w, 0)
			if _, err := m.GridEdges(below, span); !errors.Is(err, ErrCellGrid) {
				t.Errorf("σ_X² = %g, span %g: width %g just below the minimum: %v, want ErrCellGrid", vx, span, below, err)
			}
		}
		for _, c := range []struct{ w, span float64 }{{0, 8}, {-1, 8}, {math.NaN(), 8}, {math.Inf(1), 8}, {1, 0}, {1, math.Inf(1)}, {1e-300, 8}} {
			if _, err := m.GridEdges(c.w, c.span); !errors.Is(err, ErrCellGrid) {
				t.Errorf("σ_X² = %g: GridEdges(%g, %g) = %v, want ErrCellGrid", vx, c.w, c.span, err)
			}
		}
	}
	m := Paper()
	if _, err := m.NewKernelGrid(make([]float64, MaxKernelCells+1), 0); !errors.Is(err, ErrCellGrid) {
		t.Errorf("NewKernelGrid of %d edges: %v, want ErrCellGrid", MaxKernelCells+1, err)
	}
	if _, err := m.OptimizeKernel(context.Background(), 1, 1e-4, 1); !errors.Is(err, ErrCellGrid) {
		t.Errorf("OptimizeKernel with cells 1e-4 wide: %v, want ErrCellGrid", err)
	}
}

// cellEdges is GridEdges for a width and span the test has checked: it
// panics on an error.
func cellEdges(m *Model, w, span float64) []float64 {
	edges, err := m.GridEdges(w, span)
	if err != nil {
		panic(err)
	}
	return edges
}
