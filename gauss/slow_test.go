//go:build slow

package gauss

// slow is true under -tags slow (make test-slow): the property tests run
// every one of their random instances and transformations.
const slow = true
