package loss

import (
	"encoding/json"
	"math"
	"testing"
)

func TestNewMin(t *testing.T) {
	for _, tc := range []struct {
		adv  []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 1},
		{[]float64{0.5, 0.5}, 0.5},
	} {
		l := New(0.1, tc.adv)
		if l.MinAdv != tc.want || l.Recon != 0.1 {
			t.Errorf("New(0.1, %v) = %+v; want MinAdv %v", tc.adv, l, tc.want)
		}
		if err := l.Validate(); err != nil {
			t.Errorf("Validate(%+v): %v", l, err)
		}
	}
	adv := []float64{2, 1}
	l := New(0, adv)
	adv[0] = -1
	if l.Adv[0] != 2 {
		t.Errorf("New aliases its input: %v", l.Adv)
	}
}

func TestMinNaN(t *testing.T) {
	if m := Min([]float64{1, math.NaN(), 0}); !math.IsNaN(m) {
		t.Errorf("Min with NaN = %v; want NaN", m)
	}
}

func TestValidateRejects(t *testing.T) {
	for _, l := range []Losses{
		{Recon: 0.1, Adv: nil, MinAdv: 0},
		{Recon: -0.1, Adv: []float64{1}, MinAdv: 1},
		{Recon: 0.1, Adv: []float64{math.Inf(1)}, MinAdv: math.Inf(1)},
		{Recon: 0.1, Adv: []float64{1, 2}, MinAdv: 2},
	} {
		if err := l.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil; want an error", l)
		}
	}
}

func TestJSONShape(t *testing.T) {
	b, err := json.Marshal(New(0.25, []float64{0.5, 0.4}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"recon_loss":0.25,"adv_loss":[0.5,0.4],"min_adv_loss":0.4}`; got != want {
		t.Errorf("JSON = %s; want %s", got, want)
	}
}

// gFloats stands in for a slice type with its own JSON encoding.
type gFloats []float64

func (g gFloats) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

func TestNullableShape(t *testing.T) {
	type row struct {
		D float64 `json:"D"`
		Nullable[[]float64]
		Status string `json:"status"`
	}
	l := New(0.25, []float64{0.5, 0.4})
	for _, tc := range []struct {
		l    *Losses
		want string
	}{
		{&l, `{"D":1,"recon_loss":0.25,"adv_loss":[0.5,0.4],"min_adv_loss":0.4,"status":"s"}`},
		{nil, `{"D":1,"recon_loss":null,"adv_loss":null,"min_adv_loss":null,"status":"s"}`},
		// A threshold with no privatizer carries NaN losses and no adv_loss.
		{&Losses{Recon: math.NaN(), MinAdv: math.NaN()}, `{"D":1,"recon_loss":null,"adv_loss":null,"min_adv_loss":null,"status":"s"}`},
	} {
		b, err := json.Marshal(row{D: 1, Nullable: NullableOf[[]float64](tc.l), Status: "s"})
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("JSON = %s; want %s", b, tc.want)
		}
	}
	b, err := json.Marshal(NullableOf[gFloats](&l))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"recon_loss":0.25,"adv_loss":"custom","min_adv_loss":0.4}`; got != want {
		t.Errorf("JSON = %s; want %s (adv_loss in A's encoding)", got, want)
	}
}

func TestNullableRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"recon_loss":0.25,"adv_loss":[0.5,0.4],"min_adv_loss":0.4}`,
		`{"recon_loss":null,"adv_loss":null,"min_adv_loss":null}`,
		// Decoded as written, not repaired: Validate is the check.
		`{"recon_loss":0.25,"adv_loss":[0.5,0.4],"min_adv_loss":0.5}`,
		`{"recon_loss":null,"adv_loss":[],"min_adv_loss":0.5}`,
	} {
		var n Nullable[[]float64]
		if err := json.Unmarshal([]byte(in), &n); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(NullableOf[[]float64](n.Losses()))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != in {
			t.Errorf("round trip of %s = %s", in, b)
		}
	}
	var n Nullable[[]float64]
	if err := json.Unmarshal([]byte(`{"recon_loss":null,"adv_loss":[0.5],"min_adv_loss":0.5}`), &n); err != nil {
		t.Fatal(err)
	}
	if l := n.Losses(); l == nil || !math.IsNaN(l.Recon) || l.Validate() == nil {
		t.Errorf("null recon_loss beside adv_loss = %+v; want NaN, rejected by Validate", l)
	}
}

func TestIntervals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		l     Losses
		e     float64
		limit Losses
		want  Intervals
		sound Losses
	}{
		{"around", New(0.2, []float64{0.4, 0.3}), 0.01, New(1, []float64{1, 1}),
			Intervals{Interval{0.19, 0.21}, []Interval{{0.39, 0.41}, {0.29, 0.31}}, Interval{0.29, 0.31}},
			New(0.21, []float64{0.39, 0.29})},
		{"lower ends at 0", New(0.001, []float64{0.002}), 0.01, New(1, []float64{1}),
			Intervals{Interval{0, 0.011}, []Interval{{0, 0.012}}, Interval{0, 0.012}},
			New(0.011, []float64{0})},
		{"upper ends at the no-release losses", New(0.19, []float64{0.43}), 0.05, New(0.2, []float64{0.44}),
			Intervals{Interval{0.14, 0.2}, []Interval{{0.38, 0.44}}, Interval{0.38, 0.44}},
			New(0.2, []float64{0.38})},
		{"a huge error: both ends at the limit", New(112, []float64{0}), 112, New(0.2, []float64{0.44}),
			Intervals{Interval{0, 0.2}, []Interval{{0, 0.44}}, Interval{0, 0.44}},
			New(0.2, []float64{0})},
		{"min adv from the adversaries' ends", New(0.1, []float64{0.5, 0.3}), 0.25, New(1, []float64{0.6, 1}),
			Intervals{Interval{0, 0.35}, []Interval{{0.25, 0.6}, {0.05, 0.55}}, Interval{0.05, 0.55}},
			New(0.35, []float64{0.25, 0.05})},
	} {
		got := Around(tc.l, tc.e).Within(tc.limit)
		if !closeIntervals(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if s := got.SoundEnds(); !closeLosses(s, tc.sound) {
			t.Errorf("%s: sound ends %v, want %v", tc.name, s, tc.sound)
		}
	}
	b, err := json.Marshal(Around(New(0.5, []float64{0.25}), 0.25))
	if want := `{"recon_loss":[0.25,0.75],"adv_loss":[[0,0.5]],"min_adv_loss":[0,0.5]}`; err != nil || string(b) != want {
		t.Errorf("JSON %s, %v; want %s", b, err, want)
	}
}

func closeIntervals(a, b Intervals) bool {
	eq := func(x, y Interval) bool { return math.Abs(x[0]-y[0]) < 1e-12 && math.Abs(x[1]-y[1]) < 1e-12 }
	if !eq(a.Recon, b.Recon) || !eq(a.MinAdv, b.MinAdv) || len(a.Adv) != len(b.Adv) {
		return false
	}
	for i := range a.Adv {
		if !eq(a.Adv[i], b.Adv[i]) {
			return false
		}
	}
	return true
}

func closeLosses(a, b Losses) bool {
	if math.Abs(a.Recon-b.Recon) > 1e-12 || math.Abs(a.MinAdv-b.MinAdv) > 1e-12 || len(a.Adv) != len(b.Adv) {
		return false
	}
	for i := range a.Adv {
		if math.Abs(a.Adv[i]-b.Adv[i]) > 1e-12 {
			return false
		}
	}
	return true
}
