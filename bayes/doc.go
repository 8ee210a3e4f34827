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
// a problem in the scalar M whatever the dimension of S. For a network with
// identity/ReLU activations (Privatizer.Faces) it is certified as an
// interval [Lo, Hi] that holds for the privatizer at hand:
//
//  1. Faces. On the box B = [μ − a, μ + a] × [−ρ, ρ] (a = 8σ_X, ρ = 8),
//     k is affine on the faces of a polygonal partition: k = c0 + cx·x +
//     cr·r. Given M = m and F = f, the joint density of (X, F) on a face is
//     carried by the level segment {k = f} ∩ face, where its w-moments
//     (w = x − m) are Gaussian integrals in closed form (normal CDFs and
//     densities at the segment's ends); faces with cr = 0 are point masses
//     in x. Faces where k is constant are atoms of F; faces whose range of
//     F is at the rounding level of their affine form are collapsed: the f
//     quadrature cannot resolve them, and their mass is never dropped.
//  2. Genie and garbling (proven). Revealing more than F only lowers a
//     Bayes loss; replacing F by a function J = g(F) only raises it. The
//     genie reveals 1_B, X on collapsed faces, and which of several
//     bitwise-distinct atom values F took: its in-box loss
//     E_M[∫ (C − B²/A) df + Σ_atoms (M2 − M1²/M0)] (A, B, C the summed
//     moments; collapsed faces count 0) is Value, a lower bound of every
//     Bayes loss. The garbling merges atom values within 1e-12·(1 + |c|)
//     and each collapsed face's range into one value per cluster (the
//     continuous mass inside a collapsed range is bounded by its width
//     times the faces' density bound); its in-box loss is Value + Merge.
//     The estimator "garbled in-box posterior mean" lies in [μ − a, μ + a],
//     so outside B it loses at most 2(X − μ)² + 2a²: the Bayes loss is at
//     most Value + Merge + 2E[(X − μ)²; ∉B] + 2a²P(∉B) (closed-form normal
//     tails, X and R independent; Tail, about 1e-11 on the paper's model).
//     The reconstructor's certified loss D̂ is Hi, each adversary's is Lo:
//     the ends that claim less privacy.
//  3. Quadrature (estimated). The f integral runs on panels that end at
//     every cut, the values of k at the continuous faces' vertices (A, B, C
//     are analytic between cuts, the only case where comparing two rules
//     estimates anything), no wider than 4√(cr² + cx²v) of the narrowest
//     face over them (no density peak hides between nodes); on each, a rule
//     and its embedded midpoint rule: Simpson's on panels under 1/32 of
//     that width and 1/8 of the change of F over which a segment's end
//     moves by one in z (most of them: its end nodes are shared with the
//     panels beside, where A, B, C are continuous, which they are at every
//     cut but one where a face's edge lies on the level line), the 3-point
//     Gauss rule up to 1/8 of the width, 15-point Gauss–Kronrod beyond; bisected worst first
//     until Σ|rule − midpoint| is below Target/16 of the loss. The M
//     integral is the trapezoid rule on equispaced nodes over μ ± 8σ_M, at
//     steps of at most √v/2 (the scale over which the loss given M = m
//     varies) and c·σ_M/2, c set by the tolerance so that the coarser rule
//     errs on M's density alone by Target/512 (Poisson summation:
//     2e^{−2π²/c²}; c = 1.27 by default), halved while |T_h − T_2h| (the
//     error of the coarser rule: the trapezoid rule converges
//     exponentially on such integrands) is above the same. These are
//     estimates, not bounds; the √v limit is what makes |T_h − T_2h| one
//     (a loss given M = m that repeats at the nodes' spacing makes the two
//     rules agree whatever the error), so a rule that would need more steps
//     than a panel can store (MaxStore/4) is ErrCannotCertify, never cut
//     short. The nodes beyond a reach (at least 3σ_M),
//     where the loss given M = m lies in [0, v]
//     (v = Var[X | M]), are not evaluated: their weight times v is added
//     to Tail (and to Quad, for the estimate): the reach is set for
//     Target/128 of the linear fit's loss and extended while this exceeds
//     Target/64 of the loss found. The closed forms share their
//     exponentials: one per segment end carries the face weight, the
//     density and (by the Mills ratio) the tail, and along the equispaced M
//     nodes each exponent is a quadratic in the node index, so the
//     exponentials follow by a two-multiplication recurrence; each face's
//     moments are within 1e-12 of the whole level line's (tested against
//     math.Erfc and math.Exp), and the conservation check measures what
//     rounding leaves in their sums. The Mills ratios and the terms' sums
//     run four M nodes at a time on CPUs with AVX2 (stdnormal.MillsSlice,
//     faceTerms4) with the scalar loops' operations, unfused: the same
//     bits as those loops (tested). A segment farther than √kCut
//     (Mahalanobis) from (m, 0) is skipped: the faces are disjoint, so at
//     most e^{−kCut/2} of the mass is, and leaving out mass K lowers
//     C − B²/A by at most K's E[(w − s)²] ≤ (2a)²·K (C − B²/A is concave
//     and homogeneous of degree one in (A, B, C)); the M integral weighs
//     each node's bound by the node's weight, and each node has its own
//     kCut in [16, 80]: equal shares of Target/256 of the linear fit's
//     loss (the least work for that bound where a node's work grows
//     linearly with kCut; a node far out in M, of small weight, skips more
//     of its own mass), the sum Σ w·(2a)²e^{−kCut/2}
//     added to Quad, all raised while it is above Target/64 of the loss
//     found.
//  4. Conservation (the check). The faces tile the box, so at every M node
//     the f integrals plus the discrete faces must reproduce the closed
//     forms P(B | m), E[W; B | m], E[W²; B | m]. The defect, weighed as a
//     change of C − B²/A (|ΔC| + 2s|ΔB| + s²|ΔA|, s² = E[W²; B]/P(B)), is
//     added to the stated error Quad, with the estimates of step 3, the
//     discrete faces' |Kronrod − Gauss| and the bound on the skipped far
//     terms: a panel layout that misses or overstates part of F's density
//     shows as a large Quad, hence "cannot certify", never as a verdict.
//  5. Caps. Faces (MaxFaces), integrand evaluations (MaxWork, of all the
//     losses together) and stored panel values (MaxStore) are checked
//     before the work or the memory is spent: every loss's first panel
//     layout is counted before any panel is evaluated, and each loss then
//     refines within its share of what is left. A cap hit, a privatizer without faces (sigmoid or tanh layers)
//     or a stated relative error (Hi − Lo)/max(Value, 1e-6·Var X) above
//     Target is ErrCannotCertify with the reason: never a verdict.
//
// Attacks and the defence that stops each (bayes/gaussdefence_test.go):
//
//	near-equal atoms (levels 5e-7 apart at 1e6) merged    genie keeps them apart; garbling merges: wide → cannot certify
//	collapsed face (F = 4 + 1e-17·R) dropped from f        genie: loss 0 there; garbling: an atom; never dropped
//	comb: kinks between the nodes of merged panels          panels end at every cut; conservation check
//	reverse comb: nodes only on the dense parts            the same
//
// The certificate is for the exact (real) function of the faces: a float32
// release is certified as that function within its forward error bound δ,
// and an observer exploiting the low-order bits of a release below δ is
// outside what it covers.
//
// For an exactly linear privatizer F = aX + bR + c the interval contains the
// closed form 1/(1/v + a²/b²) of Appendix A (gauss.LinearLosses). The best
// linear-Gaussian fit of k in L²(P_X ⊗ P_R) (a = Cov(k, X)/Var X, b = E[kR],
// c) and its residual share of Var F ("nonlinearity") say how far the
// learned privatizer is from the class of Proposition 1; the fit's exact
// losses (gauss.LinearLosses) are reported too (informative only).
// Proposition 1 is optimal only among linear-Gaussian privatizers
// F = aX + bR, so a non-linear learned privatizer can lie above it: such a
// point is reported "above optimum", which is not a failure.
//
// The intervals are checked against an exact-in-x reference (tests only)
// on trained privatizers, against Monte Carlo losses of the certificate's
// own estimator on random 1–3-layer networks and random Gaussian models,
// and on the ramp attack (F = X + 0.01R where X has mass, a 1e9 ramp beyond
// x = 30), whose adversary losses ≈ 1e-4 it certifies; docs/verify.md has
// the table.
package bayes
