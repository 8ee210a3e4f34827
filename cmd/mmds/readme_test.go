package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/report"
)

// updateDocs rewrites the outputs shown in README.md and docs/*.md with what
// the commands print:
//
//	go test ./cmd/mmds -run TestREADME -update
var updateDocs = flag.Bool("update", false, "rewrite the outputs shown in README.md and docs/*.md with what the commands print")

// slowMarker, on a line of its own before a fenced block, marks that
// block's commands as slow: they run only under -tags slow.
const slowMarker = "<!-- slow -->"

// slowAfter is how long a command may take before TestREADME suggests
// marking it slow (logged with -v; on a loaded machine, a hint only).
const slowAfter = 5 * time.Second

// docCommand is a "$ mmds …" line of a Markdown page with the output shown
// under it.
type docCommand struct {
	line  int
	args  []string
	want  string
	slow  bool
	check bool // "$ mmds-check …": the independent checker (checker/)
}

// docCommands extracts every "$ mmds …", "$ bin/mmds …" or "$ mmds-check …" line inside a
// fenced block, with the lines that follow it up to the next "$ " line or
// the end of the block.
func docCommands(t *testing.T, path string) []docCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []docCommand
	var cur *docCommand
	inBlock, slow, nextSlow := false, false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			slow, nextSlow = inBlock && nextSlow, false
			cur = nil
			continue
		}
		if !inBlock {
			if s := strings.TrimSpace(l); s == slowMarker {
				nextSlow = true
			} else if s != "" {
				nextSlow = false
			}
			continue
		}
		if rest, ok := strings.CutPrefix(l, "$ "); ok {
			cur = nil
			fields := strings.Fields(rest)
			if len(fields) > 0 && (fields[0] == "mmds" || fields[0] == "bin/mmds" || fields[0] == "mmds-check") {
				cmds = append(cmds, docCommand{line: n, args: fields[1:], slow: slow, check: fields[0] == "mmds-check"})
				cur = &cmds[len(cmds)-1]
			}
			continue
		}
		if cur != nil {
			cur.want += l + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

var (
	// timings are wall-clock figures in text ("in 2.1 s", "0.53 ms").
	timings = regexp.MustCompile(`\b\d+(\.\d+)? ?(s|ms|µs)\b`)
	// jsonTimings are wall-clock fields of JSON output.
	jsonTimings = regexp.MustCompile(`("(solve_ms|seconds|solve_seconds|ms|elapsed_ms)": )[-0-9.e+]+`)
	spaces      = regexp.MustCompile(`[ \t]+`)
	// progressLines are the plain progress lines of every command
	// (internal/progress): they come with long work, whose length varies.
	progressLines = regexp.MustCompile(`(?m)^\S+Z mmds \w+: .*\n`)
	rules         = regexp.MustCompile(`─+`)
)

// timingColumns name the table and CSV columns that hold wall-clock times.
var timingColumns = map[string]bool{"ms": true, "s": true, "seconds": true, "time": true,
	"solve_ms": true, "solve_seconds": true, "elapsed_ms": true}

// blankCSVTimings blanks the timing columns of CSV rows: a line whose
// comma-separated fields name a timing column is a header, and the lines
// after it with as many fields are its rows.
func blankCSVTimings(lines []string) {
	var cols map[int]bool
	width := 0
	for k, l := range lines {
		fields := strings.Split(l, ",")
		if len(fields) < 2 {
			cols = nil
			continue
		}
		if slices.ContainsFunc(fields, func(f string) bool { return timingColumns[f] }) {
			cols, width = map[int]bool{}, len(fields)
			for i, f := range fields {
				cols[i] = timingColumns[f]
			}
			continue
		}
		if cols == nil || len(fields) != width {
			continue
		}
		for i := range fields {
			if cols[i] {
				fields[i] = "T"
			}
		}
		lines[k] = strings.Join(fields, ",")
	}
}

// normalizeOutput blanks what differs from run to run — wall-clock times
// in text, JSON, table and CSV columns — and the padding tables get from
// them.
func normalizeOutput(s string) string {
	s = jsonTimings.ReplaceAllString(s, "${1}T")
	var b strings.Builder
	var timeCols map[int]bool
	header := false
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	blankCSVTimings(lines)
	for _, l := range lines {
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
		l = rules.ReplaceAllString(spaces.ReplaceAllString(l, " "), "─")
		b.WriteString(strings.TrimSpace(l) + "\n")
	}
	return b.String()
}

// docPages are the pages whose examples TestREADME runs, relative to the
// repository root: README.md and every docs/*.md.
func docPages(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		pages[i], _ = filepath.Rel(root, p)
	}
	slices.Sort(pages)
	return append([]string{"README.md"}, pages...)
}

// TestREADME runs every mmds command that README.md and docs/*.md show and
// compares what it prints (stdout, then stderr) with what the page shows,
// up to wall-clock timings. Each page runs in order in a fresh folder that
// links to the repository's top-level entries (examples/, paper/, …), so
// the commands read committed files and write only there; the folder's path
// is shown as $PWD. Commands in a block after a "<!-- slow -->" line run
// only under -tags slow.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the documented commands train networks (seconds each)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	trained := trainCache{dir: t.TempDir(), runs: map[string]trainedRun{}}
	for _, page := range docPages(t, root) {
		cmds := docCommands(t, filepath.Join(root, page))
		total += len(cmds)
		if len(cmds) == 0 {
			continue
		}
		t.Run(page, func(t *testing.T) { runPage(t, root, page, cmds, &trained) })
	}
	if total < 20 {
		t.Fatalf("found %d commands in README.md and docs/*.md", total)
	}
}

// trainCache keeps what each "mmds train … --out DIR" command printed and
// a copy of the folder it wrote, so that a later page showing the same
// command gets the copy instead of a second training run: training is
// deterministic (docs/learn.md), so the copy is what the command would
// write again.
type trainCache struct {
	dir  string // the copies, one numbered folder each
	runs map[string]trainedRun
}

type trainedRun struct {
	output string
	dir    string
}

// outFolder returns the value of a train command's --out flag.
func outFolder(args []string) (string, bool) {
	if len(args) == 0 || args[0] != "train" {
		return "", false
	}
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--out="); ok {
			return v, true
		}
		if a == "--out" && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// runDocCommand runs one command in the current folder and returns what it
// printed, stdout then stderr, without progress lines. A train command
// already run by an earlier page is copied from that run.
func runDocCommand(t *testing.T, c docCommand, trained *trainCache) string {
	t.Helper()
	if c.check {
		_, out := runChecker(t, c.args...)
		return out
	}
	key := strings.Join(c.args, "\x00")
	out, isTrain := outFolder(c.args)
	if prev, ok := trained.runs[key]; ok && isTrain {
		if err := os.CopyFS(out, os.DirFS(prev.dir)); err != nil {
			t.Fatal(err)
		}
		return prev.output
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	run(context.Background(), c.args, &stdout, &stderr)
	if d := time.Since(start); d > slowAfter {
		t.Logf("mmds %s took %v: a candidate for %s", strings.Join(c.args, " "), d.Round(time.Millisecond), slowMarker)
	}
	// Progress lines (stderr without a terminal) are not output: a
	// terminal shows a bar that clears itself.
	got := progressLines.ReplaceAllString(stdout.String()+stderr.String(), "")
	if fi, err := os.Stat(out); isTrain && err == nil && fi.IsDir() { // --slurm and --k8s write no results
		keep := filepath.Join(trained.dir, strconv.Itoa(len(trained.runs)))
		if err := os.CopyFS(keep, os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
		trained.runs[key] = trainedRun{output: got, dir: keep}
	}
	return got
}

// runPage runs one page's commands in order and compares or rewrites their
// outputs.
func runPage(t *testing.T, root, page string, cmds []docCommand, trained *trainCache) {
	dir := exampleFolder(t, root)
	t.Chdir(dir)
	got := make([]string, len(cmds))
	for k, c := range cmds {
		if c.slow && !slow {
			got[k] = c.want
			continue
		}
		got[k] = strings.ReplaceAll(runDocCommand(t, c, trained), dir, "$PWD")
		for _, l := range tooWide(c.args, got[k]) {
			t.Errorf("%s:%d: mmds %s prints a line of %d columns, more than %d: %.80q…", page, c.line, strings.Join(c.args, " "), twwidth.Width(l), report.MaxWidth, l)
		}
		if g, w := normalizeOutput(got[k]), normalizeOutput(c.want); g == w {
			got[k] = c.want // up to date: keep the page's own timings
		} else if !*updateDocs {
			t.Errorf("%s:%d: mmds %s\n--- the page shows\n%s--- mmds prints\n%s", page, c.line, strings.Join(c.args, " "), w, g)
		} else {
			got[k] = keepTimings(got[k], c.want)
		}
	}
	if *updateDocs {
		rewritePage(t, filepath.Join(root, page), cmds, got)
	}
}

// tooWide returns the lines of what mmds args printed that are wider than
// report.MaxWidth columns. Output for programs is exempt (--format csv or
// json, export's file, a completion script), and so is the one line of an
// error, which must stay one line whatever the paths in it.
func tooWide(args []string, out string) []string {
	for i, a := range args {
		if a == "--format=csv" || a == "--format=json" || (a == "--format" && i+1 < len(args) && args[i+1] != "table") {
			return nil
		}
	}
	if len(args) > 0 && (args[0] == "export" || args[0] == "completion") {
		return nil
	}
	var wide []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "mmds: ") && twwidth.Width(l) > report.MaxWidth {
			wide = append(wide, l)
		}
	}
	return wide
}

// TestMakeRunWithinWidth runs the commands of make run (the Makefile's run
// target, into a temporary folder): each exits 0 and prints no line wider
// than report.MaxWidth columns. It trains two quick runs, so it runs under
// -tags slow (make test-slow); TestREADME runs the same kinds of command
// on the quick runs the docs show.
func TestMakeRunWithinWidth(t *testing.T) {
	if !slow {
		t.Skip("make run trains two quick runs: go test -tags slow")
	}
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	_, recipe, ok := strings.Cut(string(mk), "\nrun: build\n")
	if !ok {
		t.Fatal("the Makefile has no run target")
	}
	rundir := regexp.MustCompile(`(?m)^RUNDIR := (\S+)$`).FindStringSubmatch(string(mk))
	if rundir == nil {
		t.Fatal("the Makefile sets no RUNDIR")
	}
	t.Chdir(t.TempDir()) // make run writes results/… below the folder it runs in
	n := 0
	for _, l := range strings.Split(recipe, "\n") {
		if !strings.HasPrefix(l, "\t") {
			break // the end of the recipe
		}
		rest, ok := strings.CutPrefix(l, "\t$(BIN) ")
		if !ok {
			continue
		}
		args := strings.Fields(strings.ReplaceAll(rest, "$(RUNDIR)", rundir[1]))
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		n++
		out := progressLines.ReplaceAllString(stdout.String()+stderr.String(), "")
		if code != 0 {
			t.Errorf("mmds %s: exit %d: %s", rest, code, out)
		}
		for _, w := range tooWide(args, out) {
			t.Errorf("mmds %s prints a line of %d columns, more than %d: %.80q…", rest, twwidth.Width(w), report.MaxWidth, w)
		}
	}
	if n < 6 {
		t.Errorf("found %d mmds commands in make run", n)
	}
}

// keepTimings returns got with each line that matches the page's line of
// the same text up to wall-clock times replaced by the page's, so that
// -update rewrites what changed and not the timings of a loaded machine.
func keepTimings(got, want string) string {
	byText := map[string]string{}
	for _, w := range strings.Split(want, "\n") {
		byText[normalizeOutput(w)] = w
	}
	lines := strings.Split(got, "\n")
	for i, g := range lines {
		if w, ok := byText[normalizeOutput(g)]; ok {
			lines[i] = w
		}
	}
	return strings.Join(lines, "\n")
}

// exampleFolder makes a temporary folder with a symbolic link to each
// top-level entry of the repository that the examples read: everything
// but hidden entries and the ignored outputs bin/ and results/.
func exampleFolder(t *testing.T, root string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "bin" || name == "results" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// rewritePage replaces the output under each command with got.
func rewritePage(t *testing.T, path string, cmds []docCommand, got []string) {
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
			if g := strings.TrimRight(got[next], "\n"); g != "" {
				out = append(out, strings.Split(g, "\n")...)
			}
			// Keep the blank lines that separated this output from the next command.
			w := cmds[next].want
			blank := len(w) - len(strings.TrimRight(w, "\n"))
			if strings.TrimRight(w, "\n") != "" {
				blank-- // the output's own line end
			}
			for ; blank > 0; blank-- {
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

// TestHelpWithinWidth: the help of every command, mmds's own and its
// subcommands', fits report.MaxWidth columns (flag descriptions wrap).
func TestHelpWithinWidth(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		paths = append(paths, strings.Fields(strings.TrimPrefix(c.CommandPath(), "mmds")))
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(nil, nil))
	for _, p := range paths {
		args := append(append([]string{}, p...), "--help")
		code, out, errs := runCLI(t, args...)
		if code != 0 || errs != "" {
			t.Errorf("mmds %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		for _, w := range tooWide(args, out) {
			t.Errorf("mmds %s prints a line of %d columns, more than %d: %.80q…", strings.Join(args, " "), twwidth.Width(w), report.MaxWidth, w)
		}
	}
	if len(paths) < 12 {
		t.Errorf("only %d commands", len(paths))
	}
}
