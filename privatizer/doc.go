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
// A network k(x, r) (package network: the JSON layout, ONNX) on a binary or
// finite model is P(F = 1 | X = x, R = r), so the released channel is
// P(F = 1 | X = x) = E_R[k(x, R)] whatever k does with r (R is independent
// of X and of every side variable), and the certified losses are that
// channel's exact finite sums (NetworkBinaryLosses, NetworkFiniteLosses),
// with network.Network.Expect's error bounds (the region walk's own rounding
// included) and the forward error bound of the network's precision, float32
// or float64 (Expectation.Rounding), added to NetworkLosses.Bound.
//
// # Kernels
//
// On the Gaussian model the labels method's privatizer is a cell kernel
// (Kernel): cut points b_0 < … < b_{n−1}, a row P(F = l | X ∈ c_j) per
// cell, and a weight λ of releasing X itself. Its file is the object
// results.json holds, {"kernel": {"edges", "prob", "reveal"}}; package
// model certifies it (model.CertifyKernel: Gauss–Hermite quadrature with a
// stated error).
package privatizer
