//go:build slow

package bayes

// slow is true under -tags slow (make test-slow): the long reference
// checks and the full Monte Carlo samples run.
const slow = true
