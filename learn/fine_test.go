package learn

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/model/kind"
)

// The fine grid replaces the default one exactly where it is finer: w =
// √(12·Floor·D) < CellWidth·σ_X (units of σ_X = 4 below, the paper's),
// its cell count bounded by MaxCells.
func TestGridFor(t *testing.T) {
	const sx = 4
	lc := &LabelConfig{CellWidth: DefaultCellWidth, Fine: DefaultFineCells()}
	for _, c := range []struct {
		d, w, span float64
		fine       bool
	}{
		{0.005, math.Sqrt(0.005) / sx, 5, true},
		{0.601, math.Sqrt(0.601) / sx, 5, true},
		{0.64, DefaultCellWidth, 8, false}, // √0.64 = 0.8 = 0.2σ_X: not finer
		{1.92, DefaultCellWidth, 8, false},
		{1e-9, 10.0 / 1024, 5, true}, // MaxCells: 1024 cells on ±5σ_X
	} {
		w, span, fine := lc.gridFor(c.d, sx)
		if math.Abs(w-c.w) > 1e-15 || span != c.span || fine != c.fine {
			t.Errorf("D = %g: width %g, span %g, fine %v; want %g, %g, %v", c.d, w, span, fine, c.w, c.span, c.fine)
		}
	}
	lc.Fine = nil
	if w, span, fine := lc.gridFor(0.005, sx); w != DefaultCellWidth || span != 8 || fine {
		t.Errorf("Fine = nil: width %g, span %g, fine %v; want the default grid", w, span, fine)
	}
}

func TestFineCellsValidate(t *testing.T) {
	for _, c := range []struct {
		edit func(*FineCells)
		want string
	}{
		{func(f *FineCells) { f.Floor = 0 }, "Floor"},
		{func(f *FineCells) { f.Floor = 1.5 }, "Floor"},
		{func(f *FineCells) { f.Span = math.Inf(1) }, "Span"},
		{func(f *FineCells) { f.MaxCells = 1 }, "MaxCells"},
		{func(f *FineCells) { f.MaxCells = maxFineCells + 1 }, "MaxCells"},
		{func(f *FineCells) { f.Periods = [2]float64{3, 2} }, "Periods"},
		{func(f *FineCells) { f.Periods = [2]float64{0, 2} }, "Periods"},
		// 2·Span/MaxCells = 10/4096 σ_X: a period of 10.01 σ_X is 4101 labels.
		{func(f *FineCells) { f.MaxCells, f.Periods[1] = maxFineCells, 10.01 }, "4101 labels: at most 4096"},
	} {
		f := DefaultFineCells()
		c.edit(f)
		errs := f.validate()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("%+v: errors %v; want one naming %s", f, errs, c.want)
		}
	}
	if errs := DefaultFineCells().validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	// The longest period at the largest grid, 2·Span σ_X, is the label cap.
	if errs := (&FineCells{Floor: 1, Span: 5, MaxCells: maxFineCells, Periods: [2]float64{1, 10}}).validate(); len(errs) != 0 {
		t.Errorf("a period of 4096 cells: %v", errs)
	}
	if maxFinePeriod != gauss.MaxKernelLabels {
		t.Errorf("the fine grid's longest period %d is not verify's label cap %d", maxFinePeriod, gauss.MaxKernelLabels)
	}
}

// fakeCells is a CellGrid whose losses depend on the number of labels
// only: a periodic labelling of period P has L_recon = D·(60/P)² and
// L_adv = e^(−P/40), so the certified value, time-shared with F = X below
// P = 60, is e^(−P/40)·min(1, (P/60)²), largest at P = 60.
type fakeCells struct{ n int }

func (g fakeCells) Edges() []float64 {
	e := make([]float64, g.n-1)
	for j := range e {
		e[j] = float64(j)
	}
	return e
}
func (g fakeCells) Observers() int                      { return 2 }
func (g fakeCells) NewEvaluator() CellEvaluator         { return g }
func (g fakeCells) NewRecorder() CellEvaluator          { return g }
func (g fakeCells) SigmaX() float64                     { return 1 }
func (g fakeCells) Grid(_, _ float64) (CellGrid, error) { return g, nil }
func (g fakeCells) Loss(i int, p []float64, labels int, grad []float64) float64 {
	P := float64(labels)
	if i == 0 {
		return fakeD * (60 / P) * (60 / P)
	}
	return math.Exp(-P / 40)
}

const fakeD = 0.01

// From any random start the pattern search ends at the period a brute
// force over the whole range finds best, and the trial records it.
func TestPeriodSearchFindsBest(t *testing.T) {
	c := &Config{Model: kind.Gauss, Epochs: 3, Protocol: Protocol{K: 1, Tau: 1}, Cells: fakeCells{n: 500},
		Labels: &LabelConfig{M: 32, StepsPerEpoch: 20, CellWidth: 1, Reveal: true,
			Fine: &FineCells{Floor: 1.0 / 12, Span: 5, MaxCells: 1024, Periods: [2]float64{0.2, 10}}}}
	for seed := range uint64(8) {
		tr, err := newCellTrainer(c, fakeD, seed)
		if err != nil {
			t.Fatal(err)
		}
		s := tr.search
		if s == nil {
			t.Fatal("no search on the fine grid")
		}
		best, bv := 0, math.Inf(-1)
		for P := s.lo; P <= s.hi; P++ {
			if v := tr.periodValue(P); v > bv {
				best, bv = P, v
			}
		}
		tr, _ = newCellTrainer(c, fakeD, seed)
		if err := tr.Run(nil); err != nil {
			t.Fatal(err)
		}
		if best != 60 || tr.search.period != best || !tr.search.done {
			t.Errorf("seed %d: search ends at %d (done %v), brute force %d; want 60", seed, tr.search.period, tr.search.done, best)
		}
		k := tr.Final().Kernel
		if len(k.Prob[0]) != 60 || k.Prob[61][1] != 1 || k.Reveal != 0 {
			t.Errorf("seed %d: kernel of %d labels, reveal %g; want the period-60 labelling, reveal 0", seed, len(k.Prob[0]), k.Reveal)
		}
	}
}

// gridSpy is a CellLaw that records the grids asked of it.
type gridSpy struct{ asked *int }

func (g gridSpy) SigmaX() float64 { return 4 }
func (g gridSpy) Grid(_, _ float64) (CellGrid, error) {
	*g.asked++
	return fakeCells{n: 100}, nil
}

// A Gaussian labels config whose cells are too narrow for a kernel
// (CellWidth below 2⁻¹⁰ σ_X: more than gauss.MaxKernelCells edges on
// μ_X ± 8σ_X, on which gauss's grid used to panic) is refused by Sweep
// before any work: no grid, no results directory, an error matching
// ErrConfig that names the field, the value and the smallest width. The
// smallest width itself passes validation, and agrees with gauss's.
func TestCellWidthBelowMinimum(t *testing.T) {
	if MinCellWidth != 0x1p-10 || MinCellWidth != gauss.MinCellWidth(cellSpan) || maxCellEdges != gauss.MaxKernelCells {
		t.Fatalf("MinCellWidth %g, gauss %g; edges %d, gauss %d", MinCellWidth, gauss.MinCellWidth(cellSpan), maxCellEdges, gauss.MaxKernelCells)
	}
	for _, c := range []struct {
		width float64
		want  string // "" accepted
	}{
		{MinCellWidth, ""},
		{math.Nextafter(MinCellWidth, 0), "Config.Labels.CellWidth = 0.0009765624999999999: must be finite and ≥ 2⁻¹⁰ = 0.0009765625 σ_X"},
		{1e-6, "Config.Labels.CellWidth = 1e-06: must be finite and ≥ 2⁻¹⁰ = 0.0009765625 σ_X (narrower cells lay more than 16384 edges on μ_X ± 8σ_X)"},
		{0, "Config.Labels.CellWidth = 0: must be"},
		{math.NaN(), "Config.Labels.CellWidth = NaN: must be"},
		{math.Inf(1), "Config.Labels.CellWidth = +Inf: must be"},
	} {
		cfg, err := PresetFor(PresetQuick, kind.Gauss, MethodLabels, 0)
		if err != nil {
			t.Fatal(err)
		}
		var asked int
		cfg.D, cfg.DMax, cfg.Workers, cfg.Epochs = []float64{1}, 10, 1, 1
		cfg.Cells, cfg.Labels.CellWidth, cfg.Labels.Fine = gridSpy{&asked}, c.width, nil
		if c.want == "" {
			if _, err := cfg.resolve(600); err != nil {
				t.Errorf("width %g: %v", c.width, err)
			}
			continue
		}
		cfg.Dir = filepath.Join(t.TempDir(), "out")
		_, err = Sweep(context.Background(), paperGauss(600, 1), cfg)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("width %g: %v; want one line with ErrConfig saying %q", c.width, err, c.want)
		}
		if _, serr := os.Stat(cfg.Dir); asked != 0 || !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("width %g: %d grids asked, results directory %v: want no work", c.width, asked, serr)
		}
	}
}
