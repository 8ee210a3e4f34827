package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Size caps, as mmds's: a certificate or witness file, a model file, and a
// privatizer file (the largest ONNX file mmds reads).
const (
	maxJSONBytes       = 16 << 20
	maxModelBytes      = 64 << 20
	maxPrivatizerBytes = 256 << 20
)

// readFile reads a regular file of at most max bytes, once. It opens with
// O_NONBLOCK (a FIFO with no writer would block the open otherwise) and
// checks the open descriptor, not the path, so that a file swapped for a
// FIFO or a device between a check and the open is refused too.
func readFile(path string, max int64) []byte {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	rejectIf(err != nil, "cannot read %s: %v", printable(path), unwrapPath(err))
	defer f.Close()
	fi, err := f.Stat()
	rejectIf(err != nil, "cannot read %s: %v", printable(path), err)
	rejectIf(!fi.Mode().IsRegular(), "%s is not a regular file (%s)", printable(path), fi.Mode().Type())
	rejectIf(fi.Size() > max, "%s has %d bytes, more than the %d allowed", printable(path), fi.Size(), max)
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	rejectIf(err != nil, "cannot read %s: %v", printable(path), err)
	rejectIf(int64(len(b)) > max, "%s has more than the %d bytes allowed", printable(path), max)
	return b
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// certFile returns the path of a file a certificate at certPath names.
// The certificate is its author's, so its names are not followed
// anywhere: a name that is empty, absolute, has control characters,
// leaves the certificate's folder with "..", or leads out of it through a
// symbolic link is refused before anything is read (mmds's rule).
func certFile(certPath, field, name string) string {
	switch {
	case name == "" || !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		reject("%s %s: want a plain relative file name", field, quote(name))
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "":
		reject("%s %s is absolute: a certificate names its files relative to its own folder", field, quote(name))
	}
	clean := filepath.Clean(filepath.FromSlash(name))
	rejectIf(clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)), "%s %s leaves the certificate's folder", field, quote(name))
	dir := filepath.Dir(certPath)
	path := filepath.Join(dir, clean)
	real, err1 := filepath.EvalSymlinks(path)
	rdir, err2 := filepath.EvalSymlinks(dir)
	rejectIf(err1 != nil || err2 != nil, "%s %s: cannot read it in the certificate's folder", field, quote(name))
	if rel, err := filepath.Rel(rdir, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		reject("%s %s is a symbolic link out of the certificate's folder", field, quote(name))
	}
	return path
}
