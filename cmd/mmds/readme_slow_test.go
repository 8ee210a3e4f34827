//go:build slow

package main

// slowExamples is true under -tags slow: TestREADME also runs the
// documented commands marked "<!-- slow -->".
const slowExamples = true
