//go:build !slow

package network

// slow is false: the property tests run the first of their random
// instances (the same instances, from the same seeds), so that make test
// stays quick; go test -tags slow (make test-slow) runs them all.
const slow = false
