// Package estimate fits estimators of a private X from what an observer
// sees, on a training split, and scores them on a test split: the
// adversaries and the reconstructor that mmds builds itself to judge a
// privatizer trained on samples (docs/data.md), whose own networks are
// the author's and bound nothing.
//
// A Sample is rows of features v (the release F and the observer's side
// columns) and a target x, each row with a weight; the rows of one example
// are its alternatives (a binary release F ∈ {0, 1} drawn with P(F = 1) =
// p is two rows, weights 1 − p and p, so that a loss is its exact
// expectation over F). Fit fits, on the training sample,
//
//   - Linear: least squares x ≈ β₀ + βᵀv on standardized features (a ridge of
//     1e-8 per row keeps collinear features solvable), with gonum's
//     Cholesky factorization;
//   - KNN: the weighted mean of x over the k nearest training rows
//     (Euclidean on standardized features, ties by row order), k chosen
//     from 1, 2, 4, …, 128 by 5-fold cross-validation on the training
//     sample (folds by example);
//   - MLP: a network of one hidden ReLU layer (learn.MLP) trained by Adam
//     on the squared error (of the standardized x, or of P(X = 1) for 0-1
//     losses) on 4/5 of the training sample, the epoch of lowest loss on
//     the other 1/5 kept;
//
// and scores each on the test sample: per example ℓ_e = Σ w_k ℓ(x̂_k, x_k)
// over its rows, with ℓ the squared error or, for a binary X, the 0-1
// error of x̂ thresholded at 1/2; the estimate is the mean of ℓ_e over the
// n examples and its standard error sd(ℓ_e)/√n.
//
// ChannelBayes is the plug-in estimator of a channel P(F | X) on discrete
// data: the Bayes rule of the training rows' empirical law of (X, S),
// scored on the test rows in expectation over F.
//
// Every fit is deterministic: the same samples and seed give the same
// bits, whatever runs beside it.
package estimate
