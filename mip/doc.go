// Package mip computes exact optima of minimax data sanitization for finite
// models by mixed-integer and linear programming, solved with HiGHS.
//
// # The binary model (paper, Section III-B, Proposition 2, Appendix B)
//
// X ~ Bernoulli(p); the reconstructor sees Y = BSC(q_Y)(X), adversary i sees
// Z_i = BSC(q_Zi)(X), i = 1..K, all channels independent given X. The
// privatizer releases F ∈ {0,1} with s0 = P(F=0|X=0), s1 = P(F=1|X=1).
// Every observer uses the MAP rule, so its 0-1 loss (Appendix B) is
//
//	L(s0, s1; q) = Σ_{f,y ∈ {0,1}} min_x P(X=x) P(F=f|X=x) P(Y=y|X=x),
//
// a sum of four minima of two terms that are affine in (s0, s1). L is
// concave; it never exceeds the side-information-only MAP error
// Σ_y min_x P(X=x)P(Y=y|X=x) (its value at s0 + s1 = 1, F independent of X),
// which for the reconstructor is D_max.
//
// Proposition 2 maximizes γ subject to L_adv,i(s) ≥ γ for all i,
// L_recon(s) ≤ D, s ∈ [0,1]². Each L_adv,i ≥ γ is a concave constraint with
// an exact LP epigraph: t_ic ≤ both terms of cell c, Σ_c t_ic ≥ γ. The
// constraint L_recon ≤ D is not convex: for each cell c a binary δ_c picks
// the branch of the minimum that is counted, w_c ≥ u_c − M_u δ_c and
// w_c ≥ v_c − M_v (1 − δ_c), w_c ≥ 0, Σ_c w_c ≤ D. The constants are
// derived, not guessed: M_u = max over the unit box of u_c, so the relaxed
// branch is implied by w_c ≥ 0 (and likewise M_v).
//
// # Sweeps over D
//
// In every LP here D is only the right-hand side of the reconstructor's
// rows, so an LP's optimum is concave and piecewise linear in D. A sweep
// keeps one HiGHS model, moves D by changing row bounds, solves only where
// the pieces change, and proves every other threshold: the interpolated
// point satisfies the rows at D, its losses are recomputed exactly, and
// the weak-duality bounds of the solves' duals close the gap
// (parametric.go). Proposition 2's sweep does this for each of the MIP's
// 2⁴ δ-leaves and takes the best (prop2sweep.go); the ray LP's sweep for
// its one curve (raysweep.go). A threshold the pieces do not prove is
// solved by itself. Points stream to the caller as they are solved.
//
// # General finite models (docs/finite.md)
//
// Finite has X ∈ {0..n−1} with a prior, a channel and a loss matrix per
// observer, and K ≥ 1 adversaries. A privatizer is a row-stochastic
// Mechanism P[x][f]; an observer's exact Bayes risk is Σ_f ρ(P[·][f]) with
// ρ(c) = Σ_v min_a Σ_x π(x) c_x W(v|x) L(x, a), concave, positively
// homogeneous and piecewise linear. Binary.Finite is the binary model as a
// special case, with identical risks.
//
// FixedModel is the MIP for a fixed output alphabet m: exact LP epigraphs
// for the adversaries, and for the reconstructor either big-M rows (M
// derived per row, or M = max L) or the convex hull of each cell's
// disjunction; optional symmetry breaking and cuts from the global LP.
//
// PrepareGlobal and Global.Solve give the optimum over every privatizer:
// risks are linear on each cell of the common refinement of all decision
// regions, so columns may be split along the cells' extreme rays without
// changing any risk; one LP over nonnegative weights of the enumerated rays
// (Σ_j λ_j v_j = 1) is exact, and a basic solution uses at most n + K + 1
// outputs. RandomFinite draws the benchmark family.
//
// SolveColGen finds the same optimum by column generation: a master LP over
// the columns found so far (lower bound), and the Lagrangian bound
// Σπ + νD + n·max_c rc(c) with rc(c) = Σ_i μ_i ρ_i(c) − ν ρ_R(c) − ⟨π, c⟩
// (upper bound, valid for any μ ≥ 0 with Σμ = 1 and ν ≥ 0). The maximum of
// rc is the best of one LP per reconstructor decision rule, searched by
// branch and bound over realizable rules; a DualBound stores the
// multipliers and the proven maximum. SolveFinite is the one solve path of
// mmds finite: the ray LP while it is small, column generation beyond, a
// status per threshold.
package mip

// HiGHSVersion is the version of the HiGHS library mmds links (from the
// pinned module github.com/bartolsthoorn/gohighs).
const HiGHSVersion = "1.13.1"
