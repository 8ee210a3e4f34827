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
