package gauss

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"

	"github.com/mmds-project/mmds/internal/jsonconf"
)

// What mmds knows beside the closed-form families (docs/gauss.md, "What
// mmds knows"): mechanisms committed to the repository, found by the labels
// method or by hand, and the kernel search. A learned privatizer is a
// finding only when it beats all of them.

//go:embed known/*.json
var knownFiles embed.FS

// Known is a mechanism mmds knows, with its exact losses (Achievable) and
// an absolute bound on their error.
type Known struct {
	Achievable
	Err    float64 `json:"error"`
	Source string  `json:"source"`
}

// familiesRelErr bounds the relative error of the closed-form families'
// losses: their sums and trapezoid rules converge to about 1e-11 relative
// (cellRelTol, moduloRelTol), taken 100 times over.
const familiesRelErr = 1e-9

// knownFile is a committed mechanism: a cell kernel, where it comes from,
// and X's mean and standard deviation on the model it was found on.
type knownFile struct {
	Source string    `json:"source"`
	X      knownAxis `json:"x"`
	Kernel Kernel    `json:"kernel"`
}

// knownAxis is X's mean and standard deviation.
type knownAxis struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// Committed returns the committed mechanisms (gauss/known/*.json, cell
// kernels) with their exact losses on m (KernelLosses, its quadrature
// error as the error bound), computed once per model. A kernel is a
// mechanism of X alone, so every one applies to every model, as stored
// and moved onto m's X: the edges mapped by x ↦ μ + (x − μ₀)·σ/σ₀, μ₀ and
// σ₀ X's mean and standard deviation where it was found. The problem is
// the same up to that map (a model whose X is shifted and scaled has its
// losses scaled by (σ/σ₀)², its optimal mechanisms mapped), so the moved
// kernel is as known as the stored one: a privatizer that only moves a
// committed kernel with X is no finding. One whose losses cannot be
// computed on m (an observer the quadrature cannot resolve) is left out.
func (m *Model) Committed() []Known {
	return slices.Clone(m.known())
}

func (m *Model) loadCommitted() []Known {
	var out []Known
	for _, c := range m.committedKernels() {
		l, qe, err := m.committedLosses(c)
		if err != nil {
			continue // not computable on m
		}
		mech := Mechanism{Family: FamilyKernel, Labels: len(c.kernel.Prob[0]), Kernel: &c.kernel}
		out = append(out, Known{Achievable: Achievable{Losses: l, Mechanism: mech}, Err: qe, Source: c.source})
	}
	return out
}

// committedKernel is a committed mechanism as it applies to a model: the
// kernel of file (known/file, its contents), as stored or moved with X.
type committedKernel struct {
	kernel   Kernel
	source   string
	file     string
	contents []byte
	moved    bool
}

// committedKernels returns the committed kernels as they apply to m, in
// file order, each stored one followed by it moved with X when m's X
// differs from the one it was found on.
func (m *Model) committedKernels() []committedKernel {
	names, err := knownFiles.ReadDir("known")
	if err != nil {
		panic("gauss: embedded known/: " + err.Error()) // a build defect, caught by tests
	}
	var out []committedKernel
	for _, e := range names {
		b, err := knownFiles.ReadFile(path.Join("known", e.Name()))
		if err != nil {
			panic("gauss: embedded " + e.Name() + ": " + err.Error())
		}
		var f knownFile
		if err := jsonconf.Decode(bytes.NewReader(b), &f); err != nil {
			panic(fmt.Sprintf("gauss: embedded known/%s: %v", e.Name(), err))
		}
		out = append(out, committedKernel{kernel: f.Kernel, source: "committed: " + f.Source, file: e.Name(), contents: b})
		mu, sd := m.mean[m.private], math.Sqrt(m.VarX())
		if f.X.SD > 0 && (mu != f.X.Mean || sd != f.X.SD) {
			k := Kernel{Edges: make([]float64, len(f.Kernel.Edges)), Prob: f.Kernel.Prob}
			for i, e := range f.Kernel.Edges {
				k.Edges[i] = mu + (e-f.X.Mean)*(sd/f.X.SD)
			}
			out = append(out, committedKernel{kernel: k, file: e.Name(), contents: b, moved: true,
				source: fmt.Sprintf("committed: %s, moved with X (mean %g, sd %g there; %g, %g here)", f.Source, f.X.Mean, f.X.SD, mu, sd)})
		}
	}
	return out
}

// SearchKnown runs the kernel search at threshold 0 < d < V_Y as `mmds
// gauss --kernels` runs it (DefaultKernelSearch) and returns its kernel,
// with its quadrature error (its losses may exceed d: BestKnown time-shares
// it). Outside (0, V_Y) there is nothing to search, and where the search
// cannot lay its grid (ErrCellGrid) or evaluate its kernel (ErrUnresolved)
// it finds nothing: it returns none.
func (m *Model) SearchKnown(ctx context.Context, d float64) ([]Known, error) {
	if !(d > 0 && d < m.vRecon) {
		return nil, nil
	}
	s := DefaultKernelSearch()
	r, err := m.OptimizeKernel(ctx, d, s.Cell, s.Iters)
	if errors.Is(err, ErrCellGrid) || errors.Is(err, ErrUnresolved) {
		return nil, nil // no kernel of that grid there: the search finds nothing to know
	}
	if err != nil {
		return nil, err
	}
	mech := Mechanism{Family: FamilyKernel, Delta: s.Cell, Labels: len(r.Kernel.Prob[0]), Kernel: &r.Kernel}
	return []Known{{Achievable: Achievable{Losses: r.Losses, Mechanism: mech}, Err: r.QuadErr,
		Source: fmt.Sprintf("the kernel search at D = %.6g (cells %g wide, %d L-BFGS iterations)", d, s.Cell, s.Iters)}}, nil
}

// BestKnown returns the best mechanism mmds knows at threshold d ≥ 0 among
// the closed-form families' envelope (BestAchievable) and the mechanisms
// pts, each alone when its reconstructor loss is at most d, or time-shared
// with the flag revealed with another of them or with a vertex of the
// envelope so that the reconstructor loss is d (a mixture's error is the
// weighted sum of its parts'). Of equals the envelope's point is kept.
func (m *Model) BestKnown(d float64, pts []Known) (Known, error) {
	env, err := m.BestAchievable(d)
	if err != nil {
		return Known{}, err
	}
	best := Known{Achievable: env, Err: familiesRelErr * math.Max(env.Recon, env.MinAdv), Source: "the closed-form families' envelope"}
	if d >= m.vRecon {
		return best, nil // F independent of X: nothing is better
	}
	var vertices []Known
	for _, v := range m.Envelope().Vertices() {
		vertices = append(vertices, Known{Achievable: v, Err: familiesRelErr * math.Max(v.Recon, v.MinAdv), Source: "the closed-form families' envelope"})
	}
	consider := func(k Known) {
		if k.Recon <= d && k.MinAdv > best.MinAdv {
			best = k
		}
	}
	for i, a := range pts {
		consider(a)
		for _, b := range append(slices.Clone(pts[i+1:]), vertices...) {
			lo, hi := a, b
			if lo.Recon > hi.Recon {
				lo, hi = hi, lo
			}
			if !(lo.Recon <= d && d < hi.Recon) {
				continue
			}
			mixed := mixAt(lo.Achievable, hi.Achievable, d)
			w := (d - lo.Recon) / (hi.Recon - lo.Recon)
			if ps := mixed.Mechanism.Parts; len(ps) == 2 {
				w = ps[1].Weight
			}
			consider(Known{Achievable: mixed, Err: (1-w)*lo.Err + w*hi.Err, Source: fmt.Sprintf("%s, time-shared with %s", a.Source, b.Source)})
		}
	}
	return best, nil
}
