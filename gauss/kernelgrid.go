package gauss

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrCellGrid is matched by the errors of a cell grid that cannot be
// laid: a width or span that is not positive and finite, or a grid of more
// than MaxKernelCells edges.
var ErrCellGrid = errors.New("gauss: invalid cell grid")

// MinCellWidth returns the narrowest cells, in units of σ_X, whose grid on
// μ_X ± span·σ_X (GridEdges) has at most MaxKernelCells edges:
// 2·span/MaxKernelCells, exactly 2⁻¹⁰ at span = 8 (OptimizeKernel's and
// the labels method's default grid). A width of MinCellWidth(span)·σ_X
// passes GridEdges' check in floating point too: the product and the
// quotient are correctly rounded, hence monotone, and scaling by a power
// of two is exact.
func MinCellWidth(span float64) float64 { return 2 * span / MaxKernelCells }

// GridEdges returns the edges of cells of width w on μ_X ± span·σ_X:
// b_j = μ_X − span·σ_X + j·w for j < ⌈2·span·σ_X/w⌉, the two tails beyond
// being one cell each. The error wraps ErrCellGrid if w or span is not
// positive and finite or the grid has more than MaxKernelCells edges
// (w < MinCellWidth(span)·σ_X).
func (m *Model) GridEdges(w, span float64) ([]float64, error) {
	sx := math.Sqrt(m.VarX())
	if !(w > 0) || math.IsInf(w, 0) || !(span > 0) || math.IsInf(span, 0) {
		return nil, fmt.Errorf("%w: cell width %g on μ_X ± %g σ_X: want a finite width and span > 0", ErrCellGrid, w, span)
	}
	if n := 2 * span * sx / w; n > MaxKernelCells {
		return nil, fmt.Errorf("%w: cell width %g on μ_X ± %g σ_X (σ_X = %g) gives %.0f edges: at most %d (width ≥ %g σ_X)",
			ErrCellGrid, w, span, sx, math.Ceil(n), MaxKernelCells, MinCellWidth(span))
	}
	mu := m.mean[m.private]
	edges := make([]float64, int(math.Ceil(2*span*sx/w)))
	for j := range edges {
		edges[j] = mu - span*sx + float64(j)*w
	}
	return edges, nil
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
	if nodes < 2 || nodes > KernelCertNodes {
		return nil, fmt.Errorf("gauss: kernel grid with %d quadrature nodes: want 2 to %d", nodes, KernelCertNodes)
	}
	if len(edges) > MaxKernelCells {
		return nil, fmt.Errorf("%w: %d edges: at most %d", ErrCellGrid, len(edges), MaxKernelCells)
	}
	probe := Kernel{Edges: edges, Prob: make([][]float64, len(edges)+1)}
	for j := range probe.Prob {
		probe.Prob[j] = []float64{1}
	}
	if err := probe.Validate(); err != nil {
		return nil, err
	}
	g := &KernelGrid{edges: append([]float64(nil), edges...)}
	g.obs = m.kernelObservers(g.edges, nodes)
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
