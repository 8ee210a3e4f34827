//go:build !slow

package bayes

// slow is false: make test runs the short reference checks and smaller
// Monte Carlo samples; go test -tags slow (make test-slow) runs the long
// ones.
const slow = false
