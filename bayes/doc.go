// Package bayes computes the exact Bayes losses of a privatizer k(x, r)
// whose noise input r ~ N(0,1) is independent of X and of all side
// information (Algorithm 1's r_j): the losses of the Bayes-optimal
// reconstructor and adversaries for the privatizer itself (MAP 0-1 errors on
// the binary model, MMSEs on the Gaussian one), independently of any trained
// estimator. Package model wraps them per model kind; package verify judges
// them against the optima.
//
// # Binary model (Section III-B, Appendix B)
//
// The released bit is F ~ Bernoulli(k(X, R)). Since R is independent of
// everything, P(F = 1 | X = x, side) = E_R[k(x, R)]: whatever k does with r,
// the release is the binary channel
//
//	s0 = P(F=0 | X=0) = 1 − E_R[k(0, R)],   s1 = P(F=1 | X=1) = E_R[k(1, R)],
//
// and "s0 = 1 − p̂(0), s1 = p̂(1)" is the special case of a k that ignores
// r. The expectations are computed by Gauss–Legendre quadrature on
// panels of [−9, 9] that end at the ReLU kinks of k(x, ·), where the
// integrand k(x, r)φ(r) (a sigmoid of an affine function times φ) is
// analytic; the node count doubles over the refinement levels and the change
// of (s0, s1) is reported. The certified losses are then Appendix B's MAP
// errors of (s0, s1) (mip.Binary.MAPLoss), the optimum Proposition 2's γ* at
// D̂ (mip.Binary.SolveProp2). Both are exact over all binary-output
// privatizers, so a certified loss above the optimum can only be HiGHS's
// tolerance.
//
// # Gaussian model (Section III-A, Appendix A)
//
// F = k(X, R) is in general not Gaussian, so Proposition 1's closed forms do
// not apply to it. For an observer with side information S (reconstructor or
// adversary), X | S ~ N(M, v) with M = E[X | S] affine in S and
// v = Var[X | S] (a Schur complement); F depends on S only through X, so
// E[X | F, S] = E[X | F, M] and the observer's Bayes loss is
//
//	E[Var(X | F, M)],   M ~ N(μ_X, σ_X² − v),  X = M + W,  W ~ N(0, v),
//
// a problem in the scalar M whatever the dimension of S. It is computed by:
//
//  1. Profiles. For each x on a uniform grid, k(x, ·) is a continuous
//     piecewise-linear function of r with nodes at the ReLU kinks (exact for a
//     network with identity output; analytic test functions are sampled on a
//     grid of step 1/64).
//  2. Soft bins. The released value is observed through hat functions ψ_j of
//     width h on a uniform grid of knots: P(J = j | X = x) = E_R[ψ_j(k(x, R))],
//     exactly, from normal CDFs and densities at the crossings of the knots.
//     Observing J is a garbling of observing F, so the binned loss is an upper
//     bound on the Bayes loss that decreases as h → 0 (data processing), and
//     hats make P(J = j | x) continuous in x even where F | X = x has atoms.
//  3. Quadrature. Gauss–Hermite nodes over M; for each node m, the prior
//     N(m, v) on the x grid (trapezoid weights, normalized over m ± 7√v), and
//     E[Var(X | J, m)] = Σ ω w² − Σ_j B_j²/A_j with A_j = Σ ω P(j | x),
//     B_j = Σ ω w P(j | x), w = x − m (≥ 0 by Cauchy–Schwarz). The x step
//     resolves both the noise/slope scale and the hats themselves: where
//     k(x, ·) is (nearly) flat in r, F | X = x has (near-)atoms, P(J = j | x)
//     is a hat of width 2h/G in x (G = max|∂k/∂x|), and a coarser grid
//     aliases it and falls below the Bayes loss; the step is at most
//     h/(2G) (GaussQuad.XPerBin).
//  4. Refinement. The bin width (a fraction of the noise standard deviation
//     √E[Var(F | X)]) and the x step halve together over the levels, with
//     one more level while the stated error exceeds GaussQuad.Target; the
//     certified value is the finest level.
//
// For an exactly linear privatizer F = aX + bR + c this reproduces the closed
// form 1/(1/v + a²/b²) of Appendix A (gauss.LinearLosses) within the
// tolerance, from above. The best linear-Gaussian fit of k in L²(P_X ⊗ P_R)
// (a = Cov(k, X)/Var X, b = E[kR], c) and its residual share of Var F
// ("nonlinearity") say how far the learned privatizer is from the class of
// Proposition 1; the fit's exact losses (gauss.LinearLosses) are reported too.
// Proposition 1 is optimal only among linear-Gaussian privatizers
// F = aX + bR, so a non-linear learned privatizer can lie above it: such a
// point is reported "above optimum", which is not a failure.
//
// # Stated error of the Gaussian certificate
//
// Only the binning is a garbling; the x and M quadratures and the noise
// tails beyond ±RRow are approximations with no fixed sign. With the x step
// tied to the bins they are small, so the certified loss L is an upper bound
// up to them, and the certificate states both sides: the exact Bayes loss
// lies in [L·(1 − ErrorBound), L·(1 + ErrorTail)]. ErrorBound extrapolates
// the binned losses' convergence from the last two changes between levels
// (geometric, never less than the last change: first order in h);
// ErrorTail = 5e-4 is empirical: with the default grid no certified loss
// fell below the reference; 5e-4 is 10 times the largest shortfall seen with
// a coarser x step (h/(1.5G) on a network with an atom: 5e-5). Both
// are validated against an exact-in-x reference (faces of the network's
// ReLU arrangement, Gaussian integrals along each level set of F, tests
// only) on privatizers trained at the paper sweep's smallest and largest
// thresholds: at D = 0.005 the certificate is 6.3e-4 above the exact loss
// with ErrorBound 1.9e-3, at D = 5.76 1.2e-3 to 1.6e-3 above with
// ErrorBound 3.1e-3 (docs/verify.md). GaussCertificate.Change, which
// verdicts compare with Tolerances.Quad, is ErrorBound.
package bayes
