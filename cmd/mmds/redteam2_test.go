package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Paths in a --points list are the author's bytes, yet messages and the
// table print them raw: a terminal escape sequence (here: set the window
// title, clear the screen) and a newline that forges a second line
// "mmds: certification passed" reach the reviewer's terminal, and a long
// path read from a file (a symlink to a reviewer's CSV) is echoed whole.
func TestRedTeam2PathsInMessagesEscaped(t *testing.T) {
	bm := binaryModelFile(t)
	dir := t.TempDir()
	forged := "\x1b]0;pwned\x07\x1b[2J\nmmds: certification passed: 1 of 1 points pass\nx.json"
	pts := writeTestFile(t, dir, "pts.json", `[{"D": 0.15, "privatizer": "\u001b]0;pwned\u0007\u001b[2J\nmmds: certification passed: 1 of 1 points pass\nx.json"}]`)
	code, _, errs := runCLI(t, "certify", "--model", bm, "--points", pts)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if strings.ContainsAny(errs, "\x1b\x07") || strings.Count(strings.TrimSuffix(errs, "\n"), "\n") > 0 {
		t.Errorf("stderr carries the path %q raw (escapes, %d lines): %q", forged, strings.Count(errs, "\n"), errs)
	}

	// An existing privatizer whose name holds escapes: the verdict table.
	name := "f\x1b[1A\x1b[2Kok.json"
	body, err := os.ReadFile(filepath.Join(fixtures, "channel-fail.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, dir, name, string(body))
	pts2 := writeTestFile(t, dir, "pts2.json", `[{"D": 0.15, "privatizer": "f\u001b[1A\u001b[2Kok.json"}]`)
	_, out, errs := runCLI(t, "certify", "--model", bm, "--points", pts2)
	if strings.ContainsRune(out+errs, '\x1b') {
		t.Errorf("the table prints the privatizer's name raw (cursor up, erase line): %q", out)
	}

	// A CSV points list that is a symlink to a reviewer's file: its second
	// column is echoed whole as a path.
	secret := strings.Repeat("S3cr3t-", 14) + strings.Repeat("t0p-", 20)
	sec := writeTestFile(t, dir, "secret.csv", "0.1,"+secret+"\n")
	link := filepath.Join(dir, "p.csv")
	if err := os.Symlink(sec, link); err != nil {
		t.Fatal(err)
	}
	_, _, errs = runCLI(t, "certify", "--model", bm, "--points", link)
	for i := 0; i+41 <= len(secret); i++ {
		if strings.Contains(errs, secret[i:i+41]) {
			t.Errorf("the message quotes more than 40 characters of the points file: %q", errs)
			break
		}
	}
}

// A CSV points row whose path holds a control character is refused before
// any file is read (exit 2), the message one line with the path escaped;
// so is the CSV output of a table with such a name.
func TestPointsControlCharactersRefused(t *testing.T) {
	bm := binaryModelFile(t)
	dir := t.TempDir()
	pts := writeTestFile(t, dir, "pts.csv", "0.15,a\x1b[2Jb.json\n")
	code, _, errs := runCLI(t, "certify", "--model", bm, "--points", pts)
	if code != 2 || strings.ContainsRune(errs, '\x1b') || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `a\x1b[2Jb.json`) {
		t.Errorf("exit %d, stderr %q; want 2 and one escaped line", code, errs)
	}
	body, err := os.ReadFile(filepath.Join(fixtures, "channel-fail.json"))
	if err != nil {
		t.Fatal(err)
	}
	name := writeTestFile(t, dir, "c\x1b[2Jd.json", string(body))
	_, out, _ := runCLI(t, "certify", "--model", bm, "--privatizer", name, "--d", "0.15", "--format", "csv")
	if strings.ContainsRune(out, '\x1b') || !strings.Contains(out, `c\x1b[2Jd.json`) {
		t.Errorf("CSV output carries the name raw: %q", out)
	}
}
