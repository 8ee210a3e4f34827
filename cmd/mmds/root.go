package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/highsx"
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
		// others chose are refused (pflag itself names an old spelling).
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
		newTrainCmd(),
		newVerifyCmd(),
		newCertifyCmd(),
		newPlotCmd(),
		newBenchCmd(),
		newCompletionCmd(),
	)
	registerCompletions(root)
	guardFlags(root)
	return root
}

// usageArgs marks the errors of a cobra argument validator as bad input, in
// one line that shows the command's usage.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := v(cmd, args)
		var ue usageError
		if errors.As(err, &ue) {
			return err // the validator's own words
		}
		if err != nil {
			return badInput("%s: %s; usage: %s (see %s --help)", cmd.CommandPath(), argCount(args), cmd.UseLine(), cmd.CommandPath())
		}
		return nil
	}
}

// argCount describes the arguments a command was given.
func argCount(args []string) string {
	switch len(args) {
	case 0:
		return "no argument given"
	case 1:
		return "unexpected argument " + safefile.Excerpt(args[0])
	}
	return fmt.Sprintf("%d arguments given %s", len(args), safefile.ExcerptList(args))
}
