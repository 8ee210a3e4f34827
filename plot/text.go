package plot

import (
	"math"
	"slices"
	"strings"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// markText is text.Plain that draws each combining diacritical mark
// (U+0300–U+036F) centred over its base letter, lifted clear of it: the
// paper's X̃ᵢ (the adversaries' estimates, Section II) is "X\u0303ᵢ". The
// font's marks have no advance and, unshaped, sit after the pen: drawn by
// text.Plain, X̃ reads as "X˜".
type markText struct{}

// plain is the text handler markText draws unmarked text with.
var plain = gonumplot.DefaultTextHandler.(text.Plain)

func isMark(r rune) bool { return r >= 0x300 && r <= 0x36f }

func (markText) Cache() *font.Cache                 { return plain.Cache() }
func (markText) Extents(fnt font.Font) font.Extents { return plain.Extents(fnt) }
func (markText) Lines(txt string) []string          { return plain.Lines(txt) }

// Box is text.Plain's box: marks have no advance and stay within the
// font's ascent.
func (markText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	return plain.Box(txt, fnt)
}

// Draw is text.Plain's Draw with every line drawn by drawMarked.
func (markText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if !strings.ContainsFunc(txt, isMark) {
		plain.Draw(c, txt, sty, pt)
		return
	}
	fnt := plain.Fonts.Lookup(sty.Font, sty.Font.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin
	lines := plain.Lines(txt)
	pt.Y += sty.Height(txt)*vg.Length(sty.YAlign) - fnt.Extents().Ascent
	for i, line := range lines {
		xoffs := vg.Length(sty.XAlign) * fnt.Width(line)
		n := vg.Length(len(lines) - i)
		drawMarked(c, fnt, pt.Add(vg.Point{X: xoffs, Y: n * sty.Font.Size}), line)
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

// spacingMark maps combining marks to their spacing forms, the glyphs
// drawn: a lone combining mark may be drawn on a dotted circle by an SVG
// viewer's shaper, a spacing one never is.
var spacingMark = map[rune]rune{
	0x300: '`', 0x301: '´', 0x302: 'ˆ', 0x303: '˜', 0x304: '¯',
	0x306: '˘', 0x307: '˙', 0x308: '¨', 0x30a: '˚', 0x30c: 'ˇ',
}

// placedMark is a combining mark (drawn in its spacing form) and where it
// is drawn.
type placedMark struct {
	mark string
	at   vg.Point
}

// drawMarked draws line at pt with its marks over their base letters.
func drawMarked(c vg.Canvas, fnt font.Face, pt vg.Point, line string) {
	base, marks := layoutMarks(fnt, line)
	c.FillString(fnt, pt, base)
	for _, m := range marks {
		c.FillString(fnt, pt.Add(m.at), m.mark)
	}
}

// layoutMarks returns line without its marks, and each mark with its
// offset from the line's origin: centred on its base letter's ink and
// 6% of the font size above it.
func layoutMarks(fnt font.Face, line string) (string, []placedMark) {
	var base strings.Builder
	var marks []placedMark
	var prev rune = -1
	var prevAt vg.Length
	for _, r := range line {
		if !isMark(r) || prev < 0 {
			prevAt = fnt.Width(base.String())
			base.WriteRune(r)
			prev = r
			continue
		}
		if sp, ok := spacingMark[r]; ok {
			r = sp
		}
		bl, bt, br, _ := inkBox(fnt, prev)
		ml, _, mr, mb := inkBox(fnt, r)
		lift := max(0, bt+fnt.Font.Size*0.06-mb)
		marks = append(marks, placedMark{string(r), vg.Point{X: prevAt + (bl+br)/2 - (ml+mr)/2, Y: lift}})
	}
	return base.String(), marks
}

// inkBox returns the left, top, right and bottom of rune r's ink relative
// to its origin on the baseline, y upwards.
func inkBox(fnt font.Face, r rune) (left, top, right, bottom vg.Length) {
	var buf sfnt.Buffer
	ppem := fixed.Int26_6(fnt.Face.UnitsPerEm())
	idx, err := fnt.Face.GlyphIndex(&buf, r)
	if err != nil {
		return 0, 0, 0, 0
	}
	b, _, err := fnt.Face.GlyphBounds(&buf, idx, ppem, 0)
	if err != nil {
		return 0, 0, 0, 0
	}
	scale := fnt.Font.Size / vg.Length(ppem)
	return vg.Length(b.Min.X) * scale, -vg.Length(b.Min.Y) * scale, vg.Length(b.Max.X) * scale, -vg.Length(b.Max.Y) * scale
}

// wrap breaks txt into lines that each fit within width when drawn in
// sty: after a comma where it can (a title's clauses stay whole), else at
// a space (a word longer than width keeps its own line).
func wrap(txt string, sty text.Style, width vg.Length) string {
	if strings.Contains(txt, "\n") || sty.Width(txt) <= width {
		return txt
	}
	var lines []string
	line := ""
	for _, clause := range strings.SplitAfter(txt, ", ") {
		switch try := line + clause; {
		case sty.Width(strings.TrimSpace(try)) <= width:
			line = try
		case sty.Width(strings.TrimSpace(clause)) <= width:
			lines, line = append(lines, strings.TrimSpace(line)), clause
		default:
			for _, w := range strings.Fields(clause) {
				if try := line + w + " "; line == "" || sty.Width(strings.TrimSpace(try)) <= width {
					line = try
				} else {
					lines, line = append(lines, strings.TrimSpace(line)), w+" "
				}
			}
		}
	}
	lines = append(lines, strings.TrimSpace(line))
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "\n")
}
