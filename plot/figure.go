package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
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
	XAxis, YAxis   Axis
	// Width and Height in inches; zero means 6 × 4.5. PNGs are drawn at
	// DPI dots per inch (zero: 150).
	Width, Height float64
	DPI           int
}

// paletteSize is the number of colours of colorOf.
const paletteSize = 7

// colorOf returns colour i (cycled) of Okabe–Ito's colour-blind-safe set
// without yellow.
func colorOf(i int) color.Color {
	palette := [paletteSize]color.NRGBA{
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

// figure is a Spec laid out by gonum/plot: the plot, its legend and its
// size.
type figure struct {
	p      *gonumplot.Plot
	grid   *plotter.Grid
	legend *legendBox
	w, h   vg.Length
}

// textMargin is the least gap between a figure's text and its edges.
const textMargin vg.Length = 6 // points

// build lays s out: the axes' ranges and ticks (Axis), the title and axis
// labels wrapped to fit the figure, and the legend in a corner where it
// covers no data (placeLegend).
func (s Spec) build() (*figure, error) {
	w, h := s.size()
	p := gonumplot.New()
	for _, sty := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		sty.Handler = markText{}
	}
	p.Title.Text = wrap(s.Title, p.Title.TextStyle, w-2*textMargin)
	p.X.Label.Text = wrap(s.XLabel, p.X.Label.TextStyle, 0.85*w)
	p.Y.Label.Text = s.YLabel
	grid := plotter.NewGrid()
	p.Add(grid)
	leg := newLegendBox()
	var marks []mark
	for _, c := range s.Curves {
		if err := addCurve(p, leg, &marks, s.onAxes(c)); err != nil {
			return nil, err
		}
	}
	for _, ps := range s.Points {
		if err := addPoints(p, leg, &marks, s.onAxes(ps)); err != nil {
			return nil, err
		}
	}
	setAxis(&p.X, s.XAxis)
	setAxis(&p.Y, s.YAxis)
	fitYLabel(p, w, h)
	placeLegend(p, leg, marks, w, h)
	p.Add(leg)
	return &figure{p: p, grid: grid, legend: leg, w: w, h: h}, nil
}

// inset returns c less textMargin on every side: gonum draws the title
// and the y axis's label against the canvas's edges.
func inset(c draw.Canvas) draw.Canvas {
	return draw.Crop(c, textMargin, -textMargin, textMargin, -textMargin)
}

// draw draws f on c.
func (f *figure) draw(c vg.CanvasSizer) {
	f.p.Draw(inset(draw.New(c)))
}

// fitYLabel shrinks the y axis's label, down to 7 points, until it fits
// the height of the data area: gonum draws a rotated label of several
// lines over the tick labels, so it cannot wrap.
func fitYLabel(p *gonumplot.Plot, w, h vg.Length) {
	full := inset(draw.NewCanvas(&recorder.Canvas{}, w, h))
	for sty := &p.Y.Label.TextStyle; sty.Font.Size > vg.Points(7); sty.Font.Size -= vg.Points(0.5) {
		if dc := p.DataCanvas(full); sty.Width(p.Y.Label.Text) <= dc.Max.Y-dc.Min.Y {
			return
		}
	}
}

// onAxes returns c in the coordinates the plot draws: log10 of the values
// on a log axis, and NaN pairs (not drawn) where a log axis has a value
// that is not positive. gonum's own log scale misplaces the y label's
// room (it centres it at the arithmetic mean of the range), so log axes
// are linear axes of log10 with ticks labelled 10^v (log10Ticks).
func (s Spec) onAxes(c Series) Series {
	if !s.XAxis.Log && !s.YAxis.Log {
		return c
	}
	x, y := slices.Clone(c.X), slices.Clone(c.Y)
	for i := range min(len(x), len(y)) {
		if (s.XAxis.Log && !(x[i] > 0)) || (s.YAxis.Log && !(y[i] > 0)) {
			x[i], y[i] = math.NaN(), math.NaN()
			continue
		}
		if s.XAxis.Log {
			x[i] = math.Log10(x[i])
		}
		if s.YAxis.Log {
			y[i] = math.Log10(y[i])
		}
	}
	c.X, c.Y = x, y
	return c
}

// setAxis sets a's range, scale and ticks after the data are added.
func setAxis(a *gonumplot.Axis, o Axis) {
	lo, hi := a.Min, a.Max
	switch {
	case math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > hi: // no data
		lo, hi = o.Lo, o.Hi
	case o.Log:
		lo, hi = math.Pow(10, lo), math.Pow(10, hi)
	}
	switch {
	case o.Fixed:
		lo, hi = o.Lo, o.Hi
	case o.Log:
		if o.Lo > 0 {
			lo = min(lo, o.Lo)
		}
		if o.Hi > 0 {
			hi = max(hi, o.Hi)
		}
	default:
		if !o.FromData {
			lo, hi = min(lo, 0), max(hi, 0)
		}
		if o.Lo < o.Hi {
			lo, hi = min(lo, o.Lo), max(hi, o.Hi)
		}
	}
	if o.Log && !(lo > 0) {
		lo, hi = 1, 10 // no positive value to draw
	}
	if o.Log && !(hi > lo) {
		// One value: a decade around it (gonum widens by ±1, below 0).
		lo, hi = lo/math.Sqrt(10), hi*math.Sqrt(10)
	}
	padded := false
	if o.Integer {
		lo, hi = math.Floor(lo), math.Ceil(hi)
		if hi-lo+1 < 4 {
			// A few counts: each a tick, half a step of margin on either
			// side, rather than empty integers that squeeze the data.
			lo, hi, padded = lo-0.5, hi+0.5, true
		}
	}
	if !o.Log && !o.Fixed && !padded && hi > lo {
		// An end within 5% of the next tick moves to it: the axis ends on a
		// labelled value.
		step, _ := niceTicks{integer: o.Integer}.step(lo, hi)
		if up := math.Ceil(hi/step-1e-9) * step; up-hi <= 0.05*(hi-lo) {
			hi = up
		}
		if down := math.Floor(lo/step+1e-9) * step; lo-down <= 0.05*(hi-lo) {
			lo = down
		}
	}
	a.Min, a.Max = lo, hi
	a.Tick.Marker = niceTicks{integer: o.Integer}
	if o.Log {
		a.Min, a.Max, a.Tick.Marker = math.Log10(lo), math.Log10(hi), log10Ticks{}
	}
}

// addCurve draws c as a line (and its markers) with a legend entry, or as
// a thin grey connector without one.
func addCurve(p *gonumplot.Plot, leg *legendBox, marks *[]mark, c Series) error {
	xys, err := pairs(c)
	if err != nil || len(xys) == 0 {
		return err
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("plot: curve %q: %w", c.Label, err)
	}
	l.Color, l.Width = colorOf(c.Color), vg.Points(1.5)
	switch {
	case c.Dashed:
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	case c.Color >= paletteSize:
		// The palette's second round: dotted, to tell it from the first.
		l.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2)}
	}
	if c.Connector {
		l.Color, l.Width = color.NRGBA{150, 150, 150, 255}, vg.Points(0.7)
	}
	p.Add(l)
	*marks = append(*marks, mark{xys: xys, r: l.Width / 2, joined: true})
	if c.Connector {
		return nil
	}
	if !c.Markers {
		leg.add(c.Label, l)
		return nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("plot: curve %q: %w", c.Label, err)
	}
	sc.GlyphStyle = glyph(c)
	sc.GlyphStyle.Radius = vg.Points(2.2)
	p.Add(sc)
	*marks = append(*marks, mark{xys: xys, r: sc.GlyphStyle.Radius})
	leg.add(c.Label, l, sc)
	return nil
}

// addPoints draws ps as markers with a legend entry.
func addPoints(p *gonumplot.Plot, leg *legendBox, marks *[]mark, ps Series) error {
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
	*marks = append(*marks, mark{xys: xys, r: sc.GlyphStyle.Radius})
	leg.add(ps.Label, sc)
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
		g.Shape = diamondGlyph{filled: s.Filled}
	case s.Filled:
		g.Shape = draw.CircleGlyph{}
	default:
		g.Shape = draw.RingGlyph{}
	}
	return g
}

// Render draws s in format "png" or "svg" to w.
func Render(s Spec, format string, w io.Writer) error {
	f, err := s.build()
	if err != nil {
		return err
	}
	wd, ht := f.w, f.h
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
	f.draw(c)
	if format == "svg" {
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
		_, err = io.WriteString(w, svgFontFallback.Replace(buf.String()))
		return err
	}
	_, err = c.WriteTo(w)
	return err
}

// svgFontFallback names, after the Liberation fonts the layout measured
// text with, the fonts of the same metrics (Times New Roman, Arial, Courier
// New): a viewer without Liberation then draws every line within the place
// the layout gave it, where a generic serif would run wider and clip a title.
var svgFontFallback = strings.NewReplacer(
	"font-family:Liberation Serif;", "font-family:'Liberation Serif','Times New Roman',Times,serif;",
	"font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;",
	"font-family:Liberation Mono;", "font-family:'Liberation Mono','Courier New',Courier,monospace;",
)

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

// CheckPath refuses, before any work, a figure file that Write could not
// write: a name without .png or .svg, or one in a missing folder; flag
// names it.
func CheckPath(flag, path string) error {
	if path == "" {
		return nil
	}
	if _, err := FormatOf(path); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	if dir := filepath.Dir(path); dir != "." {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s %q: folder %q does not exist", flag, path, dir)
		}
	}
	return nil
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
	return report.WriteFile(path, buf.Bytes())
}

// diamondGlyph is a square standing on a corner, open or filled.
type diamondGlyph struct{ filled bool }

// DrawGlyph implements draw.GlyphDrawer.
func (g diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	var path vg.Path
	path.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	path.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	path.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	path.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	path.Close()
	c.SetColor(sty.Color)
	if g.filled {
		c.Fill(path)
		return
	}
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(0.5)})
	c.Stroke(path)
}
