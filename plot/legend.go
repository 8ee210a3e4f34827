package plot

import (
	"image/color"
	"math"
	"strconv"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// legendEntry is one line of a figure's legend.
type legendEntry struct {
	label  string
	thumbs []gonumplot.Thumbnailer
}

// corner is where a legend sits inside the data area.
type corner int

const (
	topLeft corner = iota // the paper's legend: north west
	topRight
	bottomRight
	bottomLeft
)

var cornerNames = [...]string{topLeft: "top left", topRight: "top right", bottomRight: "bottom right", bottomLeft: "bottom left"}

func (c corner) String() string {
	if c < 0 || int(c) >= len(cornerNames) {
		return "corner(" + strconv.Itoa(int(c)) + ")"
	}
	return cornerNames[c]
}

// legendBox draws the legend inside the data area at a corner chosen so that
// it covers no data (placeLegend), on a white ground that hides the grid.
// It is the last plotter of a figure, so it draws over everything else.
type legendBox struct {
	style  gonumplot.Legend // text style, thumbnail width, padding
	items  []legendEntry
	corner corner
	hidden bool // not drawn, the layout kept: the figure as if it had none
}

// legendInset is the gap between the legend and the data area's edge, and
// legendMargin the clearance it keeps from every curve and marker.
const (
	legendInset  vg.Length = 6 // points
	legendMargin vg.Length = 3
)

func newLegendBox() *legendBox {
	l := gonumplot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(10)
	l.TextStyle.Handler = markText{}
	l.Padding = vg.Points(1.5)
	l.Top, l.Left = true, true
	return &legendBox{style: l}
}

// add adds an entry, unless label is empty (a series with no name).
func (b *legendBox) add(label string, thumbs ...gonumplot.Thumbnailer) {
	if label != "" {
		b.items = append(b.items, legendEntry{label, thumbs})
	}
}

// fit shrinks the legend's font, down to 7 points, until the legend fits
// inside data area r.
func (b *legendBox) fit(r vg.Rectangle) {
	for sty := &b.style.TextStyle; sty.Font.Size > vg.Points(7); sty.Font.Size -= vg.Points(0.5) {
		if w, h := b.size(); w+2*legendInset <= r.Max.X-r.Min.X && h+2*legendInset <= r.Max.Y-r.Min.Y {
			return
		}
	}
}

// size returns the legend's width and height: thumbnail, a space and the
// widest label; one entry height (the tallest label) per entry with the
// padding between them.
func (b *legendBox) size() (vg.Length, vg.Length) {
	sty := b.style.TextStyle
	var w, enth vg.Length
	for _, e := range b.items {
		w = max(w, sty.Width(e.label))
		enth = max(enth, sty.Rectangle(e.label).Max.Y)
	}
	n := vg.Length(len(b.items))
	return b.style.ThumbnailWidth + sty.Rectangle(" ").Max.X + w, n*enth + (n-1)*b.style.Padding
}

// rect returns the legend's box in data canvas dc at corner c.
func (b *legendBox) rect(dc vg.Rectangle, c corner) vg.Rectangle {
	w, h := b.size()
	var r vg.Rectangle
	switch c {
	case topLeft, bottomLeft:
		r.Min.X = dc.Min.X + legendInset
	default:
		r.Min.X = dc.Max.X - legendInset - w
	}
	switch c {
	case topLeft, topRight:
		r.Min.Y = dc.Max.Y - legendInset - h
	default:
		r.Min.Y = dc.Min.Y + legendInset
	}
	r.Max = vg.Point{X: r.Min.X + w, Y: r.Min.Y + h}
	return r
}

// Plot implements plotter.Plotter: the legend in the box of its corner.
func (b *legendBox) Plot(c draw.Canvas, _ *gonumplot.Plot) {
	if b.hidden || len(b.items) == 0 {
		return
	}
	r := b.rect(c.Rectangle, b.corner)
	c.SetColor(color.White)
	c.Fill(grow(r, legendMargin-vg.Points(0.5)).Path())
	l := b.style
	for _, e := range b.items {
		l.Add(e.label, e.thumbs...)
	}
	// gonum's legend hangs its first entry one descent below the top of
	// the canvas it is given.
	descent := l.TextStyle.FontExtents().Descent
	l.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: r.Min, Max: vg.Point{X: r.Max.X, Y: r.Max.Y + descent}}})
}

func grow(r vg.Rectangle, d vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: r.Min.X - d, Y: r.Min.Y - d}, Max: vg.Point{X: r.Max.X + d, Y: r.Max.Y + d}}
}

// mark is what a figure draws in data coordinates, for the legend to avoid:
// a polyline of half-width r, or markers of radius r at each pair.
type mark struct {
	xys    plotter.XYs
	r      vg.Length
	joined bool
}

// overlap returns how many segments and markers of marks, drawn by p in
// data canvas dc, come within legendMargin of r.
func overlap(p *gonumplot.Plot, dc draw.Canvas, marks []mark, r vg.Rectangle) int {
	trX, trY := p.Transforms(&dc)
	n := 0
	for _, m := range marks {
		box := grow(r, legendMargin+m.r)
		var prev vg.Point
		for i, xy := range m.xys {
			pt := vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
			switch {
			case !m.joined || i == 0:
				if contains(box, pt) {
					n++
				}
			case segmentMeets(prev, pt, box):
				n++
			}
			prev = pt
		}
	}
	return n
}

// segmentMeets reports whether segment ab meets rectangle r
// (Liang–Barsky clipping).
func segmentMeets(a, b vg.Point, r vg.Rectangle) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	for _, c := range [4][2]float64{
		{-dx, float64(a.X - r.Min.X)}, {dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)}, {dy, float64(r.Max.Y - a.Y)},
	} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = math.Max(t0, t)
		} else {
			t1 = math.Min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// placeLegend puts the legend of p in the first corner (top left, top
// right, bottom right, bottom left) where it covers no data, raising the
// top of the y axis by the least fraction that frees one; failing
// that, where it covers least. w and h are the figure's size.
func placeLegend(p *gonumplot.Plot, b *legendBox, marks []mark, w, h vg.Length) {
	if len(b.items) == 0 {
		return
	}
	full := inset(draw.NewCanvas(&recorder.Canvas{}, w, h))
	b.fit(p.DataCanvas(full).Rectangle)
	lo, hi := p.Y.Min, p.Y.Max
	best, bestN, bestHi := topLeft, math.MaxInt, hi
	// Fractions of the data's height added above it, in turn, until a
	// corner of the data area is free for the legend.
	for _, f := range []float64{0, 0.08, 0.16, 0.25, 0.35, 0.5, 0.7, 1, 1.4, 2, 3, 5} {
		p.Y.Max = raise(lo, hi, f)
		dc := p.DataCanvas(full)
		for _, c := range []corner{topLeft, topRight, bottomRight, bottomLeft} {
			if f > 0 && (c == bottomLeft || c == bottomRight) {
				continue // headroom frees only the top
			}
			n := overlap(p, dc, marks, b.rect(dc.Rectangle, c))
			if n < bestN {
				best, bestN, bestHi = c, n, p.Y.Max
			}
			if n == 0 {
				b.corner = c
				return
			}
		}
	}
	b.corner, p.Y.Max = best, bestHi
}

// raise returns the top of an axis from lo to hi raised by fraction f of
// its height.
func raise(lo, hi, f float64) float64 { return lo + (hi-lo)*(1+f) }

func contains(r vg.Rectangle, p vg.Point) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}
