package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/model/kind"
	"github.com/mmds-project/mmds/network"
)

// cholesky returns the lower-triangular L with L Lᵀ = a, or panics if a is
// not positive definite.
func cholesky(a [][]float64) [][]float64 {
	n := len(a)
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
	}
	for i := range n {
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := range j {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if s <= 0 {
					panic("cholesky: not positive definite")
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	return l
}

// gaussCols draws n rows of N(mu, cov) and returns them as columns.
func gaussCols(n int, mu []float64, cov [][]float64, rng *rand.Rand) [][]float64 {
	l := cholesky(cov)
	d := len(mu)
	cols := make([][]float64, d)
	for i := range cols {
		cols[i] = make([]float64, n)
	}
	e := make([]float64, d)
	for r := range n {
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		for i := range d {
			s := mu[i]
			for k := 0; k <= i; k++ {
				s += l[i][k] * e[k]
			}
			cols[i][r] = s
		}
	}
	return cols
}

// paperGauss is the paper's Gaussian model (Section V-A): means (4, 3, 4.5,
// 5), variances (16, 0.9, 12.25, 2.25), and the stated correlations.
func paperGauss(n int, seed uint64) *Dataset {
	sd := []float64{4, math.Sqrt(0.9), 3.5, 1.5}
	rho := [][]float64{
		{1, 0.80, 0.11, 0.65},
		{0.80, 1, 0.23, 0.59},
		{0.11, 0.23, 1, 0.19},
		{0.65, 0.59, 0.19, 1},
	}
	cov := make([][]float64, 4)
	for i := range cov {
		cov[i] = make([]float64, 4)
		for j := range cov[i] {
			cov[i][j] = rho[i][j] * sd[i] * sd[j]
		}
	}
	c := gaussCols(n, []float64{4, 3, 4.5, 5}, cov, rand.New(rand.NewPCG(seed, 1)))
	return &Dataset{X: c[0], Y: [][]float64{c[1]}, Z: [][][]float64{{c[2]}, {c[3]}}}
}

// paperBinary is the paper's binary model (Section V-B): x ~ Bernoulli(0.54),
// y and z through binary symmetric channels with crossovers 0.2 and 0.44.
func paperBinary(n int, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 2))
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	flip := func(v float64, q float64) float64 {
		if rng.Float64() < q {
			return 1 - v
		}
		return v
	}
	for r := range n {
		if rng.Float64() < 0.54 {
			x[r] = 1
		}
		y[r], z[r] = flip(x[r], 0.2), flip(x[r], 0.44)
	}
	return &Dataset{X: x, Y: [][]float64{y}, Z: [][][]float64{{z}}}
}

// smallConfig is a fast configuration for tests: paper hyper-parameters,
// few epochs and short epochs.
func smallConfig(t testing.TB, model kind.Kind, d []float64, dmax float64) Config {
	t.Helper()
	c, err := Preset(PresetQuick, model)
	if err != nil {
		t.Fatal(err)
	}
	c.D, c.DMax = d, dmax
	c.Epochs, c.BatchesPerEpoch = 4, 5
	c.TrainSize, c.TestSize = 2000, 400
	c.Workers = 1
	c.Seed = 7
	return c
}

func mustData(t testing.TB, ds *Dataset, c Config) *Data {
	t.Helper()
	c, err := c.resolve(len(ds.X))
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewData(ds, c.TrainSize, c.TestSize, c.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustTrainer(t testing.TB, data *Data, c Config, d float64, seed uint64) *Trainer {
	t.Helper()
	tr, err := NewTrainer(data, c, d, seed)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestSoftmaxRowsIsNetwork: softmaxRows (exponentials through vexp, a
// reciprocal for the divisions) is within 4 ulp of network.SoftmaxInPlace
// on every row.
func TestSoftmaxRowsIsNetwork(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for n := 1; n < 40; n++ {
		z := make([]float64, n)
		for i := range z {
			z[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(5)-1))
		}
		b := append([]float64(nil), z...)
		network.SoftmaxInPlace(b)
		rows := append(append([]float64(nil), z...), z...)
		softmaxRows(rows, n)
		for i, v := range rows {
			if want := b[i%n]; math.Abs(v-want) > 4*ulp(want) {
				t.Fatalf("n = %d, softmaxRows entry %d: %v, network %v", n, i, v, want)
			}
		}
	}
}

// ulp is the spacing of the floats at |v|.
func ulp(v float64) float64 {
	v = math.Abs(v)
	return math.Nextafter(v, math.Inf(1)) - v
}
