package estimate

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrSample is wrapped by the error of a sample that cannot be fitted or
// scored: ragged rows, a non-finite feature, target or weight, no rows.
var ErrSample = errors.New("estimate: bad sample")

// Loss is what an estimate is scored by.
type Loss int

// The losses.
const (
	// MSE is the squared error (x̂ − x)².
	MSE Loss = iota + 1
	// ZeroOne is the 0-1 error of x̂ thresholded at 1/2, for x ∈ {0, 1}.
	ZeroOne
)

var lossText = enum.Text[Loss]{Type: "Loss", Names: []string{MSE: "MSE", ZeroOne: "0-1"}}

// String is the loss as reports write it.
func (l Loss) String() string { return lossText.String(l) }

// Method names an estimator.
type Method int

// The estimators, in the order Fit returns them.
const (
	Linear Method = iota + 1
	KNN
	MLP
)

var methodText = enum.Text[Method]{Type: "Method", Names: []string{Linear: "linear", KNN: "knn", MLP: "mlp"},
	BadValue: func(m Method) error { return fmt.Errorf("%w: Method(%d) is not an estimator", ErrSample, int(m)) },
	BadText: func(b []byte, want string) error {
		return fmt.Errorf("%w: estimator %q: want %s", ErrSample, safefile.Excerpt(string(b)), want)
	}}

// String is the estimator's name: linear, knn or mlp.
func (m Method) String() string { return methodText.String(m) }

// MarshalText implements encoding.TextMarshaler.
func (m Method) MarshalText() ([]byte, error) { return methodText.Marshal(m) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Method) UnmarshalText(b []byte) error { return methodText.Unmarshal(m, b) }

// Sample is rows of features and a target. The rows of one example are
// its alternatives, weighted; the example's loss is the weighted sum of
// its rows' losses.
type Sample struct {
	V [][]float64 // V[k]: row k's features, every row as long
	X []float64   // X[k]: row k's target
	// W[k] is row k's weight (nil: 1) and Ex[k] the example it belongs
	// to (nil: example k); the examples are 0..n−1, each with a row.
	W  []float64
	Ex []int
}

// Rows is the number of rows.
func (s *Sample) Rows() int { return len(s.X) }

// Examples is the number of examples.
func (s *Sample) Examples() int {
	if s.Ex == nil {
		return len(s.X)
	}
	n := 0
	for _, e := range s.Ex {
		n = max(n, e+1)
	}
	return n
}

func (s *Sample) weight(k int) float64 {
	if s.W == nil {
		return 1
	}
	return s.W[k]
}

func (s *Sample) example(k int) int {
	if s.Ex == nil {
		return k
	}
	return s.Ex[k]
}

// check validates the sample's shape and numbers.
func (s *Sample) check(name string, loss Loss) error {
	n := len(s.X)
	switch {
	case n == 0:
		return fmt.Errorf("%w: the %s sample has no rows", ErrSample, name)
	case len(s.V) != n || (s.W != nil && len(s.W) != n) || (s.Ex != nil && len(s.Ex) != n):
		return fmt.Errorf("%w: the %s sample's columns have different lengths", ErrSample, name)
	}
	d := len(s.V[0])
	seen := make([]bool, s.Examples())
	for k := range n {
		if len(s.V[k]) != d {
			return fmt.Errorf("%w: %s row %d has %d features, row 0 has %d", ErrSample, name, k, len(s.V[k]), d)
		}
		for _, v := range s.V[k] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: %s row %d has a feature %v: features must be finite", ErrSample, name, k, v)
			}
		}
		x, w := s.X[k], s.weight(k)
		if math.IsNaN(x) || math.IsInf(x, 0) || (loss == ZeroOne && x != 0 && x != 1) {
			return fmt.Errorf("%w: %s row %d has target %v", ErrSample, name, k, x)
		}
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("%w: %s row %d has weight %v", ErrSample, name, k, w)
		}
		if e := s.example(k); e < 0 {
			return fmt.Errorf("%w: %s row %d belongs to example %d", ErrSample, name, k, e)
		}
		seen[s.example(k)] = true
	}
	for e, ok := range seen {
		if !ok {
			return fmt.Errorf("%w: the %s sample's example %d has no row", ErrSample, name, e)
		}
	}
	return nil
}

// Estimate is a held-out loss: the mean over the test examples and its
// standard error.
type Estimate struct {
	Mean float64 `json:"mean"`
	SE   float64 `json:"se"`
}

// Result is one estimator fitted on the training sample and scored on the
// test sample.
type Result struct {
	Method Method `json:"method"`
	// K is the number of neighbours cross-validation chose (KNN only).
	K    int      `json:"k,omitempty"`
	Test Estimate `json:"test"`
}

// Name is the estimator as a table writes it: "linear", "knn (k = 8)",
// "mlp".
func (r Result) Name() string {
	if r.Method == KNN {
		return fmt.Sprintf("knn (k = %d)", r.K)
	}
	return r.Method.String()
}

// Best is the result of lowest test loss (the first of equals).
func Best(rs []Result) Result {
	b := rs[0]
	for _, r := range rs[1:] {
		if r.Test.Mean < b.Test.Mean {
			b = r
		}
	}
	return b
}

// Options are the fits' settings; the zero value is the default.
type Options struct {
	// Seed seeds the MLP's initialization and minibatches.
	Seed uint64
	// Methods are the estimators to fit (nil: Linear, KNN, MLP).
	Methods []Method
}

// Fit fits every estimator of o on train and scores it on test, in the
// order of o.Methods. It stops with ctx's error when ctx is done.
func Fit(ctx context.Context, train, test *Sample, loss Loss, o Options) ([]Result, error) {
	if loss != MSE && loss != ZeroOne {
		panic(fmt.Sprintf("estimate: Fit with loss %d", int(loss)))
	}
	if err := train.check("training", loss); err != nil {
		return nil, err
	}
	if err := test.check("test", loss); err != nil {
		return nil, err
	}
	if len(test.V[0]) != len(train.V[0]) {
		return nil, fmt.Errorf("%w: test rows have %d features, training rows %d", ErrSample, len(test.V[0]), len(train.V[0]))
	}
	methods := o.Methods
	if methods == nil {
		methods = []Method{Linear, KNN, MLP}
	}
	st := newScaler(train)
	tr, te := st.apply(train), st.apply(test)
	var out []Result
	for _, m := range methods {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var r Result
		var err error
		switch m {
		case Linear:
			r, err = fitLinear(tr, te, loss)
		case KNN:
			r, err = fitKNN(ctx, tr, te, loss)
		case MLP:
			r, err = fitMLP(ctx, tr, te, loss, o.Seed)
		default:
			panic(fmt.Sprintf("estimate: method %d", int(m)))
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// score is the test estimate of the predictions pred (one per row).
func score(s *Sample, pred []float64, loss Loss) Estimate {
	per := make([]float64, s.Examples())
	for k, p := range pred {
		per[s.example(k)] += s.weight(k) * pointLoss(p, s.X[k], loss)
	}
	return MeanSE(per)
}

// pointLoss is one row's loss.
func pointLoss(pred, x float64, loss Loss) float64 {
	if loss == ZeroOne {
		d := 0.0
		if pred > 0.5 {
			d = 1
		}
		if d != x {
			return 1
		}
		return 0
	}
	e := pred - x
	return e * e
}

// MeanSE is the mean of xs and its standard error: the sample standard
// deviation (n − 1) over √n; 0 for one value.
func MeanSE(xs []float64) Estimate {
	n := float64(len(xs))
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= n
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	if len(xs) < 2 {
		return Estimate{m, 0}
	}
	return Estimate{m, math.Sqrt(v / (n - 1) / n)}
}

// scaler standardizes features by the training sample's weighted mean and
// standard deviation (a constant feature is only centred), every value
// first divided by the feature's largest magnitude so that no sum or
// difference overflows, whatever the release's scale.
type scaler struct {
	big, mean, sd []float64 // per feature: v ↦ (v/big − mean)/sd
}

func newScaler(s *Sample) scaler {
	d := len(s.V[0])
	st := scaler{big: make([]float64, d), mean: make([]float64, d), sd: make([]float64, d)}
	for j := range d {
		big := 0.0
		for k := range s.V {
			big = max(big, math.Abs(s.V[k][j]))
		}
		st.big[j], st.sd[j] = max(big, math.SmallestNonzeroFloat64), 1
		var sw, m float64
		for k := range s.V {
			w := s.weight(k)
			sw += w
			m += w * (s.V[k][j] / st.big[j])
		}
		if sw == 0 {
			continue
		}
		m /= sw
		var v float64
		for k := range s.V {
			e := s.V[k][j]/st.big[j] - m
			v += s.weight(k) * e * e
		}
		st.mean[j] = m
		if sd := math.Sqrt(v / sw); sd > 0 {
			st.sd[j] = sd
		}
	}
	return st
}

// apply returns s with standardized features (the rows copied).
func (st scaler) apply(s *Sample) *Sample {
	out := *s
	d := len(st.mean)
	out.V = make([][]float64, len(s.V))
	flat := make([]float64, len(s.V)*d)
	for k, row := range s.V {
		r := flat[k*d : (k+1)*d]
		for j, v := range row {
			r[j] = (v/st.big[j] - st.mean[j]) / st.sd[j]
		}
		out.V[k] = r
	}
	return &out
}
