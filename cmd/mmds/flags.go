package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/decimal"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/sweep"
)

// thresholds returns the distortion thresholds chosen by --d or --sweep
// (mutually exclusive; given says which the user gave), or def when
// neither is set.
func thresholds(given func(flag string) bool, d float64, sweepStr string, def sweep.Spec) ([]float64, error) {
	ds, err := thresholdFlags(given, d, sweepStr)
	if ds == nil && err == nil {
		ds = def.Values()
	}
	return ds, err
}

// thresholdFlags returns the distortion thresholds chosen by --d or --sweep
// (mutually exclusive), nil when neither is set.
func thresholdFlags(given func(flag string) bool, d float64, sweepStr string) ([]float64, error) {
	ds, err := sweep.Thresholds(given("d"), d, given("sweep"), sweepStr)
	return ds, asUsage(err)
}

// outputFormat validates --format.
func outputFormat(s string) (report.Format, error) {
	f, err := report.ParseFormat(s)
	if err != nil {
		return "", usageError{err}
	}
	return f, nil
}

// emit writes g as a table or CSV, or v as JSON, to w.
func emit(w io.Writer, f report.Format, g *report.Grid, v any) error {
	switch f {
	case report.CSV:
		return g.RenderCSV(w)
	case report.JSON:
		return report.WriteJSON(w, v)
	}
	return g.RenderTable(w)
}

// writeOutput renders a command's whole output into memory, then writes
// it to standard output or, when path is set (-o/--output FILE),
// atomically to that file.
func writeOutput(stdout io.Writer, path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	return writeBytes(stdout, path, buf.Bytes())
}

// writeBytes writes b to standard output or, when path is set, atomically
// to that file.
func writeBytes(stdout io.Writer, path string, b []byte) error {
	if path == "" {
		_, err := stdout.Write(b)
		return err
	}
	return report.WriteFile(path, b)
}

// checkPaths refuses, before any work, an output that cannot be written
// (a folder, FIFO, device, dangling link, missing or read-only folder) or
// that would replace an input, another output, or a file an mmds folder
// reserves; and a folder of the wrong kind (report.CheckPaths): exit 2.
func checkPaths(paths ...report.Path) error {
	return asUsage(report.CheckPaths(paths))
}

// stdoutPath maps an -o value of "-" (standard output) to "".
func stdoutPath(path string) string {
	if path == "-" {
		return ""
	}
	return path
}

// guardFlags wraps the value of every flag of c and its subcommands so that
// a scalar flag given twice (--p 0.5 --p 0.6) is refused instead of keeping
// the last, and a value that does not parse is named in words a person can
// act on (flagError) rather than in the parser's. List flags (--qz, --k)
// stay repeatable.
func guardFlags(c *cobra.Command) {
	wrapped := map[pflag.Value]pflag.Value{} // an alias shares its flag's value
	guard := func(f *pflag.Flag) {
		if _, done := f.Value.(guarded); done {
			return
		}
		if w, ok := wrapped[f.Value]; ok {
			f.Value = w
			return
		}
		g := &guardedValue{Value: f.Value, flag: f, cmd: c}
		var w pflag.Value = g
		if s, ok := f.Value.(pflag.SliceValue); ok {
			w = &guardedSlice{guardedValue: g, SliceValue: s}
		}
		wrapped[f.Value], f.Value = w, w
	}
	c.Flags().VisitAll(guard)
	c.PersistentFlags().VisitAll(guard)
	// A default the help already explains in words ("default: the cores")
	// is not repeated by pflag's "(default 2)".
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if strings.Contains(f.Usage, "(default") {
			f.DefValue = ""
		}
	})
	for _, sub := range c.Commands() {
		guardFlags(sub)
	}
}

// guarded marks a flag value guardFlags has wrapped.
type guarded interface{ guardedFlag() *guardedValue }

// guardedValue is a flag value that counts its Set calls; an alias flag
// (a hidden old spelling) shares the value of the flag it stands for, so
// --output a --out b is a repeat too.
type guardedValue struct {
	pflag.Value
	flag  *pflag.Flag
	cmd   *cobra.Command // the command the flag belongs to
	sets  int
	first string
}

func (v *guardedValue) guardedFlag() *guardedValue { return v }

func (v *guardedValue) Set(s string) error {
	_, list := v.Value.(pflag.SliceValue)
	if v.sets > 0 && !list {
		return &flagError{flag: v.flag, value: s, msg: fmt.Sprintf("given twice (%s, then %s): give it once", safefile.Excerpt(v.first), safefile.Excerpt(s))}
	}
	hint := func(err error) string {
		if h, ok := v.Value.(interface{ hint() string }); ok {
			return h.hint() // a value with a fixed set of names says them
		}
		return valueHint(v.Value.Type(), err)
	}
	if strings.TrimSpace(s) == "" {
		return &flagError{flag: v.flag, value: s, msg: "empty: give " + v.valueName()}
	}
	canon, err := canonical(v.Value.Type(), s)
	if err == nil {
		err = v.Value.Set(canon)
	}
	if err != nil {
		return &flagError{flag: v.flag, value: s, msg: hint(err)}
	}
	if v.sets == 0 {
		v.first = s
	}
	v.sets++
	return nil
}

// Type names the flag's value in help (pflag.UnquoteUsage) in words:
// "number", "numbers", "FILE", not float64Slice or stringArray.
func (v *guardedValue) Type() string {
	if n, ok := fileFlags[v.flag.Name]; ok && v.Value.Type() == "string" {
		return n
	}
	if n, ok := typeNames[v.Value.Type()]; ok {
		return n
	}
	return v.Value.Type()
}

// typeNames are the readable names of pflag's value types.
var typeNames = map[string]string{
	"float64": "number", "float32": "number", "float64Slice": "numbers", "float32Slice": "numbers",
	"int": "int", "int64": "int", "int32": "int", "uint": "int", "uint64": "int", "uint32": "int",
	"intSlice": "ints", "int64Slice": "ints", "int32Slice": "ints", "uintSlice": "ints",
	"stringSlice": "strings", "stringArray": "strings", "durationSlice": "durations",
}

// fileFlags name the value of the flags that take a path, whatever the
// command.
var fileFlags = map[string]string{
	"output": "FILE", "config": "FILE", "model": "FILE", "privatizer": "FILE", "points": "FILE", "check": "FILE",
	"certificate": "FILE", "plot": "FILE", "profile": "FILE", "write-model": "FILE", "json-out": "FILE", "data": "FILE",
	"out": "DIR", "slurm": "DIR", "k8s": "DIR", "write-mps": "DIR",
}

// valueName says what the flag's value is, for "give …": a file name, a
// folder, a number, one of the values completion offers.
func (v *guardedValue) valueName() string {
	f := v.flag
	name, _ := pflag.UnquoteUsage(f)
	switch name {
	case "FILE":
		if f.Name == "output" {
			return "a file name (or - for standard output)"
		}
		return "a file name"
	case "DIR":
		return "a folder"
	case "number", "numbers", "int", "ints", "duration":
		return wantWords(v.Value.Type())
	}
	if h, ok := v.Value.(interface{ hint() string }); ok {
		return strings.TrimPrefix(h.hint(), "must be ")
	}
	if comp, ok := v.cmd.GetFlagCompletionFunc(f.Name); ok {
		vals, dir := comp(v.cmd, nil, "")
		if dir&cobra.ShellCompDirectiveNoFileComp != 0 && dir&cobra.ShellCompDirectiveNoSpace == 0 && len(vals) > 0 {
			words := make([]string, len(vals))
			for i, c := range vals {
				words[i], _, _ = strings.Cut(c, "\t")
			}
			return orList(words)
		}
	}
	return "a value (see " + v.cmd.CommandPath() + " --help)"
}

// orList writes "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// canonical checks a number (or each of a list of numbers) against the
// syntax people write (package decimal: no hexadecimal, no 1_000, no inf
// or nan) and writes it as pflag reads it: integers in base 10 (pflag's
// base-0 parse would read 010 as 8). Other values pass unchanged.
func canonical(typ string, s string) (string, error) {
	elem := strings.TrimSuffix(typ, "Slice")
	isFloat := elem == "float64" || elem == "float32"
	isInt := strings.HasPrefix(elem, "int") || strings.HasPrefix(elem, "uint")
	if !isFloat && !isInt {
		return s, nil
	}
	parts := []string{s}
	if elem != typ {
		parts = strings.Split(s, ",")
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if isFloat {
			if _, err := decimal.Float(p); err != nil {
				return "", err
			}
			parts[i] = p
			continue
		}
		if strings.HasPrefix(elem, "uint") {
			n, err := decimal.Uint(p)
			if err != nil {
				return "", err
			}
			parts[i] = strconv.FormatUint(n, 10)
			continue
		}
		n, err := decimal.Int(p)
		if err != nil {
			return "", err
		}
		parts[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(parts, ","), nil
}

// guardedSlice keeps a list flag's pflag.SliceValue visible (completion
// offers a list flag again after it was given).
type guardedSlice struct {
	*guardedValue
	pflag.SliceValue
}

func (v *guardedSlice) Set(s string) error { return v.guardedValue.Set(s) }
func (v *guardedSlice) String() string     { return v.guardedValue.String() }

// flagError is a bad flag value: "--p "abc": not a number".
type flagError struct {
	flag  *pflag.Flag
	value string
	msg   string
}

func (e *flagError) Error() string {
	return fmt.Sprintf("--%s %s: %s", e.flag.Name, safefile.Excerpt(e.value), e.msg)
}

// valueHint says what a value of a flag type looks like, without the
// parser's own words (strconv's, time's).
func valueHint(typ string, err error) string {
	if errors.Is(err, strconv.ErrRange) || errors.Is(err, decimal.ErrRange) {
		switch strings.TrimSuffix(typ, "Slice") {
		case "uint64", "uint":
			return "out of range: want a whole number from 0 to 18446744073709551615"
		case "int64", "int":
			return "out of range: want a whole number from −9223372036854775808 to 9223372036854775807"
		case "float32":
			return "out of range: want a number of magnitude at most 3.4e38"
		}
		return "out of range: want a number of magnitude at most 1.8e308"
	}
	switch strings.TrimSuffix(typ, "Slice") {
	case "float64", "float32", "int", "int64", "int32", "uint64", "uint", "uint32":
		return "not a number: want " + wantWords(typ)
	case "duration":
		return "not a duration: want " + wantWords(typ)
	case "bool":
		return "want true or false"
	}
	return "not a valid value"
}

// wantWords says what a value of a flag type looks like.
func wantWords(typ string) string {
	list := ""
	if strings.HasSuffix(typ, "Slice") {
		list = ", or several separated by commas"
	}
	switch strings.TrimSuffix(typ, "Slice") {
	case "float64", "float32":
		return "a decimal number such as 0.25, .5, 2 or 1e-3" + list
	case "int", "int64", "int32":
		return "a whole number in decimal digits, such as 10" + list
	case "uint64", "uint", "uint32":
		return "a whole number ≥ 0 in decimal digits, such as 10" + list
	case "duration":
		return "a number with a unit, such as 500ms, 30s, 2m or 1h30m (0 for none)"
	}
	return "a value"
}

// toleranceFlagError names the flag behind an invalid verify.Tolerances
// field (verify names the certificate's field: band_tau, …).
func toleranceFlagError(err error) error {
	r := strings.NewReplacer(
		"verify: tolerance band_tau = ", "--tol-band ", "verify: tolerance tau = ", "--tau ",
		"verify: tolerance dist_se = ", "--tol-dist-se ", "verify: tolerance adv_se = ", "--tol-adv-se ",
		"verify: tolerance quad = ", "--tol-quad ", "verify: tolerance abs = ", "--tol-abs ",
		"verify: tolerance test_size = ", "--test-size ", "verify: reference ", "--reference ")
	return badInput("%s", r.Replace(err.Error()))
}

// flagParseError turns pflag's parse errors into one line that names the
// flag, the value and what is wanted, marked as bad input (exit 2).
func flagParseError(cmd *cobra.Command, err error) error {
	var fe *flagError
	var ne *pflag.NotExistError
	var re *pflag.ValueRequiredError
	switch {
	case errors.As(err, &fe):
		return usageError{fe}
	case errors.As(err, &ne) && ne.GetSpecifiedName() == "out" && cmd.Flags().Lookup("output") != nil:
		return badInput("%s--out names a folder (on train and plot); this command writes one file: give -o/--output FILE", subcommand(cmd))
	case errors.As(err, &ne):
		return badInput("%sunknown flag %s (see %s --help)", subcommand(cmd), unknownFlagName(ne), cmd.CommandPath())
	case errors.As(err, &re):
		return badInput("--%s needs a value (%s)", re.GetFlag().Name, re.GetFlag().Usage)
	}
	return usageError{err}
}

func unknownFlagName(e *pflag.NotExistError) string {
	if e.GetSpecifiedShortnames() != "" {
		return safefile.Excerpt("-" + e.GetSpecifiedName())
	}
	return safefile.Excerpt("--" + e.GetSpecifiedName())
}

// outputFlag defines -o/--output FILE, the one spelling of "write the
// output to this file" on every command. (--out names a folder, on train
// and plot; outFlagError answers it elsewhere.)
func outputFlag(f *pflag.FlagSet, p *string) {
	f.StringVarP(p, "output", "o", "", "write the output to this file (atomically, once the command has finished; - is standard output) instead of standard output")
}

// flagRule refuses flags that do not apply to the mode the other flags
// chose: a flag that would be silently ignored is a mistake worth a line
// before any work.
type flagRule struct {
	cmd   string   // the command's path below mmds: "finite", "train"
	flags []string // refused when given ...
	// ... while mode holds; mode describes the mode ("--alphabet 3").
	mode func(fs *pflag.FlagSet) (string, bool)
	why  string // why the flag does not apply there, and the fix
}

// flagRules are the modes of every command (docs/cli.md).
func flagRules() []flagRule {
	return []flagRule{
		{"finite", []string{"method", "max-subsets", "gap"}, fixedAlphabet,
			"a fixed output alphabet is solved as one MIP; drop the flag, or use --alphabet global"},
		{"finite", []string{"max-subsets"}, valueIs("method", "colgen"),
			"--max-subsets bounds the ray enumeration, which column generation does not do; drop it, or use --method auto"},
		{"finite", []string{"gap"}, valueIs("method", "rays"),
			"--gap stops column generation; the ray LP is always solved to optimality; drop it, or use --method auto or colgen"},
		{"finite", []string{"write-model"}, valueIs("method", "colgen"),
			"column generation solves a sequence of LPs, so there is no single model to write; use --method rays or --alphabet m"},
		{"finite", []string{"mechanisms"}, formatNot("table"),
			"--mechanisms adds tables to --format table (JSON has every point's mechanism, CSV has none); drop it"},
		{"train", []string{"k8s-image", "k8s-claim", "k8s-shards", "k8s-parallelism", "k8s-cpus", "k8s-retries"}, unset("k8s"),
			"it configures the Kubernetes manifests of --k8s FOLDER; give --k8s FOLDER, or drop it"},
		{"train", []string{"slurm-shards", "slurm-cpus", "slurm-time", "slurm-partition", "slurm-max-parallel"}, unset("slurm"),
			"it configures the batch scripts of --slurm FOLDER; give --slurm FOLDER, or drop it"},
		{"train", []string{"workers"}, given("slurm"), "each array task trains --slurm-cpus trials at once; drop --workers"},
		{"train", []string{"workers"}, given("k8s"), "each pod trains --k8s-cpus trials at once; drop --workers"},
		{"train", []string{"format", "shard"}, given("slurm"), "--slurm writes batch scripts (each task gets its --shard), not a summary; drop the flag"},
		{"train", []string{"format", "shard"}, given("k8s"), "--k8s writes manifests (each pod gets its --shard), not a summary; drop the flag"},
		{"verify", []string{"format", "summary", "output", "certificate"}, given("check"),
			"--check compares the certificate with DIR and prints one line; drop the flag"},
		{"verify", []string{"data"}, given("check"), "--data is the data file of a run of mmds train data, which has no certificate to check; drop --data"},
		{"verify", []string{"data"}, given("certificate"), "--data is the data file of a run of mmds train data, which has no certificate; drop --data"},
		{"verify", []string{"data"}, given("summary"), "--data is the data file of a run of mmds train data, which has no certification summary; drop --data"},
		{"verify", []string{"format"}, given("summary"), "--summary prints its own short form; give one of --summary and --format"},
		{"certify", []string{"format"}, given("summary"), "--summary prints its own short form; give one of --summary and --format"},
	}
}

// checkFlagModes applies flagRules to the command about to run.
func checkFlagModes(cmd *cobra.Command) error {
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	fs := cmd.Flags()
	for _, r := range flagRules() {
		if r.cmd != path {
			continue
		}
		mode, on := r.mode(fs)
		if !on {
			continue
		}
		for _, name := range r.flags {
			if fs.Lookup(name) != nil && fs.Changed(name) {
				return badInput("--%s does not apply %s: %s", name, mode, r.why)
			}
		}
	}
	return nil
}

// given is the mode "--name was given".
func given(name string) func(*pflag.FlagSet) (string, bool) {
	return func(fs *pflag.FlagSet) (string, bool) { return "with --" + name, fs.Changed(name) }
}

// unset is the mode "--name was not given".
func unset(name string) func(*pflag.FlagSet) (string, bool) {
	return func(fs *pflag.FlagSet) (string, bool) { return "without --" + name, !fs.Changed(name) }
}

// valueIs is the mode "--name is v".
func valueIs(name, v string) func(*pflag.FlagSet) (string, bool) {
	return func(fs *pflag.FlagSet) (string, bool) {
		f := fs.Lookup(name)
		return "with --" + name + " " + v, f != nil && f.Value.String() == v
	}
}

// formatNot is the mode "--format is not v".
func formatNot(v string) func(*pflag.FlagSet) (string, bool) {
	return func(fs *pflag.FlagSet) (string, bool) {
		f := fs.Lookup("format")
		return "with --format " + safefile.Path(f.Value.String()), f.Value.String() != v
	}
}

// fixedAlphabet is finite's mode --alphabet m.
func fixedAlphabet(fs *pflag.FlagSet) (string, bool) {
	a := fs.Lookup("alphabet").Value.String()
	return "with --alphabet " + safefile.Path(a), a != "global"
}
