package data

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model/kind"
)

// splitStream is the PCG stream of the split's shuffle; its seed is the
// split's seed.
const splitStream = 0x73706c6974 // "split"

// Permutation is the split's shuffle of rows 0..n−1: Fisher–Yates driven by
// PCG(seed, splitStream). Row Perm[k] of the file is row k of the shuffled
// order, whose first Train rows train.
func Permutation(seed uint64, n int) []int {
	p := make([]int, n)
	for k := range p {
		p[k] = k
	}
	rng := rand.New(rand.NewPCG(seed, splitStream))
	rng.Shuffle(n, func(a, b int) { p[a], p[b] = p[b], p[a] })
	return p
}

// Prepared is a table read through a Spec: the rows in split order, the
// private column and every observer's side columns, with each discrete X
// and each observer whose side columns are all discrete also read as
// symbols 0, 1, … (the index of the value, or of the tuple of values, in
// sorted order over the whole file, so both splits share the alphabet).
type Prepared struct {
	Spec *Spec
	Perm []int
	X    []float64 // raw values in split order
	// XValues are the distinct values of a discrete X, sorted: symbol s
	// is XValues[s]. Nil for a continuous X.
	XValues []float64
	XSym    []int
	// Side[i] are observer i's columns in split order (0: the
	// reconstructor); Sym[i] its symbols and NSym[i] their number, nil and
	// 0 when one of its columns is continuous.
	Side [][][]float64
	Sym  [][]int
	NSym []int
}

// Prepare reads t through s: t must be the table s was made from (the
// caller checks the file's hash; Prepare checks rows and column names).
func Prepare(t *Table, s *Spec) (*Prepared, error) {
	if t.Rows != s.Rows {
		return nil, choiceErr("%s has %d data rows, the run's data had %d", s.CSV, t.Rows, s.Rows)
	}
	get := func(c Column) ([]float64, error) {
		j := t.Column(c.Name)
		if j < 0 {
			return nil, &Error{File: s.CSV, Column: c.Name, Msg: "no such column, but the run used it"}
		}
		if c.Kind == Continuous {
			if err := t.checkScale(s.CSV, j); err != nil {
				return nil, err
			}
		}
		return t.Cols[j], nil
	}
	p := &Prepared{Spec: s, Perm: Permutation(s.Split.Seed, t.Rows)}
	order := func(col []float64) []float64 {
		out := make([]float64, len(p.Perm))
		for k, r := range p.Perm {
			out[k] = col[r]
		}
		return out
	}
	x, err := get(s.Private)
	if err != nil {
		return nil, err
	}
	p.X = order(x)
	if s.Private.Kind == Discrete {
		p.XValues = distinct(x)
		p.XSym = make([]int, len(p.X))
		for k, v := range p.X {
			p.XSym[k], _ = slices.BinarySearch(p.XValues, v+0)
		}
	}
	for _, obs := range s.Observers() {
		var cols [][]float64
		all := true
		for _, c := range obs {
			v, err := get(c)
			if err != nil {
				return nil, err
			}
			cols = append(cols, order(v))
			all = all && c.Kind == Discrete
		}
		p.Side = append(p.Side, cols)
		var sym []int
		n := 0
		if all {
			if sym, n = tuples(cols); n > MaxSymbols {
				return nil, choiceErr("%s: the side columns %s take %d distinct tuples of values: at most %d for discrete side information", s.CSV, names(obs), n, MaxSymbols)
			}
		}
		p.Sym, p.NSym = append(p.Sym, sym), append(p.NSym, n)
	}
	return p, nil
}

func names(cs []Column) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return fmt.Sprintf("%q", out)
}

// tuples numbers the distinct rows of cols in lexicographic order.
func tuples(cols [][]float64) ([]int, int) {
	n := len(cols[0])
	idx := make([]int, n)
	for k := range idx {
		idx[k] = k
	}
	compare := func(a, b int) int { // values are finite (Parse)
		for _, c := range cols {
			if r := cmp.Compare(c[a], c[b]); r != 0 {
				return r
			}
		}
		return 0
	}
	slices.SortStableFunc(idx, compare)
	sym := make([]int, n)
	s := 0
	for k, r := range idx {
		if k > 0 && compare(idx[k-1], r) != 0 {
			s++
		}
		sym[r] = s
	}
	return sym, s + 1
}

// Symbolic reports whether X and every observer's side information are
// discrete: the empirical joint law is a finite model (Law).
func (p *Prepared) Symbolic() bool {
	if p.XValues == nil {
		return false
	}
	for _, n := range p.NSym {
		if n == 0 {
			return false
		}
	}
	return true
}

// Dataset returns the rows in split order for learn.Sweep (TrainSize and
// TestSize are the split's). symbols: X and each observer's side
// information as one symbol each (the labels method); otherwise X as its
// symbol when discrete (a binary X is 0/1 for Algorithm 1), else its value,
// and the side columns as values.
func (p *Prepared) Dataset(symbols bool) *learn.Dataset {
	f := func(s []int) []float64 {
		out := make([]float64, len(s))
		for k, v := range s {
			out[k] = float64(v)
		}
		return out
	}
	ds := &learn.Dataset{X: p.X}
	if p.XSym != nil {
		ds.X = f(p.XSym)
	}
	for i, cols := range p.Side {
		if symbols {
			cols = [][]float64{f(p.Sym[i])}
		}
		if i == 0 {
			ds.Y = cols
		} else {
			ds.Z = append(ds.Z, cols)
		}
	}
	return ds
}

// Law returns the empirical joint law of (X, Y, Z_1..Z_K) on the training
// rows (test false) or the test rows as a finite model with 0-1 losses:
// π̂(x) and Ŵ_i(v | x) are frequencies; a value of X absent from the rows
// gets π̂ = 0 and a uniform (irrelevant) channel row. It panics unless
// Symbolic.
func (p *Prepared) Law(test bool) mip.Finite {
	if !p.Symbolic() {
		panic("data: Law of data that are not all discrete")
	}
	lo, hi := 0, p.Spec.Split.Train
	if test {
		lo, hi = hi, p.Spec.Rows
	}
	n := len(p.XValues)
	count := make([]float64, n)
	for _, x := range p.XSym[lo:hi] {
		count[x]++
	}
	m := mip.Finite{Prior: make([]float64, n)}
	for x, c := range count {
		m.Prior[x] = c / float64(hi-lo)
	}
	for i, sym := range p.Sym {
		w := make([][]float64, n)
		for x := range w {
			w[x] = make([]float64, p.NSym[i])
		}
		for k := lo; k < hi; k++ {
			w[p.XSym[k]][sym[k]]++
		}
		for x, row := range w {
			for v := range row {
				if count[x] == 0 {
					row[v] = 1 / float64(len(row))
				} else {
					row[v] /= count[x]
				}
			}
		}
		o := mip.Observer{Channel: w}
		if i == 0 {
			m.Recon = o
		} else {
			m.Adv = append(m.Adv, o)
		}
	}
	return m
}

// Plan is how a run trains: the learn model (its losses) and the method.
type Plan struct {
	Model  kind.Kind
	Method learn.TrainMethod
}

// ChoosePlan picks the training for the data (method nil: the default) or
// says why the combination cannot work:
//
//   - X continuous: MSE losses, Algorithm 1 (Gaussian-style networks);
//   - X and every observer's side columns discrete: 0-1 losses, the labels
//     method against exact Bayes observers of the training split's
//     empirical law by default; Algorithm 1 when the method is asked for
//     (binary networks when X takes two values, a categorical release of
//     |X| labels otherwise);
//   - X discrete with a continuous side column: Algorithm 1's binary
//     networks when X takes two values; otherwise no method applies (the
//     categorical release's observers take one-hot side values).
func (p *Prepared) ChoosePlan(method *learn.TrainMethod) (Plan, error) {
	s := p.Spec
	if p.XValues == nil {
		if method != nil && *method == learn.MethodLabels {
			return Plan{}, choiceErr("--method labels: column %q (X) is continuous, and the labels method needs a discrete X (declare it --discrete if its values are few)", s.Private.Name)
		}
		return Plan{Model: kind.Gauss, Method: learn.MethodAlg1}, nil
	}
	binary := len(p.XValues) == 2
	if p.Symbolic() {
		if method == nil || *method == learn.MethodLabels {
			return Plan{Model: kind.Finite, Method: learn.MethodLabels}, nil
		}
		if !binary {
			// Section V-B extended to |X| = n: a categorical release.
			return Plan{Model: kind.Finite, Method: learn.MethodAlg1}, nil
		}
		return Plan{Model: kind.Binary, Method: learn.MethodAlg1}, nil
	}
	cont := ""
	for i, n := range p.NSym {
		if n == 0 {
			for _, c := range s.Observers()[i] {
				if c.Kind == Continuous && cont == "" {
					cont = c.Name
				}
			}
		}
	}
	if method != nil && *method == learn.MethodLabels {
		return Plan{}, choiceErr("--method labels: side column %q is continuous, and the labels method's observers need discrete side columns (declare it --discrete if its values are few)", cont)
	}
	if !binary {
		return Plan{}, choiceErr("column %q (X) takes %d values and side column %q is continuous: Algorithm 1 on an X of more than two values and the labels method need discrete side columns", s.Private.Name, len(p.XValues), cont)
	}
	return Plan{Model: kind.Binary, Method: learn.MethodAlg1}, nil
}

// DMax estimates D_max, the reconstructor's loss from its side columns
// alone, on the training rows, and the smallest threshold worth a sweep:
//
//   - all discrete: the empirical law's exact D_max and D_min (mip.Finite);
//   - a binary X with a continuous side column: 1 − max_x π̂(x), the error
//     of guessing X without Y (an upper bound of the true D_max), and 0;
//   - a continuous X: the residual variance of the least-squares fit of X
//     on Y's columns and a constant (the linear MMSE, an upper bound of
//     the MMSE Var-style D_max of the unknown law), and 0.
func (p *Prepared) DMax() (dmax, dmin float64) {
	if p.Symbolic() {
		m := p.Law(false)
		return m.DMax(), m.DMin()
	}
	train := p.Spec.Split.Train
	if p.XValues != nil {
		count := make([]float64, len(p.XValues))
		for _, x := range p.XSym[:train] {
			count[x]++
		}
		return 1 - slices.Max(count)/float64(train), 0
	}
	cols := p.Side[0]
	a := mat.NewDense(train, 1+len(cols), nil)
	b := mat.NewVecDense(train, append([]float64(nil), p.X[:train]...))
	for k := range train {
		a.Set(k, 0, 1)
		for j, c := range cols {
			a.Set(k, 1+j, c[k])
		}
	}
	var beta mat.VecDense
	if err := beta.SolveVec(a, b); err != nil {
		// Collinear side columns: fall back to the variance of X.
		beta.Reset()
		beta.ReuseAsVec(1 + len(cols))
		beta.SetVec(0, mat.Sum(b)/float64(train))
	}
	var res float64
	for k := range train {
		r := p.X[k] - mat.Dot(a.RowView(k), &beta)
		res += r * r
	}
	return res / float64(train), 0
}

// Open reads the data file at path once, hashes its bytes (the run's
// binding) and reads it through the columns c chooses; it returns the
// bytes read too.
func Open(ctx context.Context, path string, c Choice) (*Prepared, []byte, error) {
	t, raw, err := ReadFile(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	spec, err := NewSpec(t, path, safefile.SHA256(raw), c)
	if err != nil {
		return nil, nil, err
	}
	prep, err := Prepare(t, spec)
	if err != nil {
		return nil, nil, err
	}
	return prep, raw, nil
}

// Training is the run of cfg (plan's configuration, its thresholds set)
// on the prepared data, as learn.NewTraining is a model's: the split's
// sizes, the dataset, and the binding (model.json is the Spec's encoding,
// ModelSHA256 its hash).
func (p *Prepared) Training(plan Plan, cfg learn.Config) (*learn.Training, error) {
	split := p.Spec.Split
	cfg.TrainSize, cfg.TestSize = split.Train, split.Test
	cfg.BatchSize = min(cfg.BatchSize, cfg.TrainSize)
	t := &learn.Training{Config: cfg, Data: p.Dataset(plan.Method == learn.MethodLabels)}
	var err error
	if t.Model, err = p.Spec.Encode(); err != nil {
		return nil, err
	}
	if t.Config.ModelSHA256, err = p.Spec.Hash(); err != nil {
		return nil, err
	}
	return t, nil
}
