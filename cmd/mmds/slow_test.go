//go:build slow

package main

// slow is true under -tags slow (make test-slow): TestREADME also runs the
// documented commands marked "<!-- slow -->", and the end-to-end tests that
// train runs of their own (make run's commands, train to plot, Ctrl-C on
// every long command) run.
const slow = true
