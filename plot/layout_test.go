package plot

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/font/sfnt"
	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/mmds-project/mmds/bench"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify/verifytest"
)

var pngDir = flag.String("png", "", "also write every figure of TestFigureLayout as a PNG into this folder, to look at")

// fnCurve returns n+1 pairs of f on [a, b].
func fnCurve(label string, color int, a, b float64, n int, f func(float64) float64) Series {
	s := Series{Label: label, Color: color}
	for i := 0; i <= n; i++ {
		x := a + (b-a)*float64(i)/float64(n)
		s.X, s.Y = append(s.X, x), append(s.Y, f(x))
	}
	return s
}

// layoutCases are figures of every kind and data in every corner: the
// paper's figures and the bench plots as mmds draws them, and synthetic
// ones with curves hugging each corner, one point, many series, long
// titles and labels, log axes over many decades or a few percent.
func layoutCases(t *testing.T) map[string]Spec {
	t.Helper()
	cases := map[string]Spec{"sample": sample()}

	// The paper's figures from synthetic reports, and the exact curves.
	o2, _ := gauss.Paper().Optimum(2)
	gnet := learntest.LinearNet(o2.A, o2.B, 0)
	bnet := learntest.ConstantNet(0.9, 0.8)
	for _, k := range []struct {
		kind model.Kind
		dmax float64
		pts  []verifytest.Point
	}{
		{model.Gauss, 0.1, []verifytest.Point{{D: 1}, {D: 2, Priv: &gnet, Recon: 2.1, Adv: []float64{2.4, 2.2}}, {D: 5, Priv: &gnet, Recon: 4.9, Adv: []float64{14, 8}}, {D: 5.5, Priv: &gnet, Recon: 5.5, Adv: []float64{15.3, 9.1}}}},
		{model.Binary, 0.01, []verifytest.Point{{D: 0.15, Priv: &bnet, Recon: 0.15, Adv: []float64{0.3}}, {D: 0.3, Priv: &bnet, Recon: 0.31, Adv: []float64{0.49}}}},
	} {
		dir := t.TempDir()
		verifytest.Synthetic(t, dir, k.kind, k.dmax, k.pts)
		run, rep := certified(t, dir)
		s, stem, err := Figure(context.Background(), run.Model, rep, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cases[stem] = s
	}
	var gc model.Curves
	r := model.SweepRequest{D: []float64{1, 2}, Format: report.JSON, Plot: func(c model.Curves) error { gc = c; return nil }}
	if _, err := model.Sweep(context.Background(), model.NewGauss(gauss.Paper()), r, io.Discard); err != nil {
		t.Fatal(err)
	}
	cases["gauss --plot"] = OptimumSpec(gc)
	var prop2 model.Curve
	for i := range 21 {
		d := 0.4 * float64(i) / 20
		prop2.X, prop2.Y = append(prop2.X, d), append(prop2.Y, math.Min(0.45, 1.2*d))
	}
	cases["binary --plot"] = OptimumSpec(model.Curves{Prop2: prop2})

	// The bench plots: three n (a count), a limited solve, and a profile
	// whose solvers all lie within a factor 2 (few powers of two).
	var pts []BenchPoint
	for i, name := range []string{"HiGHS derivedM+sym", "HiGHS bigM", "HiGHS derivedM", "CBC", "SCIP", "GLPK"} {
		for n := 2; n <= 4; n++ {
			pts = append(pts, BenchPoint{Series: name, N: n, Seconds: 1e-3 * math.Pow(3, float64(n+i))})
		}
	}
	pts = append(pts, BenchPoint{Series: "GLPK", N: 4, Seconds: 10, Limited: true})
	cases["bench --plot"] = BenchScalingSpec("mmds bench: seed 1, n from 2 to 4, K = "+report.List([]int{1, 2, 3})+", D = "+report.List([]float64{0.25, 0.5, 0.75})+" × Dmax, time limit 10s, median of "+report.Plural(1, "seed"), pts)
	var curves []bench.ProfileCurve
	for i, name := range []string{"HiGHS", "CBC", "SCIP", "GLPK", "HiGHS-IPM", "cuOpt"} {
		curves = append(curves, bench.ProfileCurve{Label: name, Tau: []float64{1, 1 + 0.1*float64(i), 1.9}, Rho: []float64{0.3, 0.7, 1}})
	}
	cases["bench --profile"] = ProfileSpec("Performance profile of the formulations with HiGHS, median times: mmds bench run: library v1, seed 1, the easy and medium tiers", curves)
	cases["profile one solver"] = ProfileSpec("p", curves[:1])

	// Curves hugging each corner in turn, with points along them.
	hug := map[string]func(float64) float64{
		"top left":     func(x float64) float64 { return 10 * math.Exp(-3*x) },
		"top right":    func(x float64) float64 { return 10 * x * x * x },
		"bottom left":  func(x float64) float64 { return 10 * (1 - math.Exp(-3*x)) },
		"bottom right": func(x float64) float64 { return 10 * (1 - x*x*x) },
		"middle":       func(x float64) float64 { return 5 + 5*math.Sin(12*x) },
	}
	for name, f := range hug {
		s := Spec{Title: "a curve that hugs the " + name + " corner", XLabel: "x", YLabel: "y", Curves: []Series{fnCurve("a curve with a long legend entry", 0, 0, 1, 100, f)}}
		s.Curves = append(s.Curves, fnCurve("the same, shifted", 1, 0, 1, 100, func(x float64) float64 { return 0.9 * f(x) }))
		p := fnCurve("points", 2, 0, 1, 10, f)
		p.Shape, p.Filled = Diamond, true
		s.Points = []Series{p}
		cases["hugging the "+name+" corner"] = s
	}
	// One point; twelve series; small and negative values; a wide range.
	cases["one point"] = Spec{Title: "one learned point, 1 seed", Points: []Series{{Label: "learned", X: []float64{0.3}, Y: []float64{0.2}}}}
	var many Spec
	many.Title = "twelve series"
	for i := range 12 {
		many.Curves = append(many.Curves, fnCurve(fmt.Sprintf("series %d", i+1), i, 0, 3, 50, func(x float64) float64 { return float64(i+1) * x }))
	}
	cases["twelve series"] = many
	cases["small values"] = Spec{Title: "small values", Curves: []Series{fnCurve("tiny", 0, 0, 0.003, 30, func(x float64) float64 { return x * x })}}
	cases["negative values"] = Spec{Title: "negative values", Curves: []Series{fnCurve("sine", 0, -7, 7, 200, func(x float64) float64 { return 3 * math.Sin(x) })}, XAxis: Axis{FromData: true}}
	cases["log decades"] = Spec{Title: "many decades", YAxis: Axis{Log: true}, Curves: []Series{fnCurve("exp", 0, 1, 40, 80, func(x float64) float64 { return math.Exp(-x) })}}
	cases["log percent"] = Spec{Title: "a few percent", YAxis: Axis{Log: true}, Curves: []Series{fnCurve("flat", 0, 1, 2, 20, func(x float64) float64 { return 100 + x })}}
	cases["counts"] = Spec{Title: "counts", XAxis: Axis{Integer: true, FromData: true}, YAxis: Axis{Integer: true}, Curves: []Series{fnCurve("c", 0, 1, 37, 36, func(x float64) float64 { return math.Floor(x * x / 7) })}}
	cases["small figure"] = Spec{Title: strings.Repeat("a long title ", 8), XLabel: strings.Repeat("long label ", 8), YLabel: strings.Repeat("long label ", 3), Width: 4, Height: 3,
		Curves: []Series{fnCurve("up", 0, 0, 1, 50, func(x float64) float64 { return x })}}
	cases["bench one solve"] = BenchScalingSpec("one solve", []BenchPoint{{Series: "HiGHS", N: 3, Seconds: 0.02}})
	cases["bench no solve"] = BenchScalingSpec("no solve", nil)
	cases["profile no curve"] = ProfileSpec("no solver", nil)
	cases["log with zeros"] = Spec{Title: "zeros on a log axis", YAxis: Axis{Log: true}, Curves: []Series{{Label: "with zeros", X: []float64{0, 1, 2, 3}, Y: []float64{0, 1, 10, 100}}}}
	cases["all zero"] = Spec{Title: "all zero", Curves: []Series{{Label: "zero", X: []float64{0, 0}, Y: []float64{0, 0}}}}
	cases["unnamed series"] = Spec{Title: "no names", Curves: []Series{fnCurve("", 0, 0, 1, 10, math.Sqrt)}, Points: []Series{{X: []float64{0.5}, Y: []float64{0.5}}}}
	wide := Spec{Title: "a legend wider than the plot", Width: 3.5, Height: 2.6}
	for i := range 4 {
		wide.Curves = append(wide.Curves, fnCurve(strings.Repeat("a very long legend entry ", 2)+strconv.Itoa(i), i, 0, 1, 20, func(x float64) float64 { return x * float64(i+1) }))
	}
	cases["wide legend"] = wide
	// Markers everywhere: only a raised y axis frees a corner.
	cloud := Spec{Title: "a cloud that fills the data area"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 6 {
		p := Series{Label: "cloud " + strconv.Itoa(i+1), Color: i, Shape: Shape(i % 5)}
		for range 80 {
			p.X, p.Y = append(p.X, rng.Float64()), append(p.Y, rng.Float64())
		}
		cloud.Points = append(cloud.Points, p)
	}
	cases["dense cloud"] = cloud
	return cases
}

// render draws f as an RGBA image at 100 dpi.
func render(f *figure) *image.RGBA {
	c := vgimg.NewWith(vgimg.UseWH(f.w, f.h), vgimg.UseDPI(100))
	f.draw(c)
	return c.Image().(*image.RGBA)
}

// white reports whether a pixel is (nearly) white.
func white(img *image.RGBA, x, y int) bool {
	c := img.RGBAAt(x, y)
	return c.R > 245 && c.G > 245 && c.B > 245
}

// legendFootprint returns the bounding box of the pixels the legend
// changes: the figure drawn with it against the same figure without it.
func legendFootprint(with, without *image.RGBA) image.Rectangle {
	var r image.Rectangle
	b := with.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if with.RGBAAt(x, y) != without.RGBAAt(x, y) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// texts returns every string the figure draws, recorded.
func texts(f *figure) []string {
	var rec recorder.Canvas
	f.p.Draw(inset(draw.NewCanvas(&rec, f.w, f.h)))
	var out []string
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			out = append(out, fs.String)
		}
	}
	return out
}

// tickValue parses a tick label back into its value: digits with a
// typographic minus, or m×10ᵉ.
func tickValue(label string) (float64, error) {
	label = strings.ReplaceAll(label, "−", "-")
	m, e := "1", ""
	if i := strings.Index(label, "10"); i >= 0 && strings.ContainsAny(label[i:], "⁰¹²³⁴⁵⁶⁷⁸⁹") {
		if j := strings.Index(label, "×"); j >= 0 {
			m = label[:j]
		}
		e = strings.NewReplacer("⁻", "-", "⁰", "0", "¹", "1", "²", "2", "³", "3", "⁴", "4", "⁵", "5", "⁶", "6", "⁷", "7", "⁸", "8", "⁹", "9").Replace(label[i+2:])
		return strconv.ParseFloat(m+"e"+e, 64)
	}
	return strconv.ParseFloat(label, 64)
}

// checkTicks checks an axis's ticks: at least four labelled ones (on an
// axis of fewer counts, one at each), at the
// values their labels say, nice values (mantissas of 1, 1.2, 1.5, 2, 2.5,
// 3, 4, 5, 6, 7, 8 on a log axis; an even step of 1, 2, 2.5 or 5 times a
// power of ten on a linear one), integers only on an integer axis.
func checkTicks(t *testing.T, name string, a gonumplot.Axis, o Axis) {
	t.Helper()
	var vals []float64
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Value < a.Min-1e-9*math.Abs(a.Min) || tk.Value > a.Max+1e-9*math.Abs(a.Max) {
			continue // gonum draws none beyond the axis
		}
		if o.Integer && tk.Value != math.Trunc(tk.Value) {
			t.Errorf("%s: tick at %v on an axis of counts", name, tk.Value)
		}
		if tk.Label == "" {
			continue
		}
		v, err := tickValue(tk.Label)
		at := v
		if o.Log {
			at = math.Log10(v) // a log axis draws log10 of its values
		}
		if err != nil || math.Abs(at-tk.Value) > 1e-9*math.Max(1, math.Abs(at)) {
			t.Errorf("%s: tick %v labelled %q (%v)", name, tk.Value, tk.Label, err)
		}
		vals = append(vals, v)
	}
	want := 4
	if o.Integer {
		want = min(want, int(math.Floor(a.Max)-math.Ceil(a.Min))+1) // a few counts: one tick each
	}
	if len(vals) < want {
		t.Errorf("%s: %d labelled ticks %v on [%g, %g], want at least %d", name, len(vals), vals, a.Min, a.Max, want)
		return
	}
	nice := func(m float64, set ...float64) bool {
		for _, s := range set {
			if math.Abs(m-s) < 1e-6 || math.Abs(m-10*s) < 1e-5 {
				return true
			}
		}
		return false
	}
	mantissa := func(v float64) float64 { return math.Abs(v) / math.Pow(10, math.Floor(math.Log10(math.Abs(v))+1e-9)) }
	if o.Log && !slices.ContainsFunc(vals, func(v float64) bool {
		return !nice(mantissa(v), 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2, 2.2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9)
	}) {
		return // round values; else a short log axis's linear ticks
	}
	if len(vals) < 2 {
		return // one count
	}
	step := vals[1] - vals[0]
	for i := 2; i < len(vals); i++ {
		if math.Abs(vals[i]-vals[i-1]-step) > 1e-9*step {
			t.Errorf("%s: uneven ticks %v", name, vals)
		}
	}
	if !nice(mantissa(step), 1, 2, 2.5, 5) {
		t.Errorf("%s: tick step %v is not 1, 2, 2.5 or 5 times a power of ten", name, step)
	}
}

var goFormat = regexp.MustCompile(`\[|\]|%!|\b1 [a-z]+s\b|map\[|&\{`)

// TestFigureLayout draws every case and checks, on the pixels and the
// recorded drawing: the legend covers no data (its pixels, found by
// drawing the figure with and without it, fall where the figure without
// grid and legend is white), nothing is drawn in the figure's outer
// 2 pixels (no text runs off the canvas), each axis's ticks (checkTicks),
// titles in words (no Go slices, "1 seeds"), and every character drawn is
// in the font.
func TestFigureLayout(t *testing.T) {
	for name, s := range layoutCases(t) {
		t.Run(name, func(t *testing.T) {
			f, err := s.build()
			if err != nil {
				t.Fatal(err)
			}
			with := render(f)
			if *pngDir != "" {
				var buf bytes.Buffer
				if err := png.Encode(&buf, with); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(*pngDir, strings.ReplaceAll(name, " ", "_")+".png"), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f.legend.hidden = true
			without := render(f)
			foot := legendFootprint(with, without)
			if len(f.legend.items) > 0 && foot.Empty() {
				t.Error("the legend draws nothing")
			}
			// The same figure with no grid: what is not white is data.
			f.grid.Vertical.Color, f.grid.Horizontal.Color = nil, nil
			bare := render(f)
			inner := foot.Inset(1)
			covered := 0
			for y := inner.Min.Y; y < inner.Max.Y; y++ {
				for x := inner.Min.X; x < inner.Max.X; x++ {
					if !white(bare, x, y) {
						covered++
					}
				}
			}
			if covered > 0 {
				t.Errorf("the legend (%v, pixels %v) covers %d pixels of data", f.legend.corner, foot, covered)
			}
			b := with.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if (x < 2 || y < 2 || x >= b.Max.X-2 || y >= b.Max.Y-2) && !white(with, x, y) {
						t.Fatalf("ink at the figure's edge, pixel (%d, %d): something is clipped", x, y)
					}
				}
			}
			checkTicks(t, "x axis", f.p.X, s.XAxis)
			checkTicks(t, "y axis", f.p.Y, s.YAxis)
			if goFormat.MatchString(s.Title) {
				t.Errorf("title %q is not in words", s.Title)
			}
			f.legend.hidden = false
			for _, txt := range texts(f) {
				for _, r := range txt {
					if !hasGlyph(r) {
						t.Errorf("text %q: the font has no %q (%U)", txt, r, r)
					}
				}
			}
			for _, txt := range []string{s.Title, s.XLabel, s.YLabel} {
				if strings.Contains(txt, "_") || strings.Contains(txt, "˜") {
					t.Errorf("text %q: TeX notation or a spacing tilde", txt)
				}
			}
		})
	}
}

// The paper's X̃ᵢ: the tilde's ink is centred over the X's and clear of
// it, and the font has both glyphs.
func TestMarkOverLetter(t *testing.T) {
	fnt := plain.Fonts.Lookup(gonumplot.DefaultFont, 12)
	for _, c := range []struct{ text, base, mark, drawn string }{
		{"X\u0303ᵢ", "Xᵢ", "\u0303", "˜"},
		{"E[(X − X\u0303ᵢ)²]", "E[(X − Xᵢ)²]", "\u0303", "˜"},
		{"X\u0302", "X", "\u0302", "ˆ"},
		{"x\u0303", "x", "\u0303", "˜"},
		{"X\u0311", "X", "\u0311", "\u0311"}, // no spacing form
	} {
		base, marks := layoutMarks(fnt, c.text)
		if base != c.base || len(marks) != 1 || marks[0].mark != c.drawn {
			t.Fatalf("%q: base %q, marks %v", c.text, base, marks)
		}
		runes := []rune(c.text)
		k := slices.Index(runes, []rune(c.mark)[0])
		letter := runes[k-1]
		at := fnt.Width(string(runes[:k-1]))
		bl, bt, br, _ := inkBox(fnt, letter)
		ml, _, mr, mb := inkBox(fnt, []rune(c.drawn)[0])
		center := marks[0].at.X + (ml+mr)/2
		if math.Abs(float64(center-(at+(bl+br)/2))) > 0.01 {
			t.Errorf("%q: mark centred at %v, letter at %v", c.text, center, at+(bl+br)/2)
		}
		if marks[0].at.Y+mb <= bt {
			t.Errorf("%q: mark's bottom %v not above the letter's top %v", c.text, marks[0].at.Y+mb, bt)
		}
		for _, r := range c.text {
			if !hasGlyph(r) {
				t.Errorf("%q: no glyph for %U", c.text, r)
			}
		}
	}
}

// hasGlyph reports whether the figures' font draws r (else it draws the
// empty box of a missing glyph).
func hasGlyph(r rune) bool {
	fnt := plain.Fonts.Lookup(font.From(gonumplot.DefaultFont, 10), 10)
	var buf sfnt.Buffer
	idx, err := fnt.Face.GlyphIndex(&buf, r)
	return err == nil && idx != 0
}
