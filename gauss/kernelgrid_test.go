package gauss

import (
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
		g, err := m.NewKernelGrid(m.CellEdges(c.width), 64)
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
	edges := m.CellEdges(1.1)
	g, err := m.NewKernelGrid(edges, kernelCertNodes)
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
