//go:build !slow

package main

// slowExamples is false: TestREADME leaves the documented commands marked
// "<!-- slow -->" alone (go test -tags slow runs them).
const slowExamples = false
