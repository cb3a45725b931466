package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newRootCmd builds the command tree.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "raftapi",
		Short: "A Kubernetes-style API server whose storage is its own Raft log",
		Long: `raftapi serves the Kubernetes HTTP API (namespaces, configmaps, secrets,
leases, events, custom resources) from one static binary, replicated across
1, 3 or 5 nodes with Raft. The raft log index is the resourceVersion.

Every flag of every command can also be set in the environment as
RAFTAPI_<FLAG> (upper case, dashes as underscores, e.g. RAFTAPI_DATA_DIR);
a flag on the command line wins over the environment.`,
		Example: `  # Run a single node (data in ./raftapi-data, API on https://127.0.0.1:8080)
  raftapi serve

  # Use it
  kubectl --kubeconfig raftapi-data/admin.kubeconfig get namespaces

  # Inspect the cluster
  raftapi status --kubeconfig raftapi-data/admin.kubeconfig`,
		Version:           versionLine(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		Args:              noArgs,
		PersistentPreRunE: applyEnvAndConfig,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err: err} })
	root.AddCommand(newServeCmd(), newStatusCmd(), newMembersCmd(), newLeaveCmd(), newSnapshotCmd(),
		newDefragCmd(), newTokenCmd(), newKubeconfigCmd(), newVersionCmd())
	return root
}

// noArgs accepts no positional arguments: for a command with sub-commands,
// an argument is an unknown sub-command.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasSubCommands() {
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return &usageError{err: errors.New(msg)}
	}
	return usagef("%q takes no arguments, got %q", cmd.CommandPath(), args)
}

// exactArgs accepts exactly the named positional arguments.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return usagef("%q wants %d argument(s) (%v), got %d", cmd.CommandPath(), len(names), names, len(args))
		}
		return nil
	}
}

// groupCmd is a command whose work is done by its sub-commands: alone, it
// prints its help.
func groupCmd(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
}

// completeValues completes a flag from a fixed list of values.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	})
}

// visitFlags calls fn for every flag that cmd accepts, its own and those
// inherited from its parents.
func visitFlags(cmd *cobra.Command, fn func(*pflag.Flag)) {
	cmd.Flags().VisitAll(fn)
	cmd.InheritedFlags().VisitAll(fn)
}

// outputFlag adds -o/--output with the given formats, the first the
// default, and returns a function that checks the value given.
func outputFlag(cmd *cobra.Command, output *string, formats ...string) func() error {
	cmd.Flags().StringVarP(output, "output", "o", formats[0], "output format: "+strings.Join(formats, " or "))
	completeValues(cmd, "output", formats...)
	return func() error {
		for _, f := range formats {
			if *output == f {
				return nil
			}
		}
		return usagef("--output: %q is neither %s", *output, strings.Join(formats, " nor "))
	}
}
