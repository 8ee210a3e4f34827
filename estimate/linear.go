package estimate

import (
	"gonum.org/v1/gonum/mat"
)

// ridge is the diagonal added per row of weight to the normal equations:
// it changes a well-posed fit by far less than its standard error and
// makes collinear features (a release that copies a side column) solvable.
const ridge = 1e-8

// fitLinear is the weighted least-squares fit of x on (1, v), scored on
// test (standardized features: the caller's scaler).
func fitLinear(train, test *Sample, loss Loss) (Result, error) {
	beta := linearFit(train)
	pred := make([]float64, test.Rows())
	for k, v := range test.V {
		pred[k] = linearAt(beta, v)
	}
	return Result{Method: Linear, Test: score(test, pred, loss)}, nil
}

// linearFit solves (AᵀWA + λ·Σw·I′)β = AᵀWx, A = [1 v], by Cholesky, I′
// the identity without the intercept's entry; a singular system (all
// weight zero) gives β = 0.
func linearFit(s *Sample) []float64 {
	d := len(s.V[0]) + 1
	ata := mat.NewSymDense(d, nil)
	atx := mat.NewVecDense(d, nil)
	row := make([]float64, d)
	sw := 0.0
	for k, v := range s.V {
		w := s.weight(k)
		if w == 0 {
			continue
		}
		sw += w
		row[0] = 1
		copy(row[1:], v)
		for i := range d {
			atx.SetVec(i, atx.AtVec(i)+w*row[i]*s.X[k])
			for j := i; j < d; j++ {
				ata.SetSym(i, j, ata.At(i, j)+w*row[i]*row[j])
			}
		}
	}
	for i := 1; i < d; i++ {
		ata.SetSym(i, i, ata.At(i, i)+ridge*max(sw, 1))
	}
	var ch mat.Cholesky
	beta := mat.NewVecDense(d, nil)
	if sw == 0 || !ch.Factorize(ata) || ch.SolveVecTo(beta, atx) != nil {
		return make([]float64, d)
	}
	return beta.RawVector().Data
}

// linearAt is β₀ + βᵀv.
func linearAt(beta, v []float64) float64 {
	y := beta[0]
	for j, x := range v {
		y += beta[1+j] * x
	}
	return y
}
