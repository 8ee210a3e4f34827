package plot

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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

	for i, c := range medianSeries(pts) {
		line, points, err := plotter.NewLinePoints(c.xy)
		if err != nil {
			return fmt.Errorf("plot %s: %w", c.name, err)
		}
		col := plotutil.Color(i)
		line.Color, points.Color = col, col
		line.Dashes = plotutil.Dashes(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(c.name, line, points)
	}
	if err := addLimited(p, pts); err != nil {
		return err
	}
	p.Add(plotter.NewGrid())
	p.BackgroundColor = color.White
	return writePlot(path, ext, p, 7*vg.Inch, 4.5*vg.Inch)
}

// medianCurve is one series of the scaling plot: the median time per n.
type medianCurve struct {
	name string
	xy   plotter.XYs
}

// medianSeries returns, per series in the order of first appearance, the
// median solve time (floored at 10 µs for the log axis) at each n, by n.
func medianSeries(pts []BenchPoint) []medianCurve {
	bySeries := map[string]map[int][]float64{}
	var names []string
	for _, pt := range pts {
		if bySeries[pt.Series] == nil {
			bySeries[pt.Series] = map[int][]float64{}
			names = append(names, pt.Series)
		}
		bySeries[pt.Series][pt.N] = append(bySeries[pt.Series][pt.N], max(pt.Seconds, 1e-5))
	}
	out := make([]medianCurve, len(names))
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
		out[i] = medianCurve{name, xy}
	}
	return out
}

// addLimited marks every solve stopped by the time limit with a cross.
func addLimited(p *gonumplot.Plot, pts []BenchPoint) error {
	var limited plotter.XYs
	for _, pt := range pts {
		if pt.Limited {
			limited = append(limited, plotter.XY{X: float64(pt.N), Y: max(pt.Seconds, 1e-5)})
		}
	}
	if len(limited) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(limited)
	if err != nil {
		return fmt.Errorf("plot time-limited solves: %w", err)
	}
	sc.Shape = draw.CrossGlyph{}
	sc.Radius = vg.Points(5)
	sc.Color = color.Black
	p.Add(sc)
	p.Legend.Add("stopped by the time limit", sc)
	return nil
}

func benchMedian(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
