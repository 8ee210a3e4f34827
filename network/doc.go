// Package network holds the one network type of mmds: a privatizer
// k(x, r) as a multilayer perceptron whose noise input r ~ N(0, 1) is
// independent of X and of every side variable (Algorithm 1's r_j). Layer l
// computes a_l = g_l(W_l a_{l−1} + b_l), W_l in PyTorch's nn.Linear layout
// (out × in), g_l identity, ReLU, sigmoid or tanh; a_0 is (x, r) in the
// order the network declares (Network.Inputs), and every evaluation feeds
// them in that order. Codecs: the JSON layout (ParseJSON, WriteJSON), ONNX
// (ParseONNX, WriteONNX: a file WriteONNX writes reads back bit for bit) and
// results.json's layout (Network.MarshalJSON, UnmarshalJSON). ParseONNX folds BatchNormalization
// into the affine layer before it and lowers LeakyRelu and Clip exactly
// into ReLU units (leaky(z) = relu(z) − α·relu(−z), max(z, lo) =
// lo + relu(z − lo), min(y, hi) = hi − relu(hi − y)), so the region walk
// stays exact; the network it returns is that plain chain.
//
// # Categorical networks
//
// On a finite X the release may take m > 2 values: a categorical network
// ends in a softmax over m logits, P(F = f | X = x, R = r) = softmax(z(x,
// r))_f (Section V-B's Algorithm 1 with |X| = n), and usually takes x
// one-hot (inputs "x=0".."x=n−1" and r). Its channel P(f | x) =
// E_R[softmax(z(x, R))_f] is integrated on each activation region of the
// ReLU layers, where z is affine in r, by quadratic interpolation of the
// softmax against φ, with a bound from |s‴| ≤ 2Δβ³·s (ExpectRow); its
// forward error bound is ℓ1 over the labels (ProbsBound). With sigmoid or
// tanh layers between the ReLU layers and the softmax, z is smooth on each
// region: the softmax is sampled and interpolated linearly, with the bound
// h²/8·(Δ₁²/2 + Δ₂/2) from s_f″ = s_f(c_f² − V + z_f″ − z̄″), Δ₁ and Δ₂
// bounding the ranges of z′ and z″ over the labels, propagated layer by
// layer as for Expect.
//
// # Pieces and expectations
//
// A network whose activations are identity and ReLU is continuous and
// piecewise linear in r for fixed x, at any depth: on a fixed activation
// pattern every pre-activation is affine in r, so walking r upward and
// stopping at the first unit that changes sign enumerates the pieces
// exactly (Pieces). On a piece (a, b) with k = α + βr,
//
//	∫_a^b k(x, r)φ(r) dr = α(Φ(b) − Φ(a)) + β(φ(a) − φ(b)),
//
// so E_R[k(x, R)] is exact (Expect). With sigmoid or tanh layers after the
// ReLU layers, k is sampled on each piece and its linear interpolant
// integrated exactly; the error is bounded by h²/8·sup|∂²k/∂r²|, with the
// second derivative bounded layer by layer. In the (x, r) plane the same
// argument splits a box into convex faces on which k is affine (Faces).
//
// # Precision
//
// A Float32 network is what a float32 runtime (PyTorch, ONNX Runtime)
// computes, a Float64 network what a float64 runtime computes — in its own
// summation order, not necessarily mmds's. EvalBound returns, with k(x, r)
// computed in float64, a bound δ(x, r) on |k_rt − k| valid for any
// summation order: per unit
//
//	|z_rt − z| ≤ (γ_{n+1+f}(u) + γ_{n+1+f}(u'))·(|b| + Σ|w_i|(|a_i| + e_i)) + Σ|w_i|e_i,
//
// γ_n = nu/(1 − nu), u = 2⁻²⁴ or 2⁻⁵³, u' = 2⁻⁵³, n the row's nonzero
// weights, e_i the bound on the unit's inputs, f the extra roundings of what
// an ONNX reader folded (Gemm's alpha and beta, Add and Sub nodes; the
// runtime's unscaled A·B and the bias parts are range-checked; a folded
// batch normalization adds the runtime's normalization after the affine
// map, bnFold.bound); ReLU and identity are 1-Lipschitz, the sigmoid
// ¼-Lipschitz and tanh 1-Lipschitz, each plus a few ulps of its own. A
// certificate adds the sup of δ over its evaluation points to its error
// bounds, and refuses (ErrPrecision) when it exceeds its tolerance.
//
// The region walk computes in float64 too, and carries its own bound: a
// ReLU unit whose pre-activation is within its bound of 0 has a sign the
// walk cannot know and is charged as flipped (Expectation.Walk); every
// breakpoint and piece midpoint is cross-checked against the forward pass.
package network
