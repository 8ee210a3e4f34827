// Package gauss implements the jointly Gaussian model of the paper (Section
// III-A, Proposition 1, Appendix A): covariance validation, conditional
// variances by Schur complements, and the closed-form optimum.
package gauss
