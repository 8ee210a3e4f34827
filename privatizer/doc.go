// Package privatizer reads privatizers trained anywhere — a channel
// P(F | X), or a network k(x, r) in a JSON layout or exported to ONNX from
// PyTorch — and computes their certified Bayes losses on the models of
// packages mip (binary, finite) exactly or with a stated error bound.
//
// # Channels
//
// On a finite model (X ∈ {0..n−1}, side channels W_Y, W_Zi, losses L) a
// privatizer is its channel P(F = f | X = x), rows x, any output alphabet.
// An observer with side channel W and loss L has the Bayes risk
//
//	Σ_{f,v} min_a Σ_x π(x) P(f|x) W(v|x) L(x, a),
//
// a finite sum (mip.Finite.Risk); on the binary model (Section III-B) this
// is Appendix B's MAP error. Channel files are validated (non-negative,
// finite, rows summing to 1 within RowSumTol) and rows are renormalized.
//
// # Networks
//
// An MLP is k(x, r) with r ~ N(0, 1) independent of X and of every side
// variable (Algorithm 1's noise input). On binary and finite models k is
// P(F = 1 | X = x, R = r), so the released channel is
// P(F = 1 | X = x) = E_R[k(x, R)] whatever k does with r, and the certified
// losses are that channel's exact finite sums.
//
// A network whose activations are identity and ReLU is continuous and
// piecewise linear in r for fixed x, at any depth: on a fixed activation
// pattern every pre-activation is affine in r, so walking r upward and
// stopping at the first unit that changes sign enumerates the pieces
// exactly (MLP.Pieces). On a piece (a, b) with k = α + βr,
//
//	∫_a^b k(x, r)φ(r) dr = α(Φ(b) − Φ(a)) + β(φ(a) − φ(b)),
//
// so E_R[k(x, R)] is exact. With sigmoid or tanh layers after the ReLU
// layers, k is sampled on each piece and its linear interpolant integrated
// exactly; the error is bounded by h²/8·sup|∂²k/∂r²|, with the second
// derivative bounded layer by layer (MLP.Expect). Every loss comes with a
// bound on its distance to the exact Bayes loss (NetworkLosses.Bound).
//
// For the Gaussian model, MLP.Eval, MLP.Kinks and MLP.PiecewiseLinear have
// the signatures of bayes.Privatizer's fields, whose CertifyGauss computes
// the Bayes MSE from the exact piecewise-linear profiles of k(x, ·).
package privatizer
