package mip

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// randomMechanism draws an n × m row-stochastic matrix; now and then rows
// are deterministic or have exact zeros, to reach the kinks of the risks.
func randomMechanism(rng *rand.Rand, n, m int) Mechanism {
	p := make(Mechanism, n)
	for x := range p {
		p[x] = make([]float64, m)
		switch rng.IntN(4) {
		case 0:
			p[x][rng.IntN(m)] = 1
		default:
			for f := range p[x] {
				if rng.IntN(3) > 0 {
					p[x][f] = rng.Float64()
				}
			}
			p[x][rng.IntN(m)] += 0.01
			normalize(p[x])
		}
	}
	return p
}

func TestFiniteBinaryIdenticalToMAPLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for i := 0; i < 5000; i++ {
		b := randomBinary(rng)
		f := b.Finite()
		if err := f.Validate(); err != nil {
			t.Fatalf("%+v: %v", b, err)
		}
		s := Privatizer{S0: rng.Float64(), S1: rng.Float64()}
		if rng.IntN(10) == 0 {
			s = Privatizer{S0: float64(rng.IntN(2)), S1: float64(rng.IntN(2))}
		}
		p := s.Mechanism()
		if got, want := f.ReconLoss(p), b.ReconLoss(s); !scalar.EqualWithinAbs(got, want, 1e-15) {
			t.Fatalf("%+v s=%+v: finite recon %.17g, binary %.17g", b, s, got, want)
		}
		for k, want := range b.AdvLosses(s) {
			if got := f.AdvLosses(p)[k]; !scalar.EqualWithinAbs(got, want, 1e-15) {
				t.Fatalf("%+v s=%+v: finite adv %d %.17g, binary %.17g", b, s, k, got, want)
			}
		}
		if !scalar.EqualWithinAbs(f.DMax(), b.DMax(), 1e-15) || f.DMin() != 0 {
			t.Fatalf("%+v: D_max %g vs %g, D_min %g", b, f.DMax(), b.DMax(), f.DMin())
		}
	}
}

// bruteRisk is the Bayes risk as the smallest expected loss over every
// deterministic decision rule g: (f, v) → a, from the joint distribution
// written out directly (no dominance filter, no per-cell minimum).
func bruteRisk(prior []float64, o Observer, p Mechanism) float64 {
	n, m, nv := len(prior), p.Outputs(), len(o.Channel[0])
	l := o.LossMatrix(n)
	na := len(l[0])
	cells := m * nv
	rule := make([]int, cells)
	best := math.Inf(1)
	for {
		var r float64
		for x := 0; x < n; x++ {
			for f := 0; f < m; f++ {
				for v := 0; v < nv; v++ {
					r += prior[x] * p[x][f] * o.Channel[x][v] * l[x][rule[f*nv+v]]
				}
			}
		}
		best = math.Min(best, r)
		i := 0
		for i < cells && rule[i] == na-1 {
			rule[i] = 0
			i++
		}
		if i == cells {
			return best
		}
		rule[i]++
	}
}

func randomLoss(rng *rand.Rand, n, a int) [][]float64 {
	l := make([][]float64, n)
	for x := range l {
		l[x] = make([]float64, a)
		for j := range l[x] {
			l[x][j] = math.Round(rng.Float64()*40) / 10 // ties now and then
		}
	}
	return l
}

func TestFiniteRiskAgainstDecisionRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	for i := 0; i < 400; i++ {
		n := 2 + rng.IntN(2)
		m, err := RandomFinite(rng, n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(2) == 0 {
			m.Adv[0].Loss = randomLoss(rng, n, 1+rng.IntN(3))
		}
		if rng.IntN(4) == 0 {
			m.Prior[rng.IntN(n)] = 0
			normalize(m.Prior)
		}
		p := randomMechanism(rng, n, 1+rng.IntN(3))
		for _, o := range []Observer{m.Recon, m.Adv[0]} {
			got, want := m.Risk(o, p), bruteRisk(m.Prior, o, p)
			if !scalar.EqualWithinAbs(got, want, 1e-13) {
				t.Fatalf("instance %d: risk %.15g, best decision rule %.15g", i, got, want)
			}
		}
	}
}

// TestObserverZeroOne: nil and the explicit 0-1 matrix read as the 0-1
// loss; a matrix that is not square or has another entry does not.
func TestObserverZeroOne(t *testing.T) {
	for _, c := range []struct {
		loss [][]float64
		want bool
	}{
		{nil, true},
		{[][]float64{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}, true},
		{[][]float64{{0, 1}, {1, 0}, {1, 0}}, false},
		{[][]float64{{0, 2, 1}, {1, 0, 1}, {1, 1, 0}}, false},
	} {
		if got := (Observer{Loss: c.loss}).ZeroOne(); got != c.want {
			t.Errorf("ZeroOne(%v) = %v, want %v", c.loss, got, c.want)
		}
	}
}

func TestFiniteValidateNamesTheEntry(t *testing.T) {
	good := func() Finite {
		return Finite{
			Prior: []float64{0.5, 0.5},
			Recon: Observer{Channel: [][]float64{{0.8, 0.2}, {0.2, 0.8}}},
			Adv:   []Observer{{Channel: [][]float64{{0.6, 0.4}, {0.4, 0.6}}}},
		}
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(*Finite)
		want string
	}{
		{func(m *Finite) { m.Prior = nil }, "prior: need at least one entry"},
		{func(m *Finite) { m.Prior = []float64{0.5, 0.6} }, "prior sums to 1.1"},
		{func(m *Finite) { m.Prior = []float64{math.NaN(), 1} }, "prior, entry 0 = NaN"},
		{func(m *Finite) { m.Prior = []float64{-0.5, 1.5} }, "prior, entry 0 = -0.5"},
		{func(m *Finite) { m.Recon.Channel[1] = []float64{0.3, 0.6} }, "reconstructor.channel row 1 sums to 0.9"},
		{func(m *Finite) { m.Recon.Channel[1] = []float64{1} }, "reconstructor.channel row 1 has 1 entries, row 0 has 2"},
		{func(m *Finite) { m.Recon.Channel = m.Recon.Channel[:1] }, "reconstructor.channel has 1 rows"},
		{func(m *Finite) { m.Adv[0].Channel[0] = []float64{1.2, -0.2} }, "adversaries[0].channel row 0, entry 0 = 1.2"},
		{func(m *Finite) { m.Adv[0].Channel[0] = []float64{math.Inf(1), 0} }, "adversaries[0].channel row 0, entry 0 = +Inf"},
		{func(m *Finite) { m.Adv = nil }, "need at least one adversary"},
		{func(m *Finite) { m.Adv[0].Loss = [][]float64{{0, 1}, {1, -1}} }, "adversaries[0].loss row 1, entry 1 = -1"},
		{func(m *Finite) { m.Adv[0].Loss = [][]float64{{0, 1}} }, "adversaries[0].loss has 1 rows"},
		{func(m *Finite) { m.Recon.Loss = [][]float64{{0, math.NaN()}, {1, 0}} }, "reconstructor.loss row 0, entry 1 = NaN"},
	} {
		m := good()
		tc.edit(&m)
		err := m.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
		if err == nil {
			continue
		}
		// Every solver entry point refuses it too, with the same message.
		if _, err := m.PrepareGlobal(GlobalOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PrepareGlobal: %v", err)
		}
		if _, err := m.FixedModel(0.1, FixedOptions{Outputs: 2}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FixedModel: %v", err)
		}
	}
}

func TestParseFiniteConfig(t *testing.T) {
	m, err := ParseFiniteConfig(strings.NewReader(`{"prior": [0.46, 0.54],
		"reconstructor": {"channel": [[0.8, 0.2], [0.2, 0.8]]},
		"adversaries": [{"channel": [[0.56, 0.44], [0.44, 0.56]], "loss": [[0, 1], [1, 0]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.N() != 2 || m.K() != 1 || m.Adv[0].Loss == nil || m.Recon.Loss != nil {
		t.Fatalf("got %+v", m)
	}
	if !scalar.EqualWithinAbs(m.DMax(), PaperBinary().DMax(), 1e-15) {
		t.Errorf("D_max %g", m.DMax())
	}
	const ok = `"reconstructor": {"channel": [[1]]}, "adversaries": [{"channel": [[1]]}]`
	for _, c := range []struct{ in, want string }{
		{``, "empty file"},
		{`{` + ok + `}`, `"prior" is missing`},
		{`{"prior": [1], "adversaries": [{"channel": [[1]]}]}`, `"reconstructor" is missing`},
		{`{"prior": [1], "reconstructor": {"channel": [[1]]}}`, `"adversaries" is missing`},
		{`{"prior": [1], "reconstructor": {}, "adversaries": [{"channel": [[1]]}]}`, `reconstructor.channel is missing`},
		{`{"prior": [0.5, 0.4], "reconstructor": {"channel": [[1], [1]]}, "adversaries": [{"channel": [[1], [1]]}]}`, `prior sums to 0.9`},
		{`{"prior": [0.5, 0.5], "reconstructor": {"channel": [[1], [0.5]]}, "adversaries": [{"channel": [[1], [1]]}]}`, `reconstructor.channel row 1 sums to 0.5`},
		{`{"prior": [0.5, 0.5], "reconstructor": {"channel": [[1], [1]]}, "adversaries": [{"channel": [[1]]}]}`, `adversaries[0].channel has 1 rows: want one row per value of X (n = 2`},
		{`{"prior": [1], ` + ok + `, "extra": 1}`, `unknown field "extra"`},
		{`{"prior": [1], "reconstructor": {"channel": [[1]], "los": 1}, "adversaries": [{"channel": [[1]]}]}`, `unknown field "los"`},
		{`{"prior": [1], "reconstructor": {"channel": [[1]], "loss": []}, "adversaries": [{"channel": [[1]]}]}`, `reconstructor.loss is empty`},
		{`{"prior": "x", ` + ok + `}`, `field "prior": cannot use JSON string`},
		{`{"prior": [1], ` + ok + `} {}`, "unexpected data"},
		{`{"prior": [1],`, "malformed JSON"},
	} {
		_, err := ParseFiniteConfig(strings.NewReader(c.in))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an ErrConfig containing %q", c.in, err, c.want)
		}
	}
}

func FuzzParseFiniteConfig(f *testing.F) {
	f.Add(`{"prior": [0.46, 0.54], "reconstructor": {"channel": [[0.8, 0.2], [0.2, 0.8]]}, "adversaries": [{"channel": [[0.56, 0.44], [0.44, 0.56]]}]}`)
	f.Add(`{"prior": [1], "reconstructor": {"channel": [[1]], "loss": [[2, 0]]}, "adversaries": [{"channel": [[1]]}]}`)
	f.Add(`{"prior": [1e309]}`)
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseFiniteConfig(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		if verr := m.Validate(); verr != nil {
			t.Fatalf("accepted an invalid model: %v", verr)
		}
		// An accepted model has finite, ordered risk bounds.
		if lo, hi := m.DMin(), m.DMax(); math.IsNaN(lo) || math.IsNaN(hi) || lo > hi+1e-9 {
			t.Fatalf("D_min %g, D_max %g", lo, hi)
		}
	})
}
