package estimate

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkFit fits the three estimators on a data run's observer: 2500
// training and 500 test rows of (F, one side column).
func BenchmarkFit(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	f := func(v []float64) float64 { return v[0] + math.Abs(v[1]) }
	train, test := draw(rng, 2500, 2, 0.3, f), draw(rng, 500, 2, 0.3, f)
	for _, m := range []Method{Linear, KNN, MLP} {
		b.Run(m.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := Fit(context.Background(), train, test, MSE, Options{Methods: []Method{m}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
