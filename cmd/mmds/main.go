// Command mmds computes exact optima of minimax data sanitization, trains the
// paper's learned baseline, and certifies trained models against the optima.
//
// The CLI only parses, wires and prints; every number comes from the packages
// mip, gauss, learn and verify.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mmds-project/mmds/internal/safefile"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // a computation failed (solver error, failed certification)
	exitUsage   = 2 // bad input: flags, config files, result directories
	// exitCannotCertify: the numbers behind a verdict could not be made
	// sound for this input (a grid or cost cap hit, an error bound above the
	// tolerance, a network whose float32 and exact outputs disagree): neither
	// pass nor fail.
	exitCannotCertify = 3
	// exitRetry (EX_TEMPFAIL of sysexits.h) asks a scheduler to run the same
	// command again later: the run was stopped by SIGTERM (a time limit,
	// preemption, a node draining) or refused because a live process holds
	// the results directory's lock. Nothing is lost; finished work is kept
	// (docs/cluster.md).
	exitRetry = 75
	// exitInterrupted is the shell's status for a process stopped by
	// SIGINT (128 + 2): a person asked it to stop.
	exitInterrupted = 130
)

// stopSignal is the cause of a context cancelled by a signal.
type stopSignal struct{ sig os.Signal }

func (s stopSignal) Error() string { return "stopped by " + s.sig.String() }

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		cancel(stopSignal{sig}) // the first Ctrl-C (or a scheduler's SIGTERM) stops the work cleanly
		<-sigs
		os.Exit(stopStatus(ctx)) // a second one does not wait
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(code)
}

// stopStatus is the exit status of a run whose context was cancelled:
// exitRetry for SIGTERM, which schedulers send to reclaim a node, else
// exitInterrupted.
func stopStatus(ctx context.Context) int {
	var s stopSignal
	if errors.As(context.Cause(ctx), &s) && s.sig == syscall.SIGTERM {
		return exitRetry
	}
	return exitInterrupted
}

// run executes the CLI with args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	if completeOneLetterFlag(root, args, stdout) {
		return exitOK
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	// One line, escaped: a message may carry paths and names from files.
	name := ""
	if cmd != nil {
		name = subcommand(cmd)
	}
	fmt.Fprintln(stderr, "mmds:", safefile.Printable(userLine(ctx, err, name)))
	return exitStatus(ctx, err)
}

// exitStatus is the exit status of a command that ended with err.
func exitStatus(ctx context.Context, err error) int {
	if ctx.Err() != nil {
		return stopStatus(ctx)
	}
	var ue usageError
	var ee exitError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ee):
		return ee.code
	case fileProblem(err) != "":
		return exitUsage // the user's folder or disk, not a failed computation
	default:
		return exitFailure
	}
}

// usageError marks bad user input: the CLI exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// asUsage marks err, when it is not nil, as bad user input (exit 2).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// badInput wraps err (or a formatted message) as a usage error. Errors
// among args stay in the chain even when the format prints them with %v,
// so that the message's rendering still finds, say, a file-system error
// in them (userLine).
func badInput(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	var causes []error
	for _, a := range args {
		if e, ok := a.(error); ok {
			causes = append(causes, e)
		}
	}
	if len(causes) > 0 && !strings.Contains(format, "%w") {
		err = causedError{err.Error(), causes}
	}
	return usageError{err}
}

// causedError is a message that keeps the errors it was written from.
type causedError struct {
	msg    string
	causes []error
}

func (e causedError) Error() string   { return e.msg }
func (e causedError) Unwrap() []error { return e.causes }

// keptError is the error of a command stopped by a signal that kept some
// of its work: kept says what, and where, in words ("finished trials are
// kept in DIR; run the same command again to resume").
type keptError struct {
	kept string
	err  error
}

func (e keptError) Error() string { return e.kept + ": " + e.err.Error() }
func (e keptError) Unwrap() error { return e.err }

// exitError carries an explicit exit status (e.g. 1 for a failed verdict).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
