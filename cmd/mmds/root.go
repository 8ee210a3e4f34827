package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/version"
)

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "mmds",
		Short: "Exact optima, learned baselines and certificates for minimax data sanitization",
		Long: `mmds computes the exact privacy-utility optima of minimax data sanitization
(Moatazedian, Yakimenka, Chou, Kliewer), trains the paper's learned baseline,
and certifies trained models against those optima.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          usageArgs(cobra.NoArgs),
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Flag parse errors are bad input: exit status 2.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.Version = version.String() + ", HiGHS " + highsx.Version()
	root.SetVersionTemplate("mmds {{.Version}}\n")
	root.AddCommand(
		newBinaryCmd(),
		newFiniteCmd(),
		newGaussCmd(),
		newTrainCmd(),
		newVerifyCmd(),
		newCertifyCmd(),
		newExportCmd(),
		newPlotCmd(),
		newBenchCmd(),
	)
	completeFlagValues(root)
	return root
}

// flagValues are the values shell completion offers for enumerated flags.
var flagValues = map[string][]string{
	"format":    {"table", "csv", "json"},
	"preset":    {"paper", "quick"},
	"reference": {"paper", "best"},
}

// completeFlagValues registers completion of the values of enumerated flags
// on every command that has them.
func completeFlagValues(c *cobra.Command) {
	for name, vals := range flagValues {
		if c.Flags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	for _, sub := range c.Commands() {
		completeFlagValues(sub)
	}
}

// usageArgs marks the errors of a cobra argument validator as bad input.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}
