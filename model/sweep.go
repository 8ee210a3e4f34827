package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/sweep"
	"github.com/mmds-project/mmds/mip"
)

// SweepRequest asks for a model's optimum at every threshold of a sweep, as
// the optimum commands print it (mmds binary, finite, gauss and optimum;
// docs/cli.md): the table, CSV or JSON document of the kind, and the files
// beside it.
type SweepRequest struct {
	// D are the thresholds, in order.
	D []float64
	// MaxPoints and TimeLimit bound the sweep (0: none) with one meaning
	// on every kind: thresholds are solved in order, and one starts only
	// while fewer than MaxPoints are solved and TimeLimit has not passed
	// since the sweep began; the rest are "not reached".
	MaxPoints int
	TimeLimit time.Duration
	Format    report.Format
	// Binary, Finite and Gauss are the options of each kind's sweep; their
	// zero values are the defaults.
	Binary BinarySweep
	Finite FiniteSweep
	Gauss  GaussSweep
	// Witness names the file that receives the witness of every optimum
	// solved (binary and finite models; docs/check.md); "" for none.
	Witness string
	// ModelFiles name, per threshold, the file its LP or MIP is written to
	// (binary and finite models; .mps or .lp); nil for none.
	ModelFiles []string
	// Plot draws the sweep's figure from its exact curves (binary and
	// Gaussian models); nil for none.
	Plot func(Curves) error
	// Progress starts the report of the sweep's progress: total units of
	// work (named by unit) of about perUnit each; nil for none.
	Progress func(unit string, total int, perUnit time.Duration) *progress.Bar
}

// Swept is how a sweep ended: Solved thresholds, a prefix of the request's,
// and the bound that stopped it before the others (sweep.StopNone when
// none did).
type Swept struct {
	Solved int
	Stop   sweep.Stop
}

// Curve is a series of points (X[i], Y[i]).
type Curve struct{ X, Y []float64 }

// Curves are the exact curves of a sweep's figure: the smallest adversary
// loss against the reconstructor's distortion.
type Curves struct {
	// Prop2 is Proposition 2's γ*(D) at the thresholds solved; Global the
	// global optimum's beside it (BinarySweep.Global; nil without).
	Prop2  Curve
	Global *Curve
	// Gauss are the Gaussian model's curves.
	Gauss *GaussCurves
}

// ErrNoRayLP reports a finite sweep asked to write its ray LP
// (SweepRequest.ModelFiles) when the ray enumeration exceeded
// FiniteSweep.MaxSubsets, so that column generation solved it instead.
var ErrNoRayLP = errors.New("model: no ray LP to write")

// Sweep solves m at every threshold of r and writes the output to w: a
// kind that solves its thresholds one at a time (binary, finite) writes
// each point as it is solved, so that memory does not grow with the sweep;
// the Gaussian sweep, whose stages revisit every threshold, writes its
// output once all are solved. Then it writes the side files (r.ModelFiles,
// r.Witness, r.Plot) and ends the output: a run that fails or is
// cancelled leaves its output unfinished, and the side files it wrote are
// whole (report.WriteAtomic). Errors that end the sweep early are
// returned with what was solved.
func Sweep(ctx context.Context, m Model, r SweepRequest, w io.Writer) (Swept, error) {
	s, ok := m.(sweeper)
	if !ok {
		return Swept{}, fmt.Errorf("%w: a %v model has no optimum sweep", ErrUnsupported, m.Kind())
	}
	k := s.newSweep(r, w)
	n := len(r.D)
	if r.MaxPoints > 0 {
		n = min(n, r.MaxPoints)
	}
	var bar *progress.Bar
	if r.Progress != nil {
		bar = r.Progress(k.plan(n))
	}
	done, err := k.solve(ctx, bar)
	bar.Finish(outcome(err, done.Stop))
	if err != nil {
		return done, err
	}
	if err := writeSideFiles(ctx, m, k, r, done.Solved); err != nil {
		return done, err
	}
	return done, k.finish(r.D[done.Solved:])
}

// sweeper is a model with an optimum sweep.
type sweeper interface {
	newSweep(r SweepRequest, w io.Writer) kindSweep
}

// kindSweep is one kind's sweep, which Sweep drives.
type kindSweep interface {
	// plan is the progress report's unit, the units of a sweep that
	// reaches n thresholds, and a typical cost per unit.
	plan(n int) (unit string, units int, perUnit time.Duration)
	// solve solves the thresholds within the bounds.
	solve(ctx context.Context, bar *progress.Bar) (Swept, error)
	// writeModel writes the LP or MIP of threshold d to path, atomically.
	writeModel(d float64, path string) error
	// witnessed are the optima solved, witnessed.
	witnessed(ctx context.Context) ([]WitnessedOptimum, error)
	// curves are the sweep's figure.
	curves() (Curves, error)
	// finish ends the output; rest are the thresholds not reached.
	finish(rest []float64) error
}

// writeSideFiles writes the model files of the solved thresholds, the
// witness file and the figure that r asks for.
func writeSideFiles(ctx context.Context, m Model, k kindSweep, r SweepRequest, solved int) error {
	for i, path := range r.ModelFiles[:min(len(r.ModelFiles), solved)] {
		if err := k.writeModel(r.D[i], path); err != nil {
			return err
		}
	}
	if r.Witness != "" {
		wf, err := NewWitnessFile(m)
		if err != nil {
			return err
		}
		if wf.Optima, err = k.witnessed(ctx); err != nil {
			return err
		}
		if err := report.WriteAtomic(r.Witness, wf.WriteJSON); err != nil {
			return err
		}
	}
	if r.Plot == nil {
		return nil
	}
	c, err := k.curves()
	if err != nil {
		return err
	}
	return r.Plot(c)
}

// sweepOptions are r's bounds for mip, with progress reported to bar.
func (r SweepRequest) sweepOptions(bar *progress.Bar) mip.SweepOptions {
	return mip.SweepOptions{MaxPoints: r.MaxPoints, TimeLimit: r.TimeLimit, Progress: bar.Set}
}

// outcome is the last progress line's word for how a sweep ended.
func outcome(err error, stop sweep.Stop) string {
	switch {
	case err != nil:
		return "stopped"
	case stop != sweep.StopNone:
		return "stopped by the " + stop.String()
	}
	return "done"
}

// AdversaryColumns name m's adversaries in a table's header: "adv 1", with
// the names of its side columns where m has them ("adv 1 {Z1,Z2}").
func AdversaryColumns(m Model) []string {
	out := report.Numbered("adv %d", m.Adversaries())
	for i := range out {
		if names := m.SideNames(i + 1); names != nil {
			out[i] += fmt.Sprintf(" {%s}", strings.Join(names, ","))
		}
	}
	return out
}

// solverDoc names the solver in a JSON document.
type solverDoc struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	FeasibilityJump bool   `json:"feasibility_jump"`
}

func highsDoc() solverDoc {
	return solverDoc{Name: "HiGHS", Version: mip.HiGHSVersion, FeasibilityJump: mip.DefaultSolver().FeasibilityJump}
}

// stoppedBy is a streamed document's tail: the bound that stopped the
// sweep ("max points" or "time limit"), absent when every threshold was
// solved.
type stoppedBy struct {
	StoppedBy sweep.Stop `json:"stopped_by,omitempty"`
}

// msOf is d in milliseconds, to the microsecond.
func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ModelFileNames checks a --write-model path and returns one file name per
// threshold: the path itself for one threshold, else the path with "-NN"
// (1-based) inserted before the extension.
func ModelFileNames(path string, n int) ([]string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".mps" && ext != ".lp" {
		return nil, fmt.Errorf("--write-model %q: the file name must end in .mps or .lp", path)
	}
	if dir := filepath.Dir(path); dir != "." {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--write-model %q: folder %q does not exist", path, dir)
		}
	}
	if n == 1 {
		return []string{path}, nil
	}
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	width := len(fmt.Sprint(n))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%0*d%s", stem, width, i+1, filepath.Ext(path))
	}
	return out, nil
}
