package mip

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseBinaryConfig(t *testing.T) {
	m, err := ParseBinaryConfig(strings.NewReader(`{"p": 0.54, "q_y": 0.2, "q_z": [0.44, 0.3]}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.P != 0.54 || m.QY != 0.2 || len(m.QZ) != 2 || m.QZ[0] != 0.44 || m.QZ[1] != 0.3 {
		t.Fatalf("got %+v", m)
	}
	bad := []struct{ in, want string }{
		{``, "empty file"},
		{`{"p": 0.5, "q_y": 0.2}`, `"q_z" is missing`},
		{`{"q_y": 0.2, "q_z": [0.1]}`, `"p" is missing`},
		{`{"p": 0.5, "q_z": [0.1]}`, `"q_y" is missing`},
		{`{"p": 1.5, "q_y": 0.2, "q_z": [0.1]}`, `field "p" = 1.5: must be a probability in [0, 1]`},
		{`{"p": 0.5, "q_y": -0.1, "q_z": [0.1]}`, `field "q_y" = -0.1`},
		{`{"p": 0.5, "q_y": 0.1, "q_z": [0.1, 2]}`, `field "q_z"[1] = 2`},
		{`{"p": 0.5, "q_y": 0.1, "q_z": [0.1], "qz": 1}`, `unknown field "qz" (allowed: p, q_y, q_z)`},
		{`{"p": "x", "q_y": 0.1, "q_z": [0.1]}`, `field "p": cannot use JSON string`},
		{`{"p": 0.5, "q_y": 0.1, "q_z": [0.1]} {}`, "unexpected data"},
		{`{"p": 0.5,`, "malformed JSON"},
	}
	for _, c := range bad {
		_, err := ParseBinaryConfig(strings.NewReader(c.in))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an ErrConfig containing %q", c.in, err, c.want)
		}
	}
}

func FuzzParseBinaryConfig(f *testing.F) {
	f.Add(`{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	f.Add(`{"p": 1e309}`)
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseBinaryConfig(strings.NewReader(in))
		if err == nil {
			if verr := m.Validate(); verr != nil {
				t.Fatalf("accepted an invalid model %+v: %v", m, verr)
			}
		}
	})
}

// TestSampleFrequencies checks the sampler's empirical joint frequencies
// against the model's probabilities P(x) P(y|x) P(z|x), within 5 standard
// errors (a binomial bound, independent of the sampler's code).
func TestSampleFrequencies(t *testing.T) {
	m := Binary{P: 0.54, QY: 0.2, QZ: []float64{0.44, 0.1}}
	const n = 200000
	s := m.Sample(rand.New(rand.NewPCG(7, 8)), n)
	var counts [2][2][2][2]int
	for r := range n {
		counts[int(s.X[r])][int(s.Y[r])][int(s.Z[0][r])][int(s.Z[1][r])]++
	}
	pi := [2]float64{1 - m.P, m.P}
	for x := range 2 {
		for y := range 2 {
			for z0 := range 2 {
				for z1 := range 2 {
					p := pi[x] * bsc(m.QY, x, y) * bsc(m.QZ[0], x, z0) * bsc(m.QZ[1], x, z1)
					got := float64(counts[x][y][z0][z1]) / n
					se := math.Sqrt(p * (1 - p) / n)
					if d := got - p; d > 5*se || d < -5*se {
						t.Errorf("P(x=%d,y=%d,z=%d,%d): frequency %.5f, want %.5f ± %.5f", x, y, z0, z1, got, p, 5*se)
					}
				}
			}
		}
	}
	again := m.Sample(rand.New(rand.NewPCG(7, 8)), n)
	for r := range n {
		if again.X[r] != s.X[r] || again.Z[1][r] != s.Z[1][r] {
			t.Fatalf("row %d differs between two draws with the same seed", r)
		}
	}
}

// A config error reads as its detail alone (the caller names the file) and
// still matches ErrConfig.
func TestConfigErrorReadsAsDetail(t *testing.T) {
	_, err := ParseBinaryConfig(strings.NewReader(`{"p": 2, "q_y": 0.1, "q_z": [0.1]}`))
	if !errors.Is(err, ErrConfig) || strings.Contains(err.Error(), "invalid config") || !strings.HasPrefix(err.Error(), `field "p"`) {
		t.Errorf("got %v", err)
	}
}
