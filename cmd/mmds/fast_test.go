//go:build !slow

package main

// slow is false: TestREADME leaves the documented commands marked
// "<!-- slow -->" alone, and the end-to-end tests that train runs of their
// own skip (go test -tags slow runs them).
const slow = false
