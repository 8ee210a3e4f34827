package stdnormal

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// Mass, Moments and NodeMass against the normal CDF and adaptive quadrature.
func TestAgainstQuadrature(t *testing.T) {
	n := distuv.UnitNormal
	for _, c := range [][2]float64{{-1, 2}, {0.5, 3}, {-4, -1}, {-30, -8}, {8, 30}, {-2, 2}} {
		a, b := c[0], c[1]
		if got, want := Mass(a, b), n.CDF(b)-n.CDF(a); math.Abs(got-want) > 1e-15+1e-12*want {
			t.Errorf("Mass(%g, %g) = %g, want %g", a, b, got, want)
		}
		if got, want := NodeMass(NewNode(a), NewNode(b)), Mass(a, b); math.Abs(got-want) > 1e-16+1e-13*want {
			t.Errorf("NodeMass(%g, %g) = %g, Mass %g", a, b, got, want)
		}
		m0, m1, m2 := Moments(a, b)
		for k, got := range []float64{m0, m1, m2} {
			want := quad.Fixed(func(r float64) float64 { return math.Pow(r, float64(k)) * Density(r) }, a, b, 200, nil, 0)
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("Moments(%g, %g)[%d] = %g, quadrature %g", a, b, k, got, want)
			}
		}
	}
	if Mass(2, 1) != 0 || Density(math.Inf(1)) != 0 {
		t.Error("empty interval or infinite end")
	}
}

// Mills against mpmath's 50-digit values (testdata/mills.csv, written by
// scripts/mills-table.py from erfc, not from the table), within 4 ulps on
// [0, 12) and 2 beyond; and against math.Erfc·e^{z²/2} where that product
// is itself accurate (z ≤ 3: e^{z²/2} within a few ulps).
func TestMills(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "mills.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	const ulp = 0x1p-52
	for _, row := range rows[1:] {
		z, err1 := strconv.ParseFloat(row[0], 64)
		want, err2 := strconv.ParseFloat(row[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("row %v: %v %v", row, err1, err2)
		}
		tol := 4.0
		if z >= 12 {
			tol = 2
		}
		if got := Mills(z); !(math.Abs(got-want) <= tol*ulp*want) {
			t.Errorf("Mills(%v) = %v, mpmath %v: %.2g ulps", z, got, want, math.Abs(got-want)/(ulp*want))
		}
		if z <= 3 {
			ref := 0.5 * math.Erfc(z/math.Sqrt2) / Density(z)
			if got := Mills(z); !(math.Abs(got-ref) <= 16*ulp*ref) {
				t.Errorf("Mills(%v) = %v, math.Erfc %v", z, got, ref)
			}
		}
	}
	if len(rows) < 800 {
		t.Fatalf("%d reference rows, want the generated ≥ 800", len(rows))
	}
	for _, z := range []float64{-1, math.NaN()} {
		if !math.IsNaN(Mills(z)) {
			t.Errorf("Mills(%v) = %v, want NaN", z, Mills(z))
		}
	}
	if Mills(math.Inf(1)) != 0 {
		t.Error("Mills(+Inf) ≠ 0")
	}
}

// BenchmarkMills compares the shared-exponential tail φ(z)·Mills(z) with
// math.Erfc at the arguments the Gaussian certificate meets.
func BenchmarkMills(b *testing.B) {
	zs := make([]float64, 1024)
	for i := range zs {
		zs[i] = 9 * float64(i) / float64(len(zs))
	}
	var sink float64
	b.Run("Mills", func(b *testing.B) {
		for b.Loop() {
			for _, z := range zs {
				sink += Mills(z)
			}
		}
	})
	b.Run("Erfc", func(b *testing.B) {
		for b.Loop() {
			for _, z := range zs {
				sink += math.Erfc(z / math.Sqrt2)
			}
		}
	})
	b.Run("Exp", func(b *testing.B) {
		for b.Loop() {
			for _, z := range zs {
				sink += math.Exp(-0.5 * z * z)
			}
		}
	})
	_ = sink
}
