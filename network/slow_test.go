//go:build slow

package network

// slow is true under -tags slow (make test-slow): the property tests run
// every one of their random instances.
const slow = true
