package gauss

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CellEdges returns the edges of cells of width w > 0 on μ_X ± 8σ_X, the
// grid of OptimizeKernel: b_j = μ_X − 8σ_X + j·w for j < ⌈16σ_X/w⌉, so the
// kernel has one more cell than edges, the tails included. It panics if w
// is not positive or gives more than MaxKernelCells cells.
func (m *Model) CellEdges(w float64) []float64 { return m.CellEdgesWithin(w, 8) }

// CellEdgesWithin returns the edges of cells of width w > 0 on
// μ_X ± span·σ_X: b_j = μ_X − span·σ_X + j·w for j < ⌈2·span·σ_X/w⌉, the
// two tails beyond being one cell each. It panics if w or span is not
// positive or the grid has more than MaxKernelCells cells.
func (m *Model) CellEdgesWithin(w, span float64) []float64 {
	sx := math.Sqrt(m.VarX())
	if !(w > 0) || !(span > 0) || 2*span*sx/w > MaxKernelCells {
		panic(fmt.Sprintf("gauss: cell width %g on μ_X ± %g σ_X for σ_X = %g: want 0 < w, 0 < span, at most %d cells", w, span, sx, MaxKernelCells))
	}
	mu := m.mean[m.private]
	edges := make([]float64, int(math.Ceil(2*span*sx/w)))
	for j := range edges {
		edges[j] = mu - span*sx + float64(j)*w
	}
	return edges
}

// KernelGrid holds every observer's quadrature of the kernel loss
// (kernel.go) on a fixed grid of cells: the exact loss of any kernel on
// the grid, with its gradient, at the cost of two matrix products per
// observer. It is what learn's labels method trains Gaussian label
// privatizers against (docs/learn.md). Safe for concurrent use; each
// goroutine evaluates through its own KernelEvaluator.
type KernelGrid struct {
	edges []float64
	obs   []kernelObs // reconstructor, then adversary 1..K
}

// NewKernelGrid precomputes the grid with the given edges (strictly
// increasing, at most MaxKernelCells) at Gauss–Hermite order nodes (0: the
// order of OptimizeKernel, 128).
func (m *Model) NewKernelGrid(edges []float64, nodes int) (*KernelGrid, error) {
	if nodes == 0 {
		nodes = kernelNodes
	}
	if nodes < 2 || nodes > kernelCertNodes {
		return nil, fmt.Errorf("gauss: kernel grid with %d quadrature nodes: want 2 to %d", nodes, kernelCertNodes)
	}
	probe := Kernel{Edges: edges, Prob: make([][]float64, len(edges)+1)}
	for j := range probe.Prob {
		probe.Prob[j] = []float64{1}
	}
	if err := probe.check(); err != nil {
		return nil, err
	}
	g := &KernelGrid{edges: append([]float64(nil), edges...)}
	for _, v := range append([]float64{m.vRecon}, m.vAdv...) {
		g.obs = append(g.obs, m.kernelObserver(g.edges, v, nodes))
	}
	return g, nil
}

// Edges returns a copy of the grid's edges.
func (g *KernelGrid) Edges() []float64 { return append([]float64(nil), g.edges...) }

// Cells returns the number of cells, len(Edges()) + 1.
func (g *KernelGrid) Cells() int { return len(g.edges) + 1 }

// Observers returns 1 + K: the reconstructor, then the adversaries.
func (g *KernelGrid) Observers() int { return len(g.obs) }

// KernelEvaluator evaluates kernels on a KernelGrid; it reuses its
// matrices between calls, so it is for one goroutine.
type KernelEvaluator struct {
	g  *KernelGrid
	sc kernelScratch
}

// NewEvaluator returns an evaluator on g.
func (g *KernelGrid) NewEvaluator() *KernelEvaluator { return &KernelEvaluator{g: g} }

// Loss returns observer i's loss (0: the reconstructor, i ≥ 1: adversary
// i) for the kernel p, p[j*labels+l] = P(F = l | X ∈ c_j) with rows
// summing to 1 (not checked: this is the training loop's call), and, when
// grad is not nil, stores ∂loss/∂p in it (same layout). An observer that
// knows X (Var[X|W] = 0) has loss 0 and gradient 0.
func (e *KernelEvaluator) Loss(i int, p []float64, labels int, grad []float64) float64 {
	o, cells := e.g.obs[i], e.g.Cells()
	if len(p) != cells*labels || grad != nil && len(grad) != len(p) {
		panic(fmt.Sprintf("gauss: kernel of %d entries, gradient of %d, on %d cells × %d labels", len(p), len(grad), cells, labels))
	}
	if o.v == 0 {
		clear(grad)
		return 0
	}
	K := mat.NewDense(cells, labels, p)
	var G *mat.Dense
	if grad != nil {
		G = mat.NewDense(cells, labels, grad)
	}
	return o.kernelLoss(K, G, &e.sc)
}
