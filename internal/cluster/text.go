package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unicode"
	"unicode/utf8"

	"github.com/mmds-project/mmds/internal/report"
)

// ErrText reports a value that a generated script or manifest cannot carry
// as written: a control character (a newline ends an #SBATCH line even
// inside quotes, and a shell or YAML reader sees the rest as a new line), a
// Unicode line or paragraph separator (line breaks to YAML 1.1), a
// bidirectional-text control (the script would read differently from what
// runs), or bytes that are not UTF-8 (a manifest is UTF-8 text; a
// marshaller would silently replace them). Such a value is refused, never
// escaped.
var ErrText = errors.New("cluster: cannot be written into a script or manifest")

// CheckText returns an error wrapping ErrText when s holds a character
// ErrText describes; what names the value ("--out", "the working folder").
func CheckText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %s: %w: it is not valid UTF-8", what, report.Quote(s), ErrText)
	}
	for i, r := range s {
		if unsafeRune(r) {
			return fmt.Errorf("%s %s: %w: character %U at byte %d (control characters, line separators and bidirectional controls are refused)",
				what, report.Quote(s), ErrText, r, i)
		}
	}
	return nil
}

// unsafeRune reports the characters CheckText refuses.
func unsafeRune(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == '\u200e', r == '\u200f', r == '\u061c':
		return true // bidirectional embeddings, overrides, isolates and marks
	}
	return false
}

// checkArgv checks every word of a command line with CheckText.
func checkArgv(what string, argv []string) error {
	for _, a := range argv {
		if err := CheckText(what, a); err != nil {
			return err
		}
	}
	return nil
}

// planFile is a file of a plan: its name, its text, and whether it is a
// script to run.
type planFile struct {
	name string
	text []byte
	exec bool
}

// writePlan prepares dir as a folder of kind k (report.PrepareFolder) and
// writes files into it, each atomically, and returns their paths; what
// names the files in errors.
func writePlan(dir string, k report.Kind, what string, files []planFile) ([]string, error) {
	if err := report.PrepareFolder(dir, k); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f.name)
		err := report.WriteFile(paths[i], f.text)
		if err == nil && f.exec {
			err = os.Chmod(paths[i], 0o755)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	return paths, nil
}
