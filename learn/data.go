package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Dataset is the input of Algorithm 1 as columns of equal length N: the
// private variable, the reconstructor's side information, each adversary's
// side information and the privatizer's noise. For the paper's Gaussian model
// Y = [y] and Z = [[z1], [z2]]; for the coalition setting of Section II,
// Y = [z1, z2]. Rows are taken in order: the first TrainSize rows train, the
// next TestSize rows test, so the caller's rows must be i.i.d. (as samples
// drawn from a model are).
type Dataset struct {
	X []float64     // private variable x
	Y [][]float64   // reconstructor side columns, at least one
	Z [][][]float64 // Z[i] holds adversary i's side columns, at least one adversary with at least one column
	// R is the privatizer's noise r ~ N(0,1). If nil, Sweep draws it from a
	// PCG stream seeded by NoiseSeed(Config.Seed).
	R []float64
}

// Validate reports the first malformed column: missing, of the wrong length,
// or holding a NaN or an infinity.
func (ds *Dataset) Validate() error {
	n := len(ds.X)
	if n == 0 {
		return fmt.Errorf("learn: Dataset.X is empty")
	}
	check := func(name string, col []float64) error {
		if len(col) != n {
			return fmt.Errorf("learn: Dataset.%s has %d rows, X has %d", name, len(col), n)
		}
		for r, v := range col {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("learn: Dataset.%s[%d] = %g: must be finite", name, r, v)
			}
		}
		return nil
	}
	if err := check("X", ds.X); err != nil {
		return err
	}
	if len(ds.Y) == 0 {
		return fmt.Errorf("learn: Dataset.Y is empty: the reconstructor needs at least one side column")
	}
	for j, c := range ds.Y {
		if err := check(fmt.Sprintf("Y[%d]", j), c); err != nil {
			return err
		}
	}
	if len(ds.Z) == 0 {
		return fmt.Errorf("learn: Dataset.Z is empty: need at least one adversary")
	}
	for i, cols := range ds.Z {
		if len(cols) == 0 {
			return fmt.Errorf("learn: Dataset.Z[%d] is empty: adversary %d needs at least one side column", i, i+1)
		}
		for j, c := range cols {
			if err := check(fmt.Sprintf("Z[%d][%d]", i, j), c); err != nil {
				return err
			}
		}
	}
	if ds.R != nil {
		return check("R", ds.R)
	}
	return nil
}

// Data is a Dataset split into training and test rows and laid out row-major
// for minibatch gathers. It is read-only once built and shared by all trials.
type Data struct {
	Train, Test *Split
	hash        uint64
}

// Split is one part of the data, row-major.
type Split struct {
	N     int
	X     []float64   // N
	Priv  []float64   // N×2: (x, r), the privatizer's input
	Recon []float64   // N×len(Y): the reconstructor's side columns
	Adv   [][]float64 // Adv[i] is N×len(Z[i])
	NY    int
	NZ    []int
}

// side returns observer j's side columns (N×w, row-major) and their count
// w: the reconstructor's for j = 0, adversary j's after.
func (s *Split) side(j int) ([]float64, int) {
	if j == 0 {
		return s.Recon, s.NY
	}
	return s.Adv[j-1], s.NZ[j-1]
}

// NewData validates ds, draws R if it is nil, and splits the rows: the first
// train rows for training, the next test rows for testing.
func NewData(ds *Dataset, train, test int, seed uint64) (*Data, error) {
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	n := len(ds.X)
	if train < 1 || test < 1 || train+test > n {
		return nil, fmt.Errorf("learn: split %d train + %d test rows: need both ≥ 1 and at most %d rows in all", train, test, n)
	}
	r := ds.R
	if r == nil {
		rng := rand.New(rand.NewPCG(NoiseSeed(seed), 0))
		r = make([]float64, n)
		for k := range r {
			r[k] = rng.NormFloat64()
		}
	}
	d := &Data{
		Train: newSplit(ds, r, 0, train),
		Test:  newSplit(ds, r, train, train+test),
	}
	h := newDigest()
	h.floats(ds.X)
	for _, c := range ds.Y {
		h.floats(c)
	}
	for _, cols := range ds.Z {
		for _, c := range cols {
			h.floats(c)
		}
	}
	h.floats(r)
	h.ints(train, test)
	d.hash = h.sum()
	return d, nil
}

// NumAdversaries returns K, the number of adversaries.
func (d *Data) NumAdversaries() int { return len(d.Train.Adv) }

func newSplit(ds *Dataset, r []float64, lo, hi int) *Split {
	n := hi - lo
	s := &Split{N: n, X: append([]float64(nil), ds.X[lo:hi]...), NY: len(ds.Y)}
	s.Priv = make([]float64, 2*n)
	for k := range n {
		s.Priv[2*k], s.Priv[2*k+1] = ds.X[lo+k], r[lo+k]
	}
	s.Recon = rowMajor(ds.Y, lo, hi)
	for _, cols := range ds.Z {
		s.Adv = append(s.Adv, rowMajor(cols, lo, hi))
		s.NZ = append(s.NZ, len(cols))
	}
	return s
}

func rowMajor(cols [][]float64, lo, hi int) []float64 {
	w := len(cols)
	out := make([]float64, (hi-lo)*w)
	for j, c := range cols {
		for k := lo; k < hi; k++ {
			out[(k-lo)*w+j] = c[k]
		}
	}
	return out
}

// splitmix64 is one step of Steele, Lea & Flood's SplitMix64 generator: it
// adds the golden-ratio increment and applies the finalizer.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// TrialSeed is the seed of trial t at threshold index d of a sweep with master
// seed s: the SplitMix64 chain
//
//	splitmix64(splitmix64(splitmix64(s) ⊕ d) ⊕ t).
//
// It depends on nothing else, so a sweep's results are the same for any
// number of workers.
func TrialSeed(s uint64, d, t int) uint64 {
	return splitmix64(splitmix64(splitmix64(s)^uint64(d)) ^ uint64(t))
}

// NoiseSeed is the seed of the PCG stream that draws a Dataset's missing R
// column: splitmix64(s ⊕ 0x6e6f697365), a value no TrialSeed chain starts
// from.
func NoiseSeed(s uint64) uint64 { return splitmix64(s ^ 0x6e6f697365) }

// The PCG streams a trial seeds from its TrialSeed.
const (
	streamInit      = 1 // network initialization: privatizer, reconstructor, adversaries in order
	streamBernoulli = 2 // the binary privatizer's f ~ Bernoulli(p̂) during training
	streamEval      = 3 // f ~ Bernoulli(p̂) during evaluation
	streamSample    = 4 // minibatch shuffles: stream 4 + role (0 privatizer, 1 reconstructor, 2+i adversary i)
)

// sampler deals minibatches from a seeded permutation of the training rows,
// reshuffling (Fisher–Yates) whenever fewer than a minibatch of rows remain in
// the current pass, so every pass visits every row at most once and a
// minibatch never straddles two passes.
type sampler struct {
	perm []int32
	pos  int
	rng  *rand.Rand
}

func newSampler(n int, rng *rand.Rand) *sampler {
	s := &sampler{perm: make([]int32, n), rng: rng}
	for k := range s.perm {
		s.perm[k] = int32(k)
	}
	s.pos = n // shuffle before the first minibatch
	return s
}

func (s *sampler) next(m int) []int32 {
	if s.pos+m > len(s.perm) {
		s.rng.Shuffle(len(s.perm), func(a, b int) { s.perm[a], s.perm[b] = s.perm[b], s.perm[a] })
		s.pos = 0
	}
	b := s.perm[s.pos : s.pos+m]
	s.pos += m
	return b
}
