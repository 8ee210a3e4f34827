package jsonconf

import (
	"math"
	"strconv"
)

// Floats is a []float64 whose JSON form writes NaN and ±Inf (a diverged
// trial's losses or weights) as null, which encoding/json would otherwise
// refuse, and every other value as strconv's shortest 'g' form; it reads
// null back as NaN, strictly (Unmarshal).
type Floats []float64

// MarshalJSON implements json.Marshaler.
func (fs Floats) MarshalJSON() ([]byte, error) {
	if fs == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 2+20*len(fs))
	b = append(b, '[')
	for k, f := range fs {
		if k > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendFloat(b, f, 'g', -1, 64)
		}
	}
	return append(b, ']'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (fs *Floats) UnmarshalJSON(b []byte) error {
	var ps []*float64
	if err := Unmarshal(b, &ps); err != nil {
		return err
	}
	if ps == nil {
		*fs = nil
		return nil
	}
	out := make(Floats, len(ps))
	for k, p := range ps {
		out[k] = math.NaN()
		if p != nil {
			out[k] = *p
		}
	}
	*fs = out
	return nil
}
