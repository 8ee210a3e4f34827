package gauss

import "testing"

// BenchmarkSweep30 is the paper's 30-point sweep (Section V-A) from a parsed
// model: conditional variances are computed once in New, so this measures
// the closed form of Proposition 1 per threshold.
func BenchmarkSweep30(b *testing.B) {
	m := Paper()
	ds := m.DefaultSweep().Values()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sweepOptima(m, ds); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSweep30WithCheck adds cross-check 5(a) (the joint covariance of
// (X, F, side) and its Schur complements) at every point, as mmds gauss does.
func BenchmarkSweep30WithCheck(b *testing.B) {
	m := Paper()
	ds := m.DefaultSweep().Values()
	b.ReportAllocs()
	for b.Loop() {
		pts, _ := sweepOptima(m, ds)
		for _, p := range pts {
			if _, err := m.Check(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkNewPaper is parsing, validation (eigenvalues) and the Schur
// complements of the paper's model.
func BenchmarkNewPaper(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Paper()
	}
}

// BenchmarkEnvelope builds the paper model's achievable envelope (every
// family's search and the hull) from scratch, the cost behind mmds gauss.
func BenchmarkEnvelope(b *testing.B) {
	for b.Loop() {
		m, err := New(PaperConfig())
		if err != nil {
			b.Fatal(err)
		}
		m.Envelope()
	}
}

// sweepOptima returns the optimum at each threshold in ds.
func sweepOptima(m *Model, ds []float64) ([]Prop1Optimum, error) {
	out := make([]Prop1Optimum, len(ds))
	for i, d := range ds {
		p, err := m.Optimum(d)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
