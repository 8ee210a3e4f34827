// Package gauss implements the jointly Gaussian model of the paper (Section
// III-A, Proposition 1, Appendix A) for K ≥ 1 adversaries and vector side
// information: covariance validation, conditional variances by Schur
// complements, the closed-form optimum, exact losses of any linear
// privatizer, seeded sampling and the Monte Carlo cross-check.
//
// # The math
//
// X is the private variable, Y the reconstructor's side variables and Z_i
// adversary i's, all jointly Gaussian with covariance Σ. For a side set S,
//
//	V_S = Var[X | S] = Σ_XX − Σ_XS Σ_SS⁺ Σ_SX          (Schur complement)
//
// is the MSE of the best estimator E[X|S] (Section III-A). The privatizer is
// F = aX + bR with R ~ N(0,1) independent (the class of Appendix A's proof);
// conditioning on F adds its SNR a²/b² to the precision of X given S:
//
//	E[Var[X | F, S]] = 1/(1/V_S + a²/b²).
//
// Every loss falls as the SNR grows, so problem (1) is solved by the smallest
// SNR meeting the distortion constraint. With V_Y = Var[X|Y], V_i =
// Var[X|Z_i] and D' = min(D, V_Y):
//
//	a²/b² = 1/D' − 1/V_Y   (+Inf at D' = 0: F = X; 0 for D ≥ V_Y: F ⊥ X)
//	E[Var[X | F, Z_i]] = D'/(1 + Q_i D'),   Q_i = 1/V_i − 1/V_Y,
//
// and the objective of (1) is min_i D'/(1 + Q_i D'). For scalar side
// information Q_i equals Proposition 1's (ρ_XZi² − ρ_XY²)/(σ_X²(1−ρ_XZi²)(1−ρ_XY²)).
// The loss is computed as D'/(D'/V_i + (1 − D'/V_Y)), whose denominator is
// positive on 0 < D' < V_Y even when Q_i < 0 (an adversary weaker than the
// reconstructor), so no case yields NaN; V_Y = 0 and V_i = 0 give their exact
// limits. The optimum is optimal among jointly Gaussian privatizers, the
// class Proposition 1's proof assumes.
//
// # Beyond Proposition 1
//
// Problem (1) allows any privatizer. Every side variable is X plus
// independent Gaussian noise, so the I-MMSE relation d/ds mmse ≤ −mmse²
// gives L_i ≥ L_Y/(1 + Q_i L_Y) for every privatizer when Q_i ≤ 0 (the linear
// optimum is then a floor) and L_i ≤ L_Y/(1 + Q_i L_Y) when Q_i ≥ 0 (it is
// then exact). Losses (exact, for any Mechanism), BestAchievable (the upper
// concave envelope of erasure, X mod Δ, nested and uniform quantizers and
// linear mechanisms, time-shared with the flag revealed), UpperBound and
// Bracket compute the bracket [best achievable, upper bound] that holds the
// optimum. X mod Δ has the loss Δ²·g(√v/Δ) for an observer with
// Var[X|W] = v, a one-dimensional integral (modulo.go). OptimizeKernel
// searches stochastic kernels (slow, optional).
//
// # Numerics
//
// Conditional variances are computed by rank-one Schur complement steps (a
// semidefinite Cholesky factorization). Each comes with its rounding bound
// ε_S = γ_{k+2}(σ_t + Σ_j |β_j|σ_j)² (β the regression coefficients, so the
// bound grows with the covariance's conditioning); a residual at most ε_S is
// exactly 0, so a side variable that is a linear function of the others is
// dropped (the pseudo-inverse form for PSD Σ, exact for singular but valid
// covariances), and an adversary whose V_i is within rounding of V_Y gets
// Q_i = 0, where Proposition 1 is exact. A bracket [best achievable, upper
// bound] is closed when its ends agree within BracketTol; a best achievable
// value above the upper bound is an error (ErrBracketInconsistent). Check recomputes
// every loss from the explicit covariance of (X, F, side), and MonteCarlo
// repeats the paper's 10,000/2,000 train/test experiment of Section V-A.
// See docs/gauss.md.
package gauss
