package estimate

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/network"
)

// The MLP's recipe: one hidden ReLU layer of mlpHidden units, Adam at
// mlpRate on minibatches of mlpBatch rows for mlpEpochs epochs over 4/5 of
// the training sample; the epoch of lowest loss on the other 1/5 is kept.
// A few thousand steps: tens of milliseconds on a few thousand rows.
const (
	mlpHidden = 32
	mlpBatch  = 64
	mlpEpochs = 50
	mlpRate   = 3e-3
)

// mlpStream is the PCG stream of the MLP's draws; its seed is Options.Seed.
const mlpStream = 0x6d6c70 // "mlp"

// fitMLP trains the network on train and scores it on test.
func fitMLP(ctx context.Context, train, test *Sample, loss Loss, seed uint64) (Result, error) {
	f, err := trainMLP(ctx, train, loss, seed)
	if err != nil {
		return Result{}, err
	}
	return Result{Method: MLP, Test: score(test, f.predict(test), loss)}, nil
}

// mlpFit is a trained network and the map of its output to x̂.
type mlpFit struct {
	net        *learn.MLP
	mean, unit float64 // x̂ = mean + unit·output (MSE); the output itself for 0-1
}

// trainMLP trains the network: on the standardized target for MSE, on
// P(X = 1) through a sigmoid for 0-1 losses, by the weighted squared error.
func trainMLP(ctx context.Context, s *Sample, loss Loss, seed uint64) (*mlpFit, error) {
	rng := rand.New(rand.NewPCG(seed, mlpStream))
	out := network.Identity
	if loss == ZeroOne {
		out = network.Sigmoid
	}
	in := len(s.V[0])
	fit := &mlpFit{net: learn.NewMLP(in, mlpHidden, out, rng), unit: 1}
	var fitRows, valRows []int
	for k := range s.Rows() {
		if s.weight(k) == 0 {
			continue
		}
		if s.example(k)%folds == 0 {
			valRows = append(valRows, k)
		} else {
			fitRows = append(fitRows, k)
		}
	}
	if len(fitRows) < mlpBatch || len(valRows) == 0 {
		fitRows, valRows = append(fitRows, valRows...), nil // too few to hold any out
	}
	target := append([]float64(nil), s.X...)
	if loss == MSE {
		fit.mean, fit.unit = weightedMoments(s, fitRows)
		for k := range target {
			target[k] = (target[k] - fit.mean) / fit.unit
		}
	}
	b := newBatch(in, len(fitRows))
	opt := learn.NewOptimizer(learn.Adam, mlpRate, len(fit.net.Params))
	grad := make([]float64, len(fit.net.Params))
	best, bestLoss := append([]float64(nil), fit.net.Params...), math.Inf(1)
	order := append([]int(nil), fitRows...)
	for range mlpEpochs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rng.Shuffle(len(order), func(a, c int) { order[a], order[c] = order[c], order[a] })
		for lo := 0; lo < len(order); lo += mlpBatch {
			rows := order[lo:min(lo+mlpBatch, len(order))]
			b.load(s, rows)
			fit.net.Forward(b.in, len(rows), b.h, b.out)
			var sw float64
			for i, r := range rows {
				sw += s.weight(r)
				b.dOut[i] = 2 * s.weight(r) * (b.out[i] - target[r])
			}
			if sw == 0 {
				continue
			}
			for i := range rows {
				b.dOut[i] /= sw
			}
			fit.net.Backward(b.in, b.h, b.out, b.dOut[:len(rows)], len(rows), grad, nil)
			opt.Step(fit.net.Params, grad)
		}
		if valRows == nil {
			continue
		}
		if l := fit.squaredError(s, valRows, target, b); l < bestLoss {
			bestLoss = l
			copy(best, fit.net.Params)
		}
	}
	if valRows != nil {
		copy(fit.net.Params, best)
	}
	return fit, nil
}

// weightedMoments are the weighted mean and standard deviation of x over
// rows (the deviation 1 when x is constant there).
func weightedMoments(s *Sample, rows []int) (mean, sd float64) {
	var sw float64
	for _, k := range rows {
		sw += s.weight(k)
		mean += s.weight(k) * s.X[k]
	}
	if sw == 0 {
		return 0, 1
	}
	mean /= sw
	var v float64
	for _, k := range rows {
		v += s.weight(k) * (s.X[k] - mean) * (s.X[k] - mean)
	}
	if sd = math.Sqrt(v / sw); sd == 0 || math.IsNaN(sd) {
		sd = 1
	}
	return mean, sd
}

// squaredError is the weighted mean squared error of the network's output
// against target over rows (in the network's own units).
func (f *mlpFit) squaredError(s *Sample, rows []int, target []float64, b *batch) float64 {
	var sw, se float64
	for lo := 0; lo < len(rows); lo += mlpBatch {
		part := rows[lo:min(lo+mlpBatch, len(rows))]
		b.load(s, part)
		f.net.Forward(b.in, len(part), b.h, b.out)
		for i, r := range part {
			e := b.out[i] - target[r]
			sw += s.weight(r)
			se += s.weight(r) * e * e
		}
	}
	return se / sw
}

// predict is x̂ on every row of s.
func (f *mlpFit) predict(s *Sample) []float64 {
	b := newBatch(len(s.V[0]), mlpBatch)
	pred := make([]float64, s.Rows())
	rows := make([]int, 0, mlpBatch)
	for lo := 0; lo < s.Rows(); lo += mlpBatch {
		rows = rows[:0]
		for k := lo; k < min(lo+mlpBatch, s.Rows()); k++ {
			rows = append(rows, k)
		}
		b.load(s, rows)
		f.net.Forward(b.in, len(rows), b.h, b.out)
		for i, r := range rows {
			// a network that diverged estimates the training mean
			if pred[r] = f.mean + f.unit*b.out[i]; math.IsNaN(pred[r]) || math.IsInf(pred[r], 0) {
				pred[r] = f.mean
			}
		}
	}
	return pred
}

// batch holds one minibatch, feature-major as learn.MLP takes it.
type batch struct {
	in, h, out, dOut []float64
	width            int
}

func newBatch(in, rows int) *batch {
	n := min(rows, mlpBatch)
	return &batch{in: make([]float64, in*n), h: make([]float64, mlpHidden*n), out: make([]float64, n), dOut: make([]float64, n), width: in}
}

// load writes the features of rows (at most mlpBatch) into b.in.
func (b *batch) load(s *Sample, rows []int) {
	n := len(rows)
	for i, r := range rows {
		for j, v := range s.V[r] {
			b.in[j*n+i] = v
		}
	}
}
