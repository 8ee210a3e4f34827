package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeCommand is a "$ mmds …" line of README.md with the output shown
// under it.
type readmeCommand struct {
	line int
	args []string
	want string
}

// readmeCommands extracts every "$ mmds …" or "$ bin/mmds …" line inside a
// fenced block of README.md, with the lines that follow it up to the next
// "$ " line or the end of the block.
func readmeCommands(t *testing.T, path string) []readmeCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []readmeCommand
	var cur *readmeCommand
	inBlock := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			cur = nil
			continue
		}
		if !inBlock {
			continue
		}
		if rest, ok := strings.CutPrefix(l, "$ "); ok {
			cur = nil
			fields := strings.Fields(rest)
			if len(fields) > 0 && (fields[0] == "mmds" || fields[0] == "bin/mmds") {
				cmds = append(cmds, readmeCommand{line: n, args: fields[1:]})
				cur = &cmds[len(cmds)-1]
			}
			continue
		}
		if cur != nil {
			cur.want += l + "\n"
		}
	}
	return cmds
}

// updateReadme rewrites README.md's outputs with what the commands print:
// go test ./cmd/mmds -run TestReadmeCommands -update-readme
var updateReadme = flag.Bool("update-readme", false, "rewrite the outputs in README.md with what the commands print")

var (
	// timings are wall-clock figures in text ("in 2.1 s", "0.53 ms").
	timings = regexp.MustCompile(`\d+(\.\d+)? ?(s|ms|µs)\b`)
	// jsonTimings are wall-clock fields of JSON output.
	// trained counts speculative trials too, which depends on scheduling.
	trainedCount = regexp.MustCompile(`\d+ trials? trained`)
	jsonTimings  = regexp.MustCompile(`("(solve_ms|seconds|solve_seconds|ms)": )[-0-9.e+]+`)
	spaces       = regexp.MustCompile(`[ \t]+`)
	// progressLines are the plain progress lines of every command
	// (internal/progress): they come with long work, whose length varies.
	progressLines = regexp.MustCompile(`(?m)^\S+Z mmds \w+: .*\n`)
	rules         = regexp.MustCompile(`─+`)
)

// timingColumns name the table columns that hold wall-clock times.
var timingColumns = map[string]bool{"ms": true, "s": true, "seconds": true, "time": true}

// normalizeOutput blanks what differs from run to run — wall-clock times
// in text, JSON and table columns — and the padding tables get from them.
func normalizeOutput(s string) string {
	s = jsonTimings.ReplaceAllString(s, "${1}T")
	var b strings.Builder
	var timeCols map[int]bool
	header := false
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "┌"):
			header, timeCols = true, map[int]bool{}
		case strings.HasPrefix(l, "│"):
			cells := strings.Split(l, "│")
			for i, c := range cells {
				c = strings.TrimSpace(c)
				if header && timingColumns[c] {
					timeCols[i] = true
				} else if timeCols[i] {
					cells[i] = "T"
				}
			}
			header = false
			l = strings.Join(cells, "│")
		}
		l = timings.ReplaceAllString(l, "T")
		l = trainedCount.ReplaceAllString(l, "N trials trained")
		l = rules.ReplaceAllString(spaces.ReplaceAllString(l, " "), "─")
		b.WriteString(strings.TrimSpace(l) + "\n")
	}
	return b.String()
}

// TestReadmeCommands runs every mmds command README.md shows, from the
// repository root with results/ redirected to a temporary folder, and
// compares what it prints (stdout, then stderr) with what README.md shows,
// up to wall-clock timings.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README commands train networks (seconds each)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(t, filepath.Join(root, "README.md"))
	if len(cmds) < 5 {
		t.Fatalf("found %d commands in README.md", len(cmds))
	}
	t.Chdir(root)
	tmp := t.TempDir()
	got := make([]string, len(cmds))
	for k, c := range cmds {
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = strings.Replace(a, "results/", filepath.Join(tmp, "results")+"/", 1)
		}
		var out, errb bytes.Buffer
		run(context.Background(), args, &out, &errb)
		// Progress lines (stderr without a terminal) are not output: a
		// terminal shows a bar that clears itself.
		got[k] = progressLines.ReplaceAllString(out.String()+errb.String(), "")
		got[k] = strings.ReplaceAll(got[k], filepath.Join(tmp, "results")+"/", "results/")
		if g, w := normalizeOutput(got[k]), normalizeOutput(c.want); g == w {
			got[k] = c.want // up to date: keep README's own timings
		} else if !*updateReadme {
			t.Errorf("README.md:%d: mmds %s\n--- README shows\n%s--- mmds prints\n%s", c.line, strings.Join(c.args, " "), w, g)
		}
	}
	if *updateReadme {
		rewriteReadme(t, filepath.Join(root, "README.md"), cmds, got)
	}
}

// rewriteReadme replaces the output under each command with got.
func rewriteReadme(t *testing.T, path string, cmds []readmeCommand, got []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []string
	next := 0
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if next < len(cmds) && i+1 == cmds[next].line {
			out = append(out, strings.Split(strings.TrimRight(got[next], "\n"), "\n")...)
			// Keep the blank lines that separated this output from the next command.
			w := cmds[next].want
			for blank := len(w) - len(strings.TrimRight(w, "\n")) - 1; blank > 0; blank-- {
				out = append(out, "")
			}
			i += strings.Count(cmds[next].want, "\n")
			next++
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
