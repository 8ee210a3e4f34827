package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify"
)

// goInternals matches what a message must never show a person: Go error
// types and package-qualified names, parsers' own words, fmt's mistakes,
// cobra's and pflag's stock phrasing.
var goInternals = regexp.MustCompile(`\w+\.\w+Error|strconv\.|(^|[^.\w])json: (cannot|unknown|invalid|syntax)|%!|time: |` +
	`\b(mip|gauss|model|verify|learn|privatizer|network|bayes|report|jsonconf|safefile|cluster|bench|figure|strconv|pflag|cobra|fs|os)\.[A-Z]\w*|` +
	`invalid argument ".*" for|accepts \d+ arg\(s\)|\bfloat64\b|\bint64\b|\buint64\b|invalid character 'ï'|` +
	`invalid configuration|invalid config:|invalid gauss config`)

// TestBadInputTable runs a table of bad inputs to every command: each is
// exit 2 with one line on standard error that names the input (the flag,
// argument or file), shows none of Go's internals, and nothing on standard
// output.
func TestBadInputTable(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string { return writeTestFile(t, dir, name, body) }
	bin := file("binary.json", `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	gm := file("gauss.json", `{"names": ["X", "Y", "Z"], "cov": [[1, 0.5, 0.3], [0.5, 1, 0.2], [0.3, 0.2, 1]], "private": "X", "reconstructor": ["Y"], "adversaries": [["Z"]]}`)
	fin := file("finite.json", `{"prior": [0.5, 0.5], "reconstructor": {"channel": [[0.9, 0.1], [0.1, 0.9]]}, "adversaries": [{"channel": [[0.7, 0.3], [0.3, 0.7]]}]}`)
	bom := file("bom.json", "\uFEFF"+`{"p": 0.5, "q_y": 0.2, "q_z": [0.3]}`)
	ptype := file("ptype.json", `{"p": "x", "q_y": 0.2, "q_z": [0.3]}`)
	prange := file("prange.json", `{"p": 2, "q_y": 0.2, "q_z": [0.3]}`)
	list := file("list.json", `[1, 2]`)
	garbage := file("garbage.json", `garbage`)
	unknown := file("unknown.json", `{"zzz": 1}`)
	gbad := file("gbad.json", `{"names": ["X"]}`)
	fbad := file("fbad.json", `{"prior": [0.5, 0.5], "reconstructor": {"channel": [[1, 0], [0, 1]]}, "adversaries": [{"channel": [[0.5, 0.5], [0.5]]}]}`)
	fnan := file("fnan.json", `{"prior": [0.5, 0.5], "reconstructor": {"channel": [[NaN, 0], [0, 1]]}, "adversaries": [{"channel": [[0.5, 0.5], [0.5, 0.5]]}]}`)
	ch := file("channel.json", `{"channel": [[0.9, 0.1], [0.1, 0.9]]}`)
	chCSV := file("channel.csv", "0.9,0.1\n0.1,0.9\n")
	nanCh := file("nan.json", `{"channel": [[NaN, 1], [0, 1]]}`)
	nanList := file("nanlist.json", `[{"channel": [[NaN, 1], [0, 1]]}]`)
	nanCSV := file("nan.csv", "nan,1\n0,1\n")
	rows3 := file("rows3.json", `{"channel": [[0.9, 0.1], [0.1, 0.9], [0.5, 0.5]]}`)
	pointsBad := file("points.csv", "abc,channel.json\n")
	pointsEmpty := file("empty.json", `[]`)
	certOf := func(name, model, priv string) string {
		return file(name, `{"format": "mmds-certificate/1", "model": "binary", "model_file": "`+model+`", "points": [{"D": 0.1, "privatizer": "`+priv+`", "pass": true, "verdict": "pass"}], "pass": true}`)
	}
	certAbs := certOf("cert-abs.json", "/etc/hostname", "channel.json")
	certUp := certOf("cert-up.json", "binary.json", "../../channel.json")
	outLink := filepath.Join(dir, "out-link.csv")
	if err := os.Symlink(ch, outLink); err != nil {
		t.Fatal(err)
	}
	long := file("long.json", `{"p": "`+strings.Repeat("k", 100000)+`"}`)
	missing := filepath.Join(dir, "no-such.json")
	many := func(item string, n int) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	bin65 := file("bin65.json", `{"p": 0.5, "q_y": 0.2, "q_z": [`+many("0.3", 65)+`]}`)
	gauss65 := file("gauss65.json", `{"names": ["X", "Y", "Z"], "cov": [[1, 0.5, 0.3], [0.5, 1, 0.2], [0.3, 0.2, 1]], "private": "X", "reconstructor": ["Y"], "adversaries": [`+many(`["Z"]`, 65)+`]}`)
	noFolder := filepath.Join(dir, "no", "such", "out.txt")
	notResults := t.TempDir()
	labelsBin, labelsGauss := filepath.Join(dir, "labels-binary"), filepath.Join(dir, "labels-gauss")
	for _, l := range []struct {
		dir  string
		kind model.Kind
		d    float64
	}{{labelsBin, model.Binary, 0.1}, {labelsGauss, model.Gauss, 2}} {
		if err := os.Mkdir(l.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		syntheticLabels(t, l.dir, l.kind, l.d)
	}
	kernel := file("kernel.json", `{"kernel": {"edges": [0, 4], "prob": [[1, 0], [0, 1], [1, 0]]}}`)
	kernelReveal := file("kreveal.json", `{"kernel": {"edges": [0, 4], "prob": [[1, 0], [0, 1], [1, 0]], "reveal": 1}}`)
	kernelKey := file("kkey.json", `{"kernel": {"edges": [0, 4], "prob": [[1, 0], [0, 1], [1, 0]], "Reveal": 0.5}}`)

	cases := []struct {
		args []string
		name string // the input the message must name
	}{
		// root
		{[]string{"nosuch"}, `"nosuch"`},
		{[]string{"--nosuch"}, "--nosuch"},
		{[]string{"extra", "args"}, "extra"},
		// binary
		{[]string{"binary", "--p", "abc"}, `--p "abc": not a number`},
		{[]string{"binary", "--p", "0.5", "--p", "0.6"}, "--p"},
		{[]string{"binary", "--p", "3"}, "--p"},
		{[]string{"binary", "--p", "-0.1"}, "--p"},
		{[]string{"binary", "--p", "NaN"}, "--p"},
		{[]string{"binary", "--p", "1e999"}, "--p"},
		{[]string{"binary", "--qy", "2"}, "--qy"},
		{[]string{"binary", "--qy", "0.1", "--qy", "0.1"}, "--qy"},
		{[]string{"binary", "--qz", "a,b"}, "--qz"},
		{[]string{"binary", "--qz", "1.5"}, "--qz"},
		{[]string{"binary", "--d", "-1"}, "--d"},
		{[]string{"binary", "--d", "x"}, "--d"},
		{[]string{"binary", "--d", "Inf"}, "--d"},
		{[]string{"binary", "--d", "0.1", "--sweep", "0:0.2:3"}, "--sweep"},
		{[]string{"binary", "--sweep", "1:2"}, "--sweep"},
		{[]string{"binary", "--sweep", "a:b:3"}, "--sweep"},
		{[]string{"binary", "--sweep", "0:0.2:0"}, "--sweep"},
		{[]string{"binary", "--format", "xml"}, "--format"},
		{[]string{"binary", "--format", "csv", "--format", "json"}, "--format"},
		{[]string{"binary", "--config", bom}, "byte order mark"},
		{[]string{"binary", "--config", ptype}, "ptype.json"},
		{[]string{"binary", "--config", prange}, `field "p"`},
		{[]string{"binary", "--config", list}, "list.json"},
		{[]string{"binary", "--config", garbage}, "garbage.json"},
		{[]string{"binary", "--config", unknown}, `"zzz"`},
		{[]string{"binary", "--config", missing}, "no-such.json"},
		{[]string{"binary", "--config", long}, "long.json"},
		{[]string{"binary", "--config", bin, "--p", "0.5"}, "--p"},
		{[]string{"binary", "--config", bin, "--config", bin}, "--config"},
		{[]string{"binary", "--write-model", "x.txt"}, "--write-model"},
		{[]string{"binary", "--plot", "x.gif"}, "--plot"},
		{[]string{"binary", "-o", noFolder}, "--output"},
		{[]string{"binary", "extra-arg"}, "extra-arg"},
		{[]string{"binary", "-x"}, "-x"},
		{[]string{"binary", "--p"}, "--p"},
		{[]string{"binary", "--global=maybe"}, "--global"},
		{[]string{"binary", "--global", "--global"}, "--global"},
		// finite
		{[]string{"finite", "--time-limit", "5"}, "--time-limit"},
		{[]string{"finite", "--time-limit", "abc"}, "--time-limit"},
		{[]string{"finite", "--time-limit", "-1s"}, "--time-limit"},
		{[]string{"finite", "--alphabet", "0"}, "--alphabet"},
		{[]string{"finite", "--alphabet", "x"}, "--alphabet"},
		{[]string{"finite", "--method", "foo"}, "--method"},
		{[]string{"finite", "--method", "colgen", "--write-model", filepath.Join(dir, "m.mps")}, "--write-model"},
		{[]string{"finite", "--alphabet", "3", "--method", "rays"}, "--method"},
		{[]string{"finite", "--alphabet", "2", "--gap", "0.1"}, "--gap"},
		{[]string{"finite", "--method", "colgen", "--max-subsets", "4"}, "--max-subsets"},
		{[]string{"finite", "--method", "rays", "--gap", "0.1"}, "--gap"},
		{[]string{"finite", "--gap", "2"}, "--gap"},
		{[]string{"finite", "--max-subsets", "0"}, "--max-subsets"},
		{[]string{"finite", "--max-subsets", "x"}, "--max-subsets"},
		{[]string{"finite", "--mechanisms", "--format", "json"}, "--mechanisms"},
		{[]string{"finite", "--config", fbad}, "fbad.json"},
		{[]string{"finite", "--config", gbad}, `"names"`},
		{[]string{"finite", "--config", fnan}, "fnan.json"},
		{[]string{"finite", "--config", bom}, "byte order mark"},
		{[]string{"finite", "--config", fin, "--d", "-0.5"}, "--d"},
		{[]string{"finite", "-o", noFolder}, "--output"},
		// gauss
		{[]string{"gauss", "--config", gbad}, "gbad.json"},
		{[]string{"gauss", "--config", fbad}, "fbad.json"},
		{[]string{"gauss", "--config", bin}, "binary.json"},
		{[]string{"gauss", "--config", bom}, "byte order mark"},
		{[]string{"gauss", "--samples", "3", "--monte-carlo"}, "--samples"},
		{[]string{"gauss", "--seed", "5"}, "--seed"},
		{[]string{"gauss", "--seed", "-1", "--monte-carlo"}, "--seed"},
		{[]string{"gauss", "--d", "x"}, "--d"},
		{[]string{"gauss", "--format", "yaml"}, "--format"},
		{[]string{"gauss", "extra"}, "extra"},
		{[]string{"gauss", "--plot", "x.txt"}, "--plot"},
		{[]string{"gauss", "-o", noFolder}, "--output"},
		{[]string{"gauss", "--out", filepath.Join(dir, "a"), "--output", filepath.Join(dir, "b")}, "--output"},
		{[]string{"gauss", "--samples", "x"}, "--samples"},
		// train
		{[]string{"train"}, "train"},
		{[]string{"train", "foo"}, `"foo"`},
		{[]string{"train", "finite"}, "finite"},
		{[]string{"train", "a", "b"}, `"a"`},
		{[]string{"train", "gauss", "--preset", "x"}, "--preset"},
		// A long default is not started without a word: --preset is asked for.
		{[]string{"train", "binary"}, "give --preset quick"},
		{[]string{"train", "gauss", "--out", filepath.Join(dir, "np")}, "give --preset quick"},
		{[]string{"train", "binary", "--d", "0.1", "--epochs", "3", "--accept", "1"}, "give --preset quick"},
		{[]string{"train", "data", "--csv", "../../examples/data/discrete.csv", "--private", "x", "--reconstructor", "y", "--adversary", "z1"}, "give --preset quick"},
		{[]string{"train", "gauss", "--preset", ""}, `--preset "": empty: give paper or quick`},
		{[]string{"train", "gauss", "--preset", "quick", "--out", ""}, `--out "": empty: give a folder`},
		{[]string{"binary", "-o", ""}, `--output "": empty: give a file name`},
		// K is capped at 64 on every model, as the finite model's sizes are.
		{[]string{"binary", "--config", bin65}, `"q_z" has 65 entries: at most 64 adversaries`},
		{[]string{"binary", "--qz", many("0.3", 65)}, "--qz: 65 adversaries: at most 64"},
		{[]string{"gauss", "--config", gauss65}, `"adversaries" has 65 entries: at most 64`},
		{[]string{"certify", "--model", bin65, "--privatizer", ch, "--d", "0.1"}, "at most 64 adversaries"},
		{[]string{"train", "binary", "--preset", "quick", "--config", bin65}, "at most 64 adversaries"},
		// An empty argument is not the current folder.
		{[]string{"verify", ""}, "verify: argument 1 is empty: give DIR"},
		{[]string{"plot", " "}, "plot: argument 1 is empty: give DIR"},
		{[]string{"export", ""}, "export: argument 1 is empty: give DIR"},
		{[]string{"bench", "library", ""}, "bench library: argument 1 is empty: give DIR"},
		{[]string{"bench", "run", ""}, "bench run: argument 1 is empty: give DIR"},
		{[]string{"train", ""}, "train: argument 1 is empty"},
		{[]string{"train", "gauss", "--workers", "0"}, "--workers"},
		{[]string{"train", "gauss", "--workers", "x"}, "--workers"},
		{[]string{"train", "gauss", "--k8s-image", "x"}, "--k8s-image"},
		{[]string{"train", "gauss", "--slurm-cpus", "3"}, "--slurm-cpus"},
		{[]string{"train", "gauss", "--slurm", filepath.Join(dir, "jobs"), "--workers", "3"}, "--workers"},
		{[]string{"train", "gauss", "--k8s", filepath.Join(dir, "k8s"), "--format", "json"}, "--format"},
		{[]string{"train", "gauss", "--epochs", "0"}, "--epochs"},
		{[]string{"train", "gauss", "--tau", "-1"}, "--tau"},
		{[]string{"train", "gauss", "--config", list}, "list.json"},
		{[]string{"train", "binary", "--sweep", "0:0.5:3"}, "D_max"},
		{[]string{"train", "gauss", "--samples", "1"}, "--samples"},
		{[]string{"train", "gauss", "--seed", "x"}, "--seed"},
		{[]string{"train", "gauss", "--seed", "18446744073709551616"}, "from 0 to 18446744073709551615"},
		{[]string{"train", "gauss", "--seed", "1", "--seed", "2"}, "--seed"},
		{[]string{"train", "gauss", "--accept", "5", "--max-attempts", "2"}, "--max-attempts"},
		// verify
		{[]string{"verify"}, "DIR"},
		{[]string{"verify", "a", "b"}, `"a"`},
		{[]string{"verify", notResults, "--tol-band", "-1"}, "--tol-band"},
		{[]string{"verify", notResults, "--tol-adv-se", "x"}, "--tol-adv-se"},
		{[]string{"verify", notResults, "--reference", "foo"}, "reference"},
		{[]string{"verify", notResults, "--check", ch, "--summary"}, "--summary"},
		{[]string{"verify", notResults, "--summary", "--format", "csv"}, "--format"},
		{[]string{"verify", filepath.Join(dir, "nope")}, "nope"},
		{[]string{"verify", notResults}, notResults},
		{[]string{"verify", notResults, "--test-size", "0"}, "test-size"},
		{[]string{"verify", notResults, "--format", "xml"}, "--format"},
		{[]string{"verify", notResults, "-o", noFolder}, "--output"},
		// certify
		{[]string{"certify", "--privatizer", ch, "--d", "0.1"}, "--model"},
		{[]string{"certify", "--model", missing, "--privatizer", ch, "--d", "0.1"}, "no-such.json"},
		{[]string{"certify", "--model", garbage, "--privatizer", ch, "--d", "0.1"}, "garbage.json"},
		{[]string{"certify", "--model", unknown, "--privatizer", ch, "--d", "0.1"}, "not a model file"},
		{[]string{"certify", "--model", bom, "--privatizer", ch, "--d", "0.1"}, "byte order mark"},
		{[]string{"certify", "--model", fbad, "--privatizer", ch, "--d", "0.1"}, "not a valid finite model"},
		{[]string{"certify", "--model", prange, "--privatizer", ch, "--d", "0.1"}, "not a valid binary model"},
		{[]string{"certify", "--model", bin, "--privatizer", nanCh, "--d", "0.1"}, "NaN"},
		{[]string{"certify", "--model", bin, "--privatizer", nanList, "--d", "0.1"}, "NaN"},
		{[]string{"certify", "--model", bin, "--privatizer", nanCSV, "--d", "0.1"}, "NaN"},
		{[]string{"certify", "--model", bin, "--privatizer", bom, "--d", "0.1"}, "byte order mark"},
		{[]string{"certify", "--model", bin, "--privatizer", list, "--d", "0.1"}, "list.json"},
		{[]string{"certify", "--model", bin, "--privatizer", rows3, "--d", "0.1"}, "rows3.json"},
		{[]string{"certify", "--model", bin, "--privatizer", chCSV, "--d", "0.5"}, "D_max"},
		{[]string{"certify", "--model", bin, "--privatizer", ch, "--d", "-0.1"}, "D = -0.1"},
		{[]string{"certify", "--model", bin, "--privatizer", ch, "--d", "x"}, "--d"},
		{[]string{"certify", "--model", bin, "--privatizer", ch}, "--d"},
		{[]string{"certify", "--model", bin, "--privatizer", ch, "--d", "0.1", "--points", pointsBad}, "--points"},
		{[]string{"certify", "--model", bin, "--points", pointsBad}, "points.csv"},
		{[]string{"certify", "--model", bin, "--points", pointsEmpty}, "empty.json"},
		{[]string{"certify", "--model", bin, "--privatizer", ch, "--d", "0.1", "--tol-expect", "1"}, "--tol-expect"},
		{[]string{"certify", "--model", gm, "--privatizer", ch, "--d", "0.1", "--tol-expect", "0.001"}, "--tol-expect"},
		{[]string{"certify", "--model", bin, "--privatizer", ch, "--d", "0.1", "--summary", "--format", "json"}, "--format"},
		{[]string{"certify", "--model", fin, "--privatizer", ch, "--d", "0.1", "--plot", filepath.Join(dir, "p.png")}, "--plot"},
		{[]string{"certify", "--check", ch, "--d", "0.1"}, "--d"},
		{[]string{"certify", "--check", certAbs}, "model_file"},
		{[]string{"certify", "--model", bin, "--privatizer", chCSV, "--d", "0.1", "-o", outLink}, "out-link.csv"},
		{[]string{"certify", "--check", certUp}, "points[0].privatizer"},
		{[]string{"certify", "--check", certUp, "--points", pointsEmpty}, "empty.json"},
		{[]string{"certify", "--model", bin, "--privatizer", ch, "--d", "0.1", "--d", "0.2"}, "--d"},
		{[]string{"certify", "--model", gm, "--privatizer", ch, "--d", "0.1"}, "channel"},
		{[]string{"certify", "--model", bin, "--privatizer", kernel, "--d", "0.1"}, "kernel.json is a cell kernel"},
		{[]string{"certify", "--model", fin, "--privatizer", kernel, "--d", "0.1"}, "kernel.json is a cell kernel"},
		{[]string{"certify", "--model", gm, "--privatizer", kernelReveal, "--d", "2"}, `kreveal.json: "reveal" = 1`},
		{[]string{"certify", "--model", gm, "--privatizer", kernelKey, "--d", "2"}, `"Reveal"`},
		// optimum
		{[]string{"optimum"}, "--model"},
		{[]string{"optimum", "--model", missing}, "no-such.json"},
		{[]string{"optimum", "--model", unknown}, "not a model file"},
		{[]string{"optimum", "--model", fbad}, "not a valid finite model"},
		{[]string{"optimum", "--model", bin, "--d", "-0.1"}, "--d"},
		{[]string{"optimum", "--model", gm, "--d", "0.1", "--sweep", "0:1:3"}, "--sweep"},
		{[]string{"optimum", "--model", fin, "--format", "xml"}, "--format"},
		{[]string{"optimum", "--model", bin, "--max-points", "-1"}, "--max-points"},
		{[]string{"optimum", "extra"}, "extra"},
		// export
		{[]string{"export", labelsBin, "--d", "0.1", "--onnx", "-o", filepath.Join(dir, "p.onnx")}, "--onnx: the privatizer at D = 0.1 is the labels method's channel P(F | X)"},
		{[]string{"export", labelsGauss, "--onnx", "-o", filepath.Join(dir, "p.onnx")}, "--onnx: the privatizer at D = 2 is the labels method's cell kernel"},
		{[]string{"certify", "extra"}, "extra"},
		// plot
		{[]string{"plot"}, "DIR"},
		{[]string{"plot", filepath.Join(dir, "nope")}, "nope"},
		{[]string{"plot", "a", "b"}, `"a"`},
		// bench
		{[]string{"bench", "--n", "1:9"}, "--n"},
		{[]string{"bench", "--time-limit", "x"}, "--time-limit"},
		{[]string{"bench", "--k", "0"}, "--k"},
		{[]string{"bench", "--fractions", "2"}, "--fractions"},
		{[]string{"bench", "--instances", "0"}, "--instances"},
		{[]string{"bench", "--threads", "100"}, "--threads"},
		{[]string{"bench", "--seed", "1", "--seed", "2"}, "--seed"},
		{[]string{"bench", "library"}, "DIR"},
		{[]string{"bench", "run", filepath.Join(dir, "nolib")}, "nolib"},
		// completion
		{[]string{"completion", "tcsh"}, `"tcsh"`},
		{[]string{"completion"}, "bash, zsh, fish, powershell"},
		{[]string{"completion", "bash", "zsh"}, "completion"},
	}
	if len(cases) < 100 {
		t.Fatalf("%d cases: the table should cover at least 100 bad inputs", len(cases))
	}
	for _, c := range cases {
		code, out, errs := runCLIQuick(t, c.args...)
		short := c.args
		if len(short) > 8 {
			short = short[:8]
		}
		switch {
		case code != 2:
			t.Errorf("%q: exit %d, want 2; stderr %q", short, code, errs)
		case out != "":
			t.Errorf("%q: stdout %q, want nothing", short, out)
		case strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "mmds: ") || !strings.HasSuffix(errs, "\n"):
			t.Errorf("%q: stderr %q, want one line starting with \"mmds: \"", short, errs)
		case goInternals.MatchString(errs):
			t.Errorf("%q: stderr %q shows Go internals (%q)", short, errs, goInternals.FindString(errs))
		case !strings.Contains(errs, c.name):
			t.Errorf("%q: stderr %q does not name %q", short, errs, c.name)
		case len(errs) > 600:
			t.Errorf("%q: stderr has %d bytes: a message quotes a short excerpt at most", short, len(errs))
		}
	}
}

// TestMain lets the test binary stand in for mmds when a test runs it as a
// program (the bash completion test calls "mmds __complete …"). The
// certificate cache is off unless a test turns it on (t.Setenv): the tests
// never touch the user's cache, and each computes what it checks.
func TestMain(m *testing.M) {
	if os.Getenv("MMDS_TEST_AS_MMDS") == "1" {
		main()
		return
	}
	os.Setenv(verify.CacheEnv, "off")
	os.Exit(m.Run())
}

// TestBashCompletionPlainBash sources the bash script in a bash without the
// bash-completion package (--norc, no /etc files) and completes command
// lines through COMP_WORDS/COMP_CWORD as bash does on Tab.
func TestBashCompletionPlainBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	if out, err := exec.Command(bash, "--norc", "--noprofile", "-c", "echo ok").Output(); err != nil || string(out) != "ok\n" {
		t.Skipf("bash does not run: %v %q", err, out)
	}
	code, script, errs := runCLI(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("completion bash: exit %d, %s", code, errs)
	}
	dir := t.TempDir()
	writeTestFile(t, dir, "comp.bash", script)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(dir, "mmds")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	// Files to complete. File names are completed as they are, never as
	// patterns: "[m].json" is offered as itself, not as the m.json its
	// name matches as a glob, and "q?.json" once, not with every file it
	// matches.
	work := t.TempDir()
	for _, f := range []string{"model.json", "notes.txt", "fig.png", "m.json", "[m].json", "q?.json", "qq.json", "a b.json", "*.json"} {
		writeTestFile(t, work, f, "{}")
	}
	if err := os.Mkdir(filepath.Join(work, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line string // the words typed; the last is completed
		want string // COMPREPLY, sorted, space-separated
	}{
		{"mmds ", "bench binary certify completion export finite gauss help optimum plot train verify version"},
		{"mmds tr", "train"},
		{"mmds train ", "binary data finite gauss"},
		{"mmds train g", "gauss"},
		{"mmds train binary --method ", "alg1 labels"},
		{"mmds train finite --observers ", "data law"},
		{"mmds finite --method ", "auto colgen rays"},
		{"mmds finite --method c", "colgen"},
		{"mmds finite --method=r", "rays"},
		{"mmds finite --alphabet gl", "global"},
		{"mmds binary --format ", "csv json table"},
		{"mmds gauss --format=j", "json"},
		{"mmds train gauss --preset ", "paper quick"},
		{"mmds verify results --reference ", "best paper"},
		{"mmds bench run lib --tier ", "easy hard medium open"},
		{"mmds completion ", "bash fish powershell zsh"},
		{"mmds certify --model ", "*.json [m].json a b.json m.json model.json q?.json qq.json results/"},
		{"mmds gauss --plot ", "fig.png results/"},
		{"mmds plot ", "results/"},
		{"mmds train gauss --out ", "results/"},
		{"mmds binary --gl", "--global"},
	}
	var prog strings.Builder
	prog.WriteString("compopt() { :; }\nsource ./comp.bash\n")
	prog.WriteString(`try() {
    COMP_LINE=$1; COMP_POINT=${#COMP_LINE}
    read -ra COMP_WORDS <<< "$COMP_LINE"
    [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
    # bash splits at = as COMP_WORDBREAKS says
    local w out=() ; for w in "${COMP_WORDS[@]}"; do
        if [[ $w == *=* ]]; then out+=("${w%%=*}" "=" "${w#*=}"); else out+=("$w"); fi
    done
    COMP_WORDS=("${out[@]}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    __start_mmds
    printf '%s\n' "${COMPREPLY[@]}" | sed 's/[[:space:]]*$//' | sort | tr '\n' ' '; echo
}
`)
	for _, c := range cases {
		prog.WriteString("try '" + c.line + "'\n")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", "cd "+work+" && "+"source "+filepath.Join(dir, "prog.bash"))
	writeTestFile(t, dir, "prog.bash", strings.ReplaceAll(prog.String(), "./comp.bash", filepath.Join(dir, "comp.bash")))
	cmd.Env = append(os.Environ(), "MMDS_TEST_AS_MMDS=1", "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "BASH_ENV=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "command not found") {
		t.Fatalf("the script needs a function plain bash lacks:\n%s", out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("bash printed %d lines for %d cases:\n%s", len(lines), len(cases), out)
	}
	for i, c := range cases {
		if got := strings.TrimSpace(lines[i]); got != c.want {
			t.Errorf("%q<TAB>: got %q, want %q", c.line, got, c.want)
		}
	}
}

// -o/--output FILE writes exactly what standard output would show, on every
// command that has it; gauss's old --out still works, with a note.
func TestOutputFlagEverywhere(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"binary", "--d", "0.1", "--format", "csv"},
		{"finite", "--d", "0.1", "--format", "json"},
		{"gauss", "--d", "1", "--format", "csv"},
		{"optimum", "--model", "../../examples/finite-ternary.json", "--d", "0.1", "--format", "json"},
		{"bench", "--quiet", "--format", "csv", "--n", "2:2", "--k", "1", "--fractions", "0.5"},
	} {
		code, want, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, errs)
		}
		path := filepath.Join(dir, args[0]+".out")
		code, out, errs := runCLI(t, append(args, "-o", path)...)
		got, err := os.ReadFile(path)
		if args[0] == "bench" { // the "ms" column is a solve time
			got, want = []byte(dropCSVColumn(string(got), 7)), dropCSVColumn(want, 7)
		}
		if code != 0 || out != "" || err != nil || !sameOutput(string(got), want) {
			t.Errorf("%v -o: exit %d, stdout %q, stderr %q, file %q (err %v); want the file to hold %q", args, code, out, errs, got, err, want)
		}
	}
	// --out is a folder wherever it is a flag (train, plot); a command
	// that writes one file says so in one line and writes nothing.
	path := filepath.Join(dir, "old.json")
	for _, c := range []string{"gauss", "verify", "certify", "binary", "finite", "export", "bench"} {
		code, out, errs := runCLI(t, c, "--out", path)
		if _, err := os.Stat(path); code != exitUsage || out != "" || err == nil || strings.Count(errs, "\n") != 1 ||
			!strings.Contains(errs, "--out names a folder (on train and plot); this command writes one file: give -o/--output FILE") {
			t.Errorf("%s --out: exit %d, stderr %q, file: %v", c, code, errs, err)
		}
	}
}

// dropCSVColumn removes column i of every line of a CSV without quotes.
func dropCSVColumn(s string, i int) string {
	lines := strings.Split(s, "\n")
	for k, l := range lines {
		if f := strings.Split(l, ","); len(f) > i {
			lines[k] = strings.Join(append(f[:i:i], f[i+1:]...), ",")
		}
	}
	return strings.Join(lines, "\n")
}

// sameOutput compares two runs' outputs, ignoring solve times.
func sameOutput(a, b string) bool {
	times := regexp.MustCompile(`"\w+_ms": [0-9.e-]+|,[0-9.e-]+\n`)
	return times.ReplaceAllString(a, "") == times.ReplaceAllString(b, "")
}

// certify --summary prints verify's short form: the counts, the reference
// line, one line per privatizer (with the gap to the global optimum).
func TestCertifySummary(t *testing.T) {
	dir := t.TempDir()
	m := writeTestFile(t, dir, "model.json", `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	ch := writeTestFile(t, dir, "channel.csv", "0.9,0.1\n0.1,0.9\n")
	code, out, errs := runCLI(t, "certify", "--model", m, "--privatizer", ch, "--d", "0.1", "--summary")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.Contains(lines[0], "1 of 1 privatizers pass") || !strings.Contains(lines[1], "verdicts against Proposition 2") ||
		lines[2] != "  "+ch+":" || !strings.Contains(lines[3], " global ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
