// Command mmds-check checks the certificates and witnesses that mmds
// writes, without trusting mmds: it shares no code with it, uses Go's
// standard library alone, and recomputes every number a file states from
// the model and privatizer files the file names, in exact rational
// arithmetic (math/big) wherever the mathematics is a finite sum, and
// with rigorous enclosures where it is not. docs/check.md is the format's
// specification and says what each number claims and how it is checked.
//
//	mmds-check FILE...
//
// Exit status: 0 when every claim of every file is verified; 1 naming the
// first claim that is false (a number that disagrees with its
// recomputation beyond the file's stated precision, a hash that does not
// match, a verdict that does not follow); 2 when a file cannot be read,
// is malformed, or is of a kind (or holds a claim) this version does not
// cover, which the message names.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

func main() {
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneGC lets the heap grow to five times the live data between
// collections, up to a soft limit of 1 GiB, unless GOGC or GOMEMLIMIT says
// otherwise: the checker's garbage is the short-lived rationals and
// intervals of each piece, and collecting a fifth as often takes 20 % less
// CPU on paper/binary's certificate (90 → 215 MB resident).
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(1 << 30)
	}
}

// run checks each file in turn and stops at the first that is not
// verified.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: mmds-check FILE...  (certificates and witness files of mmds; docs/check.md)")
		return 2
	}
	for _, path := range args {
		summary, err := checkFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "mmds-check: %s: %v\n", printable(path), err)
			var e *checkError
			if errors.As(err, &e) {
				return e.exit
			}
			return 2
		}
		fmt.Fprintf(stdout, "%s: verified: %s\n", printable(path), summary)
	}
	return 0
}

// checkError ends the check of a file: a claim of the file that the
// checker found false (exit 1), or a file it cannot check — unreadable,
// malformed, or not covered by this version (exit 2).
type checkError struct {
	msg  string
	exit int
}

func (e *checkError) Error() string { return e.msg }

// fail stops the check of the current file with a false claim. Checking
// stops at the first error of a file, by panic, recovered in checkFile.
func fail(format string, args ...any) { panic(&checkError{fmt.Sprintf(format, args...), 1}) }

// reject stops the check of the current file as unreadable or unsupported.
func reject(format string, args ...any) { panic(&checkError{fmt.Sprintf(format, args...), 2}) }

// notCovered stops the check of a file that holds a claim of a kind this
// version does not check (exit 2): never a silent pass.
func notCovered(format string, args ...any) { reject("not covered: "+format, args...) }

// failIf, rejectIf and notCoveredIf stop when cond holds (the message's
// arguments are evaluated either way).
func failIf(cond bool, format string, args ...any) {
	if cond {
		fail(format, args...)
	}
}

func rejectIf(cond bool, format string, args ...any) {
	if cond {
		reject(format, args...)
	}
}

func notCoveredIf(cond bool, format string, args ...any) {
	if cond {
		notCovered(format, args...)
	}
}

// checkFile reads a certificate or a witness file and checks every claim
// in it, returning a one-line summary.
func checkFile(path string) (summary string, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*checkError)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	b := readFile(path, maxJSONBytes)
	root := asObject("", parseJSON(b))
	switch format := root.str("format"); format {
	case "mmds-certificate/1":
		return checkCertificate(path, root), nil
	case witnessFormat:
		return checkWitnessFile(root), nil
	default:
		reject("format %s: want %q (a certificate) or %q (a witness file)", quote(format), "mmds-certificate/1", witnessFormat)
	}
	return "", nil
}

// witnessFormat is the version of the witness layout this checker reads.
const witnessFormat = "mmds-witness/1"
