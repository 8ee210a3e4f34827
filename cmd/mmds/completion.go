package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmds-project/mmds/internal/safefile"
)

// shellNames are the shells mmds completion writes scripts for.
func shellNames() []string { return []string{"bash", "zsh", "fish", "powershell"} }

func newCompletionCmd() *cobra.Command {
	var noDesc bool
	shells := shellNames()
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script for bash, zsh, fish or powershell",
		Long: `completion prints a script that completes mmds's commands, model arguments,
flags, the values of every flag with a fixed set of values (--format, --method,
--alphabet, --preset, --reference, --tier, …) and file names by kind (.json
models, .png/.svg figures, folders for DIR and --out).

The bash script works in plain bash; the bash-completion package is used
when it is loaded, not needed.

  bash:        source <(mmds completion bash)        # or save it in ~/.bashrc's folder
  zsh:         mmds completion zsh > "${fpath[1]}/_mmds"
  fish:        mmds completion fish > ~/.config/fish/completions/mmds.fish
  powershell:  mmds completion powershell | Out-String | Invoke-Expression`,
		Example:   "  source <(mmds completion bash)\n  mmds completion zsh > \"${fpath[1]}/_mmds\"",
		ValidArgs: shells,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput("completion: give one shell: %s", strings.Join(shells, ", "))
			}
			if slices.Contains(shells, args[0]) {
				return nil
			}
			return badInput("completion %s: unsupported shell: want %s", safefile.Excerpt(args[0]), strings.Join(shells, ", "))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeCompletion(cmd.OutOrStdout(), cmd.Root(), args[0], !noDesc)
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "complete without the descriptions of commands and values")
	return cmd
}

// writeCompletion writes root's completion script for shell.
func writeCompletion(w io.Writer, root *cobra.Command, shell string, desc bool) error {
	switch shell {
	case "bash":
		var buf bytes.Buffer
		if err := root.GenBashCompletionV2(&buf, desc); err != nil {
			return err
		}
		_, err := io.WriteString(w, plainBash(buf.String(), root.Name()))
		return err
	case "zsh":
		if desc {
			return root.GenZshCompletion(w)
		}
		return root.GenZshCompletionNoDesc(w)
	case "fish":
		return root.GenFishCompletion(w, desc)
	case "powershell":
		if desc {
			return root.GenPowerShellCompletionWithDesc(w)
		}
		return root.GenPowerShellCompletion(w)
	}
	panic("writeCompletion: unknown shell " + shell) // Args admits only shells
}

// bashShim is the stand-ins of plainBash, %[1]s the program's name.
//
//go:embed completion.bash
var bashShim string

// plainBash makes cobra's bash script (V2) work without the bash-completion
// package: cobra's script calls its _get_comp_words_by_ref and _filedir.
// Each call goes through a stand-in that uses the package's function when
// it is loaded and plain bash (compgen) otherwise.
func plainBash(script, name string) string {
	initOld := fmt.Sprintf("__%s_init_completion()\n{\n    COMPREPLY=()\n    _get_comp_words_by_ref \"$@\" cur prev words cword\n}\n", name)
	initNew := fmt.Sprintf(bashShim, name)
	s := strings.Replace(script, initOld, initNew, 1)
	s = strings.ReplaceAll(s, `filteringCmd="_filedir $fullFilter"`, fmt.Sprintf(`filteringCmd="__%s_filedir $fullFilter"`, name))
	s = strings.ReplaceAll(s, "&& _filedir -d &&", fmt.Sprintf("&& __%s_filedir -d &&", name))
	s = strings.ReplaceAll(s, "\n            _filedir -d\n", fmt.Sprintf("\n            __%s_filedir -d\n", name))
	s = strings.ReplaceAll(s, "\n                    _filedir\n", fmt.Sprintf("\n                    __%s_filedir\n", name))
	return s
}

// flagCompletion completes a flag's value.
type flagCompletion = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// flagCompletions maps a flag name to the completion of its values: the
// fixed sets of values, and file names of the kind the flag reads or
// writes. A name that means different things on different commands
// (--out) is completed per command in registerCompletions.
func flagCompletions() map[string]flagCompletion {
	files := func(exts ...string) flagCompletion {
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return exts, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	comps := map[string]flagCompletion{
		"format":    fixed("table\tan aligned table for reading", "csv\tone row per point, full precision", "json\tthe machine-readable document"),
		"preset":    fixed("paper\tSection V's protocol (hours)", "quick\ta smoke run (seconds)"),
		"reference": fixed("paper\tProposition 1 or 2", "best\tthe best known mechanism / optimum over all privatizers"),
		"method":    fixed("auto\tray LP while n ≤ 4, else column generation", "rays\tthe LP over the extreme rays", "colgen\tcolumn generation"),
		"alphabet":  fixed("global\tevery privatizer, any output alphabet", "2", "3", "4", "5", "6", "7", "8"),
		"tier":      fixed("easy", "medium", "hard", "open"),
		"set":       fixed("benchmark\tthe library's benchmark set", "collection", "all\tevery instance"),
		"observers": fixed("law\tthe model's law", "data\tthe training split's empirical law"),
		"shard": func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return []string{"slurm\tfrom the Slurm array task", "k8s/\tk8s/N: from JOB_COMPLETION_INDEX"},
				cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		},
		// Files read.
		"csv":        files("csv"),
		"data":       files("csv"),
		"config":     files("json"),
		"model":      files("json"),
		"points":     files("json", "csv"),
		"privatizer": files("onnx", "json", "csv"),
		"check":      files("json"),
		// Files written.
		"plot":        files("png", "svg"),
		"profile":     files("png", "svg"),
		"write-model": files("mps", "lp"),
		"certificate": files("json"),
		"json-out":    files("json"),
	}
	// Numbers and names written as text: nothing (not file names).
	for _, name := range []string{"sweep", "n", "slurm-time", "slurm-partition", "k8s-image", "k8s-claim",
		"private", "reconstructor", "adversary", "discrete", "continuous"} {
		comps[name] = noFiles
	}
	for _, name := range []string{"slurm", "k8s", "write-mps"} {
		comps[name] = folders
	}
	return comps
}

// fixed completes one of vals.
func fixed(vals ...string) flagCompletion {
	return cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
}

// folders completes folder names.
func folders(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// noFiles completes nothing (a number, a duration).
func noFiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// registerCompletions registers the completion of every flag's values and
// of DIR arguments on c and its subcommands.
func registerCompletions(c *cobra.Command) {
	comps := flagCompletions()
	c.Flags().VisitAll(func(f *pflag.Flag) {
		comp, ok := comps[f.Name]
		switch {
		case f.Name == "out": // --out DIR (train, plot)
			comp, ok = folders, true
		case f.Name == "method" && c.Name() == "train": // train's methods, not finite's solvers
			comp, ok = fixed("alg1\tthe paper's Algorithm 1", "labels\ta softmax over a codebook against exact Bayes observers"), true
		case !ok && f.Value.Type() != "bool" && f.Value.Type() != "string" && f.Value.Type() != "stringSlice":
			comp, ok = noFiles, true // numbers and durations: no file names
		}
		if ok {
			_ = c.RegisterFlagCompletionFunc(f.Name, comp)
		}
	})
	if strings.HasSuffix(c.Use, " DIR") && c.ValidArgsFunction == nil {
		c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	}
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}

// completeOneLetterFlag answers the shell's request for the values of a
// one-letter long flag (--d, --p, --k, --n), which cobra's own completion
// cannot look up (it reads a one-letter name as a shorthand, -d), so that
// "mmds binary --d <Tab>" offers what the flag's completion says (nothing
// for a number) rather than file names. It reports whether it answered.
func completeOneLetterFlag(root *cobra.Command, args []string, w io.Writer) bool {
	if len(args) < 3 || (args[0] != cobra.ShellCompRequestCmd && args[0] != cobra.ShellCompNoDescRequestCmd) {
		return false
	}
	words := args[1:]
	last := words[len(words)-1]
	var name, toComplete string
	before := words[:len(words)-1]
	switch prev := before[len(before)-1]; {
	case len(last) >= 4 && strings.HasPrefix(last, "--") && last[3] == '=':
		name, toComplete = last[2:3], last[4:]
	case len(prev) == 3 && strings.HasPrefix(prev, "--"):
		name, toComplete, before = prev[2:], last, before[:len(before)-1]
	default:
		return false
	}
	cmd, rest, err := root.Find(before)
	if err != nil || cmd.Flags().Lookup(name) == nil {
		return false
	}
	comp, ok := cmd.GetFlagCompletionFunc(name)
	if !ok {
		return false
	}
	vals, directive := comp(cmd, rest, toComplete)
	for _, v := range vals {
		if args[0] == cobra.ShellCompNoDescRequestCmd {
			v, _, _ = strings.Cut(v, "\t")
		}
		fmt.Fprintln(w, v)
	}
	fmt.Fprintf(w, ":%d\n", directive)
	return true
}
