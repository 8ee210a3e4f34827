package plot

import (
	"math"
	"strconv"
	"strings"

	gonumplot "gonum.org/v1/plot"
)

// Axis is how a Spec draws one axis. The zero value is a linear axis over
// the data and 0.
type Axis struct {
	// Log draws the axis on a logarithmic scale (positive values only).
	Log bool
	// Integer marks an axis of counts: its ticks are integers only, and it
	// spans at least minTicks of them.
	Integer bool
	// Lo and Hi, when Lo < Hi, are a range the axis covers besides the
	// data (a log axis ignores non-positive ones).
	Lo, Hi float64
	// Fixed draws exactly [Lo, Hi] (the data beyond it clipped), except
	// for the headroom the legend may need above the data.
	Fixed bool
	// FromData spans a linear axis over the data alone; otherwise it
	// covers 0 too.
	FromData bool
}

// minTicks is the fewest labelled ticks an axis carries: with fewer a
// reader cannot interpolate a value.
const minTicks = 5

// niceTicks marks an axis with labelled major ticks at a "nice" step
// (1, 2, 2.5 or 5 times a power of ten; 1, 2 or 5 times one on an integer
// axis), at least minTicks of them (four on an integer axis that spans
// only four integers), labelled with the same number of decimals, and
// unlabelled minor ticks between them.
type niceTicks struct{ integer bool }

// step returns the major step for [lo, hi]: the largest nice step that
// gives at least minTicks ticks, and the number of its minor subdivisions.
func (t niceTicks) step(lo, hi float64) (step float64, sub int) {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return 1, 1
	}
	mantissas := []float64{5, 2.5, 2, 1}
	subs := []int{5, 5, 4, 5}
	for e := math.Ceil(math.Log10(span)); e > math.Log10(span)-4; e-- {
		for i, m := range mantissas {
			s := m * math.Pow(10, e)
			if t.integer && (s < 1 || s != math.Trunc(s)) {
				continue
			}
			if countTicks(lo, hi, s) >= minTicks {
				if m == 2.5 && countTicks(lo, hi, 2*math.Pow(10, e)) <= 9 {
					i, s = i+1, 2*math.Pow(10, e) // labels with fewer digits
				}
				sub := subs[i]
				if t.integer {
					sub = min(int(s), 5)
					if int(s)%sub != 0 {
						sub = 1
					}
				}
				return s, sub
			}
		}
	}
	if t.integer {
		return 1, 1
	}
	return span / minTicks, 1
}

// countTicks is the number of multiples of step in [lo, hi].
func countTicks(lo, hi, step float64) int {
	eps := 1e-9 * step
	return int(math.Floor((hi+eps)/step)-math.Ceil((lo-eps)/step)) + 1
}

// decimals is the number of decimals that shows every multiple of step.
func decimals(step float64) int {
	for d := 0; d < 15; d++ {
		scaled := step * math.Pow(10, float64(d))
		if math.Abs(scaled-math.Round(scaled)) < 1e-6*scaled {
			return d
		}
	}
	return 15
}

// Ticks implements gonumplot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []gonumplot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	step, sub := t.step(lo, hi)
	dec := decimals(step)
	minor := step / float64(sub)
	eps := 1e-9 * step
	var ticks []gonumplot.Tick
	for k := math.Ceil((lo - eps) / minor); k*minor <= hi+eps; k++ {
		v := k * minor
		if math.Abs(v) < eps {
			v = 0
		}
		if math.Mod(k, float64(sub)) == 0 {
			ticks = append(ticks, gonumplot.Tick{Value: v, Label: numberLabel(v, dec)})
		} else {
			ticks = append(ticks, gonumplot.Tick{Value: v})
		}
	}
	return ticks
}

// numberLabel writes v with dec decimals and a typographic minus sign.
func numberLabel(v float64, dec int) string {
	return strings.Replace(strconv.FormatFloat(v, 'f', dec, 64), "-", "−", 1)
}

// logTicks marks a logarithmic axis with labelled ticks at 1, 2, 5 (or
// denser mantissas on a short axis, sparser decades on a long one) times a
// power of ten, at least minTicks of them (linear ticks on an axis that
// spans less than a factor 1.5), unlabelled minor ticks at the other
// integer mantissas.
type logTicks struct{}

// logMantissas returns the candidate sets of labelled mantissas per
// decade, sparse first.
func logMantissas() [][]float64 {
	return [][]float64{
		{1},
		{1, 3},
		{1, 2, 5},
		{1, 1.5, 2, 3, 5, 7},
		{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8},
		{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2, 2.2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9},
	}
}

// Ticks implements gonumplot.Ticker.
func (logTicks) Ticks(lo, hi float64) []gonumplot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	var labelled []float64
	for every := max(1, (e1-e0)/8); every >= 1 && len(labelled) < minTicks; every /= 2 {
		labelled = logValues(lo, hi, e0, e1, []float64{1}, every)
	}
	for _, ms := range logMantissas()[1:] {
		if len(labelled) >= minTicks {
			break
		}
		labelled = logValues(lo, hi, e0, e1, ms, 1)
	}
	if len(labelled) < minTicks {
		// Less than a factor 1.5: the axis is all but linear.
		return niceTicks{}.Ticks(lo, hi)
	}
	var ticks []gonumplot.Tick
	isLabelled := map[float64]bool{}
	for _, v := range labelled {
		isLabelled[v] = true
		ticks = append(ticks, gonumplot.Tick{Value: v, Label: logLabel(v)})
	}
	for _, v := range logValues(lo, hi, e0, e1, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1) {
		if !isLabelled[v] {
			ticks = append(ticks, gonumplot.Tick{Value: v})
		}
	}
	return ticks
}

// logValues returns m·10^e for m in ms and every every-th e in [e0, e1],
// within [lo, hi].
func logValues(lo, hi float64, e0, e1 int, ms []float64, every int) []float64 {
	var out []float64
	for e := e0; e <= e1; e++ {
		if (e-e0)%every != 0 {
			continue
		}
		for _, m := range ms {
			v, _ := strconv.ParseFloat(strconv.FormatFloat(m, 'f', -1, 64)+"e"+strconv.Itoa(e), 64)
			if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				out = append(out, v)
			}
		}
	}
	return out
}

// logLabel writes a log-axis value as people do: plain digits from
// 0.0001 to 100000, else as 1e−6 or 2e7 (the font has no superscript
// minus).
func logLabel(v float64) string {
	if v >= 1e-4 && v <= 1e5 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	e := int(math.Floor(math.Log10(v) + 1e-9))
	m := strconv.FormatFloat(v/math.Pow10(e), 'g', 3, 64)
	return m + "e" + strings.Replace(strconv.Itoa(e), "-", "−", 1)
}

// log10Ticks marks a linear axis of log10 values as a log axis: logTicks's
// ticks at log10 of their values, labelled with the values.
type log10Ticks struct{}

// Ticks implements gonumplot.Ticker.
func (log10Ticks) Ticks(lo, hi float64) []gonumplot.Tick {
	ts := logTicks{}.Ticks(math.Pow(10, lo), math.Pow(10, hi))
	for i := range ts {
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return ts
}
