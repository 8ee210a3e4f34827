package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/progress"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/version"
)

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "mmds",
		Short: "Exact optima, learned baselines and certificates for minimax data sanitization",
		Long: `mmds computes the exact privacy-utility optima of minimax data sanitization
(Moatazedian, Yakimenka, Chou, Kliewer), trains the paper's learned baseline,
and certifies trained models against those optima.

Every command takes the same flags for the same meaning (docs/cli.md):
-o/--output FILE, --out DIR, --format, --seed, --workers. Exit status: 0 ok,
1 failure, 2 bad input, 3 cannot certify, 75 retry later, 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          usageArgs(cobra.NoArgs),
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		// Before any command runs, flags that do not apply to the mode the
		// others chose are refused.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return checkFlagModes(cmd) },
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Flag parse errors are bad input: exit status 2, one line.
	root.SetFlagErrorFunc(flagParseError)
	root.Version = version.String() + ", HiGHS " + highsx.Version()
	root.SetVersionTemplate("mmds {{.Version}}\n")
	root.CompletionOptions.DisableDefaultCmd = true // newCompletionCmd replaces it
	root.AddCommand(
		newBinaryCmd(),
		newFiniteCmd(),
		newGaussCmd(),
		newOptimumCmd(),
		newTrainCmd(),
		newVerifyCmd(),
		newCertifyCmd(),
		newExportCmd(),
		newPlotCmd(),
		newBenchCmd(),
		newCompletionCmd(),
		newVersionCmd(),
	)
	root.SetHelpCommand(newHelpCmd())
	// Flag descriptions wrap within the terminal, and within report.MaxWidth columns
	// when the help goes to a file or a pipe.
	width := report.MaxWidth
	if progress.IsTerminal(stdout) {
		width = min(width, progress.Width(stdout))
	}
	root.SetUsageTemplate(strings.ReplaceAll(root.UsageTemplate(), "Flags.FlagUsages ", fmt.Sprintf("Flags.FlagUsagesWrapped %d ", width)))
	registerCompletions(root)
	guardFlags(root)
	refuseEmptyArgs(root)
	return root
}

// refuseEmptyArgs makes an empty argument ("", as a script with an unset
// variable passes it) bad input on every command, before the command's
// own checks: read as a path it would be the current folder.
func refuseEmptyArgs(c *cobra.Command) {
	if c.Args != nil || c.Runnable() {
		inner := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			for i, a := range args {
				if strings.TrimSpace(a) == "" {
					want := "a value"
					if names := argNames(cmd.Use); i < len(names) {
						want = names[i]
					}
					return badInput("%sargument %d is empty: give %s (usage: %s)", subcommand(cmd), i+1, want, cmd.UseLine())
				}
			}
			if inner == nil {
				return nil
			}
			return inner(cmd, args)
		}
	}
	for _, sub := range c.Commands() {
		refuseEmptyArgs(sub)
	}
}

// usageArgs marks the errors of a cobra argument validator as bad input, in
// one line that says which arguments the command takes.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := v(cmd, args)
		var ue usageError
		if errors.As(err, &ue) {
			return err // the validator's own words
		}
		if err == nil {
			return nil
		}
		if !cmd.HasParent() {
			return badInput("unknown command %s (see mmds --help)", safefile.Excerpt(args[0]))
		}
		got := "got none"
		switch len(args) {
		case 0:
		case 1:
			got = "got " + safefile.Excerpt(args[0])
		default:
			got = fmt.Sprintf("got %d: %s", len(args), safefile.ExcerptList(args))
		}
		want := "takes no arguments"
		if names := argNames(cmd.Use); len(names) > 0 {
			want = fmt.Sprintf("accepts %s, %s", report.Plural(len(names), "argument"), strings.Join(names, " "))
		}
		return badInput("%s%s; %s (usage: %s)", strings.TrimSuffix(subcommand(cmd), ": ")+" ", want, got, cmd.UseLine())
	}
}

// subcommand names cmd for a message that "mmds: " already begins, as a
// prefix: its path below the root and ": " ("bench run: "), nothing for the
// root itself.
func subcommand(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return ""
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ") + ": "
}

// argNames lists the positional arguments a Use line names: the words in
// capitals that are not a flag's value ("verify DIR" → DIR).
func argNames(use string) []string {
	var names []string
	words := strings.Fields(use)
	for i := 1; i < len(words); i++ {
		w := words[i]
		if strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && !strings.HasPrefix(words[i-1], "-") && !strings.HasPrefix(words[i-1], "(-") {
			names = append(names, w)
		}
	}
	return names
}

// newVersionCmd is mmds version, as gh and kubectl have it beside
// --version: the same line.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of mmds and of HiGHS",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return report.Sayf(cmd.OutOrStdout(), "mmds %s", cmd.Root().Version)
		},
	}
}

// newHelpCmd is mmds help [command]: cobra's, except that a command that
// does not exist is bad input (exit 2) rather than a line on standard
// output and exit 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "help shows the help of a command: mmds help train is mmds train --help.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return badInput("help: no command %s (mmds --help lists them)", safefile.Excerpt(strings.Join(args, " ")))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}
