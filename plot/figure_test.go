package plot

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() Spec {
	x := []float64{0, 1, 2, 3}
	return Spec{
		Title: "test", XLabel: "Reconstructor distortion", YLabel: "Adversarial loss",
		Curves: []Series{{Label: "curve", X: x, Y: []float64{0, 1, 4, 9}}, {Label: "dashed", X: x, Y: []float64{0, 2, 3, 3}, Color: 1, Dashed: true, Markers: true}},
		Points: []Series{
			{Label: "learned", X: []float64{1.5, math.NaN()}, Y: []float64{2, 3}, Shape: Circle},
			{Label: "certified", X: []float64{1.4}, Y: []float64{2.2}, Shape: Triangle, Filled: true},
			{Label: "squares", X: []float64{2}, Y: []float64{5}, Shape: Square, Color: 2},
			{Label: "empty"},
		},
	}
}

// checkPNG decodes a PNG and checks its size and that it is not blank: it
// must have at least a few hundred non-white pixels and several colours.
func checkPNG(t *testing.T, b []byte, w, h int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if got := img.Bounds().Size(); got != (image.Point{X: w, Y: h}) {
		t.Errorf("PNG is %v, want %dx%d", got, w, h)
	}
	nonWhite, colors := 0, map[[3]uint32]bool{}
	for y := 0; y < h; y += 2 {
		for x := 0; x < w; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			colors[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
			if r < 0xf000 || g < 0xf000 || b < 0xf000 {
				nonWhite++
			}
		}
	}
	if nonWhite < 500 || len(colors) < 4 {
		t.Errorf("PNG looks blank: %d non-white sampled pixels, %d colours", nonWhite, len(colors))
	}
}

// checkSVG parses an SVG and checks its size attributes and that it draws
// paths and text.
func checkSVG(t *testing.T, b []byte, w, h string) {
	t.Helper()
	var root struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
	}
	if err := xml.Unmarshal(b, &root); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	if root.XMLName.Local != "svg" || root.Width != w || root.Height != h {
		t.Errorf("SVG root %s %s×%s, want svg %s×%s", root.XMLName.Local, root.Width, root.Height, w, h)
	}
	if n := strings.Count(string(b), "<path"); n < 10 {
		t.Errorf("SVG has %d paths", n)
	}
	for _, s := range []string{"Reconstructor", "Adversarial", "certified"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("SVG lacks the text %q", s)
		}
	}
}

func TestWritePNGAndSVG(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"f.png", "f.svg", "F.PNG"} {
		path := filepath.Join(dir, name)
		if err := Write(sample(), path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(strings.ToLower(name), ".png") {
			checkPNG(t, b, 900, 675) // 6 × 4.5 in at 150 dpi
		} else {
			checkSVG(t, b, "432pt", "324pt")
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d files in the folder, want 3 (no temporary leftovers)", len(entries))
	}
}

func TestRenderSizeAndDPI(t *testing.T) {
	s := sample()
	s.Width, s.Height, s.DPI = 4, 3, 100
	var buf bytes.Buffer
	if err := Render(s, "png", &buf); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, buf.Bytes(), 400, 300)
}

func TestWriteRejects(t *testing.T) {
	dir := t.TempDir()
	if err := Write(sample(), filepath.Join(dir, "f.pdf")); err == nil || !strings.Contains(err.Error(), ".png or .svg") {
		t.Errorf("a .pdf name: %v", err)
	}
	bad := sample()
	bad.Curves[0].Y = bad.Curves[0].Y[:2]
	if err := Write(bad, filepath.Join(dir, "f.png")); err == nil {
		t.Error("a series with unequal lengths: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "f.png")); !os.IsNotExist(err) {
		t.Error("a failed write left a file")
	}
	if err := Write(sample(), filepath.Join(dir, "missing", "f.png")); err == nil {
		t.Error("a missing folder: no error")
	}
	var buf bytes.Buffer
	if err := Render(sample(), "gif", &buf); err == nil {
		t.Error("format gif: no error")
	}
}
