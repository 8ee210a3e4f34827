//go:build !slow

package gauss

// slow is false: the property tests run the first of their random
// instances and a part of their transformations, so that make test stays
// quick; go test -tags slow (make test-slow) runs them all.
const slow = false
