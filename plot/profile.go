package plot

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/mmds-project/mmds/bench"
	"github.com/mmds-project/mmds/internal/report"
)

// PerformanceProfile writes a performance profile to path (.png or .svg,
// atomically): ρ_s(τ), the fraction of problems solver s solves within a
// factor τ of the fastest, against τ on a log₂ axis (bench.Profile
// computes the curves).
func PerformanceProfile(path, title string, curves []bench.ProfileCurve) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("profile %q: the file name must end in .png or .svg", path)
	}
	tauMax := 2.0
	for _, c := range curves {
		for _, t := range c.Tau {
			if !math.IsInf(t, 0) {
				tauMax = math.Max(tauMax, t)
			}
		}
	}
	tauMax *= 1.5
	p := gonumplot.New()
	p.Title.Text = title
	p.X.Label.Text = "τ (time within a factor τ of the fastest solver)"
	p.Y.Label.Text = "ρ(τ): fraction of problems solved"
	p.X.Scale = gonumplot.LogScale{}
	p.X.Tick.Marker = pow2Ticks{}
	p.X.Min, p.X.Max = 1, tauMax
	p.Y.Min, p.Y.Max = 0, 1.02
	p.Legend.Top = false
	p.Legend.Left = false
	for i, c := range curves {
		xy := plotter.XYs{{X: 1, Y: 0}}
		for k, t := range c.Tau {
			prev := xy[len(xy)-1].Y
			xy = append(xy, plotter.XY{X: t, Y: prev}, plotter.XY{X: t, Y: c.Rho[k]})
		}
		xy = append(xy, plotter.XY{X: tauMax, Y: xy[len(xy)-1].Y})
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("profile %s: %w", c.Label, err)
		}
		l.Color = colorOf(i)
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(i)
		p.Add(l)
		p.Legend.Add(c.Label, l)
	}
	p.Add(plotter.NewGrid())
	p.BackgroundColor = color.White
	return writePlot(path, ext, p, 7*vg.Inch, 4.5*vg.Inch)
}

// pow2Ticks marks 1, 2, 4, 8, … on a log axis.
type pow2Ticks struct{}

func (pow2Ticks) Ticks(min, max float64) []gonumplot.Tick {
	var ts []gonumplot.Tick
	for v := 1.0; v <= max*1.0001; v *= 2 {
		if v >= min {
			ts = append(ts, gonumplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return ts
}

func writePlot(path, ext string, p *gonumplot.Plot, w, h vg.Length) error {
	return report.WriteFileAtomic(path, func(tmp string) error {
		wt, err := p.WriterTo(w, h, strings.TrimPrefix(ext, "."))
		if err != nil {
			return err
		}
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := wt.WriteTo(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}
