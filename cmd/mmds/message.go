package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"syscall"

	"github.com/mmds-project/mmds/verify"
)

// userLine is the one line a person reads after "mmds: " for the error that
// ended a command: the chain's message in the user's words. The packages
// name the input, the value and the valid range; here, at the command
// line's edge, what only a program reads is taken out: package prefixes
// ("rundir: "), the library's words for a file-system error ("open X:
// permission denied" becomes "X: permission denied"), a path said twice in
// a row, and "context canceled" (an interrupted command says so, and what
// it kept).
//
// command is the running command's own prefix ("verify: ", subcommand), which
// a message may begin with and which is kept though it reads like a package's.
func userLine(ctx context.Context, err error, command string) string {
	if ctx.Err() != nil {
		return interruptedLine(ctx, err)
	}
	msg := err.Error()
	if words := fileProblem(err); words != "" {
		msg = fileLine(err, msg, words)
	}
	keep := ""
	if command != "" && strings.HasPrefix(msg, command) && !errors.Is(err, packageOpening(msg)) {
		keep, msg = command, msg[len(command):]
	}
	for prev := ""; prev != msg; {
		prev, msg = msg, packagePrefix.ReplaceAllString(msg, "$1") // "learn: verify: " one at a time
	}
	return keep + dropRepeats(msg)
}

// interruptedLine says that a signal stopped the command and what it kept
// (keptError), or that nothing was written.
func interruptedLine(ctx context.Context, err error) string {
	line := "interrupted"
	var s stopSignal
	if errors.As(context.Cause(ctx), &s) && s.sig == syscall.SIGTERM {
		line = "stopped by SIGTERM (exit 75: run it again to continue)"
	}
	var k keptError
	if errors.As(err, &k) {
		return line + "; " + k.kept
	}
	return line + "; nothing written"
}

// packageOpening is the sentinel whose package prefix opens msg where the
// package shares a command's name ("verify: invalid results directory" under
// mmds verify), or nil: that prefix is the package's, not the command's.
func packageOpening(msg string) error {
	if strings.HasPrefix(msg, verify.ErrInput.Error()) {
		return verify.ErrInput
	}
	return nil
}

// packagePrefix matches the name of a Go package (mmds's or a library's)
// that begins a message or a part of one: "verify: ", "proto: ".
var packagePrefix = regexp.MustCompile(`(^|: )(?:rundir|learn|verify|bayes|model|mip|gauss|network|privatizer|jsonconf|safefile|report|sweep|highsx|highs|estimate|cluster|loss|plot|bench|enum|decimal|proto|json|strconv|cobra|pflag|flag|os|fs|csv)(?::\x{00a0}|: ?)`)

// dropRepeats removes a part of a message (between ": ") that repeats the
// end of the part before it: "--config m.json: m.json: …" names the file
// once.
func dropRepeats(msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:1]
	for _, p := range parts[1:] {
		prev := out[len(out)-1]
		if p != "" && (p == prev || strings.HasSuffix(prev, " "+p)) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}

// fileProblem is, in words, a problem of the user's files or disk in err's
// chain (permissions, a full disk, a read-only file system), or "": exit
// 2, as bad input is, since the fix is the user's.
func fileProblem(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return ""
	}
	switch errno {
	case syscall.EACCES, syscall.EPERM:
		return "permission denied (choose a file or folder you can write to, or change its permissions)"
	case syscall.EROFS:
		return "the file system is read-only (choose a folder on a writable one)"
	case syscall.ENOSPC:
		return "no space left on the disk (free some, or choose a folder on another disk)"
	case syscall.EDQUOT:
		return "disk quota exceeded (free some space, or choose a folder on another disk)"
	}
	return ""
}

// fileLine puts the words of a file-system error in place of the
// library's: "open DIR/x.tmp: permission denied" → "DIR/x.tmp: permission
// denied (…)", the path once.
func fileLine(err error, msg, words string) string {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	switch {
	case errors.As(err, &pe):
		return replaceTail(msg, pe.Error(), pe.Path+": "+words)
	case errors.As(err, &le):
		return replaceTail(msg, le.Error(), le.New+": "+words)
	case errors.As(err, &se):
		return replaceTail(msg, se.Error(), words)
	}
	var errno syscall.Errno
	errors.As(err, &errno)
	return replaceTail(msg, errno.Error(), words)
}

// replaceTail replaces old in msg by new, or appends new when msg does not
// hold old.
func replaceTail(msg, old, new string) string {
	if i := strings.LastIndex(msg, old); i >= 0 {
		return msg[:i] + new + msg[i+len(old):]
	}
	return msg + ": " + new
}
