package learn

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model/kind"
)

// randomLaw returns a finite law with n values of X, k adversaries, nv side
// values and na estimates per observer, random losses in [0, 1).
func randomLaw(rng *rand.Rand, n, k, nv, na int) *mip.Finite {
	dist := func(m int) []float64 {
		p := make([]float64, m)
		var s float64
		for i := range p {
			p[i] = rng.Float64() + 0.05
			s += p[i]
		}
		for i := range p {
			p[i] /= s
		}
		return p
	}
	law := &mip.Finite{Prior: dist(n)}
	for i := range 1 + k {
		var o mip.Observer
		for range n {
			o.Channel = append(o.Channel, dist(nv))
			row := make([]float64, na)
			for a := range row {
				row[a] = rng.Float64()
			}
			o.Loss = append(o.Loss, row)
		}
		if i == 0 {
			law.Recon = o
		} else {
			law.Adv = append(law.Adv, o)
		}
	}
	return law
}

// bruteRisk is an observer's Bayes risk found the long way: the smallest
// expected loss E[L(X, δ(F, V))] over every deterministic decision rule δ
// from (label, side value) to an estimate, the expectation a sum over
// every outcome (x, l, v).
func bruteRisk(prior []float64, o mip.Observer, p []float64, m int) float64 {
	n, nv, na := len(prior), len(o.Channel[0]), len(o.Loss[0])
	cells := m * nv
	rule := make([]int, cells)
	best := math.Inf(1)
	for {
		var e float64
		for x := range n {
			for l := range m {
				for v := range nv {
					e += prior[x] * p[x*m+l] * o.Channel[x][v] * o.Loss[x][rule[l*nv+v]]
				}
			}
		}
		best = min(best, e)
		c := 0
		for c < cells && rule[c] == na-1 {
			rule[c] = 0
			c++
		}
		if c == cells {
			return best
		}
		rule[c]++
	}
}

func randomChannel(rng *rand.Rand, n, m int) []float64 {
	p := make([]float64, n*m)
	for x := range n {
		var s float64
		for l := range m {
			p[x*m+l] = rng.Float64() * rng.Float64()
			s += p[x*m+l]
		}
		for l := range m {
			p[x*m+l] /= s
		}
	}
	return p
}

// TestBayesRiskBruteForce: the exact expectation over labels with the
// Bayes decision per (label, side value) equals the best decision rule
// found by enumerating all of them, on random laws, losses and channels.
func TestBayesRiskBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		n, m, nv, na := 2+trial%3, 2+trial%2, 1+trial%2, 2+trial%3
		law := randomLaw(rng, n, 1, nv, na)
		p := randomChannel(rng, n, m)
		for _, o := range law.Observers() {
			got := newBayesRisk(law.Prior, o).eval(p, m, 0, nil, 0)
			want := bruteRisk(law.Prior, o, p, m)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("trial %d (n %d, m %d, nv %d, na %d): risk %.17g, brute force %.17g", trial, n, m, nv, na, got, want)
			}
		}
	}
}

// TestBayesRiskGradient checks ∂R/∂P against central differences at a
// positive temperature (where R is smooth), and that the soft risk is a
// lower bound within τ·log|A| of the exact one.
func TestBayesRiskGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 10 {
		n, m, nv, na := 3, 4, 2, 3
		law := randomLaw(rng, n, 1, nv, na)
		r := newBayesRisk(law.Prior, law.Observers()[trial%2])
		p := randomChannel(rng, n, m)
		const tau = 0.05
		g := make([]float64, n*m)
		r.eval(p, m, tau, g, 1)
		for k := range p {
			h := 1e-6
			q := append([]float64(nil), p...)
			q[k] += h
			up := r.eval(q, m, tau, nil, 0)
			q[k] -= 2 * h
			down := r.eval(q, m, tau, nil, 0)
			fd := (up - down) / (2 * h)
			if math.Abs(fd-g[k]) > 1e-6*(1+math.Abs(fd)) {
				t.Fatalf("trial %d, entry %d: gradient %.10g, central difference %.10g", trial, k, g[k], fd)
			}
		}
		exact, soft := r.eval(p, m, 0, nil, 0), r.eval(p, m, tau, nil, 0)
		if !(soft <= exact+1e-15 && soft >= exact-tau*math.Log(float64(na))-1e-15) {
			t.Fatalf("trial %d: soft risk %g not in [exact − τ log|A|, exact] = [%g, %g]", trial, soft, exact-tau*math.Log(float64(na)), exact)
		}
	}
}

// tinyFinite is a small finite model (X ∈ {0, 1, 2}, one adversary) with a
// dataset drawn from it, and a labels configuration for it.
func tinyFinite(t *testing.T) (*Dataset, Config) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	law := randomLaw(rng, 3, 1, 3, 3)
	law.Recon.Loss, law.Adv[0].Loss = nil, nil // 0-1
	draw := func(p []float64) float64 {
		u, c := rng.Float64(), 0.0
		for k, v := range p {
			if c += v; u < c {
				return float64(k)
			}
		}
		return float64(len(p) - 1)
	}
	ds := &Dataset{Y: [][]float64{nil}, Z: [][][]float64{{nil}}}
	for range 600 {
		x := draw(law.Prior)
		ds.X = append(ds.X, x)
		ds.Y[0] = append(ds.Y[0], draw(law.Recon.Channel[int(x)]))
		ds.Z[0][0] = append(ds.Z[0][0], draw(law.Adv[0].Channel[int(x)]))
	}
	cfg, err := PresetFor(PresetQuick, kind.Finite, MethodLabels, 6)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Law = law
	cfg.Epochs, cfg.Labels.StepsPerEpoch = 6, 10
	cfg.Protocol.Accept, cfg.Protocol.MaxAttempts = 3, 3
	cfg.DMax = 0.5
	cfg.D = []float64{0.15, 0.3}
	cfg.Protocol.Tau = 0.1
	cfg.Seed = 7
	return ds, cfg
}

// TestLabelsDeterministicAcrossWorkers: a labels sweep gives the same
// points, channels and histories with 1 and 2 workers.
func TestLabelsDeterministicAcrossWorkers(t *testing.T) {
	for _, obs := range []ObserverKind{ObserversLaw, ObserversData} {
		var got [2][]byte
		for w := range 2 {
			ds, cfg := tinyFinite(t)
			cfg.Labels.Observers, cfg.Workers = obs, w+1
			res, err := Sweep(context.Background(), ds, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.Points {
				for k := range res.Points[i].Trials {
					res.Points[i].Trials[k].Seconds = 0
				}
			}
			if got[w], err = json.Marshal(res.Points); err != nil {
				t.Fatal(err)
			}
		}
		if string(got[0]) != string(got[1]) {
			t.Errorf("%v observers: results differ between 1 and 2 workers", obs)
		}
	}
}

// TestLabelsPointIsItsChannel: each finalized point's recorded losses are
// the exact risks of its channel under the law (what verify certifies), and
// the channel's rows are distributions over the M labels.
func TestLabelsPointIsItsChannel(t *testing.T) {
	ds, cfg := tinyFinite(t)
	cfg.Workers = 1
	res, err := Sweep(context.Background(), ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points {
		if !p.Finalized {
			t.Fatalf("D = %g not finalized", p.D)
		}
		m := cfg.Labels.M
		flat := make([]float64, 0, 3*m)
		for x, row := range p.Channel {
			var s float64
			for _, v := range row {
				s += v
			}
			if len(row) != m || math.Abs(s-1) > 1e-12 {
				t.Fatalf("D = %g: row %d has %d entries summing to %g", p.D, x, len(row), s)
			}
			flat = append(flat, row...)
		}
		for i, o := range cfg.Law.Observers() {
			want := cellRisk(cfg.Law.Prior, o.Channel, flat, m)
			got := p.Losses.Recon
			if i > 0 {
				got = p.Losses.Adv[i-1]
			}
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("D = %g, observer %d: recorded loss %.15g, exact risk of the channel %.15g", p.D, i, got, want)
			}
		}
	}
}

// TestMethodText: the typed enums round-trip through their text form and
// refuse unknown names with their sentinels.
func TestMethodText(t *testing.T) {
	for _, m := range []TrainMethod{MethodAlg1, MethodLabels} {
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back TrainMethod
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v: round trip gives %v, %v", m, back, err)
		}
	}
	var m TrainMethod
	if err := m.UnmarshalText([]byte("sgd")); err == nil || !isErr(err, ErrMethod) {
		t.Errorf("unknown method: %v, want ErrMethod", err)
	}
	var o ObserverKind
	if err := o.UnmarshalText([]byte("oracle")); err == nil || !isErr(err, ErrObservers) {
		t.Errorf("unknown observers: %v, want ErrObservers", err)
	}
	// Algorithm 1's configuration is written as before: no method field.
	cfg, _ := Preset(PresetQuick, kind.Binary)
	b, _ := json.Marshal(cfg)
	if json.Valid(b) && containsKey(b, "method") {
		t.Errorf("an Algorithm 1 configuration writes a method field: %s", b)
	}
}

func containsKey(b []byte, key string) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	_, ok := m[key]
	return ok
}

func isErr(err, target error) bool { return errors.Is(err, target) }

// cellRisk is the 0-1 Bayes risk of a channel written out plainly: per
// (label, side value) the mass of the values of X other than the most
// probable one.
func cellRisk(prior []float64, w [][]float64, p []float64, m int) float64 {
	var r float64
	for l := range m {
		for v := range w[0] {
			var total, top float64
			for x := range prior {
				q := prior[x] * w[x][v] * p[x*m+l]
				total += q
				top = max(top, q)
			}
			r += total - top
		}
	}
	return r
}
