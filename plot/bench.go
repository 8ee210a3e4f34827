package plot

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mmds-project/mmds/internal/report"
)

// BenchPoint is one solve for the scaling plot.
type BenchPoint struct {
	Series  string  // e.g. "HiGHS derivedM+sym"
	N       int     // problem size n = |Y| = |Z| = m
	Seconds float64 // solve time; a solve stopped by a limit counts at the limit
	// Limited marks a solve stopped by the time limit: drawn as a cross at
	// its time, on top of the median line.
	Limited bool
}

// BenchScaling writes the scaling plot of mmds bench to path: the median
// solve time per series against n, on a log scale. The format (PNG or SVG)
// follows the extension; the file is written atomically.
func BenchScaling(path, title string, pts []BenchPoint) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("plot %q: the file name must end in .png or .svg", path)
	}
	p := gonumplot.New()
	p.Title.Text = title
	p.X.Label.Text = "n = |Y| = |Z| = m"
	p.Y.Label.Text = "median solve time (s)"
	p.Y.Scale = gonumplot.LogScale{}
	p.Y.Tick.Marker = gonumplot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true

	bySeries := map[string]map[int][]float64{}
	var names []string
	for _, pt := range pts {
		if bySeries[pt.Series] == nil {
			bySeries[pt.Series] = map[int][]float64{}
			names = append(names, pt.Series)
		}
		bySeries[pt.Series][pt.N] = append(bySeries[pt.Series][pt.N], max(pt.Seconds, 1e-5))
	}
	for i, name := range names {
		ns := make([]int, 0, len(bySeries[name]))
		for n := range bySeries[name] {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		xy := make(plotter.XYs, len(ns))
		for j, n := range ns {
			xy[j].X, xy[j].Y = float64(n), benchMedian(bySeries[name][n])
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		c := plotutil.Color(i)
		line.Color, points.Color = c, c
		line.Dashes = plotutil.Dashes(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(name, line, points)
	}
	var limited plotter.XYs
	for _, pt := range pts {
		if pt.Limited {
			limited = append(limited, plotter.XY{X: float64(pt.N), Y: max(pt.Seconds, 1e-5)})
		}
	}
	if len(limited) > 0 {
		sc, err := plotter.NewScatter(limited)
		if err != nil {
			return fmt.Errorf("plot time-limited solves: %w", err)
		}
		sc.Shape = draw.CrossGlyph{}
		sc.Radius = vg.Points(5)
		sc.Color = color.Black
		p.Add(sc)
		p.Legend.Add("stopped by the time limit", sc)
	}
	p.Add(plotter.NewGrid())
	p.BackgroundColor = color.White
	return report.WriteFileAtomic(path, func(tmp string) error {
		w, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, strings.TrimPrefix(ext, "."))
		if err != nil {
			return err
		}
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := w.WriteTo(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

func benchMedian(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
