package learn

import (
	"math"
	"math/rand/v2"
)

// FineCells sets the labels method's grid on a continuous X at small
// thresholds. Cells of width w have w²/12 of within-cell error, so a
// kernel on the default grid (w0 = CellWidth·σ_X) cannot reach D < w0²/12
// alone and must be time-shared with F = X, whose certified value
// D·L_adv/L_recon is then capped by the kernel's ratio at that floor
// (docs/learn.md, "D = 0.005"); above it, gradient steps from random
// logits leave cells of one label within the reconstructor's resolution
// of each other (the colouring problem). Wherever the fine grid, of width
// w with w²/12 = Floor·D on μ_X ± Span·σ_X, is finer than the default one
// (D < w0²/(12·Floor)), the privatizer lives on it and is a periodic
// labelling, cell j ↦ label j mod P: the quantized X mod Δ with Δ = P·w.
// The period is searched on the certified value by a pattern search from a
// random period of the range Periods (periodSearch); no gradient steps.
type FineCells struct {
	// Floor is the fine cells' within-cell error w²/12 as a share of D,
	// in (0, 1].
	Floor float64 `json:"floor"`
	// Span: the fine grid covers μ_X ± Span·σ_X, the tails beyond being
	// one cell each (their mass is below 10⁻⁶ at Span = 5), > 0.
	Span float64 `json:"span"`
	// MaxCells bounds the fine grid: at a D so small that w²/12 = Floor·D
	// needs more cells, the width is 2·Span·σ_X/MaxCells and the kernel is
	// time-shared with F = X.
	MaxCells int `json:"max_cells"`
	// Periods is the search range of the period P·w, in units of σ_X.
	Periods [2]float64 `json:"periods"`
}

// DefaultFineCells returns the fine grid's defaults: w = √D (w²/12 =
// D/12) on μ_X ± 5σ_X, at most 1024 cells, periods from 1 to 6 σ_X (X mod
// Δ's best Δ is 5.2σ_X at D = 0.005 on the paper's model).
func DefaultFineCells() *FineCells {
	return &FineCells{Floor: 1.0 / 12, Span: 5, MaxCells: 1024, Periods: [2]float64{1, 6}}
}

// maxFineCells bounds FineCells.MaxCells (the kernel's table is cells ×
// period entries, written to results.json).
const maxFineCells = 4096

// maxFinePeriod bounds the fine grid's period in cells, the kernel's label
// count: gauss.MaxKernelLabels, above which verify refuses the kernel.
const maxFinePeriod = 4096

func (f *FineCells) validate() []error {
	var errs problems
	bad := errs.add
	if !(f.Floor > 0 && f.Floor <= 1) {
		bad("Config.Labels.Fine.Floor = %g: must be in (0, 1]", f.Floor)
	}
	errs.finite("Config.Labels.Fine.Span", f.Span, false)
	if f.MaxCells < 2 || f.MaxCells > maxFineCells {
		bad("Config.Labels.Fine.MaxCells = %d: must be in [2, %d]", f.MaxCells, maxFineCells)
	}
	if lo, hi := f.Periods[0], f.Periods[1]; !(lo > 0 && hi >= lo) || math.IsInf(hi, 0) {
		bad("Config.Labels.Fine.Periods = %v: want 0 < lo ≤ hi, finite", f.Periods)
	}
	if len(errs) > 0 {
		return errs
	}
	// The narrowest cells, 2·Span/MaxCells σ_X wide, give the longest
	// period in cells (newPeriodSearch).
	if w := 2 * f.Span / float64(f.MaxCells); math.Ceil(f.Periods[1]/w) > maxFinePeriod {
		bad("Config.Labels.Fine.Periods = %v: a period of %g σ_X on cells as narrow as 2·Span/MaxCells = %.4g σ_X is %g labels: at most %d",
			f.Periods, f.Periods[1], w, math.Ceil(f.Periods[1]/w), maxFinePeriod)
	}
	return errs
}

// gridFor returns the width and span, in units of σ_X = sx, of the grid
// at threshold d: the fine grid (fine = true) where it is finer than the
// default one, else the default grid (CellWidth on μ_X ± 8σ_X).
func (l *LabelConfig) gridFor(d, sx float64) (w, span float64, fine bool) {
	f := l.Fine
	if f == nil {
		return l.CellWidth, cellSpan, false
	}
	w = max(math.Sqrt(12*f.Floor*d)/sx, 2*f.Span/float64(f.MaxCells))
	if !(w < l.CellWidth) {
		return l.CellWidth, cellSpan, false
	}
	return w, f.Span, true
}

// periodSearch is a pattern search over the period P (in cells) of the
// labelling j ↦ j mod P, on the certified value: from a random start it
// polls P ± step, moves to the better one, and halves the step when
// neither is better, until the step is 1 and nothing is.
type periodSearch struct {
	lo, hi       int
	period, step int
	value        float64
	seen         map[int]float64
	done         bool
}

// newPeriodSearch returns the search for cells of width w (units of σ_X),
// started at a period drawn uniformly from the range.
func newPeriodSearch(f *FineCells, w float64, rng *rand.Rand) *periodSearch {
	lo := max(2, int(math.Ceil(f.Periods[0]/w)))
	hi := max(lo, int(f.Periods[1]/w))
	s := &periodSearch{lo: lo, hi: hi, step: max(1, (hi-lo)/4), seen: map[int]float64{}}
	s.period = lo + rng.IntN(hi-lo+1)
	s.value = math.NaN()
	return s
}

// periodic sets the trainer's kernel to the labelling j ↦ j mod P.
func (t *cellTrainer) periodic(P int) {
	t.m = P
	if len(t.p) != t.n*P {
		t.p = make([]float64, t.n*P)
	} else {
		clear(t.p)
	}
	for j := range t.n {
		t.p[j*P+j%P] = 1
	}
}

// periodValue ranks the labelling of period P on the certified losses
// (CellGrid.NewRecorder), time-shared with F = X as released: its min
// adversarial loss where the released distortion is in the selection band
// [D − τ, D], else minus the distance to the band.
func (t *cellTrainer) periodValue(P int) float64 {
	s := t.search
	if v, ok := s.seen[P]; ok {
		return v
	}
	t.periodic(P)
	rec := t.rec.Loss(0, t.p, t.m, nil)
	scale := 1 - t.revealFor(rec)
	lo := math.Inf(1)
	for i := 1; i < t.nobs; i++ {
		lo = min(lo, t.rec.Loss(i, t.p, t.m, nil))
	}
	d, tau := scale*rec, t.cfg.Protocol.Tau
	v := scale * lo
	switch {
	case d > t.d:
		v = t.d - d
	case d < t.d-tau:
		v = d - (t.d - tau)
	}
	s.seen[P] = v
	return v
}

// poll takes one step of the search; it reports false once converged.
func (t *cellTrainer) poll() bool {
	s := t.search
	if s.done {
		return false
	}
	if math.IsNaN(s.value) {
		s.value = t.periodValue(s.period)
	}
	best, bv := s.period, s.value
	for _, P := range []int{s.period - s.step, s.period + s.step} {
		if P < s.lo || P > s.hi {
			continue
		}
		if v := t.periodValue(P); v > bv {
			best, bv = P, v
		}
	}
	switch {
	case best != s.period:
		s.period, s.value = best, bv
	case s.step > 1:
		s.step /= 2
	default:
		s.done = true
	}
	return !s.done
}

// runSearch is Run on a fine grid: each epoch takes up to StepsPerEpoch
// polls of the search and records the labelling it stands at, exactly as
// Run records a trained kernel.
func (t *cellTrainer) runSearch(stop func() error) error {
	return epochs(t.cfg.Epochs, stop, func(int) {
		for range t.lc.StepsPerEpoch {
			if !t.poll() {
				break
			}
		}
		t.evaluate()
	})
}
