package main

import (
	"io"

	"github.com/spf13/cobra"
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
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	return root
}

// subcommands lists the constructors of every subcommand; each subcommand's
// file appends its own in an init function, so commands live in separate
// files that do not touch each other.
var subcommands []func() *cobra.Command

// usageArgs marks the errors of a cobra argument validator as bad input.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}
