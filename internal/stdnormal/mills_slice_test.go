package stdnormal

import (
	"math"
	"math/rand/v2"
	"testing"
)

// MillsSlice against Mills, bit for bit: every table interval (its ends
// included), random values over [0, 14), and blocks with values the
// vector kernel leaves to Mills (≥ 12, negative, NaN, ±Inf) at every
// position in a block of four and in the tail.
func TestMillsSliceMatchesMills(t *testing.T) {
	var z []float64
	for i := range 48 {
		lo := 0.25 * float64(i)
		z = append(z, lo, math.Nextafter(lo, 1), lo+0.125, math.Nextafter(lo+0.25, 0))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		z = append(z, 14*rng.Float64())
	}
	for _, odd := range []float64{12, 30, -1, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)} {
		for pos := range 7 {
			b := []float64{0.1, 1.7, 3.3, 5.9, 7.25, 11.9, 2}
			b[pos] = odd
			z = append(z, b...)
		}
	}
	got := make([]float64, len(z))
	MillsSlice(got, z)
	for i, v := range z {
		if want := Mills(v); math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(got[i])) {
			t.Fatalf("MillsSlice at z = %v (index %d) = %v, Mills %v", v, i, got[i], want)
		}
	}
	// in place
	MillsSlice(z, z)
	for i := range z {
		if math.Float64bits(got[i]) != math.Float64bits(z[i]) && !(math.IsNaN(z[i]) && math.IsNaN(got[i])) {
			t.Fatalf("in place at index %d: %v, want %v", i, z[i], got[i])
		}
	}
}

func BenchmarkMillsSlice(b *testing.B) {
	z := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range z {
		z[i] = 10 * rng.Float64()
	}
	dst := make([]float64, len(z))
	b.Run("scalar", func(b *testing.B) {
		for b.Loop() {
			for i, v := range z {
				dst[i] = Mills(v)
			}
		}
	})
	b.Run("slice", func(b *testing.B) {
		for b.Loop() {
			MillsSlice(dst, z)
		}
	})
}
