package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mmds-project/mmds/internal/report"
)

// Shape is a marker shape.
type Shape int

// The marker shapes.
const (
	Circle Shape = iota
	Triangle
	Square
	Diamond
	Cross
)

// Series is one set of (X[i], Y[i]) pairs with its legend label and style.
// NaN pairs are skipped (a point with no value).
type Series struct {
	Label string
	X, Y  []float64
	// Color is an index into the palette (cycled).
	Color int
	// Shape and Filled style markers (Points); Dashed styles lines (Curves).
	Shape  Shape
	Filled bool
	Dashed bool
	// Markers also marks every pair of a curve.
	Markers bool
	// Connector draws a curve as a thin grey line with no legend entry:
	// it joins points that belong together (one threshold's learned and
	// certified points).
	Connector bool
}

// Spec is a finished figure.
type Spec struct {
	Title          string
	XLabel, YLabel string
	Curves         []Series // drawn as lines, in order
	Points         []Series // drawn as markers, over the curves
	// Width and Height in inches; zero means 6 × 4.5. PNGs are drawn at
	// DPI dots per inch (zero: 150).
	Width, Height float64
	DPI           int
}

// colorOf returns colour i (cycled) of Okabe–Ito's colour-blind-safe set
// without yellow.
func colorOf(i int) color.Color {
	palette := [...]color.NRGBA{
		{0, 114, 178, 255},   // blue
		{213, 94, 0, 255},    // vermillion
		{0, 158, 115, 255},   // bluish green
		{204, 121, 167, 255}, // reddish purple
		{86, 180, 233, 255},  // sky blue
		{230, 159, 0, 255},   // orange
		{0, 0, 0, 255},       // black
	}
	return palette[((i%len(palette))+len(palette))%len(palette)]
}

// size returns the figure's width and height.
func (s Spec) size() (vg.Length, vg.Length) {
	w, h := s.Width, s.Height
	if w <= 0 {
		w = 6
	}
	if h <= 0 {
		h = 4.5
	}
	return vg.Length(w) * vg.Inch, vg.Length(h) * vg.Inch
}

// build returns the gonum plot of s.
func (s Spec) build() (*gonumplot.Plot, error) {
	p := gonumplot.New()
	p.Title.Text = s.Title
	p.X.Label.Text = s.XLabel
	p.Y.Label.Text = s.YLabel
	p.X.Min, p.Y.Min = 0, 0
	p.Legend.Top, p.Legend.Left = true, true // the paper's legend: north west
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(8)
	p.Legend.Padding = vg.Points(2)
	p.Add(plotter.NewGrid())
	for _, c := range s.Curves {
		if err := addCurve(p, c); err != nil {
			return nil, err
		}
	}
	for _, ps := range s.Points {
		if err := addPoints(p, ps); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// addCurve draws c as a line (and its markers) with a legend entry, or as
// a thin grey connector without one.
func addCurve(p *gonumplot.Plot, c Series) error {
	xys, err := pairs(c)
	if err != nil || len(xys) == 0 {
		return err
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("plot: curve %q: %w", c.Label, err)
	}
	l.Color, l.Width = colorOf(c.Color), vg.Points(1.5)
	if c.Dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	if c.Connector {
		l.Color, l.Width = color.NRGBA{150, 150, 150, 255}, vg.Points(0.7)
		p.Add(l)
		return nil
	}
	p.Add(l)
	if !c.Markers {
		p.Legend.Add(c.Label, l)
		return nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("plot: curve %q: %w", c.Label, err)
	}
	sc.GlyphStyle = glyph(c)
	sc.GlyphStyle.Radius = vg.Points(1.8)
	p.Add(sc)
	p.Legend.Add(c.Label, l, sc)
	return nil
}

// addPoints draws ps as markers with a legend entry.
func addPoints(p *gonumplot.Plot, ps Series) error {
	xys, err := pairs(ps)
	if err != nil || len(xys) == 0 {
		return err
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("plot: points %q: %w", ps.Label, err)
	}
	sc.GlyphStyle = glyph(ps)
	p.Add(sc)
	p.Legend.Add(ps.Label, sc)
	return nil
}

// pairs returns the finite pairs of a series.
func pairs(s Series) (plotter.XYs, error) {
	if len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("plot: series %q has %d x values and %d y values", s.Label, len(s.X), len(s.Y))
	}
	var out plotter.XYs
	for i := range s.X {
		x, y := s.X[i], s.Y[i]
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			continue
		}
		out = append(out, plotter.XY{X: x, Y: y})
	}
	return out, nil
}

func glyph(s Series) draw.GlyphStyle {
	g := draw.GlyphStyle{Color: colorOf(s.Color), Radius: vg.Points(3.5)}
	switch {
	case s.Shape == Triangle && s.Filled:
		g.Shape = draw.PyramidGlyph{}
	case s.Shape == Triangle:
		g.Shape = draw.TriangleGlyph{}
	case s.Shape == Square && s.Filled:
		g.Shape = draw.SquareGlyph{}
	case s.Shape == Square:
		g.Shape = draw.BoxGlyph{}
	case s.Shape == Cross:
		g.Shape = draw.CrossGlyph{}
	case s.Shape == Diamond:
		g.Shape = draw.PlusGlyph{}
	case s.Filled:
		g.Shape = draw.CircleGlyph{}
	default:
		g.Shape = draw.RingGlyph{}
	}
	return g
}

// Render draws s in format "png" or "svg" to w.
func Render(s Spec, format string, w io.Writer) error {
	p, err := s.build()
	if err != nil {
		return err
	}
	wd, ht := s.size()
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		dpi := s.DPI
		if dpi <= 0 {
			dpi = 150
		}
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(dpi))}
	case "svg":
		c = vgsvg.New(wd, ht)
	default:
		return fmt.Errorf("plot: format %q: want png or svg", format)
	}
	p.Draw(draw.New(c))
	_, err = c.WriteTo(w)
	return err
}

// FormatOf returns "png" or "svg" for a file name by its extension, or an
// error naming the file.
func FormatOf(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("%s: the figure's file name must end in .png or .svg", path)
	}
}

// Write draws s into path, PNG or SVG by the extension, atomically: the file
// appears complete or not at all.
func Write(s Spec, path string) error {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Render(s, format, &buf); err != nil {
		return err
	}
	return report.WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}
